import Foundation

/// Where the Hugging Face Hub is and how to talk to it, from the variables huggingface_hub and
/// llama.cpp read.
///
/// - endpoint: `$MODEL_ENDPOINT`, else `$HF_ENDPOINT` (llama.cpp's order; huggingface_hub reads the
///   latter), else `https://huggingface.co`;
/// - token (gated and private repositories): `$HF_TOKEN`, else the file `$HF_TOKEN_PATH`, else
///   `$HF_HOME/token`, else `~/.cache/huggingface/token` (where `hf auth login` writes it);
/// - offline: `$HF_HUB_OFFLINE` set to `1`, `ON`, `YES` or `TRUE` uses the cache only.
public struct HuggingFaceHubConfiguration: Sendable {
  /// The Hub's base URL, without a trailing slash.
  public var endpoint: URL
  /// The access token, when there is one.
  public var token: String?
  /// Whether to use the cache only, never the network.
  public var isOffline: Bool

  public init(endpoint: URL = URL(string: "https://huggingface.co")!, token: String? = nil, isOffline: Bool = false) {
    var text = endpoint.absoluteString
    while text.hasSuffix("/") { text.removeLast() }
    self.endpoint = URL(string: text) ?? endpoint
    self.token = token
    self.isOffline = isOffline
  }

  /// The configuration the environment names.
  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    let endpoint = [environment["MODEL_ENDPOINT"], environment["HF_ENDPOINT"]]
      .compactMap { $0 }.first { !$0.isEmpty }.flatMap(URL.init(string:))
    self.init(endpoint: endpoint ?? URL(string: "https://huggingface.co")!, token: Self.token(in: environment),
              isOffline: ["1", "ON", "YES", "TRUE"].contains(environment["HF_HUB_OFFLINE"]?.uppercased() ?? ""))
  }

  /// `$HF_TOKEN`, else the first token file that exists.
  static func token(in environment: [String: String]) -> String? {
    if let token = environment["HF_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty { return token }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    let hfHome = environment["HF_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 + "/huggingface" } ?? home + "/.cache/huggingface")
    let path = environment["HF_TOKEN_PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? hfHome + "/token"
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
    let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
    return token.isEmpty ? nil : token
  }
}
