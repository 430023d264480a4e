import Foundation
import HybridAIProcess
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child process ran, measured from outside: its exit status, wall time from spawn to exit,
/// peak resident memory (`wait4`'s `rusage.ru_maxrss`) and what it printed.
struct MeasuredProcessResult: Sendable {
  /// The command line, for messages.
  var commandLine: String
  /// The exit status, or 128 + the signal's number when a signal ended it (as shells report it).
  var terminationStatus: Int32
  /// Seconds from just before `posix_spawn` to `wait4`'s return.
  var wallSeconds: Double
  /// The child's peak resident set size, in bytes: GNU time's `%M` when the child ran under it,
  /// else `wait4`'s `ru_maxrss` (which is at least this process's own peak: see ``MeasuredProcess``).
  var peakResidentBytes: Int64
  /// Whether ``peakResidentBytes`` is the program's own (measured by GNU time), not `wait4`'s.
  var peakResidentIsOwn: Bool
  /// CPU seconds in user and kernel mode (`wait4`'s `ru_utime`, `ru_stime`: the child's and
  /// those of the children it waited for, so under GNU time the program's).
  var userSeconds: Double
  var systemSeconds: Double
  var standardOutput: Data
  var standardError: Data

  var succeeded: Bool { terminationStatus == 0 }

  /// ``peakResidentBytes`` in MiB.
  var peakResidentMiB: Double { Double(peakResidentBytes) / 1_048_576 }

  /// Standard output as text.
  var outputText: String { String(decoding: standardOutput, as: UTF8.self) }

  /// The last `limit` characters of standard error, for error messages.
  func standardErrorTail(_ limit: Int = 600) -> String {
    let text = String(decoding: standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return text.count > limit ? "…" + text.suffix(limit) : text
  }
}

/// Why a child process could not be run.
struct MeasuredProcessError: Error, CustomStringConvertible {
  var description: String
}

/// Runs a program as a child process with `posix_spawn` and waits for it with `wait4`, measuring
/// its wall time and peak resident memory. This is the one child-process runner that is not
/// HybridAIProcess's `ChildProcess`: measuring needs `wait4`'s `rusage` and a spawn with nothing
/// between the clock and the child, which swift-subprocess does not expose.
///
/// Peak memory needs care: Linux's `ru_maxrss` survives `exec`, and `exec` folds the old address
/// space's high-water mark into it. A child of `posix_spawn` (a `vfork`) execs from *this*
/// process's address space, and a `fork`ed one from a copy of it, so `wait4` reports at least this
/// process's own peak (a `curl --version` spawned by a 300 MiB process "peaks" at 300 MiB). Hence
/// `peakMemoryVia`: GNU time (`/usr/bin/time -f %M`) starts the program from its own small
/// address space and reports the program's `ru_maxrss` from its own `wait4`; the wall time then
/// includes one extra fork and exec (about a millisecond).
///
/// Standard input is `/dev/null`; standard output and error go to files in `outputDirectory`,
/// read back and deleted afterwards (no pipe to drain while the child runs). The child gets this
/// process's environment and default signal dispositions with nothing blocked (a server in this
/// process may have set SIGINT/SIGTERM to be ignored, which a plain exec would pass on).
/// The blocking `wait4` runs on a thread of its own, never on a Swift concurrency thread.
enum MeasuredProcess {
  /// Runs `executable` (a path) with `arguments` to completion.
  ///
  /// - Parameter peakMemoryVia: GNU time's path, to measure the program's own peak memory (see
  ///   ``MeasuredProcess``); `nil` reports `wait4`'s `ru_maxrss` of the child as is.
  static func run(_ executable: String, _ arguments: [String], outputDirectory: URL,
                  peakMemoryVia gnuTime: String? = nil) async throws -> MeasuredProcessResult {
    let id = UUID().uuidString.prefix(8)
    let outputPath = outputDirectory.appendingPathComponent("child-\(id).stdout").path
    let errorPath = outputDirectory.appendingPathComponent("child-\(id).stderr").path
    let memoryPath = outputDirectory.appendingPathComponent("child-\(id).maxrss").path
    defer {
      unlink(outputPath)
      unlink(errorPath)
      unlink(memoryPath)
    }
    let command = gnuTime.map { [$0, "-f", "%M", "-o", memoryPath, executable] } ?? [executable]
    let outcome = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WaitOutcome, any Error>) in
      let thread = Thread {
        continuation.resume(with: Result {
          try spawnAndWait(command + arguments, standardOutput: outputPath, standardError: errorPath)
        })
      }
      thread.name = "bench-child-wait"
      thread.start()
    }
    // GNU time writes "Command exited with non-zero status N" first when the program failed;
    // the kilobytes are the last line.
    let ownPeak = gnuTime == nil ? nil : FileManager.default.contents(atPath: memoryPath)
      .flatMap { String(decoding: $0, as: UTF8.self).split(whereSeparator: \.isNewline).last }
      .flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
      .map { $0 * 1024 }
    return MeasuredProcessResult(
      commandLine: ([executable] + arguments).joined(separator: " "),
      terminationStatus: outcome.status, wallSeconds: outcome.wallSeconds,
      peakResidentBytes: ownPeak ?? outcome.peakResidentBytes, peakResidentIsOwn: ownPeak != nil,
      userSeconds: outcome.userSeconds, systemSeconds: outcome.systemSeconds,
      standardOutput: FileManager.default.contents(atPath: outputPath) ?? Data(),
      standardError: FileManager.default.contents(atPath: errorPath) ?? Data())
  }

  /// GNU time's path when `candidate` (a path or a name on `$PATH`) is GNU time: it runs
  /// `/bin/true` under it and reads a peak back.
  static func locateGNUTime(_ candidate: String, outputDirectory: URL) async -> String? {
    guard let path = ChildProcess.locate(candidate), FileManager.default.isExecutableFile(atPath: "/bin/true"),
          let probe = try? await run("/bin/true", [], outputDirectory: outputDirectory, peakMemoryVia: path),
          probe.succeeded, probe.peakResidentIsOwn else { return nil }
    return path
  }

  private struct WaitOutcome: Sendable {
    var status: Int32
    var wallSeconds: Double
    var peakResidentBytes: Int64
    var userSeconds: Double
    var systemSeconds: Double
  }

  /// Spawns `command` (the executable's path, then its arguments) and waits for it.
  private static func spawnAndWait(_ command: [String], standardOutput: String,
                                   standardError: String) throws -> WaitOutcome {
    let executable = command[0]
    #if canImport(Darwin)
    var actions: posix_spawn_file_actions_t? = nil
    var attributes: posix_spawnattr_t? = nil
    #else
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
    let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }

    let clock = ContinuousClock()
    let started = clock.now
    var pid = pid_t()
    let spawnError = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    guard spawnError == 0 else {
      throw MeasuredProcessError(description: "cannot start \(executable): \(String(cString: strerror(spawnError)))")
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
      guard errno == EINTR else {
        throw MeasuredProcessError(description: "wait4 for \(executable) failed: \(String(cString: strerror(errno)))")
      }
    }
    let elapsed = clock.now - started
    // The wait status: the low 7 bits are the terminating signal (0 when it exited), the next
    // byte the exit status.
    let signal = status & 0x7f
    let exitStatus = signal == 0 ? (status >> 8) & 0xff : 128 + signal
    #if canImport(Darwin)
    let peak = Int64(usage.ru_maxrss)          // bytes on Darwin
    #else
    let peak = Int64(usage.ru_maxrss) * 1024   // kilobytes on Linux
    #endif
    return WaitOutcome(status: exitStatus,
                       wallSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                       peakResidentBytes: peak,
                       userSeconds: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
                       systemSeconds: Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6)
  }
}
