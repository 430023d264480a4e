/// How ``ModelDownloader/getModel(name:downloadType:conditions:)`` chooses between the copy on
/// this device and the registry's current version (Firebase ML's three download types).
public enum ModelDownloadType: String, Sendable, Hashable, Codable, CaseIterable {
  /// The copy on this device, without using the network. With no local copy, behaves as
  /// ``latestModel``. For models whose name changes with every upload.
  case localModel
  /// The copy on this device at once, while the registry is checked in the background and a newer
  /// version, if any, downloaded and installed; a later call returns the newer version. With no
  /// local copy, behaves as ``latestModel``.
  case localModelUpdateInBackground
  /// The version the registry serves to this installation now: the local copy when it is that
  /// version (the server answers `304`), else the new version once it is downloaded and verified.
  /// Blocks until then, and fails when the registry cannot be reached.
  case latestModel
}
