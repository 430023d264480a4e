import Foundation
@testable import hybrid
import HybridAI
import HybridAITools
import Testing

/// Persistence across real process restarts, with artifacts: one `hybrid chat --session` process
/// makes speech with the `speak` tool and exits; new `hybrid` processes show the saved session (the
/// tool call, its output's artifact reference, the WAV file), continue it, and remove it.
@Suite("hybrid sessions across process restarts", .serialized)
struct SessionRestartCommandTests {
  /// Runs `hybrid arguments` with `input` on standard input, off the cooperative pool.
  func hybrid(_ arguments: [String], input: String? = nil) async throws -> HybridCommandTests.Run {
    try await HybridCommandTests().run(arguments, input: input)
  }

  /// `hybrid sessions show ID --json`, parsed.
  func show(_ id: String, _ store: [String]) async throws -> [String: Any] {
    let shown = try await hybrid(["sessions", "show", id, "--json"] + store)
    #expect(shown.status == 0, "\(shown.stderr)")
    return try #require(JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any], "\(shown.stdout)")
  }

  @Test("a session whose tool made a WAV is shown, continued and removed by new processes; the file outlives its process")
  func artifactSurvivesRestart() async throws {
    try #require(FileManager.default.isExecutableFile(atPath: HybridCommandTests.executable.path), "build the hybrid product first")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-restart-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = ["--sessions-dir", directory.path]
    let id = "speech-1"

    // Process 1: the model must call `speak` (once), then answers; the session is saved on exit.
    let first = try await hybrid(["chat", "--greedy", "--max-tokens", "60", "--session", id, "--tools",
                                  "--required-tool", "speak", "--max-tool-rounds", "1"] + store,
                                 input: "Say hello out loud\n/exit\n")
    #expect(first.status == 0, "\(first.stderr)")
    // The call and the reference the model saw (printed once the answer is complete) …
    #expect(first.stderr.contains("  [tool] speak("), "\(first.stderr)")
    #expect(first.stderr.contains(" audio/wav "), "\(first.stderr)")
    // … and the file, announced while the tool ran.
    let artifactLine = try #require(first.stderr.split(separator: "\n").first { $0.contains("[artifact] ") },
                                    "\(first.stderr)")
    #expect(artifactLine.contains("audio/wav") && artifactLine.contains("(from speak)"), "\(artifactLine)")
    let announcedPath = try #require(artifactLine.components(separatedBy: " → ").last?
      .replacingOccurrences(of: " (from speak)", with: ""))
    #expect(announcedPath.hasPrefix(directory.appendingPathComponent("artifacts").path), "\(announcedPath)")
    let originalBytes = try Data(contentsOf: URL(fileURLWithPath: announcedPath))

    // Process 2: a new process sees the tool call, the output's artifact reference and the file.
    let saved = try await show(id, store)
    let entries = try #require(saved["entries"] as? [[String: Any]])
    let calls = entries.filter { $0["type"] as? String == "toolCalls" }
      .flatMap { $0["calls"] as? [[String: Any]] ?? [] }
    #expect(calls.map { $0["toolName"] as? String } == ["speak"], "\(entries)")
    let output = try #require(entries.first { $0["type"] as? String == "toolOutput" }, "\(entries)")
    #expect(output["toolName"] as? String == "speak" && output["callID"] as? String == calls.first?["id"] as? String)
    let reference = try #require((output["artifacts"] as? [[String: Any]])?.first, "\(output)")
    let artifactID = try #require(reference["id"] as? String)
    #expect(reference["mimeType"] as? String == "audio/wav")
    #expect((reference["name"] as? String)?.hasSuffix(".wav") == true)
    #expect(entries.last?["type"] as? String == "response")

    let artifacts = try #require(saved["artifacts"] as? [[String: Any]])
    #expect(artifacts.count == 1 && saved["missingArtifactIDs"] as? [String] == [])
    let artifact = try #require(artifacts.first)
    #expect(artifact["id"] as? String == artifactID && artifact["mimeType"] as? String == "audio/wav")
    let path = try #require(artifact["path"] as? String)
    #expect(path == announcedPath)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(bytes == originalBytes && artifact["size"] as? Int == bytes.count)
    let info = try WAVInfo(data: bytes)
    #expect(info.duration > 0 && info.sampleRate > 0 && info.channels > 0)

    let text = try await hybrid(["sessions", "show", id] + store)
    #expect(text.stdout.hasPrefix("you> Say hello out loud\n  [tool call] speak("), "\(text.stdout)")
    #expect(text.stdout.contains("[artifact \(artifactID) "), "\(text.stdout)")
    #expect(text.stdout.contains("audio/wav · \(bytes.count) bytes → \(path)\n"), "\(text.stdout)")

    // Process 3: another new process continues the conversation; what was saved stays as it was.
    let second = try await hybrid(["chat", "--greedy", "--max-tokens", "8", "--session", id] + store,
                                  input: "Thanks\n")
    #expect(second.status == 0, "\(second.stderr)")
    #expect(second.stderr.contains("(resumed session \(id): \(entries.count) entries)"), "\(second.stderr)")
    let continued = try await show(id, store)
    let grown = try #require(continued["entries"] as? [[String: Any]])
    #expect(grown.count == entries.count + 2)
    #expect(NSArray(array: Array(grown.prefix(entries.count))).isEqual(to: entries), "earlier entries changed")
    #expect(grown[entries.count]["type"] as? String == "prompt" && grown.last?["type"] as? String == "response")
    #expect((continued["record"] as? [String: Any])?["entryCount"] as? Int == grown.count)
    #expect((continued["artifacts"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [artifactID])
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == originalBytes)

    // Process 4: removing the session removes the artifact no other session refers to.
    let removed = try await hybrid(["sessions", "rm", id] + store)
    #expect(removed.status == 0, "\(removed.stderr)")
    #expect(!FileManager.default.fileExists(atPath: path))
    #expect(try await hybrid(["sessions", "show", id] + store).status != 0)
    #expect(try await hybrid(["sessions", "list"] + store).stdout == "no sessions\n")
  }

  @Test("--required-tool is checked before anything runs, in chat and generate")
  func requiredToolValidation() {
    #expect(throws: (any Error).self) { try ChatCommand.parse(["--required-tool", "speak"]) }
    #expect(throws: (any Error).self) { try ChatCommand.parse(["--tools", "--required-tool", "nope"]) }
    #expect(throws: (any Error).self) {
      try ChatCommand.parse(["--tools", "--tool-choice", "none", "--required-tool", "speak"])
    }
    #expect(throws: (any Error).self) { try GenerateCommand.parse(["--tools", "--required-tool", "nope", "--prompt", "hi"]) }
    let none = GenerationOptions()
    let command = try? ChatCommand.parse(["--tools", "--required-tool", "speak"])
    #expect(command?.tools.applied(to: none).toolChoice == .required(tools: ["speak"]))
    #expect((try? ChatCommand.parse(["--tools", "--tool-choice", "required"]))?.tools.applied(to: none).toolChoice == .required())
    #expect((try? GenerateCommand.parse(["--tools", "--required-tool", "calculator", "--prompt", "hi"]))?.tools.applied(to: none).toolChoice
            == .required(tools: ["calculator"]))
  }
}
