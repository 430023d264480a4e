import Foundation
import HybridAI
import HybridAITools
import Testing

@Suite("SpeakTool")
struct SpeakToolTests {
  /// The tool with room for a busy machine: the whole suite's processes share two cores, and the
  /// default 60 s was missed there by a call that takes well under a second alone.
  static let patientTool = SpeakTool(timeLimit: .seconds(300))

  /// Writes the artifact's bytes to a file and asks sox for its duration in seconds.
  private func soxDuration(of wav: Data) async throws -> Double {
    let directory = try ToolTestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("speech.wav")
    try wav.write(to: url)
    let text = try await ToolTestSupport.output(of: "/usr/bin/soxi", ["-D", url.path])
    return try #require(Double(text), "soxi said '\(text)'")
  }

  @Test("the WAV is valid audio of a plausible length, checked with sox")
  func validWAV() async throws {
    let progress = ProgressLog()
    let output = try await Self.patientTool.call(arguments: .init(text: "Hello there. This is HybridAI speaking."),
                                            context: ToolTestSupport.context(progress))
    let artifact = try #require(output.artifacts.first)
    #expect(output.artifacts.count == 1)
    #expect(artifact.name == "speech.wav")
    #expect(artifact.mimeType == "audio/wav")
    let wav = try #require(artifact.data)
    #expect(artifact.size == Int64(wav.count))
    let info = try WAVInfo(data: wav)
    #expect(info.channels == 1 && info.sampleRate == 22050 && info.bitsPerSample == 16)
    let seconds = try await soxDuration(of: wav)
    #expect(abs(seconds - info.duration) < 0.01)
    #expect((1.0...8.0).contains(seconds), "\(seconds) s for six words")
    #expect(output.description.hasPrefix("Created speech.wav ("))
    #expect(progress.fractions.first == 0.1 && progress.fractions.last == 1)
  }

  @Test("text with leading dashes is spoken, not taken as options")
  func leadingDashes() async throws {
    let directory = try ToolTestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let target = directory.appendingPathComponent("pwned.wav")
    let text = "-w \(target.path) --help -v xx --version"
    let wav = try await Self.patientTool.synthesize(text)
    let seconds = try await soxDuration(of: wav)
    #expect(seconds > 1, "the options' words are spoken: \(seconds) s")
    #expect(!FileManager.default.fileExists(atPath: target.path))
  }

  @Test("empty and oversize text give typed errors")
  func invalidText() async throws {
    await #expect(throws: SpeakToolError.emptyText) { try await SpeakTool().synthesize("  \n ") }
    await #expect(throws: SpeakToolError.textTooLong(byteCount: 11, limit: 10)) {
      try await SpeakTool(maximumTextByteCount: 10).synthesize("hello world")
    }
    await #expect(throws: SpeakToolError.synthesizerNotFound(searched: "/nonexistent/espeak-ng")) {
      try await SpeakTool(executablePath: "/nonexistent/espeak-ng").synthesize("hello")
    }
  }

  @Test("a call past the time limit kills espeak-ng")
  func timeLimit() async throws {
    let long = String(repeating: "This sentence takes a while to say. ", count: 500)
    await #expect(throws: SpeakToolError.timedOut(limit: .milliseconds(50))) {
      try await SpeakTool(maximumTextByteCount: 100_000, timeLimit: .milliseconds(50)).synthesize(long)
    }
  }

  @Test("cancelling the call kills espeak-ng")
  func cancellation() async throws {
    let long = String(repeating: "This sentence takes a while to say. ", count: 2500)
    let task = Task { try await SpeakTool(maximumTextByteCount: 100_000).synthesize(long) }
    try await Task.sleep(for: .milliseconds(100))
    task.cancel()
    await #expect(throws: SpeakToolError.cancelled) { try await task.value }
  }

  @Test("WAVInfo rejects what is not RIFF/WAVE")
  func invalidHeaders() {
    #expect(throws: WAVError.notRIFFWAVE) { try WAVInfo(data: Data("hello, world".utf8)) }
    var noData = Data("RIFF".utf8) + Data([4, 0, 0, 0]) + Data("WAVE".utf8)
    #expect(throws: WAVError.missingChunk("fmt ")) { try WAVInfo(data: noData) }
    noData += Data("fmt ".utf8) + Data([16, 0, 0, 0, 1, 0, 1, 0, 0x22, 0x56, 0, 0, 0x44, 0xAC, 0, 0, 2, 0, 16, 0])
    #expect(throws: WAVError.missingChunk("data")) { try WAVInfo(data: noData) }
  }
}
