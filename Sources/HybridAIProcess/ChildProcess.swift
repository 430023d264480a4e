import Foundation
import Subprocess

#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Runs a program as a child process, the one way HybridAI does (the tools, the downloader's
/// network probe, the CLI, the tests), on swift-subprocess: arguments as an argv array (no
/// shell), no standard input, an optional time limit, and cancellation that kills the child.
///
/// ```swift
/// let outcome = try await ChildProcess(executable: URL(fileURLWithPath: "/usr/bin/espeak-ng"),
///                                      arguments: ["-w", path, text], timeLimit: .seconds(30)).run()
/// guard outcome.succeeded else { throw SpeakError.failed(outcome.standardError) }
/// ```
public struct ChildProcess: Sendable {
  /// What to do with the child's standard output.
  public enum Output: Sendable, Equatable {
    /// Thrown away.
    case discarded
    /// Collected as text, up to `limit` bytes (more is ``Failure/outputTooLarge(limit:)``).
    case collected(limit: Int)
    /// Collected with standard error interleaved, as a terminal would show both.
    case collectedWithStandardError(limit: Int)
    /// Written to this file (created, or emptied) as it comes, so it can be read while the child runs.
    case file(URL)
  }

  /// How the child ended.
  public struct Outcome: Sendable, Hashable {
    /// The exit status, or the signal number when ``wasSignalled``.
    public var status: Int32
    /// Whether a signal ended it.
    public var wasSignalled: Bool
    /// Standard output (with standard error, when merged), or empty when discarded.
    public var standardOutput: String
    /// Standard error (its last ``ChildProcess/maximumStandardErrorBytes``), or empty when merged
    /// into standard output.
    public var standardError: String
    /// Exited with status 0.
    public var succeeded: Bool { status == 0 && !wasSignalled }

    public init(status: Int32, wasSignalled: Bool, standardOutput: String = "", standardError: String = "") {
      self.status = status
      self.wasSignalled = wasSignalled
      self.standardOutput = standardOutput
      self.standardError = standardError
    }
  }

  /// Why the child did not run to its end.
  public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
    /// It could not be started (no such program, not executable, …).
    case launchFailed(String)
    /// It ran past its time limit and was killed.
    case timedOut(Duration)
    /// The calling task was cancelled; the child was killed.
    case cancelled
    /// It wrote more to standard output than the collected output's limit.
    case outputTooLarge(limit: Int)

    public var description: String {
      switch self {
      case .launchFailed(let reason): "could not start the program: \(reason)"
      case .timedOut(let limit): "the program ran longer than \(limit) and was killed"
      case .cancelled: "cancelled; the program was killed"
      case .outputTooLarge(let limit): "the program wrote more than \(limit) bytes"
      }
    }
  }

  /// The program: an absolute path, or a name looked up in `PATH`.
  public var executable: String
  public var arguments: [String]
  /// Variables set (or, with `nil`, removed) on top of this process's environment, or the whole
  /// environment when ``inheritsEnvironment`` is `false`.
  public var environment: [String: String?]
  /// Whether the child starts from this process's environment (else from ``environment`` alone).
  public var inheritsEnvironment = true
  /// The working directory, or this process's when `nil`.
  public var workingDirectory: URL?
  /// Killed (SIGKILL) after this long, when set.
  public var timeLimit: Duration?
  /// What the child reads on its standard input (then end-of-file); nothing when `nil`.
  public var standardInput: Data?
  /// The longest line of standard output a started child (``start(standardError:)``) may write, in
  /// bytes; a longer one ends its output (``RunningChildProcess/outputFailure``).
  public var maximumLineBytes = 1 << 20
  /// The most standard error kept (its end: where programs say what went wrong).
  public static let maximumStandardErrorBytes = 1 << 20

  public init(executable: String, arguments: [String] = [], environment: [String: String?] = [:],
              workingDirectory: URL? = nil, timeLimit: Duration? = nil, standardInput: Data? = nil) {
    self.executable = executable
    self.arguments = arguments
    self.environment = environment
    self.workingDirectory = workingDirectory
    self.timeLimit = timeLimit
    self.standardInput = standardInput
  }

  public init(executable: URL, arguments: [String] = [], environment: [String: String?] = [:],
              workingDirectory: URL? = nil, timeLimit: Duration? = nil, standardInput: Data? = nil) {
    self.init(executable: executable.path, arguments: arguments, environment: environment,
              workingDirectory: workingDirectory, timeLimit: timeLimit, standardInput: standardInput)
  }

  /// `program` when it is a path to an executable; else the first executable called `program` in
  /// `$PATH`; `nil` when there is none.
  public static func locate(_ program: String) -> String? {
    if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
    for directory in path.split(separator: ":") where !directory.isEmpty {
      let candidate = "\(directory)/\(program)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// Starts the child and waits for it to exit. Cancelling the calling task, or the time limit,
  /// kills it.
  public func run(output: Output = .discarded) async throws(Failure) -> Outcome {
    if Task.isCancelled { throw .cancelled }
    do {
      guard let timeLimit else {
        let outcome = try await launch(output)
        if Task.isCancelled { throw Failure.cancelled }   // swift-subprocess killed it and returned
        return outcome
      }
      return try await withThrowingTaskGroup(of: Outcome?.self) { group in
        group.addTask { try await launch(output) }
        group.addTask {
          try await Task.sleep(for: timeLimit)
          return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let outcome = first else { throw Failure.timedOut(timeLimit) }
        return outcome
      }
    } catch let failure as Failure {
      throw failure
    } catch is CancellationError {
      throw .cancelled
    } catch let error as SubprocessError {
      if Task.isCancelled { throw .cancelled }
      if error.code == .outputLimitExceeded,
         case .collected(let limit) = output { throw .outputTooLarge(limit: limit) }
      if error.code == .outputLimitExceeded,
         case .collectedWithStandardError(let limit) = output { throw .outputTooLarge(limit: limit) }
      throw .launchFailed("\(executable): \(error)")
    } catch {
      if Task.isCancelled { throw .cancelled }
      throw .launchFailed("\(executable): \(error)")
    }
  }

  /// The swift-subprocess configuration for this child.
  func configuration() -> Configuration {
    let program: Executable = executable.contains("/") ? .path(FilePath(executable)) : .name(executable)
    var overrides: [Environment.Key: String?] = [:]
    for (name, value) in environment { overrides[Environment.Key(stringLiteral: name)] = value }
    let childEnvironment: Environment = inheritsEnvironment
      ? .inherit.updating(overrides) : .custom(overrides.compactMapValues { $0 })
    return Configuration(
      executable: program, arguments: Arguments(arguments), environment: childEnvironment,
      workingDirectory: workingDirectory.map { FilePath($0.path) })
  }

  private func launch(_ output: Output) async throws -> Outcome {
    let configuration = configuration()
    let input = ArrayInput.array(standardInput.map { [UInt8]($0) } ?? [])
    switch output {
    case .discarded:
      let result = try await Subprocess.run(configuration, input: input, output: .discarded, error: .sequence) {
        try await StandardErrorTail.read($0.standardError)
      }
      return Self.outcome(result.terminationStatus, standardError: result.closureResult)
    case .collected(let limit):
      let result = try await Subprocess.run(configuration, input: input, output: .string(limit: limit), error: .sequence) {
        try await StandardErrorTail.read($0.standardError)
      }
      return Self.outcome(result.terminationStatus, standardOutput: result.standardOutput,
                          standardError: result.closureResult)
    case .collectedWithStandardError(let limit):
      let result = try await Subprocess.run(configuration, input: input, output: .string(limit: limit), error: .combinedWithOutput)
      return Self.outcome(result.terminationStatus, standardOutput: result.standardOutput)
    case .file(let url):
      let descriptor = try FileDescriptor.open(FilePath(url.path), .writeOnly, options: [.create, .truncate],
                                               permissions: [.ownerReadWrite, .groupRead, .otherRead])
      let result = try await Subprocess.run(configuration, input: input,
                                            output: .fileDescriptor(descriptor, closeAfterSpawningProcess: true),
                                            error: .sequence) {
        try await StandardErrorTail.read($0.standardError)
      }
      return Self.outcome(result.terminationStatus, standardError: result.closureResult)
    }
  }

  static func outcome(_ status: TerminationStatus, standardOutput: String = "", standardError: String = "") -> Outcome {
    switch status {
    case .exited(let code):
      Outcome(status: Int32(code), wasSignalled: false, standardOutput: standardOutput, standardError: standardError)
    case .signaled(let signal):
      Outcome(status: Int32(signal), wasSignalled: true, standardOutput: standardOutput, standardError: standardError)
    }
  }
}
