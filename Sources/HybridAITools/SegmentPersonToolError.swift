import TFLite
import TFLiteImage

/// Why ``SegmentPersonTool`` made no mask.
public enum SegmentPersonToolError: Error, Sendable, CustomStringConvertible {
  /// The path is empty, contains a NUL, or is a URL that is not a local file URL.
  case invalidPath(String)
  /// The path resolves outside every allowed directory.
  case pathNotAllowed(String)
  /// The picture could not be read or decoded, or the mask could not be encoded.
  case image(ImageError)
  /// The model could not be fetched from the registry.
  case modelUnavailable(reason: String)
  /// The interpreter failed to load or run the model.
  case interpreter(InterpreterError)
  /// The model's input or output is not the single-image → single-channel-mask shape expected.
  case unexpectedModel(reason: String)
  /// The call was cancelled.
  case cancelled

  public var description: String {
    switch self {
    case .invalidPath(let path): "'\(path)' is not a usable file path"
    case .pathNotAllowed(let path): "'\(path)' is outside the directories this tool may read"
    case .image(let error): "image error: \(error)"
    case .modelUnavailable(let reason): "the segmentation model is unavailable: \(reason)"
    case .interpreter(let error): "the segmentation model failed: \(error)"
    case .unexpectedModel(let reason): "unexpected segmentation model: \(reason)"
    case .cancelled: "segmentation was cancelled"
    }
  }
}
