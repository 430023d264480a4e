import Foundation
import HybridAI
import Testing

/// The artifact references on transcript tool-output entries: round trip, and compatibility with
/// transcripts written before the field existed.
@Suite struct ToolOutputArtifactCodingTests {
  @Test func roundTripWithArtifactReferences() throws {
    let reference = ArtifactReference(id: "0b6f1c2e-5d4a-4c3b-9a8e-7f6d5c4b3a21", name: "speech.wav",
                                      mimeType: "audio/wav", size: 12_345)
    let transcript = Transcript(entries: [
      .toolOutput(Transcript.ToolOutput(id: "o1", callID: "c1", toolName: "speak",
                                        text: "Spoke.\n" + reference.modelDescription, artifacts: [reference])),
    ])
    let data = try transcript.jsonData()
    let decoded = try Transcript(jsonData: data)
    #expect(decoded == transcript)
    #expect(try decoded.jsonData() == data)
    guard case .toolOutput(let output) = decoded.first else { Issue.record("no tool output"); return }
    #expect(output.artifacts == [reference])
  }

  /// The JSON of an artifact-free tool output, byte for byte as format 2 wrote it before artifacts.
  static let artifactFreeJSON = #"{"entries":[{"callID":"c1","id":"o1","isError":false,"#
    + #""segments":[{"content":"5","id":"s1","type":"text"}],"toolName":"add","type":"toolOutput"}],"version":2}"#

  @Test func entriesWithoutArtifactsEncodeAsBefore() throws {
    let transcript = Transcript(entries: [
      .toolOutput(Transcript.ToolOutput(id: "o1", callID: "c1", toolName: "add",
                                        segments: [.text(Transcript.TextSegment(id: "s1", content: "5"))])),
    ])
    #expect(String(data: try transcript.jsonData(), encoding: .utf8) == Self.artifactFreeJSON)
  }

  @Test func olderTranscriptsWithoutTheFieldStillDecode() throws {
    let transcript = try Transcript(jsonData: Data(Self.artifactFreeJSON.utf8))
    guard case .toolOutput(let output) = transcript.first else { Issue.record("no tool output"); return }
    #expect(output.artifacts.isEmpty)
    #expect(output.callID == "c1")
    #expect(Transcript.Entry.toolOutput(output).text == "5")
  }
}
