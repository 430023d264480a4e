import Foundation
import Synchronization

/// Runs a command and returns its standard output, or `nil` when it cannot be run, fails, or takes
/// too long. `arguments[0]` is the program, looked up in `PATH`.
///
/// ``LinuxNetworkProbe`` uses one to ask NetworkManager (`nmcli`) whether a network is metered;
/// tests inject a fake.
public typealias CommandRunner = @Sendable (_ arguments: [String]) async -> String?

/// The ``CommandRunner`` that runs real programs (with `Foundation.Process`), giving up after a
/// time limit.
public enum SystemCommandRunner {
  /// A runner that kills a command still running after `timeout`.
  public static func make(timeout: Duration = .seconds(2)) -> CommandRunner {
    { arguments in await run(arguments, timeout: timeout) }
  }

  /// The absolute path of `program` found in `PATH`, or `nil`.
  public static func locate(_ program: String) -> String? {
    if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
    for directory in path.split(separator: ":") where !directory.isEmpty {
      let candidate = "\(directory)/\(program)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  private final class Box: @unchecked Sendable {
    let process = Process()
  }

  private static func run(_ arguments: [String], timeout: Duration) async -> String? {
    guard let program = arguments.first, let executable = locate(program) else { return nil }
    let box = Box()
    let output = Pipe()
    box.process.executableURL = URL(fileURLWithPath: executable)
    box.process.arguments = Array(arguments.dropFirst())
    box.process.standardOutput = output
    box.process.standardError = FileHandle.nullDevice
    box.process.standardInput = FileHandle.nullDevice
    let finished = Mutex(false)
    let watchdog = Task {
      try? await Task.sleep(for: timeout)
      if !Task.isCancelled, box.process.isRunning { box.process.terminate() }
    }
    defer { watchdog.cancel() }
    let status: Int32? = await withCheckedContinuation { continuation in
      box.process.terminationHandler = { process in
        guard finished.withLock({ done in defer { done = true }; return !done }) else { return }
        continuation.resume(returning: process.terminationStatus)
      }
      do {
        try box.process.run()
      } catch {
        guard finished.withLock({ done in defer { done = true }; return !done }) else { return }
        continuation.resume(returning: nil)
      }
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    guard status == 0 else { return nil }
    return String(decoding: data, as: UTF8.self)
  }
}
