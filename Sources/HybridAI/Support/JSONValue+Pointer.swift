import Foundation

extension JSONValue {
  /// The value at a local JSON pointer reference such as `#`, `#/$defs/Name` or `#/items/0`
  /// (`~1` and `~0` escapes and percent-encoding decoded), or `nil` when there is none.
  public func value(atReference reference: String) -> JSONValue? {
    guard reference.hasPrefix("#") else { return nil }
    let pointer = String(reference.dropFirst()).removingPercentEncoding ?? String(reference.dropFirst())
    if pointer.isEmpty { return self }
    guard pointer.hasPrefix("/") else { return nil }
    var current = self
    for token in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
      let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
      switch current {
      case .object(let members):
        guard let next = members[key] else { return nil }
        current = next
      case .array(let items):
        guard let index = Int(key), items.indices.contains(index) else { return nil }
        current = items[index]
      default:
        return nil
      }
    }
    return current
  }
}
