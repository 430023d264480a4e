import ModelDelivery

extension SegmentPersonTool {
  /// Where ``SegmentPersonTool`` gets `selfie_segmentation.tflite`.
  public enum ModelSource: Sendable {
    /// A `.tflite` file on this machine.
    case file(path: String)
    /// The model `name` from a registry, through `downloader.getModel(name:downloadType:)` at
    /// each call (a local copy is reused as `downloadType` says).
    case registry(ModelDownloader, name: String, downloadType: ModelDownloadType)
  }
}
