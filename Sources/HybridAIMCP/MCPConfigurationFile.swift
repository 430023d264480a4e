import Foundation

/// The servers of an MCP configuration file, in the format the MCP clients share:
///
/// ```json
/// {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}}}}
/// ```
///
/// VS Code's `{"servers": {…}}` is read too. HybridAI's own key `"sampling": true` lets a server ask
/// the app's model for completions. An entry with a `url` is a Streamable HTTP server
/// (`headers` optional); the older SSE transport (`"type": "sse"`) is refused by name.
public enum MCPConfigurationFile {
  /// The servers in the file at `url`, sorted by name.
  public static func servers(at url: URL) throws(MCPError) -> [MCPServerConfiguration] {
    let data: Data
    do { data = try Data(contentsOf: url) } catch { throw .invalidConfiguration("cannot read \(url.path): \(error.localizedDescription)") }
    return try servers(in: data, origin: url.path)
  }

  /// The servers in a configuration file's bytes; `origin` names it in errors.
  public static func servers(in data: Data, origin: String = "the MCP configuration") throws(MCPError) -> [MCPServerConfiguration] {
    guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
      throw .invalidConfiguration("\(origin) is not a JSON object")
    }
    guard let entries = (root["mcpServers"] ?? root["servers"]) as? [String: Any] else {
      throw .invalidConfiguration("\(origin) has no \"mcpServers\" object")
    }
    var servers: [MCPServerConfiguration] = []
    for (name, value) in entries.sorted(by: { $0.key < $1.key }) {
      guard let entry = value as? [String: Any] else { throw .invalidConfiguration("\(origin): server \(name) is not an object") }
      if let url = entry["url"] {
        if let type = entry["type"] as? String, !["http", "streamable-http", "streamableHttp"].contains(type) {
          throw .invalidConfiguration("\(origin): server \(name) uses transport \"\(type)\"; only stdio and Streamable HTTP (\"http\") are supported")
        }
        guard let text = url as? String, let address = URL(string: text), ["http", "https"].contains(address.scheme ?? "") else {
          throw .invalidConfiguration("\(origin): \(name).url must be an http(s) URL")
        }
        let headers = entry["headers"] ?? [String: String]()
        guard let headers = headers as? [String: String] else {
          throw .invalidConfiguration("\(origin): \(name).headers must map names to strings")
        }
        var server = MCPServerConfiguration(name: name, url: address, headers: headers)
        server.allowsSampling = entry["sampling"] as? Bool ?? false
        servers.append(server)
        continue
      }
      guard let command = entry["command"] as? String, !command.isEmpty else {
        throw .invalidConfiguration("\(origin): server \(name) has no \"command\"")
      }
      let arguments = entry["args"] ?? [String]()
      guard let arguments = arguments as? [String] else { throw .invalidConfiguration("\(origin): \(name).args must be strings") }
      let environment = entry["env"] ?? [String: String]()
      guard let environment = environment as? [String: String] else {
        throw .invalidConfiguration("\(origin): \(name).env must map names to strings")
      }
      var server = MCPServerConfiguration(name: name, command: command, arguments: arguments, environment: environment,
                                          workingDirectory: (entry["cwd"] as? String).map { URL(fileURLWithPath: $0) })
      server.allowsSampling = entry["sampling"] as? Bool ?? false
      servers.append(server)
    }
    return servers
  }
}
