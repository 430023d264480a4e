import CLlama
import HybridAI
import Logging
import Synchronization

/// A llama.cpp context that embeds texts: many texts per decode, each its own sequence, pooled by
/// llama.cpp into one vector per sequence and normalised to unit length.
///
/// One embedder per model and settings in a process (``shared(weights:settings:logger:)``), on the
/// shared llama thread like every context (see ``LlamaConversation/sharedExecutor``); it gives the
/// thread up after each decode, so generations go on between the batches of a long request.
/// Requests take turns, oldest first. A text must fit one decode (``Settings/inputLimit`` tokens:
/// llama.cpp pools a sequence only within one batch), so a longer text is a typed error.
actor LlamaEmbedder: LlamaContextOwner {
  struct Settings: Sendable, Hashable {
    /// The most tokens one decode takes, so the longest text (the context and batch size).
    var inputLimit: Int
    var threads: Int
    var pooling: EmbeddingPooling
  }

  /// Texts decoded together at most (llama.cpp allows 256 sequences; more adds little on a CPU),
  /// and never more than tokens in a decode (llama.cpp's limit on outputs per batch).
  var sequencesPerDecode: Int { min(64, settings.inputLimit) }

  nonisolated var unownedExecutor: UnownedSerialExecutor { LlamaConversation.sharedExecutor.asUnownedSerialExecutor() }

  let weights: LlamaModelWeights
  let settings: Settings
  private let logger: Logger
  private var context: OpaquePointer?
  private var batch: LlamaBatch?
  /// Whether a request is being embedded; later ones wait here, oldest first.
  private var isBusy = false
  private var waiting: [CheckedContinuation<Void, Never>] = []

  private init(weights: LlamaModelWeights, settings: Settings, logger: Logger) {
    self.weights = weights
    self.settings = settings
    self.logger = logger
  }

  private struct Key: Hashable {
    let weights: ObjectIdentifier
    let settings: Settings
  }

  private static let embedders = Mutex<[Key: LlamaEmbedder]>([:])

  /// The process's embedder for these weights and settings (made on first use; its context on
  /// the first request).
  static func shared(weights: LlamaModelWeights, settings: Settings, logger: Logger) -> LlamaEmbedder {
    embedders.withLock { embedders in
      let key = Key(weights: ObjectIdentifier(weights), settings: settings)
      if let known = embedders[key] { return known }
      let made = LlamaEmbedder(weights: weights, settings: settings, logger: logger)
      embedders[key] = made
      return made
    }
  }

  isolated deinit {
    LlamaContextRegistry.shared.unregister(ObjectIdentifier(self))
    freeContext()
  }

  func freeContext() {
    batch = nil
    guard let context else { return }
    LlamaRuntime.checkAlive("llama_free")
    llama_free(context)
    self.context = nil
    logger.debug("freed llama embedding context")
  }

  /// The unit-length vector of each tokenized text, in order. Throws
  /// ``HybridAI/GenerationError/exceededContextWindowSize(promptTokens:contextSize:)`` for a text
  /// over ``Settings/inputLimit`` tokens (before any work), `CancellationError` when cancelled.
  func embed(_ texts: [[llama_token]], cancellation: CancellationFlag) async throws -> [[Float]] {
    if let longest = texts.map(\.count).max(), longest > settings.inputLimit {
      throw GenerationError.exceededContextWindowSize(promptTokens: longest, contextSize: settings.inputLimit)
    }
    await beginTurn()
    defer { endTurn() }
    let context = try makeContextIfNeeded()
    let batch = self.batch!
    llama_set_abort_callback(context, { data in
      guard let data else { return false }
      return Unmanaged<CancellationFlag>.fromOpaque(data).takeUnretainedValue().isCancelled
    }, Unmanaged.passUnretained(cancellation).toOpaque())
    defer { if self.context == context { llama_set_abort_callback(context, nil, nil) } }

    let dimensions = Int(llama_model_n_embd_out(weights.pointer))
    var vectors = [[Float]](repeating: [], count: texts.count)
    var next = 0
    while next < texts.count {
      if cancellation.isCancelled || Task.isCancelled { throw CancellationError() }
      // As many whole texts as fit one decode, each its own sequence.
      batch.removeAll()
      let first = next
      while next < texts.count, next - first < sequencesPerDecode, texts[next].count <= batch.remaining {
        for (position, token) in texts[next].enumerated() {
          batch.append(token, position: position, sequence: llama_seq_id(next - first), wantsLogits: true)
        }
        next += 1
      }
      if let memory = llama_get_memory(context) { llama_memory_clear(memory, true) }
      let result = encodesOnly ? llama_encode(context, batch.raw) : llama_decode(context, batch.raw)
      guard result == 0 else {
        if cancellation.isCancelled || Task.isCancelled { throw CancellationError() }
        throw OnDeviceModelError.decodeFailed(code: result)
      }
      for index in first..<next {
        guard let pooled = llama_get_embeddings_seq(context, llama_seq_id(index - first)) else {
          throw OnDeviceModelError.decodeFailed(code: -1)
        }
        vectors[index] = Array(UnsafeBufferPointer(start: pooled, count: dimensions))
      }
      await Task.yield()   // other work of the llama thread takes a turn between decodes
      guard self.context == context else { throw OnDeviceModelError.shuttingDown }
    }
    return vectors
  }

  /// Whether the model is an encoder only (BERT-like), which llama.cpp runs with `llama_encode`.
  private var encodesOnly: Bool {
    llama_model_has_encoder(weights.pointer) && !llama_model_has_decoder(weights.pointer)
  }

  private func makeContextIfNeeded() throws -> OpaquePointer {
    if let context { return context }
    let pooling = try resolvedPooling()
    let made = try makeContext(pooling: pooling)
    logger.debug("created llama embedding context", metadata: [
      "inputLimit": "\(settings.inputLimit)", "pooling": "\(llama_pooling_type(made).rawValue)",
    ])
    context = made
    batch = LlamaBatch(capacity: settings.inputLimit)
    LlamaContextRegistry.shared.register(self)
    return made
  }

  /// The pooling the context gets: the configured one; for ``EmbeddingPooling/automatic`` the
  /// file's own (`<architecture>.pooling_type`), or the mean when it states none (a chat model: as
  /// llama-server's `--pooling mean`). A reranking model is refused: it scores pairs.
  private func resolvedPooling() throws -> llama_pooling_type {
    guard settings.pooling == .automatic else { return settings.pooling.llamaPoolingType }
    func metadata(_ key: String) -> String? {
      var buffer = [CChar](repeating: 0, count: 128)
      guard llama_model_meta_val_str(weights.pointer, key, &buffer, buffer.count) >= 0 else { return nil }
      return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    let stated = metadata("general.architecture").flatMap { metadata("\($0).pooling_type") }.flatMap(Int32.init)
    switch stated.map(llama_pooling_type.init(rawValue:)) {
    case nil, LLAMA_POOLING_TYPE_NONE?, LLAMA_POOLING_TYPE_UNSPECIFIED?:
      return LLAMA_POOLING_TYPE_MEAN
    case LLAMA_POOLING_TYPE_RANK?:
      throw GenerationError.unsupportedRequest(.other("\(weights.path) is a reranking model: it scores pairs, it does not embed"))
    case let own?:
      return own
    }
  }

  private func makeContext(pooling: llama_pooling_type) throws -> OpaquePointer {
    LlamaRuntime.checkAlive("llama_init_from_model")
    var params = llama_context_default_params()
    params.n_ctx = UInt32(settings.inputLimit)
    params.n_batch = UInt32(settings.inputLimit)
    params.n_ubatch = UInt32(settings.inputLimit)   // a sequence is pooled within one ubatch
    params.n_seq_max = UInt32(sequencesPerDecode)
    params.kv_unified = true   // the texts of a decode share the cells, however long each is
    params.n_threads = Int32(settings.threads)
    params.n_threads_batch = Int32(settings.threads)
    params.embeddings = true
    params.pooling_type = pooling
    params.no_perf = true
    guard let made = llama_init_from_model(weights.pointer, params) else {
      throw OnDeviceModelError.contextCreationFailed(contextSize: settings.inputLimit)
    }
    return made
  }

  private func beginTurn() async {
    guard isBusy else { return isBusy = true }
    await withCheckedContinuation { waiting.append($0) }   // endTurn() hands the turn over
  }

  private func endTurn() {
    if waiting.isEmpty { isBusy = false } else { waiting.removeFirst().resume() }
  }
}
