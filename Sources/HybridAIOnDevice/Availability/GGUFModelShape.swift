import CLlama

/// The dimensions of a GGUF model that decide its memory: read from the file's metadata
/// (`<architecture>.block_count`, `.embedding_length`, `.attention.head_count[_kv]`, `.context_length`).
struct GGUFModelShape: Sendable, Hashable {
  var fileSize: UInt64
  /// Transformer blocks; llama.cpp counts one more layer (the output) when offloading.
  var blockCount: Int
  var embeddingLength: Int
  var headCount: Int
  var keyValueHeadCount: Int
  var trainingContextLength: Int

  /// Layers llama.cpp can offload: every block plus the output layer.
  var offloadableLayers: Int { blockCount + 1 }

  /// Bytes of KV cache (keys and values in f16) one token takes in one layer.
  var keyValueBytesPerTokenPerLayer: UInt64 {
    guard headCount > 0 else { return UInt64(4 * embeddingLength) }
    return UInt64(2 * 2 * embeddingLength * keyValueHeadCount / headCount)
  }

  init(fileSize: UInt64, blockCount: Int, embeddingLength: Int, headCount: Int, keyValueHeadCount: Int,
       trainingContextLength: Int) {
    self.fileSize = fileSize
    self.blockCount = blockCount
    self.embeddingLength = embeddingLength
    self.headCount = headCount
    self.keyValueHeadCount = keyValueHeadCount
    self.trainingContextLength = trainingContextLength
  }

  /// The largest value a dimension is read as: larger and negative values (a damaged or hostile
  /// file) are clamped to 0…this, so planning arithmetic on them cannot overflow.
  static let largestDimension = 1 << 24

  /// Reads the shape from an open GGUF file; absent keys read as 0 (an unknown architecture
  /// then plans as one layer).
  init(reading gguf: OpaquePointer, fileSize: UInt64) {
    let architectureKey = gguf_find_key(gguf, "general.architecture")
    let architecture = architectureKey >= 0 && gguf_get_kv_type(gguf, architectureKey) == GGUF_TYPE_STRING
      ? String(cString: gguf_get_val_str(gguf, architectureKey)) : ""
    func integer(_ suffix: String) -> Int? {
      let key = gguf_find_key(gguf, "\(architecture).\(suffix)")
      guard key >= 0 else { return nil }
      let value: Int
      switch gguf_get_kv_type(gguf, key) {
      case GGUF_TYPE_UINT32: value = Int(gguf_get_val_u32(gguf, key))
      case GGUF_TYPE_INT32: value = Int(gguf_get_val_i32(gguf, key))
      case GGUF_TYPE_UINT64: value = Int(clamping: gguf_get_val_u64(gguf, key))
      case GGUF_TYPE_INT64: value = Int(gguf_get_val_i64(gguf, key))
      case GGUF_TYPE_UINT16: value = Int(gguf_get_val_u16(gguf, key))
      default: return nil
      }
      return min(max(0, value), Self.largestDimension)
    }
    let heads = integer("attention.head_count") ?? 0
    self.init(fileSize: fileSize, blockCount: integer("block_count") ?? 0,
              embeddingLength: integer("embedding_length") ?? 0, headCount: heads,
              keyValueHeadCount: integer("attention.head_count_kv") ?? heads,
              trainingContextLength: integer("context_length") ?? 0)
  }
}
