import CImageCodecs

/// The versions of the system libraries behind ``Bitmap``'s decoders and encoders.
public enum ImageCodecLibraries {
  /// libpng's version, as the library loaded at run time reports it (e.g. "1.6.39").
  public static var png: String { String(cString: cimg_png_version()) }
  /// libjpeg-turbo's version as compiled against, with its libjpeg API level
  /// (e.g. "2.1.5 (libjpeg API 62)").
  public static var jpeg: String { String(cString: cimg_jpeg_version()) }
}
