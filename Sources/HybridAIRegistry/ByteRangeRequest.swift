import HybridAIWire
/// What a request's `Range` header asks of a file of a known size (RFC 9110 §14), for the single
/// byte ranges download clients send: `bytes=a-b`, `bytes=a-`, `bytes=-n`.
enum ByteRangeRequest: Equatable {
  /// No range, or one to ignore (another unit, several ranges, bad syntax): the whole file, `200`.
  case whole
  /// These bytes (inclusive, clamped to the file), `206`.
  case partial(ClosedRange<Int64>)
  /// A range that starts at or past the end of the file, `416`.
  case unsatisfiable

  init(header: String?, size: Int64) {
    guard let header else { self = .whole; return }
    let trimmed = header.trimmingASCIISpaces()
    guard trimmed.lowercased().hasPrefix("bytes=") else { self = .whole; return }
    let spec = trimmed.dropFirst("bytes=".count).trimmingASCIISpaces()
    guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { self = .whole; return }
    let first = spec[..<dash], last = spec[spec.index(after: dash)...]
    switch (Self.number(first), Self.number(last)) {
    case (nil, let suffixLength?) where first.isEmpty:
      guard suffixLength > 0, size > 0 else { self = .unsatisfiable; return }
      self = .partial(max(size - suffixLength, 0)...(size - 1))
    case (let start?, nil) where last.isEmpty:
      self = start < size ? .partial(start...(size - 1)) : .unsatisfiable
    case (let start?, let end?):
      guard start <= end else { self = .whole; return }
      self = start < size ? .partial(start...min(end, size - 1)) : .unsatisfiable
    default:
      self = .whole
    }
  }

  /// Decimal digits as a number; ones too large for `Int64` count as `Int64.max` (past any file's end).
  private static func number(_ text: Substring) -> Int64? {
    guard !text.isEmpty, text.utf8.allSatisfy(RegistryIdentifiers.isASCIIDigit) else { return nil }
    return Int64(text) ?? Int64.max
  }
}

extension StringProtocol {
  /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
  func trimmingASCIISpaces() -> Substring {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    let view = self[...]
    guard let start = view.firstIndex(where: { !isSpace($0) }), let end = view.lastIndex(where: { !isSpace($0) }) else {
      return Substring()
    }
    return Substring(view[start...end])
  }
}
