import Foundation
import HybridAIProcess

/// Runs a command and returns its standard output, or `nil` when it cannot be run, fails, or takes
/// too long. `arguments[0]` is the program, looked up in `PATH`.
///
/// ``LinuxNetworkProbe`` uses one to ask NetworkManager (`nmcli`) whether a network is metered;
/// tests inject a fake.
public typealias CommandRunner = @Sendable (_ arguments: [String]) async -> String?

/// The ``CommandRunner`` that runs real programs (with HybridAIProcess's `ChildProcess`), giving
/// up after a time limit.
public enum SystemCommandRunner {
  /// A runner that kills a command still running after `timeout`.
  public static func make(timeout: Duration = .seconds(2)) -> CommandRunner {
    { arguments in await run(arguments, timeout: timeout) }
  }

  /// The absolute path of `program` found in `PATH`, or `nil`.
  public static func locate(_ program: String) -> String? { ChildProcess.locate(program) }

  private static func run(_ arguments: [String], timeout: Duration) async -> String? {
    guard let program = arguments.first, let executable = locate(program) else { return nil }
    let child = ChildProcess(executable: executable, arguments: Array(arguments.dropFirst()), timeLimit: timeout)
    guard let outcome = try? await child.run(output: .collected(limit: 1 << 20)), outcome.succeeded else { return nil }
    return outcome.standardOutput
  }
}
