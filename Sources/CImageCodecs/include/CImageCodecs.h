// CImageCodecs — PNG and JPEG decoding and encoding for HybridAI's TFLiteImage module, on the
// system's libpng (1.6) and libjpeg-turbo (Debian packages libpng-dev and libjpeg62-turbo-dev).
//
// Both libraries report fatal errors by longjmp (libpng) or by calling an error_exit hook whose
// default calls exit() (libjpeg). Every function here installs its own handlers, keeps
// setjmp/longjmp inside this C file and turns each failure into a status code and a message, so a
// corrupt, truncated or hostile image can never end or corrupt the calling process. Warnings are
// never written to stderr.
//
// This header deliberately includes neither <png.h> nor <jpeglib.h>: Swift sees only the
// functions below.
#ifndef HYBRIDAI_CIMAGECODECS_H
#define HYBRIDAI_CIMAGECODECS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a codec call returns. Zero is success.
typedef enum {
  CIMG_OK = 0,
  /// The data is not a valid image of the format (the library's message says why).
  CIMG_ERR_CORRUPT = 1,
  /// The data ends before the image does.
  CIMG_ERR_TRUNCATED = 2,
  /// The declared width × height exceeds the caller's pixel limit; width and height are set.
  CIMG_ERR_TOO_LARGE = 3,
  /// A width, height or channel count that is zero or out of range.
  CIMG_ERR_INVALID_DIMENSIONS = 4,
  /// A valid image the decoder cannot convert to RGB (e.g. an unusual JPEG colour space).
  CIMG_ERR_UNSUPPORTED = 5,
  /// malloc failed.
  CIMG_ERR_OUT_OF_MEMORY = 6,
} cimg_status;

/// Room for a library message, NUL-terminated (libjpeg's own limit is 200).
#define CIMG_MESSAGE_CAPACITY 256

/// A decoded image: `width × height` pixels of `channels` 8-bit samples, rows top to bottom,
/// no padding. `pixels` is allocated with malloc: release it with `cimg_free`.
typedef struct {
  uint8_t *pixels;
  uint32_t width;
  uint32_t height;
  uint32_t channels;
  char message[CIMG_MESSAGE_CAPACITY];
} cimg_image;

/// Encoded bytes, allocated with malloc: release them with `cimg_free`.
typedef struct {
  uint8_t *bytes;
  size_t size;
  char message[CIMG_MESSAGE_CAPACITY];
} cimg_buffer;

/// Decodes a PNG into 8-bit RGB (channels = 3): palettes and grayscale are expanded, alpha is
/// dropped, 16-bit samples are scaled to 8 bits, interlacing is undone. No gamma or colour
/// management is applied. Fails with `CIMG_ERR_TOO_LARGE` (width and height set) before any
/// pixel memory is allocated when width × height exceeds `max_pixels`.
cimg_status cimg_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, cimg_image *out);

/// Decodes a baseline or progressive JPEG into 8-bit RGB (channels = 3): YCbCr, grayscale and
/// RGB JPEGs through libjpeg-turbo's colour conversion, CMYK/YCCK (Adobe) by converting the
/// CMYK samples. A file that ends before its end-of-image marker is `CIMG_ERR_TRUNCATED`;
/// progressive files with more than 500 scans are rejected as corrupt.
cimg_status cimg_jpeg_decode(const uint8_t *data, size_t size, uint64_t max_pixels, cimg_image *out);

/// Encodes 8-bit gray (channels 1), RGB (3) or RGBA (4) pixels as a PNG (8 bits a sample, no
/// interlacing, zlib's default compression).
cimg_status cimg_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels,
                            cimg_buffer *out);

/// Encodes 8-bit gray (components 1), RGB (3) or CMYK (4, written with an Adobe marker, i.e.
/// inverted as Adobe applications do) pixels as a JPEG of the given quality (1…100); baseline,
/// or progressive when `progressive` is non-zero.
cimg_status cimg_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t components,
                             int quality, int progressive, cimg_buffer *out);

/// Frees memory returned in `cimg_image.pixels` or `cimg_buffer.bytes`.
void cimg_free(void *pointer);

/// The version of the libpng loaded at run time, e.g. "1.6.39".
const char *cimg_png_version(void);

/// The libjpeg-turbo version compiled against, e.g. "2.1.5 (libjpeg API 62)".
const char *cimg_jpeg_version(void);

#ifdef __cplusplus
}
#endif

#endif
