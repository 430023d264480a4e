extension DecodingError {
  /// What went wrong and where, in one line for an API error message.
  public var briefDescription: String {
    func path(_ context: Context) -> String {
      context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch self {
    case .dataCorrupted(let context): return "\(context.debugDescription) \(path(context))"
    case .keyNotFound(let key, let context): return "Missing field \(path(context)).\(key.stringValue)."
    case .typeMismatch(let type, let context): return "Expected \(type) at \(path(context))."
    case .valueNotFound(let type, let context): return "Expected \(type) at \(path(context))."
    @unknown default: return "\(self)"
    }
  }
}
