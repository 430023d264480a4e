/// Why ``WriteFileTool`` wrote no file.
public enum WriteFileToolError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The content is larger than the tool's limit (in UTF-8 bytes).
  case contentTooLarge(byteCount: Int, limit: Int)

  public var description: String {
    switch self {
    case .contentTooLarge(let count, let limit): "the file would be \(count) bytes; the limit is \(limit)"
    }
  }
}
