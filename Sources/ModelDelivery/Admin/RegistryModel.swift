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

  /// The version numbered `version`, if any.
  public func version(_ version: String) -> RegistryModelVersion? { versions.first { $0.version == version } }
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
}
