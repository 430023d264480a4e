import CImageCodecs

/// Turns what a `CImageCodecs` call returned into an ``ImageError``.
enum CodecStatus {
  /// The NUL-terminated message a codec call left in its fixed-size buffer.
  static func message<Buffer>(_ buffer: Buffer) -> String {
    withUnsafeBytes(of: buffer) { bytes in
      String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
  }

  /// `nil` for `CIMG_OK`, otherwise the error for `status`.
  static func error(
    _ status: cimg_status, format: ImageFormat, message: String,
    width: UInt32 = 0, height: UInt32 = 0, maximumPixelCount: Int = Bitmap.defaultMaximumPixelCount
  ) -> ImageError? {
    switch status {
    case CIMG_OK: nil
    case CIMG_ERR_TRUNCATED: .truncated(format: format, message: message)
    case CIMG_ERR_TOO_LARGE:
      .tooLarge(width: Int(width), height: Int(height), maximumPixelCount: maximumPixelCount)
    case CIMG_ERR_INVALID_DIMENSIONS: .invalidDimensions(width: Int(width), height: Int(height), channels: 0)
    case CIMG_ERR_UNSUPPORTED: .unsupportedContent(format: format, message: message)
    case CIMG_ERR_OUT_OF_MEMORY: .outOfMemory(reason: message)
    default: .corrupt(format: format, message: message)
    }
  }
}
