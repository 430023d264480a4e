import Foundation
import HybridAITestSupport
import ModelDelivery
import Testing

/// Which `mmproj*.gguf` beside a model file is its projector.
@Suite("Projector pairing beside a model file")
struct ProjectorPairingTests {
  static func folder(_ names: [String]) throws -> TemporaryDirectory {
    let folder = try TemporaryDirectory("pairing")
    for name in names { try Data("GGUF".utf8).write(to: folder.url.appendingPathComponent(name)) }
    return folder
  }

  static func paired(_ model: String, among names: [String]) throws -> String? {
    let folder = try folder(names)
    defer { folder.remove() }
    return ProjectorPairing.projector(besides: folder.url.appendingPathComponent(model))?.lastPathComponent
  }

  @Test("the folder's only projector beside its only model is paired")
  func onlyOne() throws {
    #expect(try Self.paired("model.gguf", among: ["model.gguf", "mmproj.gguf"]) == "mmproj.gguf")
    #expect(try Self.paired("model.gguf", among: ["model.gguf", "notes.txt"]) == nil)
  }

  @Test("among several models, the projector whose name holds the model's (quantizations aside)")
  func byName() throws {
    let names = ["SmolVLM-256M-Instruct-Q8_0.gguf", "mmproj-SmolVLM-256M-Instruct-f16.gguf",
                 "gemma-3-4b-it-Q4_K_M.gguf", "mmproj-gemma-3-4b-it-f16.gguf", "SmolLM2-135M-Instruct-Q4_1.gguf"]
    #expect(try Self.paired("SmolVLM-256M-Instruct-Q8_0.gguf", among: names) == "mmproj-SmolVLM-256M-Instruct-f16.gguf")
    #expect(try Self.paired("gemma-3-4b-it-Q4_K_M.gguf", among: names) == "mmproj-gemma-3-4b-it-f16.gguf")
    #expect(try Self.paired("SmolLM2-135M-Instruct-Q4_1.gguf", among: names) == nil, "a text model gets none")
    #expect(try Self.paired("mmproj-gemma-3-4b-it-f16.gguf", among: names) == nil, "a projector is not a model")
  }

  @Test("two projectors that could both be the model's: none is guessed")
  func ambiguous() throws {
    #expect(try Self.paired("model.gguf", among: ["model.gguf", "mmproj-a.gguf", "mmproj-b.gguf"]) == nil)
  }
}
