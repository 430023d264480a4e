import Foundation
import HybridAI

// What becomes of the files a Gemini answer carries inline (`inlineData` parts of image- and
// speech-making models): artifacts the session stores, and — in the answer's provider content —
// a placeholder where the bytes were, so the transcript never holds them.

extension Gemini {
  /// The text that stands in the provider content of an answer for each file it carried inline;
  /// when the conversation continues, each is replaced by the reference of the stored file, in order.
  public static let generatedFilePlaceholder = "[generated file]"

  /// `content` with each non-thought `inlineData` part replaced by a ``generatedFilePlaceholder``
  /// text part (its flags, such as the thought signature, kept).
  package static func withoutInlineData(_ content: Content) -> Content {
    var content = content
    for index in content.parts.indices {
      guard case .inlineData = content.parts[index].data, !content.parts[index].isThought else { continue }
      content.parts[index].data = .text(generatedFilePlaceholder)
    }
    return content
  }

  /// `content` (an earlier answer's provider content) with its placeholders replaced, in order,
  /// by the text of `references`; placeholders beyond them are left as they are.
  package static func replacingPlaceholders(in content: Content, with references: [String]) -> Content {
    var content = content
    var remaining = references[...]
    for index in content.parts.indices where content.parts[index].text == generatedFilePlaceholder {
      guard let reference = remaining.popFirst() else { break }
      content.parts[index].data = .text(reference)
    }
    return content
  }
}

/// The format of raw PCM audio named by a MIME type such as `audio/L16;codec=pcm;rate=24000`.
package struct PCMFormat: Hashable {
  package var sampleRate: Int
  package var channels: Int

  /// `nil` unless `mimeType` is `audio/L16` or `audio/pcm`; the rate defaults to 24 kHz (Gemini's
  /// speech output) and the channels to 1.
  package init?(mimeType: String) {
    let fields = mimeType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    guard let bare = fields.first, ["audio/l16", "audio/pcm"].contains(bare) else { return nil }
    var parameters: [String: String] = [:]
    for field in fields.dropFirst() {
      let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
      if pair.count == 2 { parameters[pair[0]] = pair[1] }
    }
    sampleRate = parameters["rate"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 24_000
    channels = parameters["channels"].flatMap { Int($0) }.flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
  }

  /// `samples` (16-bit little-endian) as a WAV file.
  package func wav(_ samples: Data) -> Data {
    var header = Data()
    func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
    func append(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
    let blockAlign = channels * 2
    header.append(contentsOf: Array("RIFF".utf8))
    append(UInt32(truncatingIfNeeded: 36 + samples.count))
    header.append(contentsOf: Array("WAVEfmt ".utf8))
    append(UInt32(16))
    append(UInt16(1))   // PCM
    append(UInt16(channels))
    append(UInt32(sampleRate))
    append(UInt32(sampleRate * blockAlign))
    append(UInt16(blockAlign))
    append(UInt16(16))
    header.append(contentsOf: Array("data".utf8))
    append(UInt32(truncatingIfNeeded: samples.count))
    return header + samples
  }
}
