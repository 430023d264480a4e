import Foundation
import HybridAI

/// One image or sound of a prompt, as the projector reads it: the attachment's bytes, name and type.
struct MediaInput: Sendable {
  let name: String
  let mimeType: String
  let bytes: Data

  /// The most pixels an image may declare (about 67 megapixels: a 200 MB RGB bitmap); more is
  /// refused before decoding, so a small file that declares a huge image (a decompression bomb)
  /// never allocates it.
  static let maximumPixels = 64 * 1024 * 1024

  /// Throws when the image header declares more than ``maximumPixels`` pixels.
  func checkDimensions() throws(AttachmentError) {
    guard let (width, height) = ImageHeader.dimensions(of: bytes) else { return }
    guard width > 0, height > 0 else {
      throw .unreadable(path: name, reason: "the image declares \(width)×\(height) pixels")
    }
    if width.multipliedReportingOverflow(by: height).overflow || width * height > Self.maximumPixels {
      throw .unreadable(path: name, reason: "the image declares \(width)×\(height) pixels; at most \(Self.maximumPixels) are decoded")
    }
  }
}
