import Foundation
import HybridAIWire

/// A model as the registry stores it: its metadata, its versions and the roll-out that picks
/// among them.
public struct ModelRecord: Sendable, Hashable {
  /// The model's name: 1–64 characters of `[A-Za-z0-9_-]`, starting with a letter or digit.
  public var name: String
  /// Free text for people (may be empty).
  public var description: String
  /// Labels for people and tools, distinct.
  public var tags: [String]
  /// When the model was created (whole seconds).
  public var createTime: Date
  /// The versions, oldest first.
  public var versions: [Version]
  /// How clients are split among published versions; `nil`: everyone gets the newest published one.
  public var rollout: Rollout?

  /// A model record; a new model has no versions and no roll-out.
  public init(name: String, description: String, tags: [String], createTime: Date,
              versions: [Version] = [], rollout: Rollout? = nil) {
    self.name = name
    self.description = description
    self.tags = tags
    self.createTime = createTime
    self.versions = versions
    self.rollout = rollout
  }

  /// The newest published version: what clients get when no roll-out is in force.
  public var newestPublishedVersion: Version? { versions.last { $0.state == .published } }

  /// The version with the number `number`.
  public func version(_ number: Int) -> Version? { versions.first { $0.number == number } }

  /// One uploaded model file, numbered by the server.
  public struct Version: Sendable, Hashable {
    /// `1`, `2`, …; numbers are never reused within a model.
    public var number: Int
    /// Lowercase hex SHA-256 of the file: also the id of its blob.
    public var sha256: String
    /// The file's size in bytes.
    public var sizeBytes: Int64
    /// What the file holds, sniffed from its first bytes at upload.
    public var format: ModelFormat
    /// Whether clients may get this version.
    public var state: State
    /// When the version was uploaded (whole seconds).
    public var createTime: Date

    /// A version record.
    public init(number: Int, sha256: String, sizeBytes: Int64, format: ModelFormat, state: State, createTime: Date) {
      self.number = number
      self.sha256 = sha256
      self.sizeBytes = sizeBytes
      self.format = format
      self.state = state
      self.createTime = createTime
    }

    /// Whether clients may get a version.
    public enum State: String, Sendable, Hashable, Codable {
      /// Uploaded, not served.
      case draft
      /// Served: the newest published version, or one a roll-out names.
      case published
    }
  }

  /// Splits of the installations among published versions, summing to 100 %.
  public struct Rollout: Sendable, Hashable {
    /// In order: an installation's bucket falls into the first split whose running total exceeds it.
    public var splits: [Split]

    /// A roll-out; the splits must name distinct published versions and add up to `10_000` basis points.
    public init(splits: [Split]) { self.splits = splits }

    /// One version's share.
    public struct Split: Sendable, Hashable {
      /// The version number this split serves.
      public var version: Int
      /// The share in hundredths of a percent (`1000` is 10 %); all splits add up to `10_000`.
      public var basisPoints: Int

      /// A split of `basisPoints` hundredths of a percent for `version`.
      public init(version: Int, basisPoints: Int) {
        self.version = version
        self.basisPoints = basisPoints
      }
    }
  }
}
