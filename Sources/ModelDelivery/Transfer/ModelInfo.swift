import Foundation

/// The answer of `GET /v1/models/{name}:download`: which version this installation gets and
/// where to download it.
struct ModelInfo: Codable, Sendable, Hashable {
  var name: String
  var version: String
  var sizeBytes: Int64
  var sha256: String
  var format: String?
  var downloadUri: String
  var expireTime: String?

  /// Checks the fields this client relies on (the sha and version end up in file names and headers).
  func validated(for requestedName: String) throws(ModelDownloadError) -> (info: ModelInfo, url: URL) {
    guard name == requestedName else {
      throw .invalidServerResponse(reason: "asked for model \(requestedName), got \(name)")
    }
    guard RegistryIdentifiers.isSHA256(sha256) else {
      throw .invalidServerResponse(reason: "sha256 \(String(reflecting: sha256)) is not 64 lowercase hex digits")
    }
    guard RegistryIdentifiers.isVersion(version) else {
      throw .invalidServerResponse(reason: "version \(String(reflecting: version)) is not a decimal integer")
    }
    guard sizeBytes >= 0 else { throw .invalidServerResponse(reason: "negative sizeBytes \(sizeBytes)") }
    guard let url = URL(string: downloadUri), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
          url.host != nil else {
      throw .invalidServerResponse(reason: "downloadUri \(String(reflecting: downloadUri)) is not an http(s) URL")
    }
    return (self, url)
  }
}
