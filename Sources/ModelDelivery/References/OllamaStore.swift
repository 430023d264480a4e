import Foundation

/// The models Ollama has pulled: `manifests/<host>/<namespace>/<name>/<tag>` lists a model's
/// layers by digest, each in `blobs/sha256-<hex>`. The model layer is a GGUF used where it lies
/// (no copy), with the projector layer when the model has one. Pulling is Ollama's job.
public struct OllamaStore: Sendable {
  /// The store's folder (holding `manifests/` and `blobs/`).
  public let directory: URL

  public init(directory: URL) { self.directory = directory }

  /// `$OLLAMA_MODELS`, else `~/.ollama/models`, as Ollama itself.
  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    if let models = environment["OLLAMA_MODELS"], !models.isEmpty {
      self.init(directory: URL(fileURLWithPath: models, isDirectory: true))
    } else {
      let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
      self.init(directory: URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".ollama/models"))
    }
  }

  /// The media types of the layers used.
  static let modelLayer = "application/vnd.ollama.image.model"
  static let projectorLayer = "application/vnd.ollama.image.projector"

  /// The manifest of `name` (`NAME`, `NAMESPACE/NAME` or `HOST/NAMESPACE/NAME`) at `tag`.
  public func manifest(name: String, tag: String) -> URL {
    let parts = name.split(separator: "/").map(String.init)
    let full = switch parts.count {
    case 1: ["registry.ollama.ai", "library"] + parts
    case 2: ["registry.ollama.ai"] + parts
    default: parts
    }
    return (full + [tag]).reduce(directory.appendingPathComponent("manifests")) { $0.appendingPathComponent($1) }
  }

  private struct Manifest: Decodable {
    struct Layer: Decodable {
      var mediaType: String
      var digest: String
    }
    var layers: [Layer]
  }

  func locate(_ reference: ModelReference) throws(ModelReferenceError) -> LocalModel {
    guard case .ollama(let name, let tag) = reference else { preconditionFailure("not an ollama: reference") }
    let path = manifest(name: name, tag: tag)
    guard let data = FileManager.default.contents(atPath: path.path) else { throw .notFound(reference, looked: path.path) }
    let manifest: Manifest
    do {
      manifest = try JSONDecoder().decode(Manifest.self, from: data)
    } catch {
      throw .damaged(reference, reason: "its manifest \(path.path) cannot be read: \(error)")
    }
    guard let model = manifest.layers.first(where: { $0.mediaType == Self.modelLayer }) else {
      throw .damaged(reference, reason: "its manifest has no model layer (\(Self.modelLayer))")
    }
    let projector = manifest.layers.first { $0.mediaType == Self.projectorLayer }
    let weights = try blob(model.digest, reference: reference)
    var projectorFile: URL?
    if let projector { projectorFile = try blob(projector.digest, reference: reference) }
    return LocalModel(reference: reference, weights: weights, projector: projectorFile)
  }

  /// The blob of `digest` (`sha256:<64 hex>`), which must be there.
  private func blob(_ digest: String, reference: ModelReference) throws(ModelReferenceError) -> URL {
    guard let hex = digest.wholeMatch(of: /sha256[:-]([0-9a-f]{64})/)?.1 else {
      throw .damaged(reference, reason: "a layer's digest is not a sha256 digest: \(digest.prefix(80))")
    }
    let url = directory.appendingPathComponent("blobs/sha256-\(hex)")
    guard FileManager.default.isReadableFile(atPath: url.path) else {
      throw .damaged(reference, reason: "the blob of layer sha256:\(hex) is missing (\(url.path))")
    }
    return url
  }
}
