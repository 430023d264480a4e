import Configuration
import HybridAI
import HybridAIOnDevice

/// One setting of `hybrid serve`, settable in three places: a flag (`--max-concurrent-requests`),
/// the config file (`max-concurrent-requests:`) and the environment
/// (`HYBRIDAI_SERVE_MAX_CONCURRENT_REQUESTS`). A secret can also be read from a file named by
/// `<name>-file` (one value, or for a list one a line), as systemd credentials and Kubernetes
/// secrets provide them.
struct ServeSetting: Hashable, Sendable {
  /// What a setting holds.
  enum Kind: Sendable {
    case string, integer, number, boolean, list

    var configType: ConfigType {
      switch self {
      case .string: .string
      case .integer: .int
      case .number: .double
      case .boolean: .bool
      case .list: .stringArray
      }
    }

    var expectation: String {
      switch self {
      case .string: "a string"
      case .integer: "a whole number"
      case .number: "a number"
      case .boolean: "true or false"
      case .list: "a list of strings"
      }
    }
  }

  /// The flag's name without dashes, and the key in the config file.
  let name: String
  let kind: Kind
  /// Masked by `--print-config` and readable from `<name>-file`.
  let isSecret: Bool
  /// The value when nothing sets it; `nil`: unset.
  let defaultValue: ConfigContent?
  /// Environment variables read too (below `HYBRIDAI_SERVE_…`), from before the config file existed.
  let legacyEnvironment: [String]

  init(_ name: String, _ kind: Kind, default defaultValue: ConfigContent? = nil, secret: Bool = false,
       legacyEnvironment: [String] = []) {
    self.name = name
    self.kind = kind
    self.defaultValue = defaultValue
    self.isSecret = secret
    self.legacyEnvironment = legacyEnvironment
  }

  /// The environment variable: `HYBRIDAI_SERVE_` and the name in capitals with underscores.
  var environmentVariable: String { Self.environmentPrefix + name.uppercased().replacingOccurrences(of: "-", with: "_") }

  /// The setting that names a file holding this secret.
  var fileName: String { name + "-file" }

  static let environmentPrefix = "HYBRIDAI_SERVE_"

  // MARK: - Every setting

  static let config = ServeSetting("config", .string)   // where the file is: flag or environment only
  static let host = ServeSetting("host", .string, default: .string("127.0.0.1"))
  static let port = ServeSetting("port", .integer, default: .int(8080))
  static let model = ServeSetting("model", .list, default: .stringArray([]))
  static let alias = ServeSetting("alias", .list, default: .stringArray([]))
  static let chatTemplate = ServeSetting("chat-template", .list, default: .stringArray([]))
  static let mmproj = ServeSetting("mmproj", .list, default: .stringArray([]))
  static let noMmproj = ServeSetting("no-mmproj", .boolean, default: .bool(false))
  static let apiKey = ServeSetting("api-key", .list, default: .stringArray([]), secret: true,
                                   legacyEnvironment: ["HYBRIDAI_SERVER_API_KEY"])
  static let keysFile = ServeSetting("keys-file", .string)
  static let requestsPerMinute = ServeSetting("requests-per-minute", .integer)
  static let tokensPerMinute = ServeSetting("tokens-per-minute", .integer)
  static let maxConcurrentRequests = ServeSetting("max-concurrent-requests", .integer, default: .int(8))
  static let contextSize = ServeSetting("context-size", .integer, default: .int(4096))
  static let noPromptCache = ServeSetting("no-prompt-cache", .boolean, default: .bool(false))
  static let promptScheduling = ServeSetting("prompt-scheduling", .string, default: .string("auto"))
  /// Unset: 256 MiB when the model sits on the CPU, off on a GPU (`BatchedLanguageModel.Configuration`).
  static let promptCacheMemory = ServeSetting("prompt-cache-memory", .integer)
  /// Unset: one context, or `HYBRIDAI_BATCH_CONTEXTS` (`BatchedLanguageModel.Configuration.contexts`).
  static let batchContexts = ServeSetting("batch-contexts", .integer)
  static let draftMax = ServeSetting("draft-max", .integer, default: .int(SpeculativeDecoding.ngram.maximumDraftTokens))
  static let draftModel = ServeSetting("draft-model", .list, default: .stringArray([]))
  static let embeddingPooling = ServeSetting("embedding-pooling", .string, default: .string("automatic"))
  static let threads = ServeSetting("threads", .integer)
  static let gpuLayers = ServeSetting("gpu-layers", .string, default: .string("auto"))
  static let device = ServeSetting("device", .string)
  static let maxRequestBytes = ServeSetting("max-request-bytes", .integer, default: .int(4 << 20))
  static let idleTimeout = ServeSetting("idle-timeout", .integer, default: .int(75))
  static let headerTimeout = ServeSetting("header-timeout", .integer, default: .int(60))
  static let corsOrigin = ServeSetting("cors-origin", .list, default: .stringArray([]))
  static let data = ServeSetting("data", .string)
  static let registryDatabase = ServeSetting("registry-database", .string, secret: true)
  static let registryDatabaseWait = ServeSetting("registry-database-wait", .integer, default: .int(0))
  static let adminToken = ServeSetting("admin-token", .string, secret: true, legacyEnvironment: ["HYBRIDAI_ADMIN_TOKEN"])
  static let publicURL = ServeSetting("public-url", .string)
  static let maxUploadBytes = ServeSetting("max-upload-bytes", .integer, default: .int(8 << 30))
  static let downloadURLLifetime = ServeSetting("download-url-lifetime", .integer, default: .int(3600))
  static let registryOnly = ServeSetting("registry-only", .boolean, default: .bool(false))
  static let shutdownTimeout = ServeSetting("shutdown-timeout", .integer, default: .int(10))
  static let noChat = ServeSetting("no-chat", .boolean, default: .bool(false))
  static let chatWithoutKey = ServeSetting("chat-without-key", .boolean, default: .bool(false))
  static let chatMaxUploadBytes = ServeSetting("chat-max-upload-bytes", .integer, default: .int(20 << 20))
  static let chatMaxTokens = ServeSetting("chat-max-tokens", .integer, default: .int(1024))
  static let chatLoopPenalty = ServeSetting("chat-loop-penalty", .number, default: .double(LoopPenalty.standard.multiplier))
  static let chatCloudURL = ServeSetting("chat-cloud-url", .string)
  static let chatCloudModel = ServeSetting("chat-cloud-model", .string)
  static let sessionsDir = ServeSetting("sessions-dir", .string)
  static let mcpConfig = ServeSetting("mcp-config", .list, default: .stringArray([]))
  static let mcpServers = ServeSetting("mcp-servers", .string)
  static let mcpAPIModel = ServeSetting("mcp-api-model", .list, default: .stringArray([]))
  static let logLevel = ServeSetting("log-level", .string, legacyEnvironment: ["HYBRIDAI_LOG_LEVEL"])
  static let logFormat = ServeSetting("log-format", .string, legacyEnvironment: ["HYBRIDAI_LOG_FORMAT"])

  /// Every setting a config file may hold, in the order `--print-config` shows them.
  static let all: [ServeSetting] = [
    host, port, model, alias, chatTemplate, mmproj, noMmproj, apiKey, keysFile, requestsPerMinute, tokensPerMinute, maxConcurrentRequests, contextSize,
    noPromptCache, promptCacheMemory, promptScheduling, batchContexts, draftMax, draftModel, embeddingPooling, threads, gpuLayers, device, maxRequestBytes, idleTimeout, headerTimeout, corsOrigin, data, registryDatabase, registryDatabaseWait, adminToken, publicURL, maxUploadBytes,
    downloadURLLifetime, registryOnly, shutdownTimeout, noChat, chatWithoutKey, chatMaxUploadBytes, chatMaxTokens,
    chatLoopPenalty, chatCloudURL,
    chatCloudModel, sessionsDir, mcpConfig, mcpServers, mcpAPIModel, logLevel, logFormat,
  ]
}
