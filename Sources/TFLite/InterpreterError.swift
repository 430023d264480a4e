/// Everything that can go wrong with an ``Interpreter``, as a value you can switch over.
///
/// Models are checked before the runtime sees them — structure, and the inconsistencies known to
/// crash LiteRT's loader and kernels (docs/tflite.md) — and the runtime's own failures arrive as
/// status codes, so a bad model is one of these cases rather than a crash.
public enum InterpreterError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The LiteRT runtime (`libLiteRt.so`) could not be loaded. `reason` says where it was looked
  /// for and why it failed; `scripts/bootstrap` installs it into `.deps/litert/lib`.
  case runtimeUnavailable(reason: String)
  /// No file at `path`.
  case modelFileNotFound(path: String)
  /// The file exists but could not be read.
  case modelFileUnreadable(path: String, reason: String)
  /// The bytes are not a TFLite model (no `TFL3` FlatBuffer identifier).
  case notATFLiteModel(reason: String)
  /// The model refers to bytes past its end: the file was cut short.
  case truncatedModel(byteCount: Int, reason: String)
  /// The model is structurally invalid or inconsistent; the runtime never saw it (or rejected it).
  case invalidModel(reason: String)
  /// The model is valid but uses something this runtime does not support.
  case unsupportedModel(reason: String)
  /// A tensor (declared, or after a resize) would need more memory than the options allow.
  case tensorTooLarge(name: String, byteCount: Int, limit: Int)
  /// An options value out of range (e.g. a thread count below 1).
  case invalidOptions(reason: String)
  /// The runtime could not build the interpreter (compile the model, prepare its operators).
  case failedToCreateInterpreter(reason: String)
  /// The runtime could not allocate the tensors for the current shapes (e.g. an operator does
  /// not accept a resized input).
  case failedToAllocateTensors(reason: String)
  /// A tensor index is out of range: valid indices are `0...maxIndex` (`maxIndex` is -1 when there
  /// are none).
  case invalidTensorIndex(index: Int, maxIndex: Int)
  /// The data copied into an input has the wrong number of bytes.
  case invalidTensorDataCount(provided: Int, required: Int)
  /// A shape is not acceptable (empty, non-positive dimensions, more than 8 dimensions, or
  /// refused by the runtime).
  case invalidShape(reason: String)
  /// ``Interpreter/allocateTensors()`` must be called first (after creating the interpreter or
  /// resizing an input).
  case allocateTensorsRequired
  /// An output was read before the first ``Interpreter/invoke()``.
  case invokeInterpreterRequired
  /// No signature with this key.
  case signatureNotFound(key: String)
  /// A signature has no input or output with this name.
  case signatureTensorNotFound(key: String, name: String)
  /// A signature run was given no data for an input.
  case missingSignatureInput(key: String, name: String)
  /// The runtime failed while running the model.
  case invocationFailed(reason: String)
  /// The run was stopped because it took longer than ``Interpreter/Options/invocationTimeLimit``.
  case invocationTimedOut(limit: Duration)

  /// A sentence for people: what went wrong, with the values involved.
  public var description: String {
    switch self {
    case .runtimeUnavailable(let reason):
      "The LiteRT runtime is not available: \(reason)"
    case .modelFileNotFound(let path):
      "No model file at \(path)."
    case .modelFileUnreadable(let path, let reason):
      "Cannot read the model file \(path): \(reason)"
    case .notATFLiteModel(let reason):
      "Not a TFLite model: \(reason)"
    case .truncatedModel(let byteCount, let reason):
      "Truncated TFLite model (\(byteCount) bytes): \(reason)"
    case .invalidModel(let reason):
      "Invalid TFLite model: \(reason)"
    case .unsupportedModel(let reason):
      "Unsupported TFLite model: \(reason)"
    case .tensorTooLarge(let name, let byteCount, let limit):
      "Tensor '\(name)' would need \(byteCount) bytes, more than the limit of \(limit)."
    case .invalidOptions(let reason):
      "Invalid interpreter options: \(reason)"
    case .failedToCreateInterpreter(let reason):
      "The runtime could not create the interpreter: \(reason)"
    case .failedToAllocateTensors(let reason):
      "The runtime could not allocate the tensors: \(reason)"
    case .invalidTensorIndex(let index, let maxIndex):
      maxIndex < 0
        ? "Tensor index \(index) is out of range: there are no such tensors."
        : "Tensor index \(index) is out of range 0...\(maxIndex)."
    case .invalidTensorDataCount(let provided, let required):
      "Got \(provided) bytes for a tensor of \(required) bytes."
    case .invalidShape(let reason):
      "Invalid shape: \(reason)"
    case .allocateTensorsRequired:
      "Call allocateTensors() first."
    case .invokeInterpreterRequired:
      "Call invoke() before reading outputs."
    case .signatureNotFound(let key):
      "The model has no signature '\(key)'."
    case .signatureTensorNotFound(let key, let name):
      "Signature '\(key)' has no tensor named '\(name)'."
    case .missingSignatureInput(let key, let name):
      "No data for input '\(name)' of signature '\(key)'."
    case .invocationFailed(let reason):
      "Running the model failed: \(reason)"
    case .invocationTimedOut(let limit):
      "Running the model took longer than \(limit) and was stopped."
    }
  }
}
