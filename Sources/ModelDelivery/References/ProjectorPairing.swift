import Foundation

/// Finds the multimodal projector that belongs to a model file: an `mmproj*.gguf` in the same
/// folder, when exactly one there matches it — the folder's only projector beside the folder's
/// only model, or the one projector whose name holds the model's (`mmproj-SmolVLM-256M.gguf` for
/// `SmolVLM-256M.gguf`; a quantization suffix of the model's name may differ).
public enum ProjectorPairing {
  /// The projector for the model at `weights`, or `nil` when none or several could be its.
  public static func projector(besides weights: URL) -> URL? {
    let folder = weights.deletingLastPathComponent()
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return nil }
    let ggufs = names.filter { $0.lowercased().hasSuffix(".gguf") }
    let projectors = ggufs.filter(isProjectorName)
    let models = ggufs.filter { !isProjectorName($0) }
    guard !isProjectorName(weights.lastPathComponent), !projectors.isEmpty else { return nil }
    if projectors.count == 1, models.count == 1 { return folder.appendingPathComponent(projectors[0]) }
    let stem = modelStem(weights.lastPathComponent)
    let named = projectors.filter { modelStem($0).contains(stem) }
    return named.count == 1 ? folder.appendingPathComponent(named[0]) : nil
  }

  /// Whether a file name is a projector's (`mmproj` in it, as llama.cpp's converters name them).
  static func isProjectorName(_ name: String) -> Bool { name.lowercased().contains("mmproj") }

  /// The lowercased name without `.gguf` and a trailing quantization (`-Q4_K_M`, `.f16`).
  static func modelStem(_ name: String) -> String {
    name.lowercased().replacing(/(?:[-_.](?:i?q\d(?:_[a-z0-9]+)*|bf16|f16|f32))?\.gguf$/, with: "")
  }
}
