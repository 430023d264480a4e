import CImageCodecs
import Foundation

extension Bitmap {
  /// Decodes a PNG or JPEG file into an RGB bitmap (see ``init(data:maximumPixelCount:)``).
  ///
  /// - Parameters:
  ///   - url: a `file:` URL.
  ///   - maximumPixelCount: the largest `width × height` accepted.
  /// - Throws: ``ImageError/unreadableFile(path:reason:)`` when the file cannot be read, then
  ///   whatever ``init(data:maximumPixelCount:)`` throws.
  public init(contentsOf url: URL, maximumPixelCount: Int = Bitmap.defaultMaximumPixelCount) throws(ImageError) {
    guard url.isFileURL else { throw .unreadableFile(path: url.absoluteString, reason: "not a file URL") }
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw .unreadableFile(path: url.path, reason: Bitmap.reason(for: error))
    }
    try self.init(data: data, maximumPixelCount: maximumPixelCount)
  }

  /// Decodes PNG or JPEG bytes into an RGB bitmap (`channels == 3`).
  ///
  /// The format is recognised by its magic bytes. PNG: palettes and grayscale are expanded to RGB,
  /// alpha is dropped (not composited), 16-bit samples are scaled to 8 bits, interlacing is
  /// undone. JPEG: baseline and progressive, grayscale to RGB, CMYK/YCCK converted. No gamma,
  /// ICC profile or EXIF orientation is applied — the pixels are as stored, as most model
  /// pipelines expect.
  ///
  /// - Parameter maximumPixelCount: the largest `width × height` accepted; checked against the
  ///   size the file declares, before any pixel memory is allocated.
  /// - Throws: ``ImageError/emptyData``, ``ImageError/unsupportedFormat(description:)``,
  ///   ``ImageError/corrupt(format:message:)``, ``ImageError/truncated(format:message:)`` (a file
  ///   that ends before its last chunk or end-of-image marker),
  ///   ``ImageError/tooLarge(width:height:maximumPixelCount:)``,
  ///   ``ImageError/unsupportedContent(format:message:)``, ``ImageError/outOfMemory(reason:)``.
  public init(data: Data, maximumPixelCount: Int = Bitmap.defaultMaximumPixelCount) throws(ImageError) {
    guard !data.isEmpty else { throw .emptyData }
    guard let format = ImageFormat(sniffing: data) else {
      throw .unsupportedFormat(description: ImageFormat.describeUnsupported(data))
    }
    var image = cimg_image()
    let limit = UInt64(clamping: max(0, maximumPixelCount))
    let status = data.withUnsafeBytes { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      switch format {
      case .png: return cimg_png_decode(bytes.baseAddress, bytes.count, limit, &image)
      case .jpeg: return cimg_jpeg_decode(bytes.baseAddress, bytes.count, limit, &image)
      }
    }
    defer { cimg_free(image.pixels) }
    if let error = CodecStatus.error(
      status, format: format, message: CodecStatus.message(image.message),
      width: image.width, height: image.height, maximumPixelCount: maximumPixelCount)
    {
      throw error
    }
    guard let base = image.pixels, image.channels == 3 else {
      throw .unsupportedContent(format: format, message: "the decoder returned no RGB pixels")
    }
    let width = Int(image.width), height = Int(image.height)
    let pixels = Array(UnsafeBufferPointer(start: base, count: width * height * 3))
    self.init(unchecked: width, height: height, channels: 3, pixels: pixels)
  }

  /// A short, stable reason for a Foundation file error.
  static func reason(for error: any Error) -> String {
    let nsError = error as NSError
    if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
      underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code))
    {
      return String(cString: strerror(code.rawValue))
    }
    return nsError.localizedDescription
  }
}
