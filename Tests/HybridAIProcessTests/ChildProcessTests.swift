import Foundation
@testable import HybridAIProcess
import Synchronization
import Testing

/// `ChildProcess.run`: real programs (`/bin/sh`), their output, status and every way a run fails.
@Suite struct ChildProcessTests {
  static func shell(_ script: String, timeLimit: Duration? = nil, environment: [String: String?] = [:]) -> ChildProcess {
    ChildProcess(executable: "/bin/sh", arguments: ["-c", script], environment: environment, timeLimit: timeLimit)
  }

  @Test func collectsOutputAndStandardErrorApartOrMerged() async throws {
    let script = "echo out; echo err >&2; exit 3"
    let apart = try await Self.shell(script).run(output: .collected(limit: 1024))
    #expect(apart.standardOutput == "out\n")
    #expect(apart.standardError == "err\n")
    #expect(apart.status == 3 && !apart.wasSignalled && !apart.succeeded)

    let merged = try await Self.shell(script).run(output: .collectedWithStandardError(limit: 1024))
    #expect(merged.standardOutput.contains("out\n") && merged.standardOutput.contains("err\n"))
    #expect(merged.standardError.isEmpty)
  }

  @Test func passesTheEnvironmentAndLooksUpNamesInPath() async throws {
    let outcome = try await ChildProcess(executable: "sh", arguments: ["-c", "printf %s \"$GREETING\""],
                                         environment: ["GREETING": "hello there"]).run(output: .collected(limit: 64))
    #expect(outcome.succeeded)
    #expect(outcome.standardOutput == "hello there")
  }

  @Test func readsTheGivenStandardInput() async throws {
    var child = Self.shell("tr a-z A-Z")
    child.standardInput = Data("shout\n".utf8)
    #expect(try await child.run(output: .collected(limit: 64)).standardOutput == "SHOUT\n")
    // Without input the child reads end-of-file at once.
    #expect(try await Self.shell("cat; echo done").run(output: .collected(limit: 64)).standardOutput == "done\n")
  }

  @Test func writesOutputToAFileAsItComes() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).txt")
    defer { try? FileManager.default.removeItem(at: file) }
    try Data("old contents that must go".utf8).write(to: file)
    let task = Task { try await Self.shell("echo first; exec sleep 600").run(output: .file(file)) }
    // Until the child's first line is there (up to 5 s): the old contents are what a slow start
    // (a loaded machine) shows first, so they cannot end the wait; appended-to, the file never
    // reads "first\n" alone.
    var seen = ""
    for _ in 0..<200 where seen != "first\n" {
      try await Task.sleep(for: .milliseconds(25))
      seen = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }
    #expect(seen == "first\n")   // replaced, and readable while the child still runs
    task.cancel()
    _ = try? await task.value
  }

  @Test func aChattyStandardErrorKeepsItsEndAndNeverFailsTheRun() async throws {
    let outcome = try await Self.shell("head -c 3000000 /dev/zero | tr '\\0' x >&2; echo THE-END >&2").run()
    #expect(outcome.succeeded)
    #expect(outcome.standardError.utf8.count <= ChildProcess.maximumStandardErrorBytes)
    #expect(outcome.standardError.hasSuffix("xxTHE-END\n"))
  }

  @Test func aSignalledChildSaysWhichSignal() async throws {
    let outcome = try await Self.shell("kill -USR1 $$").run()
    #expect(outcome.wasSignalled)
    #expect(outcome.status == SIGUSR1)
  }

  @Test func failuresAreTyped() async throws {
    await #expect(throws: ChildProcess.Failure.timedOut(.milliseconds(200))) {
      try await Self.shell("exec sleep 600", timeLimit: .milliseconds(200)).run()
    }
    await #expect(throws: ChildProcess.Failure.outputTooLarge(limit: 100)) {
      try await Self.shell("head -c 100000 /dev/zero").run(output: .collected(limit: 100))
    }
    let failure = try await #require(throws: ChildProcess.Failure.self) {
      try await ChildProcess(executable: "/nonexistent/program").run()
    }
    guard case .launchFailed(let reason) = failure else {
      Issue.record("expected launchFailed, got \(failure)")
      return
    }
    #expect(reason.contains("/nonexistent/program"))
  }

  @Test func cancellingTheCallerKillsTheChild() async throws {
    let clock = ContinuousClock()
    let started = clock.now
    let task = Task { try await Self.shell("exec sleep 600").run() }
    try await Task.sleep(for: .milliseconds(200))
    task.cancel()
    await #expect(throws: ChildProcess.Failure.cancelled) { try await task.value }
    // Killed, not waited for: far sooner than the child's 600 s (a loaded CI machine took 20 s once).
    #expect(clock.now - started < .seconds(300))
  }
}

/// `RunningChildProcess`: a child that keeps running while the parent reads its lines, writes to
/// it, signals it and stops it.
@Suite struct RunningChildProcessTests {
  @Test func readsLinesAndWaitsForTheEnd() async throws {
    let child = try await ChildProcessTests.shell("echo one; echo two; echo three; exit 7").start()
    #expect(await child.nextLine() == "one")
    #expect(await child.firstLine(where: { $0.hasPrefix("th") ? $0.uppercased() : nil }) == "THREE")
    #expect(await child.nextLine() == nil)
    let outcome = await child.waitForExit()
    #expect(outcome.status == 7 && !outcome.wasSignalled)
    #expect(!child.isRunning)
  }

  @Test("a line of 1 MiB is read whole; one over maximumLineBytes ends the output with a typed failure, the lines before it kept")
  func longLines() async throws {
    // 1 MiB of 'x', then a line over the 4 KiB limit set below, then one that is never read.
    let whole = try await ChildProcessTests.shell("head -c 1048576 /dev/zero | tr '\\0' x; echo").start()
    #expect(await isWholeLine(whole, length: 1 << 20))
    _ = await whole.waitForExit()
    var limited = ChildProcessTests.shell("echo short; head -c 5000 /dev/zero | tr '\\0' y; echo; echo after")
    limited.maximumLineBytes = 4096
    let running = try await limited.start()
    #expect(await running.nextLine() == "short")
    #expect(await running.nextLine() == nil)
    #expect(running.outputFailure == .outputTooLarge(limit: 4096))
    _ = await running.waitForExit()

    func isWholeLine(_ running: RunningChildProcess, length: Int) async -> Bool {
      let line = await running.nextLine()
      return line?.utf8.count == length && line?.allSatisfy { $0 == "x" } == true && running.outputFailure == nil
    }
  }

  @Test func answersWhatIsWrittenToItsInput() async throws {
    let child = try await ChildProcessTests.shell("while read a b; do echo $((a + b)); done; echo bye").start()
    try await child.write("2 3\n")
    #expect(await child.nextLine() == "5")
    try await child.write("40 2\n")
    #expect(await child.nextLine() == "42")
    await child.closeInput()
    #expect(await child.nextLine() == "bye")
    #expect(await child.waitForExit().succeeded)
    await #expect(throws: ChildProcess.Failure.self) { try await child.write("1 1\n") }
  }

  @Test func stopSendsTheSignalAndTheChildHandlesIt() async throws {
    let child = try await ChildProcessTests.shell("trap 'echo stopping; exit 0' TERM; echo ready; while :; do sleep 0.05; done")
      .start()
    #expect(await child.nextLine() == "ready")
    #expect(child.isRunning)
    let outcome = await child.stop(gracePeriod: .seconds(20))
    #expect(outcome.succeeded)
    #expect(await child.nextLine() == "stopping")
  }

  @Test func stopKillsAChildThatIgnoresTheSignal() async throws {
    // Long enough to outlive any wait for a busy test process to get round to stopping it.
    let child = try await ChildProcessTests.shell("trap '' TERM; echo ready; exec sleep 600").start()
    #expect(await child.nextLine() == "ready")
    let outcome = await child.stop(gracePeriod: .milliseconds(300))
    #expect(outcome.wasSignalled)
    #expect(outcome.status == SIGKILL)
  }

  @Test func collectsStandardErrorForTheOutcome() async throws {
    let child = try await ChildProcessTests.shell("echo problem >&2; exit 1").start(standardError: .collected)
    let outcome = await child.waitForExit()
    #expect(outcome.status == 1)
    #expect(outcome.standardError == "problem\n")
  }

  @Test("standard error line by line as it comes (CRLF too, the last line without a break), and still collected")
  func forwardsStandardErrorLines() async throws {
    let lines = Mutex<[String]>([])
    let child = try await ChildProcessTests.shell(#"printf 'one\ntwo\r\n\nlast' >&2; echo ready"#)
      .start(standardError: .collectedLines { line in lines.withLock { $0.append(line) } })
    #expect(await child.nextLine() == "ready")
    let outcome = await child.waitForExit()
    #expect(lines.withLock { $0 } == ["one", "two", "", "last"])
    #expect(outcome.standardError == "one\ntwo\r\n\nlast")
  }

  @Test("a line that never ends is handed on in pieces of the collected size")
  func splitsEndlessLines() {
    var splitter = LineSplitter(limit: 4)
    var lines: [String] = []
    Array("abcdefghij\nk".utf8).withUnsafeBytes { splitter.append($0) { lines.append($0) } }
    splitter.finish { lines.append($0) }
    #expect(lines == ["abcd", "efgh", "ij", "k"])
  }

  @Test func aProgramThatCannotStartIsALaunchFailure() async throws {
    await #expect(throws: ChildProcess.Failure.self) {
      try await ChildProcess(executable: "/nonexistent/program").start()
    }
  }
}
