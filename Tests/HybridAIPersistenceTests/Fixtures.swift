import Foundation
import HybridAI
import HybridAITestSupport

/// A fresh temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("HybridAIPersistenceTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

/// Transcripts as a session with tools would record them.
enum Fixtures {
  /// A conversation: instructions, a prompt, a tool call, its output referring to `artifacts`,
  /// and an answer.
  static func transcript(prompt: String = "Read this aloud", artifacts: [ArtifactReference] = []) -> Transcript {
    var transcript = Transcript()
    transcript.append(.instructions(.init(text: "You are helpful.")))
    transcript.append(.prompt(.init(text: prompt)))
    let call = Transcript.ToolCall(toolName: "speak", arguments: GeneratedContent(properties: ["text": prompt]))
    transcript.append(.toolCalls(.init(calls: [call], modelVersion: "stub-model")))
    let lines = artifacts.map(\.modelDescription).joined(separator: "\n")
    // The transcript records references without file URLs, as sessions do.
    let recorded = artifacts.map { ArtifactReference(id: $0.id, name: $0.name, mimeType: $0.mimeType, size: $0.size) }
    transcript.append(.toolOutput(.init(callID: call.id, toolName: "speak", text: "done\n" + lines, artifacts: recorded)))
    transcript.append(.response(.init(text: "Here it is: ü ✓ \"quoted\"", modelVersion: "stub-model")))
    return transcript
  }

  /// Stores an artifact with `text` as its bytes.
  static func storeArtifact(_ text: String, name: String = "note.txt", in store: any ArtifactStore) throws -> ArtifactReference {
    try store.store(Artifact(data: Data(text.utf8), mimeType: "text/plain", name: name))
  }
}
