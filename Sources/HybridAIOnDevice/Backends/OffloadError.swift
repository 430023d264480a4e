/// Why a model cannot be placed as its configuration asks (``GPULayers``, device).
public enum OffloadError: Error, Sendable, Hashable, CustomStringConvertible {
  /// `--gpu-layers` was neither `auto`, `0` nor a positive number.
  case invalidLayerCount(String)
  /// More layers were asked for than the model has.
  case layerCountOutOfRange(requested: Int, available: Int)
  /// No loaded backend has a device of this name.
  case unknownDevice(String, available: [String])
  /// A GPU was asked for (a layer count or a GPU device), but no GPU backend is loaded.
  case noGPU(backendsFolder: String)

  public var description: String {
    switch self {
    case .invalidLayerCount(let text):
      "'\(text)' is not a GPU layer count: use auto, 0, or a positive number"
    case .layerCountOutOfRange(let requested, let available):
      "\(requested) GPU layers asked for, but the model has \(available) (use auto, 0, or 1…\(available))"
    case .unknownDevice(let name, let available):
      "no compute device named '\(name)'; available: \(available.joined(separator: ", "))"
    case .noGPU(let folder):
      "GPU layers were asked for, but no GPU backend is loaded (backends folder: \(folder); "
        + "build one with scripts/bootstrap --gpu cuda or scripts/build-backend cuda)"
    }
  }
}
