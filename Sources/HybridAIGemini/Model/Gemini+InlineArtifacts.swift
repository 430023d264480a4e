import Foundation
import HybridAI
import HybridAIGeminiWire

extension Gemini {
  /// The answer's file parts, in order, as artifacts named `gemini-<n>.<ext>`.
  ///
  /// Raw PCM audio (`audio/L16`, `audio/pcm`; Gemini's speech output: 16-bit little-endian, with
  /// `rate=` and optionally `channels=` parameters) is wrapped in a WAV header so it plays as it
  /// is; other bytes are kept as they came.
  /// - Throws: ``GeminiError/invalidResponse(_:)`` for data that is not valid base64.
  static func artifact(from blob: Blob, index: Int) throws(GeminiError) -> Artifact {
    guard let bytes = blob.bytes else {
      throw .invalidResponse("an inlineData part (\(blob.mimeType)) is not valid base64")
    }
    if let pcm = PCMFormat(mimeType: blob.mimeType) {
      return Artifact(data: pcm.wav(bytes), mimeType: MediaType.wav.mimeType, name: "gemini-\(index).wav")
    }
    let fileExtension = MediaType.named(blob.mimeType)?.fileExtension ?? "bin"
    return Artifact(data: bytes, mimeType: blob.mimeType, name: "gemini-\(index).\(fileExtension)")
  }
}
