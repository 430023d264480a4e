import ArgumentParser
import Foundation
import HybridAI
import HybridAIRegistry
import HybridAIServing
import HybridCommandLine
import NIOCore

/// `hybrid-registry` — HybridAI's model registry on its own: custom models deployed, rolled out and
/// downloaded (resumable, verified) with no language model, llama.cpp or LiteRT in the process.
/// `hybrid serve --registry-only` offers the same endpoints from the full executable.
@main
struct RegistryCommand: AsyncParsableCommand {
  static let status = ServiceStatus(command: "hybrid-registry", label: "hybrid.registry")

  static let configuration = CommandConfiguration(
    commandName: "hybrid-registry",
    abstract: "Serve HybridAI's model registry alone: custom models for ModelDownloader and hybrid models get.",
    discussion: """
      Endpoints (docs/model-delivery.md): GET /v1/models/{name}:download, signed blob URLs, the admin API \
      under /v1/admin (needs --admin-token or a registry-admin key), the OpenAPI document at /v1/openapi.yaml, \
      and /healthz, /readyz, /metrics. Stops gracefully on SIGINT or SIGTERM.
      Example: hybrid-registry --port 8081 --data /var/lib/hybridai/registry --admin-token-file /etc/hybridai/admin-token
      """,
    version: HybridAIVersion.current)

  @Option(name: .long, help: "Address to bind (default: 127.0.0.1, loopback only).")
  var host = "127.0.0.1"

  @Option(name: .long, help: "TCP port; 0 picks a free one (printed on start).")
  var port = 8080

  @Option(name: .long, help: "The registry's directory (metadata, model files, api-keys.json). Default: $XDG_DATA_HOME/hybridai/registry.")
  var data: String?

  @Option(name: .long, help: ArgumentHelp(
    "Where the metadata lives: postgres://USER:PASSWORD@HOST:PORT/DATABASE or sqlite:PATH.",
    discussion: "Default: sqlite:<--data>/registry.sqlite.", valueName: "url"))
  var registryDatabase: String?

  @Option(name: .long, help: "Bearer token for the admin API. Default: $HYBRIDAI_ADMIN_TOKEN; without one the admin API is off.")
  var adminToken: String?

  @Option(name: .long, help: "A file holding the admin token (a secret kept out of the command line).")
  var adminTokenFile: String?

  @Option(name: .long, parsing: .singleValue, help: "An API key clients must send. Repeatable. Default: none required.")
  var apiKey: [String] = []

  @Option(name: .long, help: "The URL clients reach this server at (behind a reverse proxy); default: each request's Host.")
  var publicURL: String?

  @Option(name: .long, help: "Largest model file accepted, in bytes.")
  var maxUploadBytes: Int64 = 8 << 30

  @Option(name: .long, help: "How long a download URL stays valid, in seconds.")
  var downloadURLLifetime = 3600

  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535, got \(port)") }
    guard maxUploadBytes > 0 else { throw ValidationError("--max-upload-bytes must be positive") }
    guard downloadURLLifetime > 0 else { throw ValidationError("--download-url-lifetime must be positive") }
    if let publicURL, URL(string: publicURL)?.scheme == nil {
      throw ValidationError("--public-url must be an absolute URL, got \(publicURL)")
    }
    if let registryDatabase {
      do { _ = try RegistryDatabase(url: registryDatabase) } catch { throw ValidationError("--registry-database: \(error)") }
    }
  }

  func run() async throws {
    logging.bootstrap()
    let environment = ProcessInfo.processInfo.environment
    let dataDirectory = data.map { URL(fileURLWithPath: $0, isDirectory: true) }
      ?? RegistryConfiguration.defaultDataDirectory(environment: environment)
    let token = try adminTokenFile.map(Self.readSecret) ?? adminToken ?? environment["HYBRIDAI_ADMIN_TOKEN"]
    let database = try registryDatabase.map { try RegistryDatabase(url: $0) }
      ?? .sqlite(path: dataDirectory.appendingPathComponent("registry.sqlite").path)
    let store: any RegistryStore
    do {
      store = try await database.openStore()
    } catch {
      Self.status.fail("cannot open the registry database \(database.redactedDescription): \(error)")
      throw ExitCode.failure
    }
    let registry: ModelRegistry
    do {
      registry = try ModelRegistry(configuration: RegistryConfiguration(
        dataDirectory: dataDirectory, adminToken: token, publicURL: publicURL.flatMap { URL(string: $0) },
        maxUploadBytes: maxUploadBytes, downloadURLLifetime: .seconds(downloadURLLifetime)), store: store)
    } catch {
      Self.status.fail("cannot open the model registry in \(dataDirectory.path): \(error)")
      await store.shutdown()
      throw ExitCode.failure
    }
    let metrics = ServerMetrics()
    let health = ServerHealth()
    health.addCheck("registry") { await registry.readinessProblem() }
    let keys = APIKeyAuthority(keys: Set(apiKey))
    let server = HybridServer(configuration: ServerConfiguration(host: host, port: port, keys: keys),
                              components: [RegistryAPI(registry: registry, metrics: metrics)], health: health, metrics: metrics)
    let host = self.host
    let adminState = token == nil ? "admin API off (no admin token)" : "admin API on"
    do {
      try await server.run(onListening: { port in
        Self.status.say("listening on http://\(host):\(port) (registry \(dataDirectory.path), "
          + "\(database.redactedDescription), \(adminState))", toStandardOutput: true)
      })
    } catch let error as IOError {
      Self.status.fail("cannot listen on \(host):\(port): \(error)")
      await store.shutdown()
      throw ExitCode.failure
    }
    await store.shutdown()
    Self.status.say("stopped")
  }

  /// The first line of `path`, for secrets kept in files.
  static func readSecret(_ path: String) throws -> String {
    do {
      let text = try String(contentsOfFile: path, encoding: .utf8)
      let secret = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
      guard !secret.isEmpty else { throw ValidationError("\(path) is empty") }
      return secret
    } catch let error as ValidationError {
      throw error
    } catch {
      throw ValidationError("cannot read \(path): \(error.localizedDescription)")
    }
  }
}
