import Foundation
import HybridAIProcess
import HybridAITestSupport
import Testing

/// Ctrl-C (SIGINT) in `hybrid generate` and `hybrid chat` on the real model: the answer stops,
/// what the user asked for still comes out in its form, and the stop is not reported as an error.
@Suite("Ctrl-C in generate and chat")
struct InterruptCommandTests {
  static let longPrompt = "List every country in the world with its capital, one per line."

  @Test("generate --json stopped by Ctrl-C prints a cancelled error object and exits 130")
  func generateJSONInterrupted() async throws {
    let child = try await ChildProcess(executable: HybridCommandTests.executable, arguments: [
      "generate", "--prompt", Self.longPrompt, "--greedy", "--max-tokens", "3000", "--json",
    ]).start(standardError: .collected)
    // Once Ctrl-C is caught (from the start of the command), it stops loading or answering.
    #expect(await child.waitUntilCatching(SIGINT))
    try await Task.sleep(for: .milliseconds(300))
    child.send(signal: SIGINT)
    var lines: [String] = []
    while let line = await child.nextLine() { lines.append(line) }
    let outcome = await child.waitForExit()
    #expect(!outcome.wasSignalled && outcome.status == 130, "\(outcome.status) \(outcome.standardError)")
    let printed = try #require(try JSONSerialization.jsonObject(with: Data(lines.joined(separator: "\n").utf8)) as? [String: Any],
                               "one JSON object: \(lines)")
    #expect((printed["error"] as? [String: Any])?["kind"] as? String == "cancelled", "\(printed)")
    #expect(((printed["error"] as? [String: Any])?["message"] as? String)?.contains("stopped") == true, "\(printed)")
    #expect(!outcome.standardError.contains("error"), "a stop asked for is not an error: \(outcome.standardError)")
  }

  @Test("chat: Ctrl-C stops the answer being written ([stopped], no llama.cpp errors), the chat goes on, /exit exits 0")
  func chatAnswerInterrupted() async throws {
    let child = try await ChildProcess(executable: HybridCommandTests.executable, arguments: [
      "chat", "--greedy", "--max-tokens", "3000",
    ]).start(standardError: .collected)
    try await child.write(Self.longPrompt + "\n")
    // The answer is streaming once its first line has come.
    let first = await child.firstLine { $0.contains("ai> ") ? $0 : nil }
    #expect(first != nil)
    child.send(signal: SIGINT)
    try await child.write("/usage\n/exit\n")
    await child.closeInput()
    let outcome = await child.waitForExit()
    #expect(!outcome.wasSignalled && outcome.status == 0, "\(outcome.status) \(outcome.standardError)")
    #expect(outcome.standardError.contains("[stopped]"), "\(outcome.standardError)")
    #expect(outcome.standardError.contains("[session: prompt"), "the chat went on after the stop: \(outcome.standardError)")
    for noise in ["graph_compute", "failed to decode", "removing memory module", "error"] {
      #expect(!outcome.standardError.contains(noise), "\(noise) in \(outcome.standardError)")
    }
  }
}
