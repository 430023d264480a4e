import Foundation
import HybridAIServing
import HybridAIWire
import NIOCore

// The registry's JSON, as docs/model-delivery.md and openapi.yaml describe it: the records of
// HybridAIWire, made from the store's ModelRecord.

extension RegistryModel {
  /// The admin API's view of `model`.
  init(_ model: ModelRecord) {
    self.init(
      name: model.name, description: model.description, tags: model.tags,
      createTime: RegistryTimestamp.string(model.createTime),
      versions: model.versions.map(RegistryModelVersion.init),
      rollout: model.rollout.map(RegistryRollout.init),
      servedVersion: model.newestPublishedVersion.map { String($0.number) })
  }
}

extension RegistryModelVersion {
  /// The admin API's view of `version`.
  init(_ version: ModelRecord.Version) {
    self.init(version: String(version.number), sizeBytes: version.sizeBytes, sha256: version.sha256,
              format: version.format.rawValue, state: version.state.rawValue,
              createTime: RegistryTimestamp.string(version.createTime))
  }
}

extension RegistryRollout {
  /// The admin API's view of `rollout`.
  init(_ rollout: ModelRecord.Rollout) {
    self.init(splits: rollout.splits.map { RolloutSplit(version: String($0.version), basisPoints: $0.basisPoints) })
  }
}

extension ModelDownloadInfo {
  /// The JSON body, written directly rather than through `JSONEncoder` (this is the client API's
  /// busiest answer): the bytes `JSONEncoder.registry` writes, keys sorted, `/` unescaped.
  var jsonBody: ByteBuffer {
    var buffer = ByteBuffer()
    buffer.reserveCapacity(160 + name.utf8.count + version.utf8.count + sha256.utf8.count + downloadUri.utf8.count
                             + (expireTime?.utf8.count ?? 0))
    buffer.writeStaticString("{\"downloadUri\":")
    buffer.writeJSONString(downloadUri)
    if let expireTime {
      buffer.writeStaticString(",\"expireTime\":")
      buffer.writeJSONString(expireTime)
    }
    if let format {
      buffer.writeStaticString(",\"format\":")
      buffer.writeJSONString(format)
    }
    buffer.writeStaticString(",\"name\":")
    buffer.writeJSONString(name)
    buffer.writeStaticString(",\"sha256\":")
    buffer.writeJSONString(sha256)
    buffer.writeStaticString(",\"sizeBytes\":")
    buffer.writeString(String(sizeBytes))
    buffer.writeStaticString(",\"version\":")
    buffer.writeJSONString(version)
    buffer.writeStaticString("}")
    return buffer
  }
}

extension ByteBuffer {
  /// Writes `string` as a JSON string literal, escaped as `JSONEncoder` escapes it with
  /// `.withoutEscapingSlashes`: `"` and `\` with a backslash, control characters as `\n`, `\r`,
  /// `\t`, `\b`, `\f` or `\u00XX`; everything else as its UTF-8 bytes.
  mutating func writeJSONString(_ string: String) {
    writeInteger(UInt8(ascii: "\""))
    var string = string
    string.withUTF8 { utf8 in
      let bytes = UnsafeRawBufferPointer(utf8)
      var start = 0   // the first byte not written yet
      for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
        writeBytes(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        start = index + 1
        switch byte {
        case UInt8(ascii: "\""): writeStaticString("\\\"")
        case UInt8(ascii: "\\"): writeStaticString("\\\\")
        case UInt8(ascii: "\n"): writeStaticString("\\n")
        case UInt8(ascii: "\r"): writeStaticString("\\r")
        case UInt8(ascii: "\t"): writeStaticString("\\t")
        case 0x08: writeStaticString("\\b")
        case 0x0C: writeStaticString("\\f")
        default:
          writeStaticString("\\u00")
          writeInteger(Self.hexDigits[Int(byte >> 4)])
          writeInteger(Self.hexDigits[Int(byte & 0x0F)])
        }
      }
      writeBytes(UnsafeRawBufferPointer(rebasing: bytes[start...]))
    }
    writeInteger(UInt8(ascii: "\""))
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

/// Timestamps on the wire: RFC 3339 in UTC, whole seconds (`2026-11-22T12:00:00Z`).
extension JSONEncoder {
  /// The encoder for registry responses: like the Gemini API's, with keys sorted so that the same
  /// state always reads the same.
  static var registry: JSONEncoder {
    let encoder = JSONEncoder.api
    encoder.outputFormatting.insert(.sortedKeys)
    return encoder
  }
}
