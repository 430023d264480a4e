/// How many of a model's layers run on a GPU.
///
/// ```swift
/// var configuration = SystemLanguageModel.Configuration()
/// configuration.gpuLayers = .automatic   // the default: all that fit, else the CPU
/// configuration.gpuLayers = .none        // the CPU only
/// configuration.gpuLayers = .count(12)   // exactly 12 (an error without a GPU)
/// ```
public enum GPULayers: Sendable, Hashable, CustomStringConvertible {
  /// Every layer when a GPU backend is loaded and the weights plus the context fit its free memory,
  /// else as many layers as fit, else the CPU. The reason is in ``ModelPlacement/reason``.
  case automatic
  /// Everything on the CPU.
  case none
  /// Exactly this many layers (the output layer counts as one more than the model's blocks).
  case count(Int)

  /// Reads the CLI's spelling: `auto`, `0` (or `none`, `cpu`), or a count such as `24`.
  public init(parsing text: String) throws(OffloadError) {
    switch text.lowercased() {
    case "auto", "automatic": self = .automatic
    case "0", "none", "cpu": self = .none
    default:
      guard let count = Int(text), count > 0 else { throw .invalidLayerCount(text) }
      self = .count(count)
    }
  }

  public var description: String {
    switch self {
    case .automatic: "auto"
    case .none: "0"
    case .count(let count): "\(count)"
    }
  }
}
