import HybridAI

/// A ``ModelFileSource`` for a model that is never downloaded — a file or an `ollama:` model —
/// looked up each time its state is read: `.ready` while it is there, else `.failed` with the
/// reason.
public struct ResolvedModelFile: ModelFileSource {
  /// A file or `ollama:` reference.
  public let reference: ModelReference
  private let resolver: LocalModelResolver

  public init(_ reference: ModelReference, resolver: LocalModelResolver = LocalModelResolver()) {
    self.reference = reference
    self.resolver = resolver
  }

  public var name: String { reference.description }

  public var fileState: ModelFileState {
    do {
      return .ready(path: try resolver.resolve(reference).weights.path, version: "local")
    } catch {
      return .failed(reason: error.description)
    }
  }

  /// Nothing to fetch.
  public func prepareFile() {}
}
