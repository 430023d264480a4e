import ArgumentParser
import Foundation
import HybridAI
import HybridAIChatApp
import HybridAIPersistence

/// `hybrid serve`'s web chat options.
struct ChatServeOptions: ParsableArguments {
  @Flag(name: .long, help: "Do not serve the web chat at / (and its sessions API under /v1/chat).")
  var noChat = false

  @Flag(name: .long, help: ArgumentHelp(
    "Serve the web chat on a non-loopback --host without --api-key.",
    discussion: "By default the chat is served only on a loopback address, or with API keys: anyone who can reach it can use your models and read its conversations."))
  var chatWithoutKey = false

  @Option(name: .long, help: "Largest file the chat takes as an attachment, in bytes.")
  var chatMaxUploadBytes = 20 << 20

  @Option(name: .long, help: ArgumentHelp(
    "A cloud model for the chat's hybrid modes: a Gemini API base URL (Google's, or another hybrid serve).",
    discussion: "With it the chat offers all four inference modes; without it, only on-device. The model is --chat-cloud-model, else the server's first; the key comes from $GEMINI_API_KEY."))
  var chatCloudURL: String?

  @Option(name: .long, help: "The chat's cloud model name (default: the --chat-cloud-url server's first model).")
  var chatCloudModel: String?

  @OptionGroup var sessionStore: SessionStoreOptions

  func validate() throws {
    guard chatMaxUploadBytes > 0 else { throw ValidationError("--chat-max-upload-bytes must be positive") }
    if let chatCloudURL {
      guard let url = URL(string: chatCloudURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
        throw ValidationError("--chat-cloud-url must be an http(s) URL, e.g. http://127.0.0.1:8081")
      }
    }
  }

  /// The chat's session store: `--sessions-dir`; else `<data>/sessions` beside a `--data`
  /// registry directory; else `hybrid sessions`' default.
  func openSessionStore(dataDirectory: String?) throws -> SessionStore {
    if sessionStore.sessionsDir == nil, let dataDirectory {
      var options = sessionStore
      options.sessionsDir = URL(fileURLWithPath: dataDirectory, isDirectory: true).appendingPathComponent("sessions").path
      return try options.open()
    }
    return try sessionStore.open()
  }

  /// Whether the chat may be served on `host` with `apiKeys`; `nil`, or why not.
  func refusal(host: String, apiKeys: Set<String>) -> String? {
    let loopback = ["127.0.0.1", "::1", "localhost"].contains(host.lowercased()) || host.hasPrefix("127.")
    guard !loopback, apiKeys.isEmpty, !chatWithoutKey else { return nil }
    return "the web chat is off: --host \(host) is not loopback and no --api-key is set (add one, or --chat-without-key)"
  }

  /// The chat's cloud model, when one is configured (the same rules as `hybrid generate --cloud-url`).
  func makeCloudModel() async throws -> (any LanguageModel)? {
    guard let chatCloudURL else { return nil }
    var arguments = ["--cloud-url", chatCloudURL, "--mode", "cloud"]
    if let chatCloudModel { arguments += ["--cloud-model", chatCloudModel] }
    return await (try RoutingOptions.parse(arguments)).makeCloudModel()
  }
}
