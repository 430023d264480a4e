import Foundation
import Subprocess
import Synchronization

#if canImport(System)
import System
#else
import SystemPackage
#endif

/// A child process that keeps running while its parent talks to it: a server waited for until it
/// prints its address, a reference tool fed requests line by line. Start one with
/// ``ChildProcess/start(standardError:)``; read its standard output line by line, write to its
/// standard input, signal it, and wait for its end.
///
/// ```swift
/// let server = try await ChildProcess(executable: hybrid, arguments: ["serve", "--port", "0"])
///   .start(standardError: .inherited)
/// guard let url = await server.firstLine(where: { $0.range(of: "listening on ") != nil }) else { … }
/// …
/// let outcome = await server.stop()      // SIGTERM, then SIGKILL after the grace period
/// ```
///
/// Dropping the last reference without stopping it kills the child.
public final class RunningChildProcess: Sendable {
  /// What happens to the child's standard error.
  public enum StandardError: Sendable {
    /// Thrown away.
    case discarded
    /// Written to this process's standard error, as it comes.
    case inherited
    /// Kept (its last ``ChildProcess/maximumStandardErrorBytes``) for the ``ChildProcess/Outcome``.
    case collected
    /// Kept as ``collected``, and each line handed to `line` as it comes (without its line break;
    /// a line longer than ``ChildProcess/maximumStandardErrorBytes`` in pieces of that length): a
    /// child's diagnostics into the log.
    case collectedLines(_ line: @Sendable (String) -> Void)
  }

  /// The program, for messages.
  public let executable: String

  private struct State {
    var signal: (@Sendable (Int32) -> Void)?
    var processIdentifier: Int32?
    var inputWriter: StandardInputWriter?
    var lines: [String] = []
    var endOfOutput = false
    var outputFailure: ChildProcess.Failure?
    var lineWaiters: [CheckedContinuation<Void, Never>] = []
    var outcome: ChildProcess.Outcome?
    var exitWaiters: [CheckedContinuation<ChildProcess.Outcome, Never>] = []
  }

  private let state = Mutex(State())
  private let task = Mutex<Task<Void, Never>?>(nil)

  /// The longest line of standard output read (``ChildProcess/maximumLineBytes``).
  private let maximumLineBytes: Int

  private init(executable: String, maximumLineBytes: Int) {
    self.executable = executable
    self.maximumLineBytes = maximumLineBytes
  }

  deinit {
    task.withLock { $0?.cancel() }   // swift-subprocess tears the child down (SIGTERM, then SIGKILL)
  }

  /// Starts `child`; throws when it cannot be launched.
  static func start(_ child: ChildProcess, standardError: StandardError) async throws(ChildProcess.Failure)
    -> RunningChildProcess {
    let running = RunningChildProcess(executable: child.executable, maximumLineBytes: child.maximumLineBytes)
    let launched = AsyncStream<Result<Void, ChildProcess.Failure>>.makeStream()
    let configuration = child.configuration()
    let body = Task {
      let outcome: ChildProcess.Outcome
      do {
        switch standardError {
        case .discarded:
          let result = try await Subprocess.run(configuration, input: .inputWriter, output: .sequence,
                                                error: .discarded) { execution in
            try await running.serve(execution, launched: launched.continuation)
          }
          outcome = ChildProcess.outcome(result.terminationStatus)
        case .inherited:
          let result = try await Subprocess.run(configuration, input: .inputWriter, output: .sequence,
                                                error: .fileDescriptor(.standardError, closeAfterSpawningProcess: false)) {
            try await running.serve($0, launched: launched.continuation)
          }
          outcome = ChildProcess.outcome(result.terminationStatus)
        case .collected, .collectedLines:
          var forward: (@Sendable (String) -> Void)?
          if case .collectedLines(let line) = standardError { forward = line }
          let result = try await Subprocess.run(configuration, input: .inputWriter, output: .sequence, error: .sequence) {
            [forward] execution in
            async let errors = StandardErrorTail.read(execution.standardError, eachLine: forward)
            try await running.serve(execution, launched: launched.continuation)
            return try await errors
          }
          outcome = ChildProcess.outcome(result.terminationStatus, standardError: result.closureResult)
        }
      } catch {
        launched.continuation.yield(.failure(.launchFailed("\(child.executable): \(error)")))
        outcome = ChildProcess.Outcome(status: -1, wasSignalled: false, standardError: "\(error)")
      }
      running.finish(with: outcome)
    }
    running.task.withLock { $0 = body }
    for await result in launched.stream {
      if case .failure(let failure) = result { throw failure }
      return running
    }
    throw .cancelled
  }

  /// The body run by swift-subprocess while the child lives: publishes the child's handles, then
  /// turns its standard output into lines until it ends.
  private func serve<Error: ErrorOutputProtocol>(_ execution: Execution<CustomWriteInput, SequenceOutput, Error>,
                                                 launched: AsyncStream<Result<Void, ChildProcess.Failure>>.Continuation)
    async throws {
    state.withLock {
      $0.signal = { signal in try? execution.send(signal: Signal(rawValue: signal)) }
      $0.processIdentifier = execution.processIdentifier.value
      $0.inputWriter = execution.standardInputWriter
    }
    launched.yield(.success(()))
    launched.finish()
    var lines = OutputLines(limit: maximumLineBytes)
    do {
      for try await buffer in execution.standardOutput {
        try buffer.withUnsafeBytes { bytes in try lines.append(bytes, receive) }
      }
      if let last = lines.finish() { receive(last) }
    } catch is OutputLines.LineTooLong {
      state.withLock { $0.outputFailure = .outputTooLarge(limit: maximumLineBytes) }
    } catch {
      // The output broke off (the child died); what arrived so far stays readable.
    }
    let waiters = state.withLock { state in
      state.endOfOutput = true
      state.inputWriter = nil
      defer { state.lineWaiters = [] }
      return state.lineWaiters
    }
    for waiter in waiters { waiter.resume() }
  }

  private func receive(_ line: String) {
    let waiters = state.withLock { state in
      state.lines.append(line)
      defer { state.lineWaiters = [] }
      return state.lineWaiters
    }
    for waiter in waiters { waiter.resume() }
  }

  private func finish(with outcome: ChildProcess.Outcome) {
    let waiters = state.withLock { state in
      state.outcome = outcome
      state.signal = nil
      state.endOfOutput = true
      defer { state.exitWaiters = []; state.lineWaiters = [] }
      return (state.exitWaiters, state.lineWaiters)
    }
    for waiter in waiters.0 { waiter.resume(returning: outcome) }
    for waiter in waiters.1 { waiter.resume() }
  }

  // MARK: - Talking to the child

  /// The next line of standard output (without its line break), or `nil` once the output has ended.
  public func nextLine() async -> String? {
    while true {
      enum Next { case line(String), end, wait }
      let next: Next = state.withLock { state in
        if !state.lines.isEmpty { return .line(state.lines.removeFirst()) }
        return state.endOfOutput ? .end : .wait
      }
      switch next {
      case .line(let line): return line
      case .end: return nil
      case .wait:
        await withCheckedContinuation { continuation in
          let ready = state.withLock { state in
            if !state.lines.isEmpty || state.endOfOutput { return true }
            state.lineWaiters.append(continuation)
            return false
          }
          if ready { continuation.resume() }
        }
      }
    }
  }

  /// Reads lines until `match` returns a value for one, and returns that value; `nil` when the
  /// output ends first.
  public func firstLine<T>(where match: (String) -> T?) async -> T? {
    while let line = await nextLine() {
      if let value = match(line) { return value }
    }
    return nil
  }

  /// Writes `text` to the child's standard input; throws ``ChildProcess/Failure/launchFailed(_:)``
  /// with the reason when the child no longer reads it.
  public func write(_ text: String) async throws(ChildProcess.Failure) {
    guard let writer = state.withLock({ $0.inputWriter }) else {
      throw .launchFailed("\(executable) has ended; it reads no more input")
    }
    do {
      _ = try await writer.write(text)
    } catch {
      throw .launchFailed("writing to \(executable) failed: \(error)")
    }
  }

  /// Closes the child's standard input (it reads end-of-file).
  public func closeInput() async {
    guard let writer = state.withLock({ $0.inputWriter }) else { return }
    try? await writer.finish()
  }

  /// Sends `signal` (`SIGTERM`, `SIGINT`, …) to the child; nothing when it has ended.
  public func send(signal: Int32) {
    state.withLock { $0.signal?(signal) }
  }

  /// The child's process identifier.
  public var processIdentifier: Int32? { state.withLock { $0.processIdentifier } }

  /// Whether the child is still running.
  public var isRunning: Bool { state.withLock { $0.outcome == nil } }

  /// Why standard output ended before the child did: ``ChildProcess/Failure/outputTooLarge(limit:)``
  /// for a line longer than ``ChildProcess/maximumLineBytes`` (the lines after it are not read).
  /// `nil` while it is read, and when it ended with the child.
  public var outputFailure: ChildProcess.Failure? { state.withLock { $0.outputFailure } }

  /// Waits for the child to end and returns how it ended.
  public func waitForExit() async -> ChildProcess.Outcome {
    await withCheckedContinuation { continuation in
      let outcome = state.withLock { state -> ChildProcess.Outcome? in
        if let outcome = state.outcome { return outcome }
        state.exitWaiters.append(continuation)
        return nil
      }
      if let outcome { continuation.resume(returning: outcome) }
    }
  }

  /// Asks the child to stop (`signal`, `SIGTERM` by default), kills it (`SIGKILL`) when it is
  /// still running after `gracePeriod`, and returns how it ended.
  @discardableResult
  public func stop(signal: Int32 = SIGTERM, gracePeriod: Duration = .seconds(10)) async -> ChildProcess.Outcome {
    send(signal: signal)
    // On a Dispatch timer, not a task: on a busy cooperative pool a sleeping task can wake long after
    // its time, and the child would outlive the grace period by that much.
    let killer = DispatchWorkItem { [self] in send(signal: SIGKILL) }
    let seconds = Double(gracePeriod.components.seconds) + Double(gracePeriod.components.attoseconds) / 1e18
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: killer)
    defer { killer.cancel() }
    return await waitForExit()
  }
}

extension ChildProcess {
  /// Starts the child and returns at once, with its standard output readable line by line and its
  /// standard input writable (see ``RunningChildProcess``). The time limit does not apply.
  public func start(standardError: RunningChildProcess.StandardError = .discarded) async throws(Failure)
    -> RunningChildProcess {
    try await RunningChildProcess.start(self, standardError: standardError)
  }
}
