import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

@Suite("Availability and bad model files")
struct AvailabilityTests {
  @Test("a missing file is modelNotReady")
  func missingFile() {
    let model = SystemLanguageModel(modelPath: "/nonexistent/model-\(UUID().uuidString).gguf")
    #expect(model.availability == .unavailable(.modelNotReady))
    #expect(!model.isAvailable)
  }

  @Test("a file still downloading (a .part beside it) is modelNotReady")
  func stillDownloading() throws {
    let directory = try TestModel.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("model.gguf").path
    #expect(FileManager.default.createFile(atPath: path + ".part", contents: Data(repeating: 0, count: 1024)))
    #expect(SystemLanguageModel(modelPath: path).availability == .unavailable(.modelNotReady))
  }

  @Test("a model file reached through a symbolic link (as in Hugging Face's cache) is available and answers; a dangling link is modelNotReady")
  func symbolicLink() async throws {
    _ = try TestModel.requireModel()
    let directory = try TestModel.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // snapshots/main/model.gguf -> ../../blobs/<hash>, the layout huggingface_hub writes.
    let blobs = directory.appendingPathComponent("blobs"), snapshot = directory.appendingPathComponent("snapshots/main")
    try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: snapshot, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: TestModel.path, toPath: blobs.appendingPathComponent("0123abcd").path)
    let link = snapshot.appendingPathComponent("model.gguf").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../../blobs/0123abcd")

    // Until 2026-11-27 (late) the header check took the link's own size (22 bytes) for the file's, and
    // refused the model as truncated.
    let model = SystemLanguageModel(modelPath: link, configuration: .init(contextSize: 512))
    #expect(model.availability == .available, "\(model.availabilityDetail ?? "")")
    let answer = try await GenerativeModelSession(model: model).respond(to: "Say hello.", options: TestModel.greedy)
    #expect(answer.usage.outputTokens > 0)

    let dangling = snapshot.appendingPathComponent("gone.gguf").path
    try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "../../blobs/missing")
    #expect(SystemLanguageModel(modelPath: dangling).availability == .unavailable(.modelNotReady))
  }

  @Test("weights loaded before their file was moved away answer on from memory: available, a new session answers, the batched model too; a model never loaded from that path is modelNotReady")
  func fileMovedAfterLoading() async throws {
    _ = try TestModel.requireModel()
    let directory = try TestModel.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("served.gguf").path
    try FileManager.default.copyItem(atPath: TestModel.path, toPath: path)
    let model = SystemLanguageModel(modelPath: path, configuration: .init(contextSize: 512))
    let batched = BatchedLanguageModel(modelPath: path, configuration: .init(maxConcurrentSequences: 1, contextSizePerSequence: 512))
    _ = try await GenerativeModelSession(model: model).respond(to: "Say hello.", options: TestModel.greedy)
    _ = try await GenerativeModelSession(model: batched).respond(to: "Say hello.", options: TestModel.greedy)

    try FileManager.default.moveItem(atPath: path, toPath: path + ".moved")   // an operator tidying up
    #expect(model.availability == .available, "\(model.availabilityDetail ?? "")")
    #expect(batched.availability == .available, "\(batched.availabilityDetail ?? "")")
    #expect(try await model.contextSize == 512)
    let again = try await GenerativeModelSession(model: model).respond(to: "Say hello.", options: TestModel.greedy)
    #expect(again.usage.outputTokens > 0)
    let batchedAgain = try await GenerativeModelSession(model: batched).respond(to: "Say hello.", options: TestModel.greedy)
    #expect(batchedAgain.usage.outputTokens > 0)

    let neverLoaded = directory.appendingPathComponent("never.gguf").path
    #expect(SystemLanguageModel(modelPath: neverLoaded).availability == .unavailable(.modelNotReady))
  }

  @Test("HYBRIDAI_ON_DEVICE=off and the app's switch both make it disabled")
  func disabled() throws {
    _ = try TestModel.requireModel()
    let model = SystemLanguageModel(modelPath: TestModel.path)
    #expect(model.availability(environment: ["HYBRIDAI_ON_DEVICE": "off"]).availability == .unavailable(.disabled))
    #expect(model.availability(environment: ["HYBRIDAI_ON_DEVICE": "on"]).availability == .available)
    let switchedOff = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(isEnabled: false))
    #expect(switchedOff.availability == .unavailable(.disabled))
  }

  @Test("too little memory for the model is deviceNotEligible")
  func tooLittleMemory() {
    #expect(DeviceEligibility.memoryProblem(modelFileSize: 100 << 20, contextSize: 2048, memoryLimit: 64 << 20) != nil)
    #expect(DeviceEligibility.memoryProblem(modelFileSize: 100 << 20, contextSize: 2048, memoryLimit: 8 << 30) == nil)
  }

  @Test("a folder given as the model is invalidModelFile, and says it is a folder")
  func folderAsModel() throws {
    let directory = try TestModel.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let model = SystemLanguageModel(modelPath: directory.path)
    #expect(model.availability == .unavailable(.invalidModelFile))
    #expect(model.availabilityDetail?.contains("a folder, not a model file") == true, "\(model.availabilityDetail ?? "")")
  }

  enum BadFile: String, CaseIterable {
    case notGGUF, truncated, corruptHeader, empty
  }

  @Test("a tensor table claiming more bytes than 64 bits count (found by fuzzing) is invalidModelFile, not a crash")
  func tensorSizeBeyondInt64() throws {
    // A 368-byte llama GGUF whose one tensor's size reads as negative when size_t is imported as Int.
    let bytes = try #require(Data(base64Encoded: "R0dVRgMAAAABAAAAAAAAAAcAAAAAAAAAFAAAAAAAAABnZW5lcmFsLmFyY2hpdGVjdHVyZQgAAAAFAAAAAAAAAGxsYW1hDAAAAAAAAABnZW5lcmFsLm5hbWUIAAAABAAAAAAAAABmdXp6EQAAAAAAAABsbGFtYS5ibG9ja19jb3VudAQAAAACAAAAFgAAAAAAAABsbGFtYS5lbWJ6ZGRpbmdfbGVuZ3RoBAAAAEAAAAAaAAAAAAAAAGxsYW1hLmF0dGVudGlvbi5oZWFkX2NvdW50BAAAAAQAAAAdAAAAAAAAAGxsYW1hLmF0dGVudGlvbi5oZWFkX2NvdW50X2t2CgAAAAIAAAAAAAAAFAAAAAAAAABsbGFtYS5jb250ZXh0X2xlbmd0aAUAAAAACAAAEQAAAAAAAAB0b2tlbl9lbWJkLndlaWdodAEAAAAEAAAAAAAAMQAAAAAAAAAAAAAAAAAAAD8AAIC/AAAAQAAAAAA="))
    let directory = try TestModel.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("huge-tensor.gguf").path
    try bytes.write(to: URL(fileURLWithPath: path))
    let model = SystemLanguageModel(modelPath: path)
    #expect(model.availability == .unavailable(.invalidModelFile))
    #expect(model.availabilityDetail?.contains("truncated") == true, "\(model.availabilityDetail ?? "")")
  }

  @Test("bad files are invalidModelFile and fail with typed errors, without crashing", arguments: BadFile.allCases)
  func badFile(kind: BadFile) async throws {
    _ = try TestModel.requireModel()
    let directory = try TestModel.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("\(kind).gguf").path
    let real = try Data(contentsOf: URL(fileURLWithPath: TestModel.path), options: .alwaysMapped)
    let contents: Data = switch kind {
    case .notGGUF: Data("this is a text file, not a model\n".utf8)
    case .truncated: real.prefix(real.count / 3)
    case .corruptHeader: real.prefix(8) + Data(repeating: 0xFF, count: 4096) + real.dropFirst(8 + 4096)
    case .empty: Data()
    }
    try contents.write(to: URL(fileURLWithPath: path))

    let model = SystemLanguageModel(modelPath: path)
    #expect(model.availability == .unavailable(.invalidModelFile))
    #expect(model.availabilityDetail != nil)
    await #expect(throws: GenerationError.modelUnavailable(.invalidModelFile, detail: model.availabilityDetail!)) {
      try await GenerativeModelSession(model: model).respond(to: "Hi", options: TestModel.greedy)
    }
    // Loading directly (skipping the availability check) is a typed error too.
    await #expect(throws: OnDeviceModelError.self) { _ = try await LlamaWeightsCache.shared.weights(at: path) }
  }
}
