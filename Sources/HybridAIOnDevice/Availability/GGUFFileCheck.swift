import CLlama
import Foundation
import Synchronization

/// A cheap check that a file is a complete GGUF model, without loading its weights.
///
/// Reads the header and tensor table with ggml's GGUF reader (no tensor data) and checks that
/// every tensor lies inside the file, which catches wrong formats, corrupt headers and truncated
/// downloads; it also reads the model's shape (layers, widths) for GPU offload planning.
/// Results are cached per file identity (path, size, modification time).
enum GGUFFileCheck {
  enum Result: Sendable, Equatable {
    case valid(GGUFModelShape)
    case invalid(reason: String)
  }

  private static let cache = Mutex<[FileIdentity: Result]>([:])

  static func check(_ path: String) -> Result? {
    guard let identity = FileIdentity(path: path) else { return nil }
    if let cached = cache.withLock({ $0[identity] }) { return cached }
    let result = inspect(path, size: identity.size)
    cache.withLock { $0[identity] = result }
    return result
  }

  private static func inspect(_ path: String, size: UInt64) -> Result {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
      return .invalid(reason: "a folder, not a model file")
    }
    guard let handle = FileHandle(forReadingAtPath: path) else { return .invalid(reason: "cannot be read") }
    let magic = (try? handle.read(upToCount: 4)) ?? Data()
    try? handle.close()
    guard magic == Data("GGUF".utf8) else { return .invalid(reason: "not a GGUF file (no GGUF magic)") }

    LlamaRuntime.ensureInitialised()
    let params = gguf_init_params(no_alloc: true, ctx: nil)
    guard let gguf = gguf_init_from_file(path, params) else {
      return .invalid(reason: "corrupt GGUF header or metadata")
    }
    defer { gguf_free(gguf) }
    // Offsets and sizes are `size_t` (imported as `Int`): read as unsigned, summed without
    // overflowing, so a tensor table claiming more than any file holds reads as truncated.
    let dataOffset = UInt64(size: gguf_get_data_offset(gguf))
    var dataEnd: UInt64 = 0
    let tensorCount = gguf_get_n_tensors(gguf)
    guard tensorCount > 0 else { return .invalid(reason: "it holds no tensors") }
    for index in 0..<tensorCount {
      let end = UInt64(size: gguf_get_tensor_offset(gguf, index)).addingSaturated(UInt64(size: gguf_get_tensor_size(gguf, index)))
      dataEnd = max(dataEnd, end)
    }
    let needed = dataOffset.addingSaturated(dataEnd)
    guard needed <= size else {
      return .invalid(reason: "truncated: tensors need \(needed) bytes, the file has \(size)")
    }
    return .valid(GGUFModelShape(reading: gguf, fileSize: size))
  }
}
