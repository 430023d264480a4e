import HybridAIWire

/// The client's side of the registry's model-name rule (``RegistryIdentifiers/isValidModelName(_:)``,
/// docs/model-delivery.md "Names"): a name becomes a directory under the downloader's directory and
/// a path segment of a URL, so it is checked before any file or network I/O.
enum ModelName {
  /// Whether `name` is a valid model name.
  static func isValid(_ name: String) -> Bool { RegistryIdentifiers.isValidModelName(name) }

  /// Throws ``ModelDownloadError/invalidModelName(_:)`` unless `name` is valid.
  static func validate(_ name: String) throws(ModelDownloadError) {
    guard isValid(name) else { throw .invalidModelName(name) }
  }
}
