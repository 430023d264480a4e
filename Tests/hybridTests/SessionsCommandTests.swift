import Foundation
@testable import hybrid
import Testing

/// `hybrid chat --session ID` saves and resumes a conversation; `hybrid sessions list|show|rm`.
@Suite("hybrid sessions", .serialized)
struct SessionsCommandTests {
  let cli = HybridCommandTests()

  /// Runs `hybrid chat` with `input` on standard input; returns its exit status and standard output.
  func chat(_ input: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String) {
    let result = try await cli.run(["chat", "--greedy", "--max-tokens", "8"] + arguments, input: input)
    return (result.status, result.stdout)
  }

  @Test("a chat saved with --session is listed, shown, resumed by a new process, and removed")
  func saveResumeRemove() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-sessions-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = ["--sessions-dir", directory.path]

    let first = try await chat("Hello\n/exit\n", ["--session", "talk-1"] + store)
    #expect(first.status == 0)
    let list = try await cli.run(["sessions", "list"] + store)
    #expect(list.status == 0, "\(list.stderr)")
    #expect(list.stdout.hasPrefix("talk-1 "), "\(list.stdout)")
    #expect(list.stdout.contains("2 entries"), "\(list.stdout)")

    let show = try await cli.run(["sessions", "show", "talk-1"] + store)
    #expect(show.stdout.hasPrefix("you> Hello\nai> "), "\(show.stdout)")
    // Shown later, each answer is followed by the line `chat` showed after it: the model and where
    // it ran, the tokens, and why it ended (an answer cut off by --max-tokens says so).
    let live = try await cli.run(["chat", "--greedy", "--max-tokens", "2", "--session", "cut"] + store,
                                 input: "Write a long story.\n")
    #expect(live.status == 0)
    let cut = try await cli.run(["sessions", "show", "cut"] + store)
    let cutLine = try #require(cut.stdout.split(separator: "\n").last.map(String.init))
    #expect(cutLine.hasPrefix("  [SmolLM2") && cutLine.contains("(on-device) · prompt ") && cutLine.hasSuffix("· output 2 tokens · finish: maxTokens]"),
            "\(cut.stdout)")
    #expect(live.stderr.contains(cutLine.dropLast().dropFirst(3)), "the same as chat said live: \(live.stderr)")
    #expect(try await cli.run(["chat", "--greedy", "--max-tokens", "64", "--session", "whole"] + store, input: "Say hi.\n").status == 0)
    let whole = try await cli.run(["sessions", "show", "whole"] + store)
    #expect(whole.stdout.hasPrefix("you> Say hi.\nai> ") && whole.stdout.hasSuffix("· finish: stop]\n"), "\(whole.stdout)")
    for id in ["cut", "whole"] { #expect(try await cli.run(["sessions", "rm", id] + store).status == 0) }

    // A new process continues the conversation: the saved transcript grows by one turn.
    #expect(try await chat("And again\n", ["--session", "talk-1"] + store).status == 0)
    let listed = try await cli.run(["sessions", "list", "--json"] + store)
    let records = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
    #expect(records.count == 1)
    #expect(records.first?["entryCount"] as? Int == 4)
    let updated = try #require(records.first?["updatedAt"] as? String, "dates are ISO 8601 text, not seconds since 2001")
    let parsed = try #require(try? Date(updated, strategy: .iso8601), "\(updated)")
    #expect(abs(parsed.timeIntervalSinceNow) < 3600)

    #expect(try await cli.run(["sessions", "rm", "talk-1"] + store).status == 0)
    #expect(try await cli.run(["sessions", "list"] + store).stdout == "no sessions\n")
    let missing = try await cli.run(["sessions", "show", "talk-1"] + store)
    #expect(missing.status != 0)
    let tricky = try await cli.run(["sessions", "show", "../etc"] + store)
    #expect(tricky.status != 0)
  }
}
