import ArgumentParser
import Foundation
import HybridAI
import HybridAIPersistence
import HybridCommandLine
import Logging

/// `hybrid sessions list|show|rm` — conversations saved by `hybrid chat --session ID`.
struct SessionsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sessions",
    abstract: "List, show and remove saved conversations (hybrid chat --session ID saves one).",
    subcommands: [SessionsListCommand.self, SessionsShowCommand.self, SessionsRemoveCommand.self])
}

/// `--sessions-dir`, shared by `hybrid sessions` and `hybrid chat --session`.
struct SessionStoreOptions: ParsableArguments {
  @Option(name: .long, help: "Where sessions and their artifacts are kept. Default: $XDG_DATA_HOME/hybridai/sessions.")
  var sessionsDir: String?

  /// The folder of the session store.
  var directory: URL {
    let environment = ProcessInfo.processInfo.environment
    return sessionsDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
      ?? (environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
        ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true))
        .appendingPathComponent("hybridai/sessions", isDirectory: true)
  }

  /// Whether a store exists there (reading commands do not make one).
  var exists: Bool { FileManager.default.fileExists(atPath: directory.path) }

  /// Opens the store for a command that reads or removes a session: none there is an error
  /// (a mistyped `--sessions-dir` is not made).
  func openExisting() throws -> SessionStore {
    guard exists else {
      Terminal.status("error: no session store at \(directory.path)")
      throw ExitCode.failure
    }
    return try open()
  }

  /// Opens the store (made when missing); an error says why it cannot, exit status 1.
  func open() throws -> SessionStore {
    let directory = directory
    do {
      return try SessionStore(directory: directory, logger: Self.quietLogger)
    } catch {
      Terminal.status("error: cannot open the session store in \(directory.path): \(error)")
      throw ExitCode.failure
    }
  }

  private static let quietLogger: Logger = {
    var logger = Logger(label: "HybridAI.sessions")
    logger.logLevel = .warning
    return logger
  }()
}

/// `hybrid sessions list`.
struct SessionsListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "list", abstract: "List saved sessions, newest first.")
  @Flag(name: .long, help: "Print JSON.") var json = false
  @OptionGroup var store: SessionStoreOptions

  func run() async throws {
    guard store.exists else {   // a mistyped --sessions-dir is not made
      if json { return try printJSON([SessionRecord]()) }
      Terminal.write("no sessions\n")
      Terminal.status("(no session store at \(store.directory.path))")
      return
    }
    let records = try store.open().list()
    if json { return try printJSON(records) }
    if records.isEmpty { Terminal.write("no sessions\n") }
    for record in records {
      Terminal.write("\(record.id)  \(record.updatedAt.formatted(.iso8601))  \(record.entryCount) entries, "
        + "\(record.artifactCount) artifacts" + (record.modelName.map { "  (\($0))" } ?? "")
        + (record.title.map { "  \($0)" } ?? "") + "\n")
    }
  }
}

/// `hybrid sessions show ID`.
struct SessionsShowCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show", abstract: "Print a saved conversation and its artifacts.",
    discussion: """
      --json prints {record, entries, artifacts, missingArtifactIDs}: the session's summary (as `sessions list --json`), \
      its transcript entries as saved (tool outputs with their artifact references), and each artifact the \
      transcript refers to with the path of its file.
      """)
  @Argument(help: "The session's id.") var id: String
  @Flag(name: .long, help: "Print JSON.") var json = false
  @OptionGroup var store: SessionStoreOptions

  /// `--json`'s output.
  struct JSONOutput: Encodable {
    struct Artifact: Encodable {
      var id: String
      var name: String
      var mimeType: String
      var size: Int64
      var path: String?
    }
    var record: SessionRecord
    var entries: [Transcript.Entry]
    var artifacts: [Artifact]
    var missingArtifactIDs: [String]

    init(_ saved: SavedSession) {
      record = saved.record
      entries = saved.transcript.entries
      artifacts = saved.artifacts.map {
        Artifact(id: $0.id, name: $0.name, mimeType: $0.mimeType, size: $0.size, path: $0.fileURL?.path)
      }
      missingArtifactIDs = saved.missingArtifactIDs
    }
  }

  func run() async throws {
    let saved = try store.openExisting().load(id: id)
    if json { return try printJSON(JSONOutput(saved)) }
    for entry in saved.transcript.entries {
      switch entry {
      case .instructions: continue
      case .prompt: Terminal.write("you> \(entry.text)\n")
      case .response(let response):
        Terminal.write("ai> \(entry.text)\n")
        // As `chat` says it after a live answer: the model, the tokens, why it ended.
        if let summary = ResponseReport.summary(response) { Terminal.write("  [\(summary)]\n") }
      case .toolCalls(let calls):
        for call in calls.calls { Terminal.write("  [tool call] \(call.toolName)(\(call.arguments.jsonString))\n") }
      case .toolOutput:
        Terminal.write("  [tool output] \(entry.text)\n")
      }
    }
    for artifact in saved.artifacts {
      Terminal.write("[artifact] \(artifact.name) · \(artifact.mimeType) · \(artifact.size) bytes → \(artifact.fileURL?.path ?? "?")\n")
    }
    for missing in saved.missingArtifactIDs { Terminal.write("[artifact \(missing)] missing from the store\n") }
  }
}

/// `hybrid sessions rm ID`.
struct SessionsRemoveCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rm", abstract: "Remove a saved session and the artifacts no other session uses.")
  @Argument(help: "The session's id.") var id: String
  @OptionGroup var store: SessionStoreOptions

  func run() async throws {
    try store.openExisting().delete(id: id)
    Terminal.status("removed session \(id)")
  }
}
