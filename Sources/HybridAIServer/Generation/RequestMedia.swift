import Foundation
import HybridAI

/// A folder for the images and sounds one request sends (Gemini `inlineData`, OpenAI `image_url`
/// and `input_audio`) to a served model that reads them itself: made only for such a request,
/// removed once the model has read them (its prompt is tokenized before the first event).
struct RequestMedia: Sendable {
  let store: ArtifactStore

  /// A folder when the request holds media and `model` reads images or audio; `nil` otherwise
  /// (the conversion then refuses media with its usual 400).
  static func folder(holdingMedia: Bool, for model: ServedModel) throws -> RequestMedia? {
    guard holdingMedia, model.model.capabilities.inputModalities.contains(where: { $0 != .text }) else { return nil }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-serve-media-\(UUID().uuidString)")
    return RequestMedia(store: try ArtifactStore(directory: directory))
  }

  /// Removes the folder and what it holds.
  func remove() {
    try? FileManager.default.removeItem(at: store.directory)
  }
}
