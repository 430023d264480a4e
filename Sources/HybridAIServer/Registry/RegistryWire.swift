import Foundation
import NIOCore

// The registry's JSON, as docs/model-delivery.md and openapi.yaml describe it.

/// A model as the admin API shows it.
struct ModelResource: Encodable {
  let model: ModelRecord

  private enum CodingKeys: String, CodingKey {
    case name, description, tags, createTime, versions, rollout, servedVersion
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(model.name, forKey: .name)
    try container.encode(model.description, forKey: .description)
    try container.encode(model.tags, forKey: .tags)
    try container.encode(RegistryTimestamp.string(model.createTime), forKey: .createTime)
    try container.encode(model.versions.map(VersionResource.init), forKey: .versions)
    // Explicit nulls: clients can tell "no roll-out" from an older server without the field.
    if let rollout = model.rollout {
      try container.encode(RolloutResource(rollout), forKey: .rollout)
    } else {
      try container.encodeNil(forKey: .rollout)
    }
    if let served = model.newestPublishedVersion {
      try container.encode(String(served.number), forKey: .servedVersion)
    } else {
      try container.encodeNil(forKey: .servedVersion)
    }
  }
}

/// `{"models": [model]}`.
struct ModelListResource: Encodable {
  let models: [ModelResource]
}

/// A version as the admin API shows it.
struct VersionResource: Encodable {
  let version: String
  let sizeBytes: Int64
  let sha256: String
  let format: ModelFormat
  let state: ModelRecord.Version.State
  let createTime: String

  init(_ version: ModelRecord.Version) {
    self.version = String(version.number)
    sizeBytes = version.sizeBytes
    sha256 = version.sha256
    format = version.format
    state = version.state
    createTime = RegistryTimestamp.string(version.createTime)
  }
}

/// A roll-out, both ways: `{"splits": [{"version": "1", "percent": 90}, …]}`.
struct RolloutResource: Codable {
  let splits: [SplitResource]

  init(_ rollout: ModelRecord.Rollout) {
    splits = rollout.splits.map { SplitResource(version: String($0.version), percent: Percent(basisPoints: $0.basisPoints)) }
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    splits = try container.decode([SplitResource].self, forKey: .splits)
  }

  struct SplitResource: Codable {
    let version: String
    let percent: Percent
  }
}

/// A share in percent with at most two decimals, kept exactly as basis points (hundredths of a
/// percent). Written as an integer when whole (`90`), else with its decimals (`33.33`).
struct Percent: Codable, Equatable {
  let basisPoints: Int

  init(basisPoints: Int) { self.basisPoints = basisPoints }

  init(from decoder: any Decoder) throws {
    let value = try decoder.singleValueContainer().decode(Double.self)
    let scaled = value * 100
    guard value.isFinite, abs(scaled) <= 1e12, abs(scaled - scaled.rounded()) < 1e-6 else {
      throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                              debugDescription: "A percentage has at most two decimals."))
    }
    basisPoints = Int(scaled.rounded())
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if basisPoints.isMultiple(of: 100) {
      try container.encode(basisPoints / 100)
    } else {
      try container.encode(Decimal(basisPoints) / 100)
    }
  }
}

/// The body of `POST /v1/admin/models`. Optional fields may be left out but not sent as `null`.
struct CreateModelRequest: Decodable {
  let name: String
  let description: String?
  let tags: [String]?

  private enum CodingKeys: String, CodingKey { case name, description, tags }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    name = try container.decode(String.self, forKey: .name)
    description = container.contains(.description) ? try container.decode(String.self, forKey: .description) : nil
    tags = container.contains(.tags) ? try container.decode([String].self, forKey: .tags) : nil
  }
}

/// What `GET /v1/models/{name}:download` answers.
struct DownloadInfoResource: Encodable {
  let name: String
  let version: String
  let sizeBytes: Int64
  let sha256: String
  let format: ModelFormat
  let downloadUri: String
  let expireTime: String

  /// The JSON body, written directly rather than through `JSONEncoder` (this is the client API's
  /// busiest answer): the bytes `JSONEncoder.registry` writes, keys sorted, `/` unescaped.
  var jsonBody: ByteBuffer {
    var buffer = ByteBuffer()
    buffer.reserveCapacity(160 + name.utf8.count + version.utf8.count + sha256.utf8.count + downloadUri.utf8.count
                             + expireTime.utf8.count)
    buffer.writeStaticString("{\"downloadUri\":")
    buffer.writeJSONString(downloadUri)
    buffer.writeStaticString(",\"expireTime\":")
    buffer.writeJSONString(expireTime)
    buffer.writeStaticString(",\"format\":")
    buffer.writeJSONString(format.rawValue)
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
enum RegistryTimestamp {
  /// `date` as `date.formatted(.iso8601)` writes it. Whole seconds from 1970 through 9999, which
  /// is every time the registry writes, are formatted here without Foundation's calendar
  /// machinery (a few microseconds a call); anything else goes to Foundation.
  static func string(_ date: Date) -> String {
    let interval = date.timeIntervalSince1970
    guard interval >= 0, interval < 253_402_300_800, interval.rounded(.down) == interval else {
      return date.formatted(.iso8601)
    }
    let seconds = Int64(interval)
    let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
    let (year, month, day) = civilDate(daysSince1970: days)
    var text = [UInt8](repeating: 0, count: 20)
    func put(_ value: Int64, at offset: Int, digits: Int) {
      var value = value
      for position in (offset..<offset + digits).reversed() {
        text[position] = UInt8(ascii: "0") + UInt8(value % 10)
        value /= 10
      }
    }
    put(year, at: 0, digits: 4)
    text[4] = UInt8(ascii: "-")
    put(month, at: 5, digits: 2)
    text[7] = UInt8(ascii: "-")
    put(day, at: 8, digits: 2)
    text[10] = UInt8(ascii: "T")
    put(secondOfDay / 3600, at: 11, digits: 2)
    text[13] = UInt8(ascii: ":")
    put(secondOfDay / 60 % 60, at: 14, digits: 2)
    text[16] = UInt8(ascii: ":")
    put(secondOfDay % 60, at: 17, digits: 2)
    text[19] = UInt8(ascii: "Z")
    return String(decoding: text, as: UTF8.self)
  }

  /// The proleptic Gregorian date `days` after 1970-01-01, for `days >= 0` (Howard Hinnant's
  /// `civil_from_days`).
  static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let shifted = days + 719_468                                   // days since 0000-03-01
    let era = shifted / 146_097                                    // 400-year cycles
    let dayOfEra = shifted - era * 146_097                         // 0...146_096
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)   // from March 1
    let monthFromMarch = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
    let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}

extension JSONEncoder {
  /// The encoder for registry responses: like the Gemini API's, with keys sorted so that the same
  /// state always reads the same.
  static var registry: JSONEncoder {
    let encoder = JSONEncoder.api
    encoder.outputFormatting.insert(.sortedKeys)
    return encoder
  }
}
