import Foundation
import Logging

/// The lines a long-running command (`hybrid serve`) writes about itself — where it listens, what
/// it loaded, warnings, why it stops. With the text log format they read `hybrid serve: …`
/// (`hybrid serve: warning: …`, `error: …`); with `--log-format json` each is one JSON log record
/// (label `hybrid.serve`, as ``JSONLogHandler`` writes them), so a log collector gets no plain
/// lines among its records. Written whatever the log level: they are the command's own output.
public struct ServiceStatus: Sendable {
  /// The command's name in text lines (`hybrid serve`).
  public let command: String
  /// The label of its JSON records (`hybrid.serve`).
  public let label: String

  public init(command: String, label: String) {
    self.command = command
    self.label = label
  }

  /// A fact (notice level), on standard error or, for the line clients wait for, standard output.
  public func say(_ message: String, toStandardOutput: Bool = false) {
    write(message, level: .notice, text: "\(command): \(message)", toStandardOutput: toStandardOutput)
  }

  /// Something the operator should look at.
  public func warn(_ message: String) {
    write(message, level: .warning, text: "\(command): warning: \(message)")
  }

  /// Why the command cannot go on.
  public func fail(_ message: String) {
    write(message, level: .error, text: "error: \(message)")
  }

  private func write(_ message: String, level: Logger.Level, text: String, toStandardOutput: Bool = false) {
    let line = switch LogSetup.format {
    case .text: text
    case .json: JSONLogHandler.line(time: Date(), level: level, label: label, message: message, metadata: [:], source: "hybrid")
    }
    if toStandardOutput { Terminal.write(line + "\n") } else { Terminal.status(line) }
  }
}
