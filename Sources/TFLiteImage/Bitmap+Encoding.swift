import CImageCodecs
import Foundation

extension Bitmap {
  /// The image as a PNG file (8 bits a sample; gray, RGB or RGBA as ``channels`` says), encoded
  /// with libpng.
  ///
  /// - Throws: ``ImageError/invalidDimensions(width:height:channels:)`` for images wider or taller
  ///   than PNG allows (2^31 − 1), ``ImageError/outOfMemory(reason:)``.
  public func pngData() throws(ImageError) -> Data {
    try encode(format: .png) { pixels, width, height, out in
      cimg_png_encode(pixels, width, height, UInt32(channels), out)
    }
  }

  /// The image as a baseline JPEG (libjpeg-turbo, 4:2:0 chroma subsampling for colour), gray or
  /// RGB; alpha is dropped first.
  ///
  /// - Parameter quality: 1…100 (values outside are clamped); 90 by default.
  /// - Throws: ``ImageError/invalidDimensions(width:height:channels:)`` for images above
  ///   65,500 pixels in either direction, ``ImageError/outOfMemory(reason:)``.
  public func jpegData(quality: Int = 90) throws(ImageError) -> Data {
    let source = channels == 4 ? rgb : self
    return try source.encode(format: .jpeg) { pixels, width, height, out in
      cimg_jpeg_encode(pixels, width, height, UInt32(source.channels), Int32(clamping: quality), 0, out)
    }
  }

  /// Writes the image to a file, atomically.
  ///
  /// - Parameter format: the encoding; by default JPEG (quality 90) when the file name ends in
  ///   `.jpg` or `.jpeg`, PNG otherwise.
  /// - Throws: the errors of ``pngData()`` or ``jpegData(quality:)``, and
  ///   ``ImageError/unwritableFile(path:reason:)``.
  public func write(to url: URL, format: ImageFormat? = nil) throws(ImageError) {
    guard url.isFileURL else { throw .unwritableFile(path: url.absoluteString, reason: "not a file URL") }
    let chosen = format ?? (["jpg", "jpeg"].contains(url.pathExtension.lowercased()) ? .jpeg : .png)
    let data = try chosen == .png ? pngData() : jpegData()
    do {
      try data.write(to: url, options: .atomic)
    } catch {
      throw .unwritableFile(path: url.path, reason: Bitmap.reason(for: error))
    }
  }

  private func encode(
    format: ImageFormat,
    _ call: (UnsafePointer<UInt8>?, UInt32, UInt32, UnsafeMutablePointer<cimg_buffer>) -> cimg_status
  ) throws(ImageError) -> Data {
    guard let width = UInt32(exactly: width), let height = UInt32(exactly: height) else {
      throw .invalidDimensions(width: self.width, height: self.height, channels: channels)
    }
    var buffer = cimg_buffer()
    let status = pixels.withUnsafeBufferPointer { call($0.baseAddress, width, height, &buffer) }
    defer { cimg_free(buffer.bytes) }
    if status == CIMG_ERR_INVALID_DIMENSIONS {
      throw .invalidDimensions(width: self.width, height: self.height, channels: channels)
    }
    if let error = CodecStatus.error(status, format: format, message: CodecStatus.message(buffer.message)) {
      throw error
    }
    guard let bytes = buffer.bytes else { throw .outOfMemory(reason: "the encoder returned no data") }
    return Data(bytes: bytes, count: buffer.size)
  }
}
