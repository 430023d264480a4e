import CLlama
import Foundation
import HybridAI
import HybridAITestSupport
@testable import HybridAIOnDevice
import Testing

/// Images and audio read on device through a model's projector, checked against llama.cpp's own
/// `llama-mtmd-cli` on the bootstrap's model pairs (SmolVLM's and Qwen2-Audio's architectures,
/// tiny, random weights): the same greedy tokens for the same prompt and medium, streamed or not,
/// and after a reused prefix without encoding the medium again.
@Suite("On-device images and audio: tokens equal llama-mtmd-cli's", .serialized)
struct MultimodalGenerationTests {
  enum Pair: String { case vision, audio }

  static func folder(_ pair: Pair) -> URL { TestRepository.dependency("models/pairs/\(pair.rawValue)") }
  static func modelPath(_ pair: Pair) -> String { folder(pair).appendingPathComponent("model.gguf").path }
  static func projectorPath(_ pair: Pair) -> String { folder(pair).appendingPathComponent("mmproj.gguf").path }
  static let photo = TestRepository.dependency("photos/astronaut.png")
  static let maximumTokens = 8

  static func model(_ pair: Pair, projector: String? = nil) -> SystemLanguageModel {
    SystemLanguageModel(modelPath: modelPath(pair), configuration: .init(
      contextSize: 2048, projectorPath: projector ?? projectorPath(pair)))
  }

  /// The pair's files copied into a folder of their own: weights and a projector that no other
  /// test of the process shares, so that counting its encodes sees only this test's.
  struct PrivatePair {
    let folder: TemporaryDirectory
    var modelPath: String { folder.url.appendingPathComponent("model.gguf").path }
    var projectorPath: String { folder.url.appendingPathComponent("mmproj.gguf").path }

    init(_ pair: Pair) throws {
      folder = try TemporaryDirectory("pair")
      for name in ["model.gguf", "mmproj.gguf"] {
        try FileManager.default.copyItem(at: MultimodalGenerationTests.folder(pair).appendingPathComponent(name),
                                         to: folder.url.appendingPathComponent(name))
      }
    }

    /// How many media its projector has encoded.
    func encodedMedia() async throws -> Int {
      let weights = try await LlamaWeightsCache.shared.weights(at: modelPath)
      return try ProjectorCache.shared.projector(at: projectorPath, for: weights, threads: 2, useGPU: false,
                                                 logger: TestLogging.logger("test")).encodedMedia
    }
  }

  static var greedy: GenerationOptions {
    var options = GenerationOptions(sampling: .greedy, maximumResponseTokens: maximumTokens)
    options.logProbabilities = 0
    return options
  }

  /// The sound: three seconds of a tone, 16 kHz mono (the rate the projector reads).
  static func sound(in folder: TemporaryDirectory) throws -> URL {
    let url = folder.url.appendingPathComponent("tone.wav")
    try TestMedia.toneWAV(seconds: 3, sampleRate: 16_000).write(to: url)
    return url
  }

  /// What llama-mtmd-cli prints for `prompt` (its media marker where the medium goes) and `media`:
  /// the answer's pieces, control tokens included.
  static func reference(_ pair: Pair, prompt: String, media: URL) async throws -> String {
    let output = try await MultimodalReference.run([
      "-m", modelPath(pair), "--mmproj", projectorPath(pair), pair == .vision ? "--image" : "--audio", media.path,
      "-p", prompt, "-n", "\(maximumTokens)", "--temp", "0", "--seed", "1", "-t", "2", "--no-warmup",
    ])
    // A new line before the answer, new lines after it.
    var text = Substring(output)
    if text.first == "\n" { text = text.dropFirst() }
    while text.last == "\n" { text = text.dropLast() }
    return String(text)
  }

  /// The answer's tokens as llama-mtmd-cli prints them (control tokens written out).
  static func pieces(of response: RawResponse, model pair: Pair) async throws -> String {
    let weights = try await LlamaWeightsCache.shared.weights(at: modelPath(pair))
    let ids = (response.logProbabilities ?? []).compactMap(\.tokenID)
    #expect(ids.count == response.usage.outputTokens, "one log probability per token")
    return String(decoding: ids.flatMap { weights.bytes(of: llama_token($0), special: true) }, as: UTF8.self)
  }


  @Test("an image: the same greedy tokens as llama-mtmd-cli, unary and streamed; a follow-up reuses it without encoding again")
  func image() async throws {
    let pair = try PrivatePair(.vision)
    defer { pair.folder.remove() }
    let model = SystemLanguageModel(modelPath: pair.modelPath, configuration: .init(contextSize: 2048, projectorPath: pair.projectorPath))
    #expect(model.capabilities.inputModalities == [.text, .image])
    let prompt = try Prompt { "Describe."; try Attachment(contentsOf: Self.photo) }
    let expected = try await Self.reference(.vision, prompt: "Describe.<__media__>", media: Self.photo)
    #expect(!expected.isEmpty)

    let session = GenerativeModelSession(model: model)
    let first = try await session.respond(to: prompt, options: Self.greedy)
    #expect(first.rawResponse.source == .onDevice)
    let firstPieces = try await Self.pieces(of: first.rawResponse, model: .vision)
    #expect(firstPieces == expected, "HybridAI \(firstPieces.debugDescription), llama-mtmd-cli \(expected.debugDescription)")
    #expect(first.usage.promptTokens > 40, "the image's embeddings count as prompt tokens: \(first.usage)")
    #expect(first.usage.imagePromptTokens == 20 && first.usage.audioPromptTokens == 0,
            "2×2 tiles and the overview, 4 places each: \(first.usage)")

    // Streamed, in a new session: the same tokens.
    let streamed = GenerativeModelSession(model: model)
    var completed: RawResponse?
    for try await event in streamed.streamResponse(to: prompt, options: Self.greedy).events {
      if case .completed(let response) = event { completed = response.rawResponse }
    }
    #expect(try await Self.pieces(of: try #require(completed), model: .vision) == expected)

    // Turn 2 about the same picture: its places come from the cache, the encoder does not run.
    let encodedBefore = try await pair.encodedMedia()
    #expect(encodedBefore == 10, "two answers, 5 slices each")
    let second = try await session.respond(to: "And the colours?", options: Self.greedy)
    #expect(try await pair.encodedMedia() == encodedBefore, "turn 2 did not encode the image again")
    #expect(second.usage.cachedPromptTokens >= first.usage.promptTokens, "\(second.usage)")
  }

  @Test("a sound: the same greedy tokens as llama-mtmd-cli")
  func sound() async throws {
    let folder = try TemporaryDirectory("sound")
    defer { folder.remove() }
    let sound = try Self.sound(in: folder)
    let model = Self.model(.audio)
    #expect(model.capabilities.inputModalities == [.text, .audio])
    let expected = try await Self.reference(.audio, prompt: "Listen.<__media__>", media: sound)
    let session = GenerativeModelSession(model: model)
    let answer = try await session.respond(to: Prompt { "Listen."; try Attachment(contentsOf: sound) }, options: Self.greedy)
    let pieces = try await Self.pieces(of: answer.rawResponse, model: .audio)
    #expect(pieces == expected, "HybridAI \(pieces.debugDescription), llama-mtmd-cli \(expected.debugDescription)")
    #expect(answer.usage.audioPromptTokens == 750, "one 30 s window: \(answer.usage)")
  }

  @Test("in a batch beside text requests: the same tokens as llama-mtmd-cli; a later request with the same picture reuses its places")
  func batched() async throws {
    let pair = try PrivatePair(.vision)
    defer { pair.folder.remove() }
    let batched = BatchedLanguageModel(modelPath: pair.modelPath, configuration: .init(
      maxConcurrentSequences: 3, contextSizePerSequence: 1024, reusesPromptPrefixes: true,
      projectorPath: pair.projectorPath))
    #expect(batched.capabilities.inputModalities == [.text, .image])
    let expected = try await Self.reference(.vision, prompt: "Describe.<__media__>", media: Self.photo)
    let prompt = try Prompt { "Describe."; try Attachment(contentsOf: Self.photo) }
    async let image = GenerativeModelSession(model: batched).respond(to: prompt, options: Self.greedy)
    async let text1 = GenerativeModelSession(model: batched).respond(to: "Count to five.", options: Self.greedy)
    async let text2 = GenerativeModelSession(model: batched).respond(to: "Name a colour.", options: Self.greedy)
    let (answer, first, second) = try await (image, text1, text2)
    #expect(try await Self.pieces(of: answer.rawResponse, model: .vision) == expected)
    #expect(first.usage.outputTokens > 0 && second.usage.outputTokens > 0)

    let encodedBefore = try await pair.encodedMedia()
    #expect(encodedBefore == 5, "one image, 5 slices")
    let again = try await GenerativeModelSession(model: batched).respond(to: prompt, options: Self.greedy)
    #expect(try await Self.pieces(of: again.rawResponse, model: .vision) == expected)
    #expect(again.usage.cachedPromptTokens >= answer.usage.promptTokens - 1, "\(again.usage)")
    #expect(try await pair.encodedMedia() == encodedBefore, "the picture's places came from the cache")
    await batched.shutDown()
  }

  @Test("a sound longer than the context allows is the context error, with the counts")
  func soundTooLong() async throws {
    // 61 s: three 30 s windows of 750 places, beyond a context of 1024.
    let model = SystemLanguageModel(modelPath: Self.modelPath(.audio), configuration: .init(
      contextSize: 1024, projectorPath: Self.projectorPath(.audio)))
    let session = GenerativeModelSession(model: model)
    let prompt = try Prompt { "Listen."; try Attachment(data: TestMedia.toneWAV(seconds: 61, sampleRate: 16_000), name: "long.wav") }
    let error = await #expect(throws: GenerationError.self) { try await session.respond(to: prompt, options: Self.greedy) }
    let message = error.map { "\($0)" } ?? ""
    #expect(message.contains("1024") && message.contains("22"), "names the prompt's tokens (over 2250) and the context: \(message)")
    #expect(session.transcript.isEmpty)
  }

  @Test("more images than the context holds is the context error, with the counts; the session keeps its transcript")
  func tooManyImages() async throws {
    let model = SystemLanguageModel(modelPath: Self.modelPath(.vision), configuration: .init(
      contextSize: 256, projectorPath: Self.projectorPath(.vision)))
    let session = GenerativeModelSession(model: model)
    // Each picture takes 20 places and its slices' markers: 16 of them are over 256.
    let prompt = try Prompt {
      "Compare these."
      for index in 0..<16 { try Attachment(data: TestMedia.onePixelPNG, name: "pixel-\(index).png") }
    }
    let error = await #expect(throws: GenerationError.self) { try await session.respond(to: prompt, options: Self.greedy) }
    let message = error.map { "\($0)" } ?? ""
    #expect(message.contains("256"), "names the context: \(message)")
    #expect(session.transcript.isEmpty)
  }

  @Test("an animated GIF is read by its first frame, as llama-mtmd-cli reads it")
  func animatedGIF() async throws {
    let folder = try TemporaryDirectory("gif")
    defer { folder.remove() }
    let gif = folder.url.appendingPathComponent("blink.gif")
    try TestMedia.twoFrameGIF.write(to: gif)
    let expected = try await Self.reference(.vision, prompt: "Describe.<__media__>", media: gif)
    let session = GenerativeModelSession(model: Self.model(.vision))
    let answer = try await session.respond(to: Prompt { "Describe."; try Attachment(contentsOf: gif) }, options: Self.greedy)
    #expect(answer.rawResponse.source == .onDevice)
    #expect(try await Self.pieces(of: answer.rawResponse, model: .vision) == expected)
  }

  @Test("prefer-on-device keeps an image on the device that sees images; audio to a vision-only projector goes to the cloud, saying why")
  func routing() async throws {
    let cloud = ScriptedLanguageModel(identifier: "cloud", source: .cloud, deltas: ["from the cloud"],
                                      capabilities: ModelCapabilities(inputModalities: [.image, .audio]))
    let hybrid = HybridModel.hybrid(primary: Self.model(.vision), secondary: cloud)
    let session = GenerativeModelSession(model: hybrid)
    let image = try await session.respond(to: Prompt { "Describe."; try Attachment(contentsOf: Self.photo) }, options: Self.greedy)
    #expect(image.rawResponse.source == .onDevice)

    let sounds = GenerativeModelSession(model: hybrid)
    let sound = try await sounds.respond(to: Prompt { "Listen."; try Attachment(data: TestMedia.toneWAV(seconds: 1), name: "tone.wav") })
    #expect(sound.rawResponse.source == .cloud)
    let fallback = sound.rawResponse.fallback.map { "\($0)" } ?? ""
    #expect(fallback.contains("audio/wav"), "\(fallback)")
  }

  @Test("bad media and projectors are typed errors, and the session keeps its transcript")
  func badInput() async throws {
    let folder = try TemporaryDirectory("bad-media")
    defer { folder.remove() }
    // A PNG whose compressed pixels are garbage (its header and end are whole), and one that
    // declares 50,000 × 50,000 pixels (a decompression bomb).
    var photo = try Data(contentsOf: Self.photo)
    photo.replaceSubrange(1000..<5000, with: Data(count: 4000))
    var bomb = try Data(contentsOf: Self.photo)
    bomb.replaceSubrange(16..<24, with: Data([0, 0, 0xC3, 0x50, 0, 0, 0xC3, 0x50]))
    let session = GenerativeModelSession(model: Self.model(.vision))
    _ = try await session.respond(to: "Hello.", options: Self.greedy)
    let entries = session.transcript.count
    for (name, bytes) in [("corrupt.png", photo), ("bomb.png", bomb)] {
      let prompt = try Prompt { "Describe."; try Attachment(data: bytes, name: name) }
      let error = await #expect(throws: AttachmentError.self) { try await session.respond(to: prompt, options: Self.greedy) }
      #expect(error.map { "\($0)" }?.contains(name) == true, "\(String(describing: error))")
      #expect(session.transcript.count == entries, "the failed turn left the transcript as it was")
    }
    // A 0-byte file is refused when attached; one emptied after it was attached, when it is read.
    #expect(throws: AttachmentError.empty(name: "empty.png")) { try HybridAI.Attachment(data: Data(), name: "empty.png") }
    let emptied = folder.url.appendingPathComponent("emptied.png")
    try Data(contentsOf: Self.photo).write(to: emptied)
    let attached = try HybridAI.Attachment(contentsOf: emptied)
    try Data().write(to: emptied)
    let emptiedError = await #expect(throws: AttachmentError.self) {
      try await session.respond(to: Prompt(parts: [.text("Describe."), .attachment(attached)]), options: Self.greedy)
    }
    #expect(emptiedError.map { "\($0)" }?.contains("emptied.png") == true, "\(String(describing: emptiedError))")
    #expect(session.transcript.count == entries)
    #expect(try await session.respond(to: "Still there?", options: Self.greedy).rawResponse.source == .onDevice)

    // A projector made for another model (the audio pair's is 64 wide too: SmolLM2's 576 is not).
    _ = try TestModel.requireModel()
    let smollm = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(
      contextSize: 1024, projectorPath: Self.projectorPath(.vision)))
    let foreign = await #expect(throws: OnDeviceModelError.self) {
      try await GenerativeModelSession(model: smollm).respond(to: Prompt { "Describe."; try Attachment(contentsOf: Self.photo) })
    }
    #expect(foreign.map { "\($0)" }?.contains("576") == true, "names the model's width: \(String(describing: foreign))")

    // A file that is not a projector, and no file at all.
    let corrupt = folder.url.appendingPathComponent("mmproj-corrupt.gguf")
    try Data(repeating: 7, count: 4096).write(to: corrupt)
    let corruptModel = Self.model(.vision, projector: corrupt.path)
    await #expect(throws: OnDeviceModelError.self) {
      try await GenerativeModelSession(model: corruptModel).respond(to: Prompt { "Describe."; try Attachment(contentsOf: Self.photo) })
    }
    let missing = Self.model(.vision, projector: folder.url.appendingPathComponent("none.gguf").path)
    await #expect(throws: OnDeviceModelError.projectorFileMissing(path: folder.url.appendingPathComponent("none.gguf").path)) {
      try await GenerativeModelSession(model: missing).respond(to: "Hello.", options: Self.greedy)
    }
  }
}
