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
///
/// Secrets stay out of the file: `envFile` (or `env_file`) names a file of `NAME=value` lines
/// added to the server's environment (`env` wins), and any `env` or `headers` value may hold
/// `${file:PATH}`, replaced by that file's content (a path relative to the configuration file's
/// folder). `"disabled": true` leaves a server out; `"timeout"` (seconds) bounds each request to
/// it; other clients' `autoApprove`, `alwaysAllow` and `description` are accepted and ignored; any other key is refused, naming its line.
public enum MCPConfigurationFile {
  /// The servers in the file at `url`, sorted by name.
  public static func servers(at url: URL) throws(MCPError) -> [MCPServerConfiguration] {
    let data: Data
    do { data = try Data(contentsOf: url) } catch { throw .invalidConfiguration("cannot read \(url.path): \(error.localizedDescription)") }
    return try servers(in: data, origin: url.path, folder: url.deletingLastPathComponent())
  }

  /// The servers of an `mcpServers` object given as JSON text (a setting of its own rather than a
  /// file: `{"time": {"command": "uvx"}}`), or of a whole configuration (`{"mcpServers": {…}}`).
  /// `origin` names where the text came from in errors.
  public static func servers(inlineJSON text: String, origin: String) throws(MCPError) -> [MCPServerConfiguration] {
    let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    guard let object else { throw .invalidConfiguration("\(origin) is not a JSON object of MCP servers") }
    let whole = object["mcpServers"] != nil || object["servers"] != nil
    return try servers(in: whole ? Data(text.utf8) : Data(#"{"mcpServers": "#.utf8) + Data(text.utf8) + Data("}".utf8),
                       origin: origin)
  }

  /// The keys a server entry may have: HybridAI's, and other clients' that it ignores.
  static let stdioKeys: Set<String> = ["command", "args", "env", "envFile", "env_file", "cwd"]
  static let httpKeys: Set<String> = ["url", "headers"]
  static let commonKeys: Set<String> = ["type", "sampling", "disabled", "timeout"]
  static let ignoredKeys: Set<String> = ["autoApprove", "alwaysAllow", "description"]

  /// The servers in a configuration file's bytes; `origin` names it in errors, and relative
  /// `envFile` and `${file:…}` paths are read from `folder` (the current directory when `nil`).
  public static func servers(in data: Data, origin: String = "the MCP configuration",
                             folder: URL? = nil) throws(MCPError) -> [MCPServerConfiguration] {
    guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
      throw .invalidConfiguration("\(origin) is not a JSON object")
    }
    guard let entries = (root["mcpServers"] ?? root["servers"]) as? [String: Any] else {
      throw .invalidConfiguration("\(origin) has no \"mcpServers\" object")
    }
    let text = String(decoding: data, as: UTF8.self)
    var servers: [MCPServerConfiguration] = []
    for (name, value) in entries.sorted(by: { $0.key < $1.key }) {
      guard let entry = value as? [String: Any] else { throw .invalidConfiguration("\(origin): server \(name) is not an object") }
      let known = stdioKeys.union(httpKeys).union(commonKeys).union(ignoredKeys)
      if let unknown = entry.keys.sorted().first(where: { !known.contains($0) }) {
        let line = lineNumber(of: unknown, after: name, in: text).map { ":\($0)" } ?? ""
        throw .invalidConfiguration("\(origin)\(line): server \(name) has an unknown key \"\(unknown)\" "
          + "(a server takes \(stdioKeys.union(httpKeys).union(commonKeys).sorted().joined(separator: ", ")))")
      }
      if entry["disabled"] as? Bool == true { continue }
      var server: MCPServerConfiguration
      if let url = entry["url"] {
        if let type = entry["type"] as? String, !["http", "streamable-http", "streamableHttp"].contains(type) {
          throw .invalidConfiguration("\(origin): server \(name) uses transport \"\(type)\"; only stdio and Streamable HTTP (\"http\") are supported")
        }
        guard let text = url as? String, let address = URL(string: text), ["http", "https"].contains(address.scheme ?? "") else {
          throw .invalidConfiguration("\(origin): \(name).url must be an http(s) URL")
        }
        let headers = try strings(entry["headers"], "\(name).headers", origin: origin)
        server = MCPServerConfiguration(name: name, url: address,
                                        headers: try filled(headers, "\(name).headers", origin: origin, folder: folder))
      } else {
        guard let command = entry["command"] as? String, !command.isEmpty else {
          throw .invalidConfiguration("\(origin): server \(name) has no \"command\"")
        }
        let arguments = entry["args"] ?? [String]()
        guard let arguments = arguments as? [String] else { throw .invalidConfiguration("\(origin): \(name).args must be strings") }
        var environment: [String: String] = [:]
        if let envFile = entry["envFile"] ?? entry["env_file"] {
          guard let path = envFile as? String else { throw .invalidConfiguration("\(origin): \(name).envFile must be a path") }
          environment = try dotenv(at: resolve(path, in: folder), server: name, origin: origin)
        }
        let env = try filled(try strings(entry["env"], "\(name).env", origin: origin), "\(name).env", origin: origin, folder: folder)
        environment.merge(env) { $1 }
        server = MCPServerConfiguration(name: name, command: command, arguments: arguments, environment: environment,
                                        workingDirectory: (entry["cwd"] as? String).map { URL(fileURLWithPath: $0) })
      }
      server.allowsSampling = entry["sampling"] as? Bool ?? false
      if let timeout = entry["timeout"] {
        guard let seconds = timeout as? Double, seconds > 0, seconds <= 86_400 else {
          throw .invalidConfiguration("\(origin): \(name).timeout must be a number of seconds, more than 0 and at most 86400")
        }
        server.requestTimeout = .milliseconds(Int64(seconds * 1000))
      }
      servers.append(server)
    }
    return servers
  }

  /// `value` as names mapped to strings (none when absent).
  private static func strings(_ value: Any?, _ field: String, origin: String) throws(MCPError) -> [String: String] {
    guard let value else { return [:] }
    guard let strings = value as? [String: String] else { throw .invalidConfiguration("\(origin): \(field) must map names to strings") }
    return strings
  }

  /// `values` with every `${file:PATH}` replaced by that file's content (without its final line break).
  private static func filled(_ values: [String: String], _ field: String, origin: String,
                             folder: URL?) throws(MCPError) -> [String: String] {
    var filled: [String: String] = [:]
    for (key, value) in values {
      var result = ""
      var rest = Substring(value)
      while let start = rest.range(of: "${file:") {
        guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
          throw .invalidConfiguration("\(origin): \(field).\(key) has a ${file: without its closing }")
        }
        let path = String(rest[start.upperBound..<end])
        let url = resolve(path, in: folder)
        guard let content = try? String(contentsOf: url, encoding: .utf8) else {
          throw .invalidConfiguration("\(origin): \(field).\(key) names \(url.path), which cannot be read")
        }
        result += rest[..<start.lowerBound] + (content.hasSuffix("\n") ? String(content.dropLast()) : content)
        rest = rest[rest.index(after: end)...]
      }
      filled[key] = result + rest
    }
    return filled
  }

  /// The `NAME=value` lines of an environment file (`#` comments, blank lines, `export ` and quotes allowed).
  private static func dotenv(at url: URL, server: String, origin: String) throws(MCPError) -> [String: String] {
    guard let text = try? String(contentsOf: url, encoding: .utf8) else {
      throw .invalidConfiguration("\(origin): \(server).envFile names \(url.path), which cannot be read")
    }
    var environment: [String: String] = [:]
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      var line = raw.trimmingCharacters(in: .whitespaces)
      guard !line.isEmpty, !line.hasPrefix("#") else { continue }
      if line.hasPrefix("export ") { line = String(line.dropFirst("export ".count)) }
      guard let equals = line.firstIndex(of: "="), equals != line.startIndex else {
        throw .invalidConfiguration("\(url.path):\(index + 1): not a NAME=value line (\(server).envFile)")
      }
      var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
        value = String(value.dropFirst().dropLast())
      }
      environment[line[..<equals].trimmingCharacters(in: .whitespaces)] = value
    }
    return environment
  }

  private static func resolve(_ path: String, in folder: URL?) -> URL {
    if path.hasPrefix("/") { return URL(fileURLWithPath: path) }
    if path.hasPrefix("~/") { return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(String(path.dropFirst(2))) }
    return (folder ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).appendingPathComponent(path)
  }

  /// The line of the first `"key"` after the first `"server"` in `text`, 1-based.
  static func lineNumber(of key: String, after server: String, in text: String) -> Int? {
    guard let serverRange = text.range(of: "\"\(server)\""),
          let keyRange = text.range(of: "\"\(key)\"", range: serverRange.upperBound..<text.endIndex) else { return nil }
    return text[..<keyRange.lowerBound].count(where: { $0 == "\n" }) + 1
  }
}
