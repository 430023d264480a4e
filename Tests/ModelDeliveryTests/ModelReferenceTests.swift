import Crypto
import Foundation
import HybridAITestSupport
import ModelDelivery
import Testing

/// `hf:` and `ollama:` references: parsing, and finding the model in Hugging Face's cache and
/// Ollama's store as those tools lay them out (built here file by file), with the typed errors of
/// every damaged or missing case.
@Suite("Model references: Hugging Face's cache and Ollama's store")
struct ModelReferenceTests {
  @Test("parsing: files, hf:ORG/REPO[:QUANT][@REVISION], ollama:NAME[:TAG]; malformed ones refused with the form expected")
  func parsing() throws {
    #expect(try ModelReference("models/a.gguf") == .file("models/a.gguf"))
    #expect(try ModelReference("hf:ggml-org/gemma-3-270m-it-GGUF") ==
      .huggingFace(repository: "ggml-org/gemma-3-270m-it-GGUF", quantization: nil, revision: nil))
    #expect(try ModelReference("hf:org/repo:q8_0@v1.0") == .huggingFace(repository: "org/repo", quantization: "q8_0", revision: "v1.0"))
    #expect(try ModelReference("ollama:qwen2.5") == .ollama(name: "qwen2.5", tag: "latest"))
    #expect(try ModelReference("ollama:someone/model:7b") == .ollama(name: "someone/model", tag: "7b"))
    #expect(try ModelReference("ollama:hf.co/org/repo:Q4_K_M") == .ollama(name: "hf.co/org/repo", tag: "Q4_K_M"))
    #expect(try ModelReference("hf:org/repo:Q4_K_M").description == "hf:org/repo:Q4_K_M")
    #expect(try ModelReference("hf:ggml-org/SmolLM2-GGUF").shortName == "smollm2")
    #expect(try ModelReference("registry:smol-2") == .registry(name: "smol-2"))
    #expect(try ModelReference("registry:smol-2").description == "registry:smol-2")
    for bad in ["hf:", "hf:repo", "hf:a/b/c", "hf:../x", "hf:org/..", "hf:org/repo:", "hf:org/repo@", "hf:org/repo@../../x",
                "ollama:", "ollama:../x", "ollama:a/b/c/d", "ollama:name:", "registry:", "registry:a/b", "registry:-x", ""] {
      #expect(throws: ModelReferenceError.self, "\(bad)") { try ModelReference(bad) }
    }
  }

  /// A Hugging Face cache with one repository at one commit: `files` (name → bytes) as blobs named
  /// by their sha256, linked from the snapshot, `refs/main` naming the commit.
  struct HubCache {
    let root: URL
    let repository = "org/Tiny-GGUF"
    let commit = String(repeating: "ab12", count: 10)
    var cache: HuggingFaceCache { HuggingFaceCache(directory: root) }
    var snapshot: URL { cache.folder(of: repository).appendingPathComponent("snapshots/\(commit)") }

    init(in directory: TemporaryDirectory, files: [String]) throws {
      root = directory.appending("hub")
      let folder = HuggingFaceCache(directory: root).folder(of: repository)
      let fileManager = FileManager.default
      try fileManager.createDirectory(at: folder.appendingPathComponent("refs"), withIntermediateDirectories: true)
      try Data(commit.utf8).write(to: folder.appendingPathComponent("refs/main"))
      for name in files {
        let data = Data("GGUF \(name)".utf8)
        let blob = folder.appendingPathComponent("blobs/\(ModelReferenceTests.sha256(data))")
        try fileManager.createDirectory(at: blob.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: blob)
        let link = snapshot.appendingPathComponent(name)
        try fileManager.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try fileManager.createSymbolicLink(atPath: link.path, withDestinationPath: blob.path)
      }
    }

    func resolve(_ text: String) throws -> LocalModel {
      var resolver = LocalModelResolver(environment: [:])
      resolver.huggingFaceCache = cache
      return try resolver.resolve(try ModelReference(text))
    }
  }

  @Test("hf: picks Q4_K_M by default, else Q8_0, else the first model; a named quantization in any case; the first part of a split model; the projector beside it")
  func huggingFaceCacheChoice() throws {
    let scratch = try TemporaryDirectory("hf-cache")
    defer { scratch.remove() }
    let hub = try HubCache(in: scratch, files: [
      "Tiny-F16.gguf", "Tiny-Q8_0.gguf", "Tiny-Q4_K_M.gguf", "mmproj-Tiny-F16.gguf", "imatrix.gguf",
      "big/Tiny-Q6_K-00001-of-00002.gguf", "big/Tiny-Q6_K-00002-of-00002.gguf", "README.md",
    ])
    let chosen = try hub.resolve("hf:org/Tiny-GGUF")
    #expect(chosen.weights.lastPathComponent == "Tiny-Q4_K_M.gguf")
    #expect(chosen.weights.path.hasPrefix(hub.snapshot.path))
    #expect(chosen.projector?.lastPathComponent == "mmproj-Tiny-F16.gguf")
    #expect(try hub.resolve("hf:org/Tiny-GGUF:q8_0").weights.lastPathComponent == "Tiny-Q8_0.gguf")
    #expect(try hub.resolve("hf:org/Tiny-GGUF:Q6_K").weights.lastPathComponent == "Tiny-Q6_K-00001-of-00002.gguf")
    #expect(try hub.resolve("hf:org/Tiny-GGUF:F16@\(hub.commit)").weights.lastPathComponent == "Tiny-F16.gguf")
    #expect(throws: ModelReferenceError.quantizationNotFound(try ModelReference("hf:org/Tiny-GGUF:IQ2_XS"),
                                                             available: ["F16", "Q4_K_M", "Q6_K", "Q8_0"])) {
      try hub.resolve("hf:org/Tiny-GGUF:IQ2_XS")
    }
  }

  @Test("hf: errors: not cached, an unknown branch, a broken link, a link out of the cache, a snapshot without a GGUF")
  func huggingFaceCacheErrors() throws {
    let scratch = try TemporaryDirectory("hf-cache")
    defer { scratch.remove() }
    let hub = try HubCache(in: scratch, files: ["Tiny-Q4_K_M.gguf"])
    func reason(_ text: String) -> ModelReferenceError? {
      do { _ = try hub.resolve(text); return nil } catch let error as ModelReferenceError { return error } catch { return nil }
    }
    guard case .notFound? = reason("hf:org/Other-GGUF") else { Issue.record("an uncached repository is notFound"); return }
    guard case .notFound? = reason("hf:org/Tiny-GGUF@dev") else { Issue.record("an unknown branch is notFound"); return }

    let link = hub.snapshot.appendingPathComponent("Tiny-Q4_K_M.gguf")
    let blob = link.resolvingSymlinksInPath()
    try FileManager.default.removeItem(at: blob)
    guard case .damaged(_, let broken)? = reason("hf:org/Tiny-GGUF") else { Issue.record("a broken link is damaged"); return }
    #expect(broken.contains("broken link"))

    let outside = scratch.appending("outside.gguf")
    try Data("GGUF".utf8).write(to: outside)
    try FileManager.default.removeItem(at: link)
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: outside.path)
    guard case .damaged(_, let escaping)? = reason("hf:org/Tiny-GGUF") else { Issue.record("a link out of the cache is damaged"); return }
    #expect(escaping.contains("outside the cache"))

    try FileManager.default.removeItem(at: link)
    guard case .damaged(_, let empty)? = reason("hf:org/Tiny-GGUF") else { Issue.record("no GGUF is damaged"); return }
    #expect(empty.contains("no GGUF"))
  }

  @Test("the cache folder follows llama.cpp's precedence: LLAMA_CACHE, HF_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME, ~/.cache")
  func huggingFaceCacheFolder() {
    #expect(HuggingFaceCache(environment: ["LLAMA_CACHE": "/l", "HF_HUB_CACHE": "/h"]).directory.path == "/l")
    #expect(HuggingFaceCache(environment: ["HF_HUB_CACHE": "/h", "HF_HOME": "/home"]).directory.path == "/h")
    #expect(HuggingFaceCache(environment: ["HF_HOME": "/hf", "XDG_CACHE_HOME": "/x"]).directory.path == "/hf/hub")
    #expect(HuggingFaceCache(environment: ["XDG_CACHE_HOME": "/x", "HOME": "/u"]).directory.path == "/x/huggingface/hub")
    #expect(HuggingFaceCache(environment: ["HOME": "/u"]).directory.path == "/u/.cache/huggingface/hub")
    #expect(OllamaStore(environment: ["OLLAMA_MODELS": "/o", "HOME": "/u"]).directory.path == "/o")
    #expect(OllamaStore(environment: ["HOME": "/u"]).directory.path == "/u/.ollama/models")
  }

  /// `data`'s SHA-256, lowercase hex: the name of its blob in either store.
  static func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

  /// An Ollama store with one model: its manifest (Ollama's media types) and its layers' blobs.
  static func ollamaStore(in directory: TemporaryDirectory, name: [String] = ["registry.ollama.ai", "library", "tiny"],
                          tag: String = "latest", model: Data, projector: Data? = nil) throws -> OllamaStore {
    let store = OllamaStore(directory: directory.appending("ollama"))
    var layers: [[String: Any]] = []
    func add(_ data: Data, _ mediaType: String) throws {
      let digest = sha256(data)
      let blob = store.directory.appendingPathComponent("blobs/sha256-\(digest)")
      try FileManager.default.createDirectory(at: blob.deletingLastPathComponent(), withIntermediateDirectories: true)
      try data.write(to: blob)
      layers.append(["mediaType": mediaType, "digest": "sha256:\(digest)", "size": data.count])
    }
    try add(model, "application/vnd.ollama.image.model")
    if let projector { try add(projector, "application/vnd.ollama.image.projector") }
    try add(Data("{{ .Prompt }}".utf8), "application/vnd.ollama.image.template")
    let manifest: [String: Any] = [
      "schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
      "config": ["mediaType": "application/vnd.docker.container.image.v1+json", "digest": "sha256:" + String(repeating: "0", count: 64)],
      "layers": layers,
    ]
    let path = (name + [tag]).reduce(store.directory.appendingPathComponent("manifests")) { $0.appendingPathComponent($1) }
    try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
    try JSONSerialization.data(withJSONObject: manifest).write(to: path)
    return store
  }

  @Test("ollama: the model layer's blob in place, the projector layer beside it; namespaces and tags; a missing manifest, blob or model layer are typed errors")
  func ollamaStore() throws {
    let scratch = try TemporaryDirectory("ollama")
    defer { scratch.remove() }
    let store = try Self.ollamaStore(in: scratch, model: Data("GGUF weights".utf8), projector: Data("GGUF projector!".utf8))
    var resolver = LocalModelResolver(environment: [:])
    resolver.ollamaStore = store
    let model = try resolver.resolve(try ModelReference("ollama:tiny"))
    #expect(try Data(contentsOf: model.weights) == Data("GGUF weights".utf8))
    #expect(model.weights.path.hasPrefix(store.directory.appendingPathComponent("blobs").path))
    #expect(try model.projector.map { try Data(contentsOf: $0) } == Data("GGUF projector!".utf8))
    #expect(store.manifest(name: "someone/tiny", tag: "7b").path.hasSuffix("manifests/registry.ollama.ai/someone/tiny/7b"))
    #expect(store.manifest(name: "hf.co/org/repo", tag: "Q4_K_M").path.hasSuffix("manifests/hf.co/org/repo/Q4_K_M"))

    #expect { try resolver.resolve(try ModelReference("ollama:tiny:7b")) } throws: { error in
      if case .notFound? = error as? ModelReferenceError { true } else { false }
    }
    let blob = model.weights
    try FileManager.default.removeItem(at: blob)
    #expect { try resolver.resolve(try ModelReference("ollama:tiny")) } throws: { error in
      if case .damaged(_, let reason)? = error as? ModelReferenceError { reason.contains("is missing") } else { false }
    }
    let manifest = store.manifest(name: "tiny", tag: "latest")
    try Data(#"{"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:../../etc/passwd"}]}"#.utf8).write(to: manifest)
    #expect { try resolver.resolve(try ModelReference("ollama:tiny")) } throws: { error in
      if case .damaged(_, let reason)? = error as? ModelReferenceError { reason.contains("not a sha256 digest") } else { false }
    }
    try Data("not json".utf8).write(to: manifest)
    #expect { try resolver.resolve(try ModelReference("ollama:tiny")) } throws: { error in
      if case .damaged(_, let reason)? = error as? ModelReferenceError { reason.contains("cannot be read") } else { false }
    }
  }
}
