import CLlama
import HybridAI

/// libmtmd's chunks of one prompt, freed with the last prompt that holds them.
final class MediaChunks: @unchecked Sendable {
  let pointer: OpaquePointer
  init(_ pointer: OpaquePointer) { self.pointer = pointer }
  deinit { mtmd_input_chunks_free(pointer) }
}

/// A prompt of tokens in which images and sounds take places: each medium fills
/// ``MediaSpan/count`` places, marked in ``tokens`` with placeholders made from its content hash
/// (``placeholder(for:at:)``, never a real token), and is evaluated from its chunk (encoded by the
/// projector) instead of token by token.
///
/// The placeholders let prefix reuse work as for text, in a session's cache and across a batch's
/// sequences alike: two prompts share a medium's places only when they hold the same bytes there.
struct MultimodalPrompt: Sendable {
  /// One image or sound in the prompt.
  struct MediaSpan: Sendable, Hashable {
    /// The first place it takes.
    let start: Int
    /// How many places (embeddings) it takes.
    let count: Int
    /// Its identity: the SHA-256 of its bytes.
    let id: String
    /// Its index among the chunks (libmtmd's `mtmd_input_chunks_get`).
    let chunkIndex: Int
    /// An image's or a sound's.
    var isAudio = false
    var end: Int { start + count }
  }

  /// The token standing for place `index` of the medium whose SHA-256 is `id`: negative (llama.cpp's
  /// tokens are not), and different for other bytes or another place of the same medium.
  static func placeholder(for id: String, at index: Int) -> llama_token {
    var hash: UInt32 = 0x811C_9DC5
    for byte in id.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
    hash = (hash ^ UInt32(truncatingIfNeeded: index)) &* 0x0100_0193
    return -1 - llama_token(hash & 0x3FFF_FFFF)
  }

  let tokens: [llama_token]
  let media: [MediaSpan]
  /// The projector that made the chunks and encodes them (`nil` for text).
  let projector: MultimodalProjector?
  private let chunks: MediaChunks?

  /// A text-only prompt, or (with `media`) the places of a prompt without chunks to evaluate:
  /// enough to work out what a cache can keep of it.
  init(tokens: [llama_token], media: [MediaSpan] = []) {
    self.tokens = tokens
    self.media = media
    self.projector = nil
    self.chunks = nil
  }

  /// The prompt of libmtmd's `chunks` (text and media in order), made by `projector`.
  init(chunks: MediaChunks, projector: MultimodalProjector) {
    var tokens: [llama_token] = []
    var media: [MediaSpan] = []
    for index in 0..<mtmd_input_chunks_size(chunks.pointer) {
      let chunk = mtmd_input_chunks_get(chunks.pointer, index)
      if mtmd_input_chunk_get_type(chunk) == MTMD_INPUT_CHUNK_TYPE_TEXT {
        var count = 0
        if let text = mtmd_input_chunk_get_tokens_text(chunk, &count) {
          tokens.append(contentsOf: UnsafeBufferPointer(start: text, count: count))
        }
      } else {
        let count = mtmd_input_chunk_get_n_tokens(chunk)
        let id = mtmd_input_chunk_get_id(chunk).map { String(cString: $0) } ?? ""
        media.append(MediaSpan(start: tokens.count, count: count, id: id, chunkIndex: index,
                               isAudio: mtmd_input_chunk_get_type(chunk) == MTMD_INPUT_CHUNK_TYPE_AUDIO))
        tokens.append(contentsOf: (0..<count).map { Self.placeholder(for: id, at: $0) })
      }
    }
    self.tokens = tokens
    self.media = media
    self.projector = projector
    self.chunks = chunks
  }

  /// The prompt's usage: `promptTokens` of it, `cached` from a cache, with the places of its
  /// images and sounds counted apart.
  func usage(cached: Int, outputTokens: Int, draftTokens: Int = 0, acceptedDraftTokens: Int = 0) -> Usage {
    Usage(promptTokens: tokens.count, cachedPromptTokens: cached, outputTokens: outputTokens, draftTokens: draftTokens,
          acceptedDraftTokens: acceptedDraftTokens,
          imagePromptTokens: media.filter { !$0.isAudio }.reduce(0) { $0 + $1.count },
          audioPromptTokens: media.filter(\.isAudio).reduce(0) { $0 + $1.count })
  }

  /// The text tokens alone (what n-gram drafting may repeat).
  var textTokens: [llama_token] { media.isEmpty ? tokens : tokens.filter { $0 >= 0 } }

  /// libmtmd's chunk of `span`.
  func chunk(of span: MediaSpan) -> OpaquePointer? {
    chunks.flatMap { mtmd_input_chunks_get($0.pointer, span.chunkIndex) }
  }

  /// The medium that takes place `index`, if any.
  func span(containing index: Int) -> MediaSpan? {
    media.first { $0.start <= index && index < $0.end }
  }

  /// How much of `cached` (the tokens in a KV cache) this prompt can keep: the shared prefix,
  /// leaving at least one place to evaluate, cut back to the start of a medium it would split.
  func reusablePrefixLength(cached: [llama_token]) -> Int {
    wholeMedia(upTo: cached.reusablePrefixLength(for: tokens))
  }

  /// `length`, or the start of the medium it would split.
  func wholeMedia(upTo length: Int) -> Int {
    span(containing: length).map { $0.start < length ? $0.start : length } ?? length
  }

  /// Whether the last place is a medium's (its logits cannot start an answer).
  var endsWithMedium: Bool { media.last?.end == tokens.count }
}
