/// What kind of model a file holds, sniffed from its first bytes.
public enum ModelFormat: String, Sendable, Hashable, Codable, CaseIterable {
  /// A TensorFlow Lite FlatBuffer: the file identifier `TFL3` at offset 4.
  case tflite
  /// A llama.cpp GGUF file: the magic `GGUF` at offset 0.
  case gguf
  /// Anything else.
  case other

  /// How many leading bytes ``sniff(_:)`` looks at.
  public static let sniffedByteCount = 8

  /// The format of a file that starts with `header` (its first ``sniffedByteCount`` bytes, or
  /// all of it when shorter).
  public static func sniff(_ header: some Collection<UInt8>) -> ModelFormat {
    let bytes = Array(header.prefix(sniffedByteCount))
    if bytes.count >= 4, bytes[0..<4].elementsEqual("GGUF".utf8) { return .gguf }
    if bytes.count >= 8, bytes[4..<8].elementsEqual("TFL3".utf8) { return .tflite }
    return .other
  }
}
