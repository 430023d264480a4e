import Foundation
import HybridAITestSupport
import ModelDelivery
import Testing

/// `LocalModelCatalog`: what Hugging Face's cache, Ollama's store and model folders hold, each
/// with the reference that resolves to it.
@Suite("Local model catalogue")
struct LocalModelCatalogTests {
  @Test("every store's models with a reference that resolves to the same file, quantizations, sizes of split models, projectors")
  func everyStore() throws {
    let scratch = try TemporaryDirectory("catalogue")
    defer { scratch.remove() }
    let hub = try ModelReferenceTests.HubCache(in: scratch, files: [
      "Tiny-Q4_K_M.gguf", "Tiny-Q8_0.gguf", "mmproj-Tiny-F16.gguf",
      "big/Tiny-Q6_K-00001-of-00002.gguf", "big/Tiny-Q6_K-00002-of-00002.gguf", "README.md",
    ])
    let ollama = try ModelReferenceTests.ollamaStore(in: scratch, model: Data("GGUF model".utf8), projector: Data("GGUF proj".utf8))
    _ = try ModelReferenceTests.ollamaStore(in: scratch, name: ["registry.ollama.ai", "someone", "other"], tag: "7b",
                                            model: Data("GGUF other model".utf8))
    let folder = scratch.appending("models")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data("GGUF local".utf8).write(to: folder.appendingPathComponent("local-Q5_K_M.gguf"))
    try Data("not a model".utf8).write(to: folder.appendingPathComponent("notes.txt"))

    let catalogue = LocalModelCatalog(huggingFaceCache: hub.cache, ollamaStore: ollama, folders: [folder, folder])
    let entries = catalogue.entries()
    #expect(entries.map(\.reference) == [
      "hf:org/Tiny-GGUF:Q4_K_M", "hf:org/Tiny-GGUF:Q8_0", "hf:org/Tiny-GGUF:Q6_K",
      "ollama:tiny:latest", "ollama:someone/other:7b", folder.appendingPathComponent("local-Q5_K_M.gguf").path,
    ])
    #expect(entries.map(\.source) == ["huggingface", "huggingface", "huggingface", "ollama", "ollama", "folder"])
    let split = try #require(entries.first { $0.reference.hasSuffix(":Q6_K") })
    #expect(split.sizeBytes == Int64("GGUF big/Tiny-Q6_K-00001-of-00002.gguf".utf8.count + "GGUF big/Tiny-Q6_K-00002-of-00002.gguf".utf8.count))
    #expect(entries[0].projector?.hasSuffix("mmproj-Tiny-F16.gguf") == true)
    #expect(entries[3].projector != nil && entries[4].projector == nil)

    var resolver = LocalModelResolver(environment: [:])
    resolver.huggingFaceCache = hub.cache
    resolver.ollamaStore = ollama
    for entry in entries {
      #expect(try resolver.resolve(try ModelReference(entry.reference)).weights.path == entry.file, "\(entry.reference)")
    }
  }

  @Test("stores that are not there list nothing")
  func emptyStores() throws {
    let scratch = try TemporaryDirectory("catalogue-empty")
    defer { scratch.remove() }
    let catalogue = LocalModelCatalog(huggingFaceCache: HuggingFaceCache(directory: scratch.appending("none")),
                                      ollamaStore: OllamaStore(directory: scratch.appending("none")),
                                      folders: [scratch.appending("none")])
    #expect(catalogue.entries().isEmpty)
  }
}
