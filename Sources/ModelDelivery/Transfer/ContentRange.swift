import Foundation

/// A `Content-Range: bytes <first>-<last>/<complete length>` header of a `206` answer.
struct ContentRange: Sendable, Hashable {
  var first: Int64
  var last: Int64
  var completeLength: Int64?

  /// Parses the header; `nil` when it is not a satisfied byte range (`bytes */n` is not).
  init?(_ header: String) {
    let text = header.trimmingCharacters(in: .whitespaces)
    guard text.lowercased().hasPrefix("bytes ") else { return nil }
    let spec = text.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
    let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    guard halves.count == 2 else { return nil }
    let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first >= 0, last >= first
    else { return nil }
    self.first = first
    self.last = last
    if halves[1] == "*" {
      completeLength = nil
    } else {
      guard let length = Int64(halves[1]), length > last else { return nil }
      completeLength = length
    }
  }
}
