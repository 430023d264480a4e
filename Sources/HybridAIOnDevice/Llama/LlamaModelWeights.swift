import CLlama
import Foundation
import Synchronization

/// A GGUF model's weights, loaded once per process and shared, read-only, by every session.
///
/// llama.cpp allows many contexts on one model at the same time, so this type is `Sendable`:
/// after loading nothing in it changes.
final class LlamaModelWeights: @unchecked Sendable {
  let path: String
  private let model: OpaquePointer
  let vocab: OpaquePointer
  /// The context length the model was trained with.
  let trainingContextLength: Int
  /// Tokens in the vocabulary (the length of a logits row).
  let vocabularySize: Int
  /// Where its layers run.
  let placement: ModelPlacement

  var pointer: OpaquePointer { model }

  /// Loads the weights (memory-mapped), with `placement.gpuLayers` layers on its GPU. Throws
  /// ``OnDeviceModelError/invalidModelFile(path:reason:)`` when llama.cpp rejects the file.
  /// `vocabularyOnly` loads the tokenizer and metadata (chat template) alone: for tools and tests
  /// that render and tokenize without generating (llama.cpp's `ggml-vocab-*.gguf` files).
  init(path: String, placement: ModelPlacement, vocabularyOnly: Bool = false) throws(OnDeviceModelError) {
    LlamaRuntime.ensureInitialised()
    guard FileManager.default.fileExists(atPath: path) else { throw .modelFileMissing(path: path) }
    var params = llama_model_default_params()
    params.vocab_only = vocabularyOnly
    params.n_gpu_layers = Int32(placement.gpuLayers)
    // Only the placement's device (NULL-terminated list); the CPU holds the rest.
    var devices: [ggml_backend_dev_t?] = [placement.usesGPU ? ComputeBackends.handle(named: placement.device.name) : nil, nil]
    let loaded = devices.withUnsafeMutableBufferPointer { list -> OpaquePointer? in
      if list[0] != nil { params.devices = list.baseAddress }
      return llama_model_load_from_file(path, params)
    }
    guard let model = loaded else {
      throw .invalidModelFile(path: path, reason: "llama.cpp could not load it (see the HybridAI.llama log)")
    }
    self.placement = placement
    guard let vocab = llama_model_get_vocab(model) else {
      llama_model_free(model)
      throw .invalidModelFile(path: path, reason: "it has no vocabulary")
    }
    self.path = path
    self.model = model
    self.vocab = vocab
    self.trainingContextLength = Int(llama_model_n_ctx_train(model))
    self.vocabularySize = Int(llama_vocab_n_tokens(vocab))
  }

  /// Jinja templates made for these weights, by override source ("" for the GGUF's own).
  private let jinjaTemplates = Mutex<[String: JinjaChatTemplate]>([:])

  /// The Jinja chat template `override` (`nil`: the GGUF's own, or ChatML when it has none), made
  /// once. A template that fails to load is not kept, so each request reports it.
  func jinjaTemplate(_ override: String?, modelName: String) throws(OnDeviceModelError) -> JinjaChatTemplate {
    let key = override ?? ""
    if let known = jinjaTemplates.withLock({ $0[key] }) { return known }
    let template = try makeJinjaTemplate(override, modelName: modelName)
    return jinjaTemplates.withLock { templates in
      if let raced = templates[key] { return raced }
      templates[key] = template
      return template
    }
  }

  /// A new ``JinjaChatTemplate`` on these weights, not the one ``jinjaTemplate(_:modelName:)`` keeps.
  func makeJinjaTemplate(_ override: String?, modelName: String) throws(OnDeviceModelError) -> JinjaChatTemplate {
    try JinjaChatTemplate(model: model, override: override, modelName: modelName)
  }

  /// Loads the weights on the CPU only (for tools and tests that need no placement).
  convenience init(path: String, vocabularyOnly: Bool = false) throws(OnDeviceModelError) {
    try self.init(path: path, placement: ModelPlacement(device: .cpu, gpuLayers: 0, totalLayers: 0, requiredBytes: 0,
                                                        reason: "loaded on the CPU only"), vocabularyOnly: vocabularyOnly)
  }

  private let isReleased = Atomic(false)

  /// Frees the weights now (at most once; the deinitialiser does it otherwise). Nothing may use
  /// them afterwards: for the end of the process (``OnDeviceRuntime/shutDown()``).
  func release() {
    guard !isReleased.exchange(true, ordering: .sequentiallyConsistent) else { return }
    LlamaRuntime.checkAlive("llama_model_free")
    llama_model_free(model)
  }

  deinit { release() }

  /// The tokens of `text`. `parseSpecial` lets control tokens such as `<|im_start|>` in templated
  /// text become single tokens.
  func tokenize(_ text: String, addSpecial: Bool = true, parseSpecial: Bool = true) throws(OnDeviceModelError) -> [llama_token] {
    let utf8 = Array(text.utf8)
    var capacity = utf8.count + 8
    while true {
      var tokens = [llama_token](repeating: 0, count: capacity)
      let count = utf8.withUnsafeBufferPointer { bytes in
        bytes.withMemoryRebound(to: CChar.self) { chars in
          llama_tokenize(vocab, chars.baseAddress, Int32(chars.count), &tokens, Int32(capacity),
                         addSpecial, parseSpecial)
        }
      }
      if count >= 0 { return Array(tokens.prefix(Int(count))) }
      if count == Int32.min { throw .tokenizationFailed }
      capacity = Int(-count)
    }
  }

  /// The bytes a token stands for (possibly part of a UTF-8 character). Control tokens such as
  /// `<|im_end|>` are empty unless `special`.
  func bytes(of token: llama_token, special: Bool = false) -> [UInt8] {
    var buffer = [CChar](repeating: 0, count: 32)
    var length = llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, special)
    if length < 0 {
      buffer = [CChar](repeating: 0, count: Int(-length))
      length = llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, special)
    }
    return buffer.prefix(max(0, Int(length))).map { UInt8(bitPattern: $0) }
  }

  /// A token that ends the model's turn (end-of-turn, else end-of-sequence).
  var endOfGenerationToken: llama_token {
    let endOfTurn = llama_vocab_eot(vocab)
    return endOfTurn >= 0 ? endOfTurn : llama_vocab_eos(vocab)
  }

  /// Whether `token` ends the model's turn (end-of-generation tokens such as `<|im_end|>`).
  func isEndOfGeneration(_ token: llama_token) -> Bool {
    llama_vocab_is_eog(vocab, token)
  }
}

extension LlamaModelWeights {
  /// Whether the model's memory can drop its last entries (`llama_memory_seq_rm` on a suffix),
  /// which speculative decoding needs to forget a rejected draft: attention caches can, the state
  /// of recurrent and hybrid architectures cannot.
  var canForgetLastTokens: Bool { !llama_model_is_recurrent(pointer) && !llama_model_is_hybrid(pointer) }
}
