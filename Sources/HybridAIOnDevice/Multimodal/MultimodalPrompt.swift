import CLlama

/// libmtmd's chunks of one prompt, freed with the last prompt that holds them.
final class MediaChunks: @unchecked Sendable {
  let pointer: OpaquePointer
  init(_ pointer: OpaquePointer) { self.pointer = pointer }
  deinit { mtmd_input_chunks_free(pointer) }
}

/// A prompt of tokens in which images and sounds take places: each medium fills
/// ``MediaSpan/count`` places, marked with ``mediaToken`` in ``tokens``, and is evaluated from its
/// chunk (encoded by the projector) instead of token by token.
///
/// The placeholder lets prefix reuse work as for text: two prompts share a medium's places only
/// when the medium's identity (its content hash) is the same too (``reusablePrefixLength(cached:)``).
struct MultimodalPrompt: Sendable {
  /// The value of every place a medium takes: never a real token (llama.cpp's are non-negative).
  static let mediaToken: llama_token = -1

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
    var end: Int { start + count }
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
        media.append(MediaSpan(start: tokens.count, count: count, id: id, chunkIndex: index))
        tokens.append(contentsOf: repeatElement(Self.mediaToken, count: count))
      }
    }
    self.tokens = tokens
    self.media = media
    self.projector = projector
    self.chunks = chunks
  }

  /// The text tokens alone (what n-gram drafting may repeat).
  var textTokens: [llama_token] { media.isEmpty ? tokens : tokens.filter { $0 != Self.mediaToken } }

  /// libmtmd's chunk of `span`.
  func chunk(of span: MediaSpan) -> OpaquePointer? {
    chunks.flatMap { mtmd_input_chunks_get($0.pointer, span.chunkIndex) }
  }

  /// The medium that takes place `index`, if any.
  func span(containing index: Int) -> MediaSpan? {
    media.first { $0.start <= index && index < $0.end }
  }

  /// How much of `cached` (tokens in a KV cache, with the identities of the media among them by
  /// first place) this prompt can keep: the shared prefix, cut back to the start of the first
  /// medium that differs or that the prefix would split, and leaving at least one place to evaluate.
  func reusablePrefixLength(cached tokens: [llama_token], media cachedMedia: [Int: String]) -> Int {
    let shared = tokens.reusablePrefixLength(for: self.tokens)
    for span in media where span.start < shared {
      if cachedMedia[span.start] != span.id || span.end > shared { return span.start }
    }
    return shared
  }
}
