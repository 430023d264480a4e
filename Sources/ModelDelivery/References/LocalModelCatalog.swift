import Foundation
import Logging

/// What each store on this machine holds: Hugging Face's shared cache (every cached revision's
/// GGUF models, by quantization), Ollama's store (every manifest with a model layer), the GGUF
/// models installed from a HybridAI registry, and model folders (every `.gguf` in them) — each
/// with the reference that names it.
public struct LocalModelCatalog: Sendable {
  /// One model found.
  public struct Entry: Sendable, Hashable, Codable {
    /// The store: `huggingface`, `ollama`, `registry` or `folder`.
    public var source: String
    /// What to give `--model`: `hf:ORG/REPO:QUANT`, `ollama:NAME:TAG`, `registry:NAME`, or the file's path.
    public var reference: String
    /// The model's file (the first part of a split model).
    public var file: String
    /// The quantization tag in the file's name, when it has one.
    public var quantization: String?
    /// Bytes, every part of a split model counted.
    public var sizeBytes: Int64
    /// The projector (`mmproj`) that comes with it, when there is one.
    public var projector: String?
  }

  public var huggingFaceCache: HuggingFaceCache
  public var ollamaStore: OllamaStore
  /// Where models from a HybridAI registry are installed (``ModelDownloader``), if anywhere.
  public var registryModels: URL?
  /// Folders whose `.gguf` files are listed as they are.
  public var folders: [URL]

  public init(huggingFaceCache: HuggingFaceCache, ollamaStore: OllamaStore, registryModels: URL? = nil, folders: [URL]) {
    self.huggingFaceCache = huggingFaceCache
    self.ollamaStore = ollamaStore
    self.registryModels = registryModels
    self.folders = folders
  }

  /// The stores the environment names, and `folders`.
  public init(environment: [String: String] = ProcessInfo.processInfo.environment, folders: [URL]) {
    self.init(huggingFaceCache: HuggingFaceCache(environment: environment), ollamaStore: OllamaStore(environment: environment),
              registryModels: ModelDownloader.defaultDirectory(environment: environment), folders: folders)
  }

  /// Every model found, by store, then reference.
  public func entries() -> [Entry] {
    huggingFaceEntries() + ollamaEntries() + registryEntries() + folderEntries()
  }

  /// Every GGUF model installed from a registry, as `registry:NAME` (its installed version).
  func registryEntries() -> [Entry] {
    guard let registryModels else { return [] }
    let store = ModelStore(root: registryModels, logger: Logger(label: "HybridAI.modelDelivery"))
    return store.modelNames().compactMap { name in
      guard let record = store.installed(name), record.fileName.hasSuffix(".gguf") else { return nil }
      let file = URL(fileURLWithPath: store.filePath(for: record))
      return Entry(source: "registry", reference: "registry:\(name)", file: file.path, quantization: nil,
                   sizeBytes: Self.size(of: file), projector: nil)
    }
  }

  /// Each cached repository's models: those of its `main` snapshot as `hf:ORG/REPO:QUANT`, those of
  /// other snapshots with `@COMMIT`.
  func huggingFaceEntries() -> [Entry] {
    let fileManager = FileManager.default
    guard let folders = try? fileManager.contentsOfDirectory(atPath: huggingFaceCache.directory.path) else { return [] }
    var entries: [Entry] = []
    for folder in folders.sorted() where folder.hasPrefix("models--") {
      let parts = folder.dropFirst("models--".count).components(separatedBy: "--")
      guard parts.count == 2 else { continue }
      let repository = parts.joined(separator: "/")
      let root = huggingFaceCache.directory.appendingPathComponent(folder)
      let main = (try? String(contentsOf: root.appendingPathComponent("refs/main"), encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines)
      let snapshots = (try? fileManager.contentsOfDirectory(atPath: root.appendingPathComponent("snapshots").path)) ?? []
      for commit in snapshots.sorted() {
        let snapshot = root.appendingPathComponent("snapshots/\(commit)")
        let files = HuggingFaceCache.files(below: snapshot)
        let models = files.filter(HuggingFaceCache.isModel).filter { path in
          path.firstMatch(of: /-(\d{5})-of-(\d{5})\.gguf$/).map { $0.1 == "00001" } ?? true
        }
        for model in models {
          let quantization = HuggingFaceCache.quantization(in: model)
          let revision = commit == main ? "" : "@\(commit)"
          let reference = "hf:\(repository)" + (quantization.map { ":\($0)" } ?? "") + revision
          let file = snapshot.appendingPathComponent(model)
          guard fileManager.isReadableFile(atPath: file.resolvingSymlinksInPath().path) else { continue }
          let parts = HuggingFaceCache.splitParts(of: model, among: files).map { snapshot.appendingPathComponent($0) }
          entries.append(Entry(
            source: "huggingface", reference: reference, file: file.path, quantization: quantization,
            sizeBytes: parts.reduce(0) { $0 + Self.size(of: $1) },
            projector: HuggingFaceCache.projector(among: files, for: model).map { snapshot.appendingPathComponent($0).path }))
        }
      }
    }
    return entries
  }

  /// Every manifest with a model layer, as `ollama:NAME:TAG` (the `library` namespace of Ollama's
  /// registry left out, as Ollama names them).
  func ollamaEntries() -> [Entry] {
    let manifests = ollamaStore.directory.appendingPathComponent("manifests")
    var entries: [Entry] = []
    for path in HuggingFaceCache.files(below: manifests) {
      var parts = path.split(separator: "/").map(String.init)
      guard parts.count == 4, let tag = parts.popLast() else { continue }
      if parts[0] == "registry.ollama.ai" {
        parts.removeFirst()
        if parts.first == "library" { parts.removeFirst() }
      }
      let text = "ollama:\(parts.joined(separator: "/")):\(tag)"
      guard let reference = try? ModelReference(text), let model = try? ollamaStore.locate(reference) else { continue }
      entries.append(Entry(source: "ollama", reference: text, file: model.weights.path, quantization: nil,
                           sizeBytes: Self.size(of: model.weights), projector: model.projector?.path))
    }
    return entries
  }

  /// Every `.gguf` model in the folders (projectors beside them named as theirs).
  func folderEntries() -> [Entry] {
    var entries: [Entry] = []
    var seen = Set<String>()
    for folder in folders {
      let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      for name in files.sorted() where HuggingFaceCache.isModel(name) {
        let file = folder.appendingPathComponent(name).standardizedFileURL
        guard seen.insert(file.resolvingSymlinksInPath().path).inserted else { continue }
        entries.append(Entry(source: "folder", reference: file.path, file: file.path,
                             quantization: HuggingFaceCache.quantization(in: name), sizeBytes: Self.size(of: file),
                             projector: HuggingFaceCache.projector(among: files, for: name).map { folder.appendingPathComponent($0).path }))
      }
    }
    return entries
  }

  static func size(of file: URL) -> Int64 {
    let attributes = try? FileManager.default.attributesOfItem(atPath: file.resolvingSymlinksInPath().path)
    return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
  }
}
