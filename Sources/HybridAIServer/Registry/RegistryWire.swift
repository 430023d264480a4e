import Foundation

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
}

/// Timestamps on the wire: RFC 3339 in UTC, whole seconds (`2026-11-22T12:00:00Z`).
enum RegistryTimestamp {
  static func string(_ date: Date) -> String { date.formatted(.iso8601) }
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
