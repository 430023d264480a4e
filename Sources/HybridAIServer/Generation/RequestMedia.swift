import Foundation
import HybridAI

/// The images and sounds one request sends (Gemini `inlineData`, OpenAI `image_url` and
/// `input_audio`) to a served model that reads them itself: held in memory for that request only
/// (the request body's size limit bounds them), never written to the disk.
struct RequestMedia: Sendable {
  let store: any ArtifactStore

  /// A store when the request holds media and `model` reads images or audio; `nil` otherwise
  /// (the conversion then refuses media with its usual 400).
  static func store(holdingMedia: Bool, for model: ServedModel) -> RequestMedia? {
    guard holdingMedia, model.model.capabilities.inputModalities.contains(where: { $0 != .text }) else { return nil }
    return RequestMedia(store: InMemoryArtifactStore(limits: ArtifactStoreLimits()))
  }
}
