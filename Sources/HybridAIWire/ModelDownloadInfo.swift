/// The answer of `GET /v1/models/{name}:download`: which version an installation gets and where
/// to download it (a signed, expiring URL). The registry writes it; `ModelDownloader` reads it.
public struct ModelDownloadInfo: Codable, Sendable, Hashable {
  /// The model's name.
  public var name: String
  /// The version this installation gets (decimal, see ``RegistryIdentifiers/version(from:)``).
  public var version: String
  /// The file's size in bytes.
  public var sizeBytes: Int64
  /// The file's SHA-256, lowercase hex; also its blob id.
  public var sha256: String
  /// The format sniffed from the file (``ModelFormat``'s raw values); older registries leave it out.
  public var format: String?
  /// Where to download the file: a signed URL that expires at ``expireTime``.
  public var downloadUri: String
  /// When ``downloadUri`` stops working (RFC 3339, see ``RegistryTimestamp``).
  public var expireTime: String?

  /// A download answer from its fields.
  public init(name: String, version: String, sizeBytes: Int64, sha256: String, format: String?,
              downloadUri: String, expireTime: String?) {
    self.name = name
    self.version = version
    self.sizeBytes = sizeBytes
    self.sha256 = sha256
    self.format = format
    self.downloadUri = downloadUri
    self.expireTime = expireTime
  }
}
