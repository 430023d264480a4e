import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

/// Where layers go: the planning rules (tested with described devices, since this machine has no
/// GPU), the backends loaded from the library folder, and what the real model reports on the CPU.
@Suite("GPU offload: planning, backends, placement")
struct GPUOffloadTests {
  /// SmolLM2-135M's shape (30 blocks, 576 wide, 9 heads, 3 KV heads): 31 offloadable layers.
  static let smolShape = GGUFModelShape(fileSize: 98_362_432, blockCount: 30, embeddingLength: 576, headCount: 9,
                                        keyValueHeadCount: 3, trainingContextLength: 8192)
  static let cpu = ComputeDevice(name: "CPU", description: "Test CPU", backend: "CPU", kind: .cpu,
                                 freeMemory: 16 << 30, totalMemory: 32 << 30)
  static func gpu(free: UInt64, name: String = "CUDA0") -> ComputeDevice {
    ComputeDevice(name: name, description: "Test GPU", backend: "CUDA", kind: .gpu, freeMemory: free, totalMemory: 80 << 30)
  }

  func place(_ request: GPULayers, devices: [ComputeDevice], device: String? = nil, context: Int = 4096,
             shape: GGUFModelShape = smolShape) throws(OffloadError) -> ModelPlacement {
    try OffloadPlanner.place(shape: shape, contextTokens: context, request: request, deviceName: device,
                             devices: devices, backendsFolder: "/lib/test")
  }

  @Test("a shape at the largest dimensions a file is read with, and the longest context, plans without overflowing")
  func absurdShapesDoNotOverflow() throws {
    let largest = GGUFModelShape.largestDimension
    let huge = GGUFModelShape(fileSize: .max, blockCount: largest, embeddingLength: largest, headCount: 1,
                              keyValueHeadCount: largest, trainingContextLength: largest)
    let placement = try place(.automatic, devices: [Self.gpu(free: 79 << 30), Self.cpu], context: Int(Int32.max), shape: huge)
    #expect(placement.gpuLayers == 0 && !placement.usesGPU)
    let forced = try place(.count(3), devices: [Self.gpu(free: 79 << 30), Self.cpu], context: Int(Int32.max), shape: huge)
    #expect(forced.gpuLayers == 3 && forced.requiredBytes == .max && forced.description.contains("may not fit"))
  }

  @Test("automatic without a GPU: the CPU, and the reason says so")
  func automaticWithoutGPU() throws {
    let placement = try place(.automatic, devices: [Self.cpu])
    #expect(placement.gpuLayers == 0 && placement.totalLayers == 31 && !placement.usesGPU)
    #expect(placement.device.kind == .cpu)
    #expect(placement.description == "CPU: 31 layers (no GPU backend is loaded)")
  }

  @Test("automatic with room: every layer on the first GPU, described as the start line prints it")
  func automaticEverythingFits() throws {
    let placement = try place(.automatic, devices: [Self.gpu(free: 79 << 30), Self.gpu(free: 79 << 30, name: "CUDA1"), Self.cpu])
    #expect(placement.gpuLayers == 31 && placement.device.name == "CUDA0")
    // weights (≈94 MiB) + KV cache for 4096 tokens (30 layers × 576×3/9 × 2 × 2 bytes × 4096 ≈ 90 MiB)
    #expect(placement.requiredBytes > 150 << 20 && placement.requiredBytes < 250 << 20)
    #expect(placement.description.hasPrefix("CUDA0 Test GPU: 31/31 layers, "))
    #expect(placement.description.hasSuffix("of 79.0 GiB free (everything fits)"))
  }

  @Test("automatic on a GPU too small for the model: as many layers as fit, else the CPU with the reason")
  func automaticPartialAndNone() throws {
    let perLayer = Self.smolShape.fileSize / 31 + Self.smolShape.keyValueBytesPerTokenPerLayer * 4096
    let partial = try place(.automatic, devices: [Self.gpu(free: OffloadPlanner.reserveBytes + perLayer * 10 + 1), Self.cpu])
    #expect(partial.gpuLayers == 10)
    #expect(partial.reason.hasPrefix("only 10 of 31 layers fit"))
    let none = try place(.automatic, devices: [Self.gpu(free: OffloadPlanner.reserveBytes + perLayer / 2), Self.cpu])
    #expect(none.gpuLayers == 0 && none.device.kind == .cpu)
    #expect(none.reason.contains("less than one layer needs"))
    // A longer context costs more KV cache per layer, so fewer layers fit in the same memory.
    let longer = try place(.automatic, devices: [Self.gpu(free: OffloadPlanner.reserveBytes + perLayer * 10 + 1), Self.cpu],
                           context: 8192)
    #expect(longer.gpuLayers < 10)
  }

  @Test("several contexts on the same weights: a compute reserve for each, so fewer layers fit in the same memory")
  func reservePerContext() throws {
    let perLayer = Self.smolShape.fileSize / 31 + Self.smolShape.keyValueBytesPerTokenPerLayer * 4096
    let free = OffloadPlanner.reserveBytes * 2 + perLayer * 10 + 1
    let two = try OffloadPlanner.place(shape: Self.smolShape, contextTokens: 4096, request: .automatic, deviceName: nil,
                                       devices: [Self.gpu(free: free), Self.cpu], backendsFolder: "/lib/test", contexts: 2)
    #expect(two.gpuLayers == 10)
    let one = try place(.automatic, devices: [Self.gpu(free: free), Self.cpu])
    #expect(one.gpuLayers > 10, "one context leaves room for more layers")
  }

  @Test("a count: exactly that many layers; more than the model has, or no GPU, is a typed error")
  func explicitCount() throws {
    let placement = try place(.count(12), devices: [Self.gpu(free: 79 << 30), Self.cpu])
    #expect(placement.gpuLayers == 12 && placement.reason == "12 layers as configured")
    #expect(throws: OffloadError.layerCountOutOfRange(requested: 32, available: 31)) {
      try place(.count(32), devices: [Self.gpu(free: 79 << 30), Self.cpu])
    }
    #expect(throws: OffloadError.noGPU(backendsFolder: "/lib/test")) { try place(.count(5), devices: [Self.cpu]) }
    #expect(throws: OffloadError.invalidLayerCount("-1")) { try place(.count(-1), devices: [Self.gpu(free: 79 << 30)]) }
    let squeezed = try place(.count(31), devices: [Self.gpu(free: 100 << 20), Self.cpu])
    #expect(squeezed.gpuLayers == 31 && squeezed.reason.hasSuffix("they may not fit"))
  }

  @Test("a device by name (any case); an unknown one lists those there are; the CPU or .none means no offload")
  func deviceChoice() throws {
    let devices = [Self.gpu(free: 79 << 30), Self.gpu(free: 79 << 30, name: "CUDA1"), Self.cpu]
    #expect(try place(.automatic, devices: devices, device: "cuda1").device.name == "CUDA1")
    #expect(throws: OffloadError.unknownDevice("CUDA7", available: ["CUDA0", "CUDA1", "CPU"])) {
      try place(.automatic, devices: devices, device: "CUDA7")
    }
    #expect(try place(.automatic, devices: devices, device: "CPU").gpuLayers == 0)
    #expect(try place(.none, devices: devices).gpuLayers == 0)
    #expect(throws: OffloadError.noGPU(backendsFolder: "/lib/test")) { try place(.count(3), devices: devices, device: "CPU") }
  }

  @Test("--gpu-layers spellings", arguments: [
    ("auto", GPULayers.automatic), ("AUTO", .automatic), ("0", .none), ("none", .none), ("cpu", .none), ("24", .count(24)),
  ])
  func parsing(text: String, expected: GPULayers) throws {
    #expect(try GPULayers(parsing: text) == expected)
  }

  @Test("--gpu-layers rejects what is not a count", arguments: ["abc", "-3", "1.5", "", "all"])
  func parsingRejects(text: String) {
    #expect(throws: OffloadError.invalidLayerCount(text)) { try GPULayers(parsing: text) }
  }

  @Test("backend library names: libggml-NAME[-VARIANT].so; the base library and versioned names are not backends")
  func libraryNames() {
    #expect(ComputeBackends.backendName(ofLibrary: "libggml-cpu.so") == "cpu")
    #expect(ComputeBackends.backendName(ofLibrary: "libggml-cpu-haswell.so") == "cpu")
    #expect(ComputeBackends.backendName(ofLibrary: "libggml-cuda.so") == "cuda")
    for name in ["libggml-base.so", "libggml.so", "libggml.so.0", "libggml-cpu.so.0", "libllama.so", "notes.txt"] {
      #expect(ComputeBackends.backendName(ofLibrary: name) == nil, "\(name)")
    }
  }

  @Test("a backends folder with a broken and a foreign library: both skipped with a reason naming them; the real one chosen")
  func brokenAndForeignLibraries() throws {
    let folder = try TestModel.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let loaded = try #require(ComputeBackends.loadedLibraries["cpu"], "the checkout's CPU backend is loaded")
    try FileManager.default.copyItem(atPath: loaded, toPath: folder.appendingPathComponent("libggml-cpu.so").path)
    try Data("not an ELF file".utf8).write(to: folder.appendingPathComponent("libggml-broken.so"))
    let foreign = try #require(["/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/aarch64-linux-gnu/libz.so.1"]
      .first { FileManager.default.fileExists(atPath: $0) })
    // A real shared library that is not a ggml backend (resolved: the system's name is a link).
    let foreignFile = URL(fileURLWithPath: foreign).resolvingSymlinksInPath().path
    try FileManager.default.copyItem(atPath: foreignFile, toPath: folder.appendingPathComponent("libggml-foreign.so").path)

    var skipped: [ComputeBackends.SkippedLibrary] = []
    let chosen = ComputeBackends.chooseLibraries(in: [folder.path], skipped: &skipped)
    #expect(chosen == ["cpu": folder.appendingPathComponent("libggml-cpu.so").path])
    let reasons = Dictionary(uniqueKeysWithValues: skipped.map { (URL(fileURLWithPath: $0.path).lastPathComponent, $0.reason) })
    #expect(reasons["libggml-broken.so"]?.hasPrefix("cannot be opened") == true, "\(skipped)")
    #expect(reasons["libggml-foreign.so"] == "not a ggml backend (no ggml_backend_init)", "\(skipped)")
  }

  @Test("this checkout: the CPU backend loads from .deps/llama/lib, nothing is skipped, and the model sits on the CPU")
  func checkoutBackendsAndPlacement() throws {
    _ = try TestModel.requireModel()
    #expect(ComputeBackends.devices.contains { $0.kind == .cpu })
    #expect(ComputeBackends.skippedLibraries.isEmpty, "\(ComputeBackends.skippedLibraries)")
    #expect(ComputeBackends.folders.contains { $0.hasSuffix("/llama/lib") })
    let model = SystemLanguageModel(modelPath: TestModel.path)
    let placement = try model.placement()
    #expect(placement.totalLayers == 31)
    if !ComputeBackends.devices.contains(where: \.isGPU) {
      #expect(placement.gpuLayers == 0 && placement.reason == "no GPU backend is loaded")
    }
  }

  @Test("a configuration this machine cannot honour makes the model unavailable with the reason, and generate throws it")
  func unsatisfiableConfiguration() async throws {
    _ = try TestModel.requireModel()
    let unknownDevice = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(device: "NoSuchDevice9"))
    #expect(unknownDevice.availability == .unavailable(.deviceNotEligible))
    #expect(unknownDevice.availabilityDetail?.contains("no compute device named 'NoSuchDevice9'") == true)
    await #expect(throws: OffloadError.self) {
      try await Answer.collect(unknownDevice, "Hi", GenerationOptions(maximumResponseTokens: 2))
    }
  }
}
