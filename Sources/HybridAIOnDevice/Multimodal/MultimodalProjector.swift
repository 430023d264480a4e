import CLlama
import Foundation
import HybridAI
import Logging
import Synchronization

/// A model's multimodal projector: an `mmproj` GGUF that llama.cpp's libmtmd reads to turn images
/// and sounds into embeddings the language model takes in place of tokens.
///
/// Loaded once per weights and file (``ProjectorCache``) and shared by every session and batched
/// sequence; encodes run one at a time (libmtmd's context is not thread-safe).
final class MultimodalProjector: @unchecked Sendable {
  /// The projector file.
  let path: String
  /// The weights it projects into (kept alive as long as the projector).
  let weights: LlamaModelWeights
  /// Whether it reads images.
  let readsImages: Bool
  /// Whether it reads audio.
  let readsAudio: Bool
  /// The text that stands for one medium in a rendered prompt (libmtmd's `<__media__>`).
  let marker: String
  private let context: OpaquePointer
  private let isReleased = Atomic(false)
  private let encoderRuns = Atomic(0)
  /// libmtmd's context is not thread-safe: one encode at a time (sessions on the llama thread and
  /// batched models' lanes on theirs).
  private let encoding = Mutex(())
  private let logger: Logger

  /// Loads `path` for `weights`; on a GPU when `useGPU` (with offloaded layers).
  init(path: String, weights: LlamaModelWeights, threads: Int, useGPU: Bool, logger: Logger) throws(OnDeviceModelError) {
    guard FileManager.default.fileExists(atPath: path) else { throw .projectorFileMissing(path: path) }
    LlamaRuntime.ensureInitialised()
    var params = mtmd_context_params_default()
    params.use_gpu = useGPU
    params.n_threads = Int32(max(1, threads))
    params.print_timings = false
    // No warm-up encode at load: for a tiled projector (Idefics3) it encodes a whole image of the
    // largest size, doubling a one-shot image turn (measured with SmolVLM-256M's sizes on 2 cores).
    params.warmup = false
    let (made, errors) = MultimodalLog.capturingErrors { mtmd_init_from_file(path, weights.pointer, params) }
    guard let made else {
      throw .invalidProjector(path: path, reason: errors.last ?? "libmtmd could not load it")
    }
    if mtmd_decode_use_mrope(made) {
      mtmd_free(made)
      throw .invalidProjector(path: path, reason: "models that place media with M-RoPE positions (the Qwen2-VL family) are not supported yet")
    }
    self.path = path
    self.weights = weights
    self.context = made
    self.readsImages = mtmd_support_vision(made)
    self.readsAudio = mtmd_support_audio(made)
    self.marker = String(cString: mtmd_default_marker())
    self.logger = logger
    logger.info("loaded the multimodal projector", metadata: [
      "projector": "\(URL(fileURLWithPath: path).lastPathComponent)", "images": "\(readsImages)", "audio": "\(readsAudio)",
    ])
  }

  /// Frees libmtmd's context (before the weights it projects into are freed).
  func release() {
    guard !isReleased.exchange(true, ordering: .sequentiallyConsistent) else { return }
    LlamaRuntime.checkAlive("mtmd_free")
    mtmd_free(context)
  }

  deinit { release() }

  /// The kinds of content it reads besides text.
  var modalities: Set<Modality> {
    var modalities: Set<Modality> = []
    if readsImages { modalities.insert(.image) }
    if readsAudio { modalities.insert(.audio) }
    return modalities
  }

  /// How many media it has encoded in this process (each image or sound once per evaluation).
  var encodedMedia: Int { encoderRuns.load(ordering: .relaxed) }

  /// `text` (a rendered prompt holding one ``marker`` per medium) and `media`'s bytes, in order,
  /// as tokens and media chunks. The text is tokenized with the model's special tokens (a BOS
  /// where the model wants one), as ``LlamaModelWeights/tokenize(_:addSpecial:parseSpecial:)`` does.
  func tokenize(_ text: String, media: [MediaInput]) throws -> MultimodalPrompt {
    var bitmaps: [OpaquePointer?] = []
    defer { for bitmap in bitmaps { mtmd_bitmap_free(bitmap) } }
    for medium in media {
      bitmaps.append(try bitmap(for: medium))
    }
    guard let chunks = mtmd_input_chunks_init() else { throw OnDeviceModelError.tokenizationFailed }
    let owner = MediaChunks(chunks)
    let result = text.withCString { characters in
      var input = mtmd_input_text(text: characters, text_len: strlen(characters), add_special: true, parse_special: true)
      return bitmaps.withUnsafeMutableBufferPointer { buffer in
        mtmd_tokenize(context, chunks, &input, buffer.baseAddress, buffer.count)
      }
    }
    switch result {
    case 0: break
    case 2: throw AttachmentError.unreadable(path: media.map(\.name).joined(separator: ", "),
                                             reason: "the model's projector could not prepare it")
    default: throw OnDeviceModelError.tokenizationFailed
    }
    return MultimodalPrompt(chunks: owner, projector: self)
  }

  /// A libmtmd bitmap of the medium's decoded pixels or samples (with its SHA-256 as id).
  private func bitmap(for medium: MediaInput) throws(AttachmentError) -> OpaquePointer {
    if medium.bytes.isEmpty { throw .empty(name: medium.name) }
    try medium.checkDimensions()
    let wrapper = medium.bytes.withUnsafeBytes { buffer in
      mtmd_helper_bitmap_init_from_buf(context, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.count,
                                       false, mtmd_helper_init_opt_default())
    }
    guard let bitmap = wrapper.bitmap else {
      throw .unreadable(path: medium.name, reason: "not a \(medium.mimeType) file this model's projector can decode (corrupt or truncated?)")
    }
    let isAudio = mtmd_bitmap_is_audio(bitmap)
    if isAudio ? !readsAudio : !readsImages {
      mtmd_bitmap_free(bitmap)
      throw .unreadable(path: medium.name, reason: "this model's projector does not read \(isAudio ? "audio" : "images")")
    }
    return bitmap
  }

  /// Encodes a media chunk and evaluates its embeddings into `llamaContext` at `position` of
  /// sequence `sequence`. Returns llama.cpp's status (0: evaluated). Call on the llama thread.
  func evaluate(_ chunk: OpaquePointer, in llamaContext: OpaquePointer, at position: Int, sequence: Int32 = 0,
                batchSize: Int, logitsLast: Bool) -> Int32 {
    encoderRuns.add(1, ordering: .relaxed)
    var next = llama_pos(position)
    let started = ContinuousClock.now
    let result = encoding.withLock { _ in
      mtmd_helper_eval_chunk_single(context, llamaContext, chunk, llama_pos(position), sequence,
                                    Int32(batchSize), logitsLast, &next)
    }
    logger.debug("encoded a medium", metadata: [
      "tokens": "\(mtmd_input_chunk_get_n_tokens(chunk))", "seconds": "\((ContinuousClock.now - started).seconds)",
    ])
    return result
  }
}
