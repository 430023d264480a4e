import Foundation

/// The first element of an RFC 7239 `Forwarded` header — the hop nearest the client — as far as
/// building URLs needs it: `proto` and `host`. Parameter names are case-insensitive; values may be
/// tokens or quoted strings (`host="[2001:db8::1]:8443"`, with `\` escapes).
///
/// `Forwarded: for=192.0.2.60;proto=https;host="models.example.com", for=10.0.0.2` gives
/// `proto == "https"`, `host == "models.example.com"`.
struct ForwardedHeader: Sendable, Equatable {
  var proto: String?
  var host: String?

  init() {}

  init(_ value: String) {
    for (name, parameter) in Self.firstElementParameters(value) {
      switch name {
      case "proto" where proto == nil: proto = parameter
      case "host" where host == nil: host = parameter
      default: break
      }
    }
  }

  /// The `name=value` pairs of the first comma-separated element, names lowercased, values
  /// unquoted. Commas and semicolons inside quoted strings do not split.
  private static func firstElementParameters(_ value: String) -> [(String, String)] {
    var pairs: [(String, String)] = []
    var current = ""
    var inQuotes = false
    var escaped = false
    func finishPair() {
      let text = current
      current = ""
      guard let equals = text.firstIndex(of: "=") else { return }
      let name = text[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
      let rawValue = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      guard !name.isEmpty else { return }
      pairs.append((name, unquoted(rawValue)))
    }
    for character in value {
      if escaped {
        current.append(character)
        escaped = false
        continue
      }
      switch character {
      case "\\" where inQuotes:
        current.append(character)
        escaped = true
      case "\"":
        current.append(character)
        inQuotes.toggle()
      case ";" where !inQuotes:
        finishPair()
      case "," where !inQuotes:
        finishPair()
        return pairs
      default:
        current.append(character)
      }
    }
    finishPair()
    return pairs
  }

  /// A token as it is, a quoted string without its quotes and escapes.
  private static func unquoted(_ value: String) -> String {
    guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
    var result = ""
    var escaped = false
    for character in value.dropFirst().dropLast() {
      if escaped {
        result.append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else {
        result.append(character)
      }
    }
    return result
  }
}
