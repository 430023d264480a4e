import Foundation
import HybridAIWire

extension ModelDownloadInfo {
  /// Checks the fields this client relies on (the sha and version end up in file names and headers).
  func validated(for requestedName: String) throws(ModelDownloadError) -> (info: ModelDownloadInfo, url: URL) {
    guard name == requestedName else {
      throw .invalidServerResponse(reason: "asked for model \(requestedName), got \(name)")
    }
    guard RegistryIdentifiers.isValidSHA256(sha256) else {
      throw .invalidServerResponse(reason: "sha256 \(String(reflecting: sha256)) is not 64 lowercase hex digits")
    }
    guard RegistryIdentifiers.version(from: version) != nil else {
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
