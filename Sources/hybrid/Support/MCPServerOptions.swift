import ArgumentParser
import Foundation
import HybridAIMCP

/// Options that name MCP servers: configuration files, command lines, and the folders the servers
/// may work in.
struct MCPServerOptions: ParsableArguments, Sendable {
  @Option(name: .long, help: ArgumentHelp(
    "The MCP servers of this configuration file (the mcpServers JSON that Claude Desktop, VS Code and Cursor read): their tools are offered. Repeatable.",
    valueName: "file"))
  var mcpConfig: [String] = []

  @Option(name: .long, help: ArgumentHelp(
    "An MCP server to start over stdio, as a command line (e.g. \"uvx mcp-server-time\"): its tools are offered. Repeatable.",
    valueName: "command"))
  var mcp: [String] = []

  @Option(name: .long, help: ArgumentHelp(
    "A folder MCP servers may work in (their roots/list). Repeatable; default: none.", valueName: "folder"))
  var mcpRoot: [String] = []

  func validate() throws {
    do { _ = try servers() } catch { throw ValidationError("--mcp-config: \(error)") }
    if mcp.contains(where: { Self.words($0).isEmpty }) { throw ValidationError("--mcp needs a command") }
    for folder in mcpRoot {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw ValidationError("--mcp-root \(folder): not a folder")
      }
    }
  }

  /// Whether any server is named.
  var isEmpty: Bool { mcpConfig.isEmpty && mcp.isEmpty }

  /// The folders of `--mcp-root`.
  var roots: [URL] { mcpRoot.map { URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL } }

  /// The MCP servers of `--mcp-config` files (read each time: a file that cannot be used throws) and
  /// `--mcp` command lines (named `mcp1`, `mcp2`, …).
  func servers() throws(MCPError) -> [MCPServerConfiguration] {
    var fromFiles: [MCPServerConfiguration] = []
    for file in mcpConfig { fromFiles += try MCPConfigurationFile.servers(at: URL(fileURLWithPath: file)) }
    let fromCommands = mcp.enumerated().compactMap { index, line -> MCPServerConfiguration? in
      let words = Self.words(line)
      guard let command = words.first else { return nil }
      return MCPServerConfiguration(name: "mcp\(index + 1)", command: command, arguments: Array(words.dropFirst()))
    }
    return fromFiles + fromCommands
  }

  /// A command line's words, split at spaces; single or double quotes keep spaces inside a word.
  static func words(_ line: String) -> [String] {
    var words: [String] = [], current = "", quote: Character?, inWord = false
    for character in line {
      if let open = quote {
        if character == open { quote = nil } else { current.append(character) }
      } else if character == "\"" || character == "'" {
        quote = character
        inWord = true
      } else if character.isWhitespace {
        if inWord { words.append(current); current = ""; inWord = false }
      } else {
        current.append(character)
        inWord = true
      }
    }
    if inWord { words.append(current) }
    return words
  }
}
