import Foundation

/// How the model registry inside `hybrid serve` stores models and hands them out
/// (see docs/model-delivery.md).
public struct RegistryConfiguration: Sendable {
  /// The registry's directory (`--data DIR`): `registry.sqlite`, `signing.key`, `blobs/` and `uploads/`.
  /// Created when missing.
  public var dataDirectory: URL
  /// The token the admin API requires (`Authorization: Bearer <token>`); `nil` turns the admin API off.
  public var adminToken: String?
  /// The address clients reach this server at (e.g. `https://models.example.com`), used to build
  /// download URLs. `nil`: taken from each request's RFC 7239 `Forwarded` (`proto`, `host`), else
  /// `X-Forwarded-Proto`/`X-Forwarded-Host`, else its `Host`.
  public var publicURL: URL?
  /// The largest model file an upload may have, in bytes.
  public var maxUploadBytes: Int64
  /// How long a signed download URL stays valid.
  public var downloadURLLifetime: Duration

  /// A configuration; only the directory is required (the admin API is then off).
  public init(dataDirectory: URL, adminToken: String? = nil, publicURL: URL? = nil,
              maxUploadBytes: Int64 = 8 << 30, downloadURLLifetime: Duration = .seconds(3600)) {
    self.dataDirectory = dataDirectory
    self.adminToken = adminToken
    self.publicURL = publicURL
    self.maxUploadBytes = maxUploadBytes
    self.downloadURLLifetime = downloadURLLifetime
  }
}

extension RegistryConfiguration {
  /// Where a registry keeps its files when none is named: `$XDG_DATA_HOME/hybridai/registry`, or
  /// `~/.local/share/hybridai/registry`.
  public static func defaultDataDirectory(environment: [String: String]) -> URL {
    let base = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
      ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
    return base.appendingPathComponent("hybridai/registry", isDirectory: true)
  }
}
