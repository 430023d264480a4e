import ArgumentParser
import Foundation
import HybridAIRegistry
import HybridAIServing
import HybridCommandLine

/// `hybrid keys create|list|revoke` — the API keys `hybrid serve` accepts, with scopes and limits.
struct KeysCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keys",
    abstract: "Create, list and revoke the API keys hybrid serve accepts (stored hashed in <--data>/api-keys.json).",
    discussion: """
      Scopes: generate (the Gemini and OpenAI APIs, the web chat), registry-read (model download info), \
      registry-admin (the registry's admin API). A running hybrid serve sees changes at its next request.
      """,
    subcommands: [KeysCreateCommand.self, KeysListCommand.self, KeysRevokeCommand.self])
}

/// Where the key file is: `--keys-file`, else `<--data>/api-keys.json` (the registry's directory).
struct KeyFileOptions: ParsableArguments {
  @Option(name: .long, help: "The server's data directory (as hybrid serve --data). Default: $XDG_DATA_HOME/hybridai/registry.")
  var data: String?

  @Option(name: .long, help: "The key file itself, if not <--data>/api-keys.json.")
  var keysFile: String?

  var file: APIKeyFile {
    APIKeyFile(url: Self.location(keysFile: keysFile, data: data, environment: ProcessInfo.processInfo.environment))
  }

  /// `keysFile`, else `data/api-keys.json`, else the default data directory's.
  static func location(keysFile: String?, data: String?, environment: [String: String]) -> URL {
    if let keysFile { return URL(fileURLWithPath: keysFile) }
    let directory = data.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? RegistryConfiguration.defaultDataDirectory(environment: environment)
    return directory.appendingPathComponent("api-keys.json")
  }
}

/// `hybrid keys create NAME --scope …`.
struct KeysCreateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "create", abstract: "Make a key and print it (the only time it is shown; the file keeps its SHA-256).")

  @Argument(help: "What the key is for, e.g. ios-app.") var name: String

  @Option(name: .long, parsing: .singleValue, help: ArgumentHelp(
    "A scope: generate, registry-read, registry-admin, or all. Repeatable. Default: generate.",
    valueName: "scope"))
  var scope: [String] = []

  @Option(name: .long, help: "Requests per minute for this key (default: the server's --requests-per-minute).")
  var requestsPerMinute: Int?

  @Option(name: .long, help: "Prompt + output tokens per minute for this key (default: the server's --tokens-per-minute).")
  var tokensPerMinute: Int?

  @Flag(name: .long, help: "Print JSON (the record and the key).") var json = false
  @OptionGroup var location: KeyFileOptions

  func validate() throws {
    _ = try scopes()
    if let requestsPerMinute, requestsPerMinute <= 0 { throw ValidationError("--requests-per-minute must be positive") }
    if let tokensPerMinute, tokensPerMinute <= 0 { throw ValidationError("--tokens-per-minute must be positive") }
  }

  func scopes() throws -> Set<APIKeyScope> {
    if scope.isEmpty { return [.generate] }
    var scopes = Set<APIKeyScope>()
    for name in scope {
      if name == "all" {
        scopes.formUnion(APIKeyScope.allCases)
      } else if let scope = APIKeyScope(rawValue: name) {
        scopes.insert(scope)
      } else {
        throw ValidationError("--scope \(name): expected generate, registry-read, registry-admin or all")
      }
    }
    return scopes
  }

  func run() async throws {
    let file = location.file
    let (record, key) = try KeysCommand.run { try file.create(name: name, scopes: try scopes(), requestsPerMinute: requestsPerMinute,
                                                              tokensPerMinute: tokensPerMinute) }
    if json {
      struct Created: Encodable { let key: String; let record: APIKeyRecord; let file: String }
      return try printJSON(Created(key: key, record: record, file: file.url.path))
    }
    Terminal.write("\(key)\n")
    Terminal.status("created key \(record.id) (\(record.name); \(KeysCommand.describe(record))) in \(file.url.path); "
      + "copy it now: it is not shown again")
  }
}

/// `hybrid keys list`.
struct KeysListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "list", abstract: "List the keys (never the keys themselves).")
  @Flag(name: .long, help: "Print JSON.") var json = false
  @OptionGroup var location: KeyFileOptions

  func run() async throws {
    let file = location.file
    let records = try KeysCommand.run { try file.records() }
    if json { return try printJSON(records) }
    if records.isEmpty { Terminal.write("no keys in \(file.url.path)\n") }
    for record in records {
      let state = record.revoked.map { "revoked \($0.formatted(.iso8601))" } ?? "active"
      Terminal.write("\(record.id)  \(record.name)  \(KeysCommand.describe(record))  created \(record.created.formatted(.iso8601))  \(state)\n")
    }
  }
}

/// `hybrid keys revoke ID`.
struct KeysRevokeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "revoke", abstract: "Revoke a key by id or name: refused from its next request on.")
  @Argument(help: "The key's id (hybrid keys list) or name.") var id: String
  @OptionGroup var location: KeyFileOptions

  func run() async throws {
    let file = location.file
    let record = try KeysCommand.run { try file.revoke(id: id) }
    Terminal.write("revoked \(record.id) (\(record.name))\n")
  }
}

extension KeysCommand {
  /// Runs `body`, turning a key file error into a one-line message and exit status 1.
  static func run<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as APIKeyFileError {
      Terminal.status("error: \(error)")
      throw ExitCode.failure
    }
  }

  static func describe(_ record: APIKeyRecord) -> String {
    var parts = ["scopes " + record.scopes.sorted().map(\.rawValue).joined(separator: ",")]
    if let requests = record.requestsPerMinute { parts.append("\(requests) requests/min") }
    if let tokens = record.tokensPerMinute { parts.append("\(tokens) tokens/min") }
    return parts.joined(separator: "; ")
  }
}
