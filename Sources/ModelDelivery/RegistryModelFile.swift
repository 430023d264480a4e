import HybridAI

/// A registry model's file as a ``ModelFileSource``: what `SystemLanguageModel(modelFile:)` takes
/// to load weights that arrive over the network.
///
/// ```swift
/// let file = downloader.modelFile(named: "smollm2")
/// file.prepareFile()                  // starts the download unless the file is here or on its way
/// if case .ready(let path, _) = file.fileState { … }
/// ```
public struct RegistryModelFile: ModelFileSource {
  /// The registry model's name.
  public let name: String
  /// The conditions background downloads run under.
  public let conditions: ModelDownloadConditions
  private let downloader: ModelDownloader

  init(name: String, conditions: ModelDownloadConditions, downloader: ModelDownloader) {
    self.name = name
    self.conditions = conditions
    self.downloader = downloader
  }

  /// Where the file stands, read without waiting: `.ready` when a verified version is installed
  /// (even while a newer one downloads), else `.downloading` while a fetch is under way, else
  /// `.failed` when the last background fetch failed, else `.notDownloaded`.
  public var fileState: ModelFileState { downloader.fileState(of: name) }

  /// Starts a background fetch of the registry's current version (as
  /// ``ModelDownloadType/latestModel`` would) unless a version is installed or a fetch is under way.
  public func prepareFile() { downloader.prepareFile(name: name, conditions: conditions) }
}
