/// Everything that can go wrong when decoding, converting or encoding a ``Bitmap``, as a value you
/// can switch over.
///
/// None of these ever comes from a crash: libpng and libjpeg-turbo run behind error handlers that
/// turn their fatal errors into a status and a message (see `CImageCodecs`), so corrupt, truncated
/// or hostile files end up here.
public enum ImageError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The file could not be read (missing, a directory, no permission, not a `file:` URL).
  case unreadableFile(path: String, reason: String)
  /// The file could not be written.
  case unwritableFile(path: String, reason: String)
  /// There were no bytes to decode (an empty file).
  case emptyData
  /// The bytes are neither a PNG nor a JPEG. `description` names the format when it is a common
  /// one (GIF, WebP, BMP, TIFF) and shows the first bytes otherwise.
  case unsupportedFormat(description: String)
  /// The bytes start like a PNG or JPEG but are not a valid one; `message` is the library's.
  case corrupt(format: ImageFormat, message: String)
  /// The data ends before the image does.
  case truncated(format: ImageFormat, message: String)
  /// A valid image the decoder cannot turn into RGB (e.g. a JPEG in an unusual colour space).
  case unsupportedContent(format: ImageFormat, message: String)
  /// The image declares more pixels than allowed; nothing was allocated for them.
  case tooLarge(width: Int, height: Int, maximumPixelCount: Int)
  /// A width or height below 1, a channel count other than 1, 3 or 4, or sizes whose product
  /// overflows.
  case invalidDimensions(width: Int, height: Int, channels: Int)
  /// A pixel buffer or float mask holds the wrong number of bytes or values.
  case byteCountMismatch(expected: Int, actual: Int)
  /// Memory for the pixels or the encoded file could not be allocated.
  case outOfMemory(reason: String)

  public var description: String {
    switch self {
    case .unreadableFile(let path, let reason): "cannot read image file \(path): \(reason)"
    case .unwritableFile(let path, let reason): "cannot write image file \(path): \(reason)"
    case .emptyData: "the image data is empty"
    case .unsupportedFormat(let description): "not a PNG or JPEG image: \(description)"
    case .corrupt(let format, let message): "corrupt \(format.displayName) image: \(message)"
    case .truncated(let format, let message): "truncated \(format.displayName) image: \(message)"
    case .unsupportedContent(let format, let message): "unsupported \(format.displayName) image: \(message)"
    case .tooLarge(let width, let height, let maximum):
      "image of \(width) × \(height) pixels exceeds the limit of \(maximum) pixels"
    case .invalidDimensions(let width, let height, let channels):
      "invalid image dimensions \(width) × \(height) with \(channels) channels"
        + " (need ≥ 1 × 1 and 1, 3 or 4 channels)"
    case .byteCountMismatch(let expected, let actual): "expected \(expected) bytes or values, got \(actual)"
    case .outOfMemory(let reason): "out of memory: \(reason)"
    }
  }
}
