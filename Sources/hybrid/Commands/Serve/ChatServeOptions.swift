import ArgumentParser
import Configuration
import Foundation
import HybridAI
import HybridAIChatApp
import HybridAIPersistence

/// `hybrid serve`'s web chat flags (each also a config-file key; see ``ServeSetting``).
struct ChatServeOptions: ParsableArguments {
  @Flag(name: .long, help: "Do not serve the web chat at / (and its sessions API under /v1/chat).")
  var noChat = false

  @Flag(name: .long, help: ArgumentHelp(
    "Serve the web chat on a non-loopback --host without API keys.",
    discussion: "By default the chat is served only on a loopback address, or with API keys: anyone who can reach it can use your models and read its conversations."))
  var chatWithoutKey = false

  @Option(name: .long, help: "Largest file the chat takes as an attachment, in bytes (default: 20 MiB).")
  var chatMaxUploadBytes: Int?

  @Option(name: .long, help: "Longest on-device answer in the chat, in tokens (default: 1024).")
  var chatMaxTokens: Int?

  @Option(name: .long, help: ArgumentHelp(
    "The chat's loop penalty for on-device answers (default: 0.8; 0 is off).",
    discussion: "Makes continuing a run of tokens already in the answer less likely, so a small model does not loop (see hybrid generate --loop-penalty)."))
  var chatLoopPenalty: Double?

  @Option(name: .long, help: ArgumentHelp(
    "A cloud model for the chat's hybrid modes: a Gemini API base URL (Google's, or another hybrid serve).",
    discussion: "With it the chat offers all four inference modes; without it, only on-device. The model is --chat-cloud-model, else the server's first; the key comes from $GEMINI_API_KEY."))
  var chatCloudURL: String?

  @Option(name: .long, help: "The chat's cloud model name (default: the --chat-cloud-url server's first model).")
  var chatCloudModel: String?

  @Option(name: .long, help: ArgumentHelp(
    "The MCP servers of this configuration file (the mcpServers JSON that Claude Desktop, VS Code and Cursor read): the web chat offers their tools, a switch per server. Repeatable.",
    valueName: "file"))
  var mcpConfig: [String] = []

  @Option(name: .long, help: ArgumentHelp(
    "MCP servers given inline: the JSON of an mcpServers object, as in an --mcp-config file.",
    discussion: "For a config file that holds its servers itself (mcp-servers: '{\"time\": {\"command\": \"uvx\", \"args\": [\"mcp-server-time\"]}}'). Added to the --mcp-config files' servers.",
    valueName: "json"))
  var mcpServers: String?

  @Option(name: .long, parsing: .singleValue, help: ArgumentHelp(
    "A served model whose Gemini and OpenAI APIs run the --mcp-config servers' tools themselves. Repeatable.",
    discussion: "Off by default: the APIs then offer a model only the tools each request declares. With it, every client of that model may have the server call those tools, with this server's rights.",
    valueName: "model"))
  var mcpAPIModel: [String] = []

  @OptionGroup var sessionStore: SessionStoreOptions

  /// The flags given, as settings.
  var flags: [ServeSetting: ConfigContent] {
    var flags: [ServeSetting: ConfigContent] = [:]
    if noChat { flags[.noChat] = .bool(true) }
    if chatWithoutKey { flags[.chatWithoutKey] = .bool(true) }
    if let chatMaxUploadBytes { flags[.chatMaxUploadBytes] = .int(chatMaxUploadBytes) }
    if let chatMaxTokens { flags[.chatMaxTokens] = .int(chatMaxTokens) }
    if let chatLoopPenalty { flags[.chatLoopPenalty] = .double(chatLoopPenalty) }
    if let chatCloudURL { flags[.chatCloudURL] = .string(chatCloudURL) }
    if let chatCloudModel { flags[.chatCloudModel] = .string(chatCloudModel) }
    if let sessionsDir = sessionStore.sessionsDir { flags[.sessionsDir] = .string(sessionsDir) }
    if !mcpConfig.isEmpty { flags[.mcpConfig] = .stringArray(mcpConfig) }
    if let mcpServers { flags[.mcpServers] = .string(mcpServers) }
    if !mcpAPIModel.isEmpty { flags[.mcpAPIModel] = .stringArray(mcpAPIModel) }
    return flags
  }
}

extension ServeSettings {
  /// The chat's session store: `sessions-dir`; else `<data>/sessions` beside a `data` registry
  /// directory; else `hybrid sessions`' default.
  func openSessionStore() throws -> SessionStore {
    var options = SessionStoreOptions()
    options.sessionsDir = sessionsDir ?? data.map { URL(fileURLWithPath: $0, isDirectory: true).appendingPathComponent("sessions").path }
    return try options.open()
  }

  /// Whether ``host`` is a loopback address (only this machine can connect).
  var isLoopbackHost: Bool { ["127.0.0.1", "::1", "localhost"].contains(host.lowercased()) || host.hasPrefix("127.") }

  /// Whether the chat may be served on ``host`` when keys are (or are not) required; `nil`, or why not.
  func chatRefusal(keysRequired: Bool) -> String? {
    guard !isLoopbackHost, !keysRequired, !chatWithoutKey else { return nil }
    return "the web chat is off: --host \(host) is not loopback and no API key is required "
      + "(add --api-key or hybrid keys create, or --chat-without-key)"
  }

  /// The options of the chat's answers on device: at most ``chatMaxTokens`` tokens, with the loop
  /// penalty. A cloud model uses its own defaults (a thinking model's output limit counts its
  /// thoughts too).
  var chatOptions: GenerationOptions {
    .onDevice(GenerationOptions(maximumResponseTokens: chatMaxTokens, loopPenalty: LoopPenalty(multiplier: chatLoopPenalty)))
  }

  /// The chat's cloud model, when one is configured (the same rules as `hybrid generate --cloud-url`).
  func makeChatCloudModel() async throws -> (any LanguageModel)? {
    guard let chatCloudURL else { return nil }
    var arguments = ["--cloud-url", chatCloudURL, "--mode", "cloud"]
    if let chatCloudModel { arguments += ["--cloud-model", chatCloudModel] }
    return await (try RoutingOptions.parse(arguments)).makeCloudModel()
  }
}
