/// A model file that arrives over the network rather than shipping with the app: it may not be on
/// this device yet, or be on its way.
///
/// `ModelDelivery`'s `ModelDownloader` provides one per registry model; `SystemLanguageModel`
/// takes one in place of a path and reports `.unavailable(.modelNotReady)` until the file is
/// ready, so a prefer-on-device session answers from the cloud meanwhile.
public protocol ModelFileSource: Sendable {
  /// A name for logs and errors (the registry model's name).
  var name: String { get }
  /// Where the file stands now. Cheap and synchronous: availability checks call it.
  var fileState: ModelFileState { get }
  /// Starts fetching the file in the background unless it is present or already on its way;
  /// returns at once.
  func prepareFile()
}

/// Where a ``ModelFileSource``'s file stands.
public enum ModelFileState: Sendable, Equatable {
  /// On this device, verified, at `path`.
  case ready(path: String, version: String)
  /// Being downloaded; `totalBytes` is nil until the server said.
  case downloading(bytesReceived: Int64, totalBytes: Int64?)
  /// Not on this device and not being fetched.
  case notDownloaded
  /// The last attempt failed; ``ModelFileSource/prepareFile()`` tries again.
  case failed(reason: String)
}
