// The model registry's admin API records (docs/model-delivery.md, openapi.yaml): written by the
// registry in `hybrid serve`, read by `ModelRegistryAdmin`.

/// A model in the registry, as the admin API describes it.
public struct RegistryModel: Sendable, Hashable, Codable {
  /// The model's name.
  public var name: String
  /// A free-form description (empty when none was given).
  public var description: String
  /// Free-form tags.
  public var tags: [String]
  /// When the model was created (RFC 3339).
  public var createTime: String?
  /// Every version, drafts included.
  public var versions: [RegistryModelVersion]
  /// The A/B roll-out, when there is one.
  public var rollout: RegistryRollout?
  /// The version clients get without a roll-out (the newest published one), or `nil` when none is
  /// published.
  public var servedVersion: String?

  /// A model description.
  public init(name: String, description: String = "", tags: [String] = [], createTime: String? = nil,
              versions: [RegistryModelVersion] = [], rollout: RegistryRollout? = nil, servedVersion: String? = nil) {
    self.name = name
    self.description = description
    self.tags = tags
    self.createTime = createTime
    self.versions = versions
    self.rollout = rollout
    self.servedVersion = servedVersion
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    name = try container.decode(String.self, forKey: .name)
    description = try container.decodeIfPresent(String.self, forKey: .description) ?? ""
    tags = try container.decodeIfPresent([String].self, forKey: .tags) ?? []
    createTime = try container.decodeIfPresent(String.self, forKey: .createTime)
    versions = try container.decodeIfPresent([RegistryModelVersion].self, forKey: .versions) ?? []
    rollout = try container.decodeIfPresent(RegistryRollout.self, forKey: .rollout)
    servedVersion = try container.decodeIfPresent(String.self, forKey: .servedVersion)
  }

  /// Writes `rollout` and `servedVersion` as explicit `null`s when absent, so that clients can tell
  /// "no roll-out" from an older server without the field.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(description, forKey: .description)
    try container.encode(tags, forKey: .tags)
    try container.encodeIfPresent(createTime, forKey: .createTime)
    try container.encode(versions, forKey: .versions)
    try container.encode(rollout, forKey: .rollout)
    try container.encode(servedVersion, forKey: .servedVersion)
  }

  private enum CodingKeys: String, CodingKey {
    case name, description, tags, createTime, versions, rollout, servedVersion
  }

  /// The version numbered `version`, if any.
  public func version(_ version: String) -> RegistryModelVersion? { versions.first { $0.version == version } }
}

/// `{"models": [model]}`: the answer of `GET /v1/admin/models`.
public struct RegistryModelList: Sendable, Hashable, Codable {
  /// Every model (absent from an empty answer of older registries).
  public var models: [RegistryModel]

  /// A list of models.
  public init(models: [RegistryModel]) { self.models = models }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    models = try container.decodeIfPresent([RegistryModel].self, forKey: .models) ?? []
  }

  private enum CodingKeys: String, CodingKey { case models }
}

/// The body of `POST /v1/admin/models`. Optional fields may be left out but not sent as `null`.
public struct RegistryModelCreation: Sendable, Hashable, Codable {
  /// The new model's name (``RegistryIdentifiers/isValidModelName(_:)``).
  public var name: String
  /// A free-form description.
  public var description: String?
  /// Free-form tags, each at most once.
  public var tags: [String]?

  /// A creation request.
  public init(name: String, description: String? = nil, tags: [String]? = nil) {
    self.name = name
    self.description = description
    self.tags = tags
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    name = try container.decode(String.self, forKey: .name)
    description = container.contains(.description) ? try container.decode(String.self, forKey: .description) : nil
    tags = container.contains(.tags) ? try container.decode([String].self, forKey: .tags) : nil
  }

  private enum CodingKeys: String, CodingKey { case name, description, tags }
}

/// One uploaded file of a registry model.
public struct RegistryModelVersion: Sendable, Hashable, Codable {
  /// The version number the server assigned (`"1"`, `"2"`, …).
  public var version: String
  /// The file's size.
  public var sizeBytes: Int64
  /// The file's SHA-256, lowercase hex (also its blob id).
  public var sha256: String
  /// The format sniffed from the bytes: `tflite`, `gguf` or `other`.
  public var format: String
  /// `draft` (uploaded, not served) or `published`.
  public var state: String
  /// When it was uploaded (RFC 3339).
  public var createTime: String?

  /// A version description.
  public init(version: String, sizeBytes: Int64, sha256: String, format: String, state: String, createTime: String? = nil) {
    self.version = version
    self.sizeBytes = sizeBytes
    self.sha256 = sha256
    self.format = format
    self.state = state
    self.createTime = createTime
  }

  /// Whether clients may get this version.
  public var isPublished: Bool { state == "published" }
}

/// An A/B roll-out: which share of installations gets which published version.
public struct RegistryRollout: Sendable, Hashable, Codable {
  /// The splits; their percentages sum to 100.
  public var splits: [RolloutSplit]

  /// A roll-out.
  public init(splits: [RolloutSplit]) { self.splits = splits }
}

/// One version's share of a roll-out.
public struct RolloutSplit: Sendable, Hashable, Codable {
  /// A published version.
  public var version: String
  /// The share of installations, 0–100 (hundredths allowed).
  public var percent: Double

  /// A split.
  public init(version: String, percent: Double) {
    self.version = version
    self.percent = percent
  }

  /// A split of `basisPoints` hundredths of a percent (`3333` is 33.33 %).
  public init(version: String, basisPoints: Int) {
    self.init(version: version, percent: Double(basisPoints) / 100)
  }

  /// The share exactly, in hundredths of a percent; `nil` when ``percent`` has more than two
  /// decimals or is not a finite number in a sane range.
  public var basisPoints: Int? {
    let scaled = percent * 100
    guard percent.isFinite, abs(scaled) <= 1e12, abs(scaled - scaled.rounded()) < 1e-6 else { return nil }
    return Int(scaled.rounded())
  }

  /// `percent` as people write it: `90`, `33.33`.
  public static func percentText(basisPoints: Int) -> String {
    let (whole, hundredths) = abs(basisPoints).quotientAndRemainder(dividingBy: 100)
    let sign = basisPoints < 0 ? "-" : ""
    if hundredths == 0 { return "\(sign)\(whole)" }
    let decimals = hundredths.isMultiple(of: 10) ? "\(hundredths / 10)" : (hundredths < 10 ? "0\(hundredths)" : "\(hundredths)")
    return "\(sign)\(whole).\(decimals)"
  }
}
