import Foundation

extension BatchedLanguageModel {
  /// How a ``BatchedLanguageModel`` runs: how many requests decode together and how much context
  /// each one gets.
  public struct Configuration: Sendable, Hashable {
    /// Requests decoded together, each in its own llama.cpp sequence. Further requests wait in a
    /// first-in, first-out queue until a sequence is free.
    public var maxConcurrentSequences: Int
    /// Tokens (prompt and answer) each request may use, capped at the model's training context.
    /// The KV cache holds `maxConcurrentSequences × contextSizePerSequence` tokens.
    public var contextSizePerSequence: Int
    /// The most tokens evaluated in one llama.cpp call; at least ``maxConcurrentSequences``.
    /// Prompts are evaluated in segments of this size, as ``SystemLanguageModel`` does with the
    /// same value, which keeps the two models' answers identical.
    public var batchSize: Int
    /// CPU threads; defaults to the number of cores.
    public var threads: Int
    /// The chat template; `nil` uses the one stored in the GGUF file.
    public var chatTemplate: ChatTemplate?
    /// How many layers run on a GPU; as ``SystemLanguageModel/Configuration/gpuLayers``, sized for
    /// the whole batched KV cache.
    public var gpuLayers: GPULayers
    /// The device for offloaded layers (`CUDA0`, …); `nil` picks the first GPU.
    public var device: String?
    /// Whether greedy requests without a grammar pick their tokens inside llama.cpp's graph, so
    /// their logits never leave the device; `nil` (the default): off, on a GPU too — on an H200
    /// the CPU's parallel scan of the logits rows served 16 and 64 streams 1.13–1.21× faster than
    /// the graph's per-sequence chains (docs/gpu.md). Answers are the same either way (both take
    /// the most likely token).
    public var backendSampling: Bool?
    /// Whether a finished request's keys and values stay in its sequence, so that a later request
    /// whose prompt starts the same way (a shared system prompt, the earlier turns of a
    /// conversation) evaluates only the rest (reported as ``HybridAI/Usage/cachedPromptTokens``).
    /// A request then takes the free sequence holding the longest common prefix, not the lowest
    /// free id. Off by default: an answer computed on a reused prefix can round differently from
    /// one computed afresh, so greedy text may then depend on what ran before (`hybrid serve`
    /// turns it on).
    public var reusesPromptPrefixes: Bool
    /// Bytes of memory for caches that had to make room (with ``reusesPromptPrefixes``): when a
    /// request takes over a sequence, what the sequence held is saved (llama.cpp's sequence state),
    /// and a later request that continues it is given it back instead of evaluating it again, as
    /// llama-server's prompt cache in RAM does. 0 turns it off; the least recently saved go first.
    /// `nil` (the default): ``defaultPromptCacheMemory`` when the model sits on the CPU, off when it
    /// sits on a GPU — there, copying a state out of device memory and back costs more than
    /// evaluating its tokens again (an H100, the 1.7B shape: ~35 ms a 200-token state, 38 MiB, on
    /// the thread every stream waits on; 64 streams ran at 3,065 tok/s with the cache, 6,030
    /// without; docs/benchmarks.md).
    public var promptCacheMemory: Int?
    /// The prompt cache's memory when ``promptCacheMemory`` is `nil` and the model sits on the CPU.
    public static let defaultPromptCacheMemory = 256 << 20
    /// How new prompts share the steps with the requests already answering; `nil` (the default):
    /// ``PromptScheduling/throughput`` when the model sits on a GPU, else
    /// ``PromptScheduling/reproducible``.
    public var promptScheduling: PromptScheduling?
    /// llama.cpp contexts the sequences are spread over, all on the model's one copy of the
    /// weights, each with its share of ``maxConcurrentSequences`` (a new request goes to the one
    /// with the fewest requests). `nil` (the default): one, or `HYBRIDAI_BATCH_CONTEXTS`. With
    /// more than one and ``PromptScheduling/throughput``, a context's host work — sampling,
    /// streaming text, building and launching its next call — runs while another's call computes
    /// on the GPU, where with one context the GPU waits for it. On the CPU, where a call is done
    /// when it returns, more contexts only add passes over the weights.
    public var contexts: Int?
    /// How ``BatchedLanguageModel/embeddings(for:)`` pools a text's token states into its vector.
    public var pooling: EmbeddingPooling
    /// Speculative decoding (``SpeculativeDecoding/ngram`` by default): used in the steps where
    /// one request decodes, with ``PromptScheduling/reproducible``; steps that decode several
    /// requests share their pass over the weights instead.
    public var speculation: SpeculativeDecoding
    /// The multimodal projector through which every sequence reads images and audio (as
    /// ``SystemLanguageModel/Configuration/projectorPath``; loaded once, shared by all).
    public var projectorPath: String?

    /// The prompt cache's bytes for a model that sits on a GPU (`usesGPU`) or the CPU: ``promptCacheMemory``,
    /// or when that is `nil`, ``defaultPromptCacheMemory`` on the CPU and none on a GPU.
    public func promptCacheBytes(usesGPU: Bool) -> Int {
      max(0, promptCacheMemory ?? (usesGPU ? 0 : Self.defaultPromptCacheMemory))
    }

    /// A configuration; every value is clamped to at least 1.
    public init(maxConcurrentSequences: Int = 8, contextSizePerSequence: Int = 4096, batchSize: Int = 512,
                threads: Int = ProcessInfo.processInfo.activeProcessorCount, chatTemplate: ChatTemplate? = nil,
                gpuLayers: GPULayers = .automatic, device: String? = nil, backendSampling: Bool? = nil,
                reusesPromptPrefixes: Bool = false, promptScheduling: PromptScheduling? = nil,
                promptCacheMemory: Int? = nil, contexts: Int? = nil, pooling: EmbeddingPooling = .automatic,
                speculation: SpeculativeDecoding = .ngram, projectorPath: String? = nil) {
      self.speculation = speculation
      self.projectorPath = projectorPath
      self.maxConcurrentSequences = max(1, maxConcurrentSequences)
      self.contextSizePerSequence = max(1, contextSizePerSequence)
      self.batchSize = max(1, batchSize)
      self.threads = max(1, threads)
      self.chatTemplate = chatTemplate
      self.gpuLayers = gpuLayers
      self.device = device
      self.backendSampling = backendSampling
      self.reusesPromptPrefixes = reusesPromptPrefixes
      self.promptScheduling = promptScheduling
      self.promptCacheMemory = promptCacheMemory.map { max(0, $0) }
      self.contexts = contexts.map { max(1, $0) }
      self.pooling = pooling
    }
  }
}
