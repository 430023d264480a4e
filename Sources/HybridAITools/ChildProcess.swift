import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program as a child process with a time limit; cancelling the calling task kills it.
///
/// The child gets no stdin (`/dev/null`), its stdout is discarded and its stderr is collected
/// (the last ``maximumStandardErrorBytes``) for error messages. Arguments are passed as an argv
/// array — no shell is involved.
struct ChildProcess: Sendable {
  /// How the child ended.
  struct Termination: Sendable, Hashable {
    /// The exit status, or the signal number when ``wasSignalled``.
    var status: Int32
    var wasSignalled: Bool
    /// The tail of what the child wrote to stderr.
    var standardError: String
    var succeeded: Bool { status == 0 && !wasSignalled }
  }

  /// Why the child did not run to its end.
  enum Failure: Error, Sendable, Hashable {
    case launchFailed(String)
    case timedOut
    case cancelled
  }

  static let maximumStandardErrorBytes = 4096

  var executable: URL
  var arguments: [String]
  var timeLimit: Duration

  /// `duration` in whole nanoseconds (capped), for Dispatch.
  static func nanoseconds(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return Int(clamping: seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue + attoseconds / 1_000_000_000)
  }

  /// Starts the child and waits for it to exit; kills it (SIGKILL) at the time limit or when the
  /// calling task is cancelled.
  func run() async throws(Failure) -> Termination {
    if Task.isCancelled { throw .cancelled }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    let standardError = Pipe()
    process.standardError = standardError

    let (exits, exitContinuation) = AsyncStream.makeStream(of: Termination.self, bufferingPolicy: .bufferingNewest(1))
    let collected = StandardErrorCollector()
    let reader = standardError.fileHandleForReading
    let readerDone = DispatchSemaphore(value: 0)
    reader.readabilityHandler = { handle in
      let chunk = handle.availableData
      if chunk.isEmpty {
        handle.readabilityHandler = nil
        readerDone.signal()
      } else {
        collected.append(chunk)
      }
    }
    let liveness = ChildLiveness()
    process.terminationHandler = { finished in
      liveness.markExited()
      exitContinuation.yield(Termination(status: finished.terminationStatus,
                                         wasSignalled: finished.terminationReason == .uncaughtSignal,
                                         standardError: ""))
      exitContinuation.finish()
    }
    do {
      try process.run()
    } catch {
      reader.readabilityHandler = nil
      throw .launchFailed("\(error)")
    }
    liveness.started(pid: process.processIdentifier)
    try? standardError.fileHandleForWriting.close()

    // The time limit is a Dispatch timer, not a sleeping task, so it fires even when every thread
    // of the cooperative pool is busy.
    let timer = DispatchSource.makeTimerSource(queue: .global())
    timer.schedule(deadline: .now() + .nanoseconds(Self.nanoseconds(timeLimit)))
    timer.setEventHandler { liveness.timeOut() }
    timer.resume()
    let outcome: Termination? = await withTaskCancellationHandler {
      for await termination in exits { return termination }
      return nil
    } onCancel: {
      liveness.kill()
    }
    timer.cancel()
    if Task.isCancelled { throw .cancelled }
    if liveness.didTimeOut { throw .timedOut }
    guard var termination = outcome else { throw .timedOut }
    _ = readerDone.wait(timeout: .now() + 1)
    termination.standardError = collected.text
    return termination
  }
}

/// The child's pid, killed at most while it has not exited (so a reused pid is never signalled).
private final class ChildLiveness: Sendable {
  private let state = Mutex<(pid: pid_t?, exited: Bool, timedOut: Bool)>((nil, false, false))

  func started(pid: pid_t) { state.withLock { $0.pid = pid } }
  func markExited() { state.withLock { $0.exited = true } }

  func kill() {
    state.withLock { state in
      guard let pid = state.pid, !state.exited else { return }
      _ = SystemKill.send(SIGKILL, to: pid)
    }
  }

  /// Kills the child because the time limit passed (if it is still running) and remembers why.
  func timeOut() {
    state.withLock { state in
      guard let pid = state.pid, !state.exited else { return }
      state.timedOut = true
      _ = SystemKill.send(SIGKILL, to: pid)
    }
  }

  var didTimeOut: Bool { state.withLock { $0.timedOut } }
}

/// `kill(2)`, named apart from ``ChildLiveness/kill()``.
private enum SystemKill {
  static func send(_ signal: Int32, to pid: pid_t) -> Int32 {
    #if canImport(Glibc)
    Glibc.kill(pid, signal)
    #elseif canImport(Musl)
    Musl.kill(pid, signal)
    #else
    Darwin.kill(pid, signal)
    #endif
  }
}

/// Keeps the last ``ChildProcess/maximumStandardErrorBytes`` of the child's stderr.
private final class StandardErrorCollector: Sendable {
  private let bytes = Mutex(Data())

  func append(_ chunk: Data) {
    bytes.withLock { bytes in
      bytes.append(chunk)
      if bytes.count > ChildProcess.maximumStandardErrorBytes {
        bytes = Data(bytes.suffix(ChildProcess.maximumStandardErrorBytes))
      }
    }
  }

  var text: String {
    bytes.withLock { String(decoding: $0, as: UTF8.self) }.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
