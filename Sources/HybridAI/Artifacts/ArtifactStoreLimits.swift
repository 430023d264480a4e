/// How much an ``ArtifactStore`` keeps.
public struct ArtifactStoreLimits: Sendable, Hashable, Codable {
  /// The most bytes one artifact may have (default 256 MiB).
  public var maxArtifactBytes: Int64
  /// The most bytes all stored artifacts may have together (default 4 GiB).
  public var maxStoreBytes: Int64

  /// Limits with the given sizes.
  public init(maxArtifactBytes: Int64 = 256 << 20, maxStoreBytes: Int64 = 4 << 30) {
    self.maxArtifactBytes = maxArtifactBytes
    self.maxStoreBytes = maxStoreBytes
  }
}
