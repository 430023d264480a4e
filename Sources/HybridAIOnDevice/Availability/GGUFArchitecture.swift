import CLlama
import Foundation

/// The architecture a GGUF file declares (`general.architecture`: `llama`, `gemma3`, `qwen2`,
/// `clip` for a projector…), read from its header by llama.cpp's own parser.
public enum GGUFArchitecture {
  /// The architecture of the GGUF file at `path`, or `nil` when it is not a readable GGUF file or
  /// declares none.
  public static func ofFile(atPath path: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    let magic = (try? handle.read(upToCount: 4)) ?? Data()
    try? handle.close()
    guard magic == Data("GGUF".utf8) else { return nil }
    LlamaRuntime.ensureInitialised()
    guard let gguf = gguf_init_from_file(path, gguf_init_params(no_alloc: true, ctx: nil)) else { return nil }
    defer { gguf_free(gguf) }
    let key = gguf_find_key(gguf, "general.architecture")
    guard key >= 0, gguf_get_kv_type(gguf, key) == GGUF_TYPE_STRING, let value = gguf_get_val_str(gguf, key) else { return nil }
    return String(cString: value)
  }
}
