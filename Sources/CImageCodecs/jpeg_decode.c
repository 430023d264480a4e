// JPEG → 8-bit RGB with libjpeg-turbo, every failure contained (see CImageCodecs.h).
#include "jpeg_errors.h"

#include <stdlib.h>
#include <string.h>

/// A progressive JPEG can declare thousands of tiny scans and make decoding take minutes;
/// libjpeg-turbo's own tools stop at 500 (TJPARAM_SCANLIMIT), and so does this decoder.
#define CIMG_JPEG_MAX_SCANS 500

/// Everything that changes while libjpeg runs lives here, in the caller's frame, so that it keeps
/// its value across the longjmp back into `decode`.
typedef struct {
  cimg_jpeg_errors errors;
  struct jpeg_decompress_struct cinfo;
  struct jpeg_progress_mgr progress;
  int created;
  uint8_t *pixels;
  uint8_t *cmyk_row;
} jpeg_decode_context;

static void on_progress(j_common_ptr cinfo) {
  if (!cinfo->is_decompressor) return;
  j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
  if (decompress->input_scan_number > CIMG_JPEG_MAX_SCANS)
    cimg_jpeg_fail(cinfo, CIMG_ERR_CORRUPT, "progressive JPEG with more than 500 scans");
}

static inline uint8_t multiply_255(unsigned a, unsigned b) { return (uint8_t)((a * b + 127) / 255); }

/// CMYK (as libjpeg outputs it) → RGB. Adobe applications write inverted CMYK (255 = no ink),
/// which is what an Adobe marker signals; other CMYK JPEGs store ink amounts.
static void cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, size_t width, int inverted) {
  for (size_t x = 0; x < width; x++, cmyk += 4, rgb += 3) {
    unsigned c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
    if (!inverted) {
      c = 255 - c;
      m = 255 - m;
      y = 255 - y;
      k = 255 - k;
    }
    rgb[0] = multiply_255(c, k);
    rgb[1] = multiply_255(m, k);
    rgb[2] = multiply_255(y, k);
  }
}

static cimg_status decode(jpeg_decode_context *context, const uint8_t *data, size_t size, uint64_t max_pixels,
                          cimg_image *out) {
  if (setjmp(context->errors.jump)) return context->errors.status;

  j_decompress_ptr cinfo = &context->cinfo;
  cinfo->err = cimg_jpeg_install_errors(&context->errors, out->message);
  context->created = 1;
  jpeg_create_decompress(cinfo);
  context->progress.progress_monitor = on_progress;
  cinfo->progress = &context->progress;
  jpeg_mem_src(cinfo, data, (unsigned long)size);
  jpeg_read_header(cinfo, TRUE);

  out->width = cinfo->image_width;
  out->height = cinfo->image_height;
  if ((uint64_t)cinfo->image_width * (uint64_t)cinfo->image_height > max_pixels) {
    cimg_set_message(out->message, "declared size exceeds the pixel limit");
    return CIMG_ERR_TOO_LARGE;
  }

  int cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
  cinfo->out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  jpeg_start_decompress(cinfo);
  if (cinfo->output_components != (cmyk ? 4 : 3) || cinfo->output_width == 0 || cinfo->output_height == 0) {
    cimg_set_message(out->message, "could not convert the JPEG to 8-bit RGB");
    return CIMG_ERR_UNSUPPORTED;
  }

  size_t width = cinfo->output_width, height = cinfo->output_height;
  size_t row_bytes = width * 3;
  context->pixels = malloc(row_bytes * height);
  if (cmyk) context->cmyk_row = malloc(width * 4);
  if (context->pixels == NULL || (cmyk && context->cmyk_row == NULL)) {
    cimg_set_message(out->message, "out of memory for the decoded pixels");
    return CIMG_ERR_OUT_OF_MEMORY;
  }
  while (cinfo->output_scanline < cinfo->output_height) {
    size_t y = cinfo->output_scanline;
    JSAMPROW row = cmyk ? context->cmyk_row : context->pixels + y * row_bytes;
    if (jpeg_read_scanlines(cinfo, &row, 1) != 1) {
      cimg_set_message(out->message, "the JPEG data ended early");
      return CIMG_ERR_TRUNCATED;
    }
    if (cmyk) cmyk_to_rgb(context->cmyk_row, context->pixels + y * row_bytes, width, cinfo->saw_Adobe_marker);
  }
  // Read up to the end-of-image marker, so that a file cut short after its last scan is reported.
  jpeg_finish_decompress(cinfo);
  out->width = (uint32_t)width;
  out->height = (uint32_t)height;
  return CIMG_OK;
}

cimg_status cimg_jpeg_decode(const uint8_t *data, size_t size, uint64_t max_pixels, cimg_image *out) {
  if (out == NULL) return CIMG_ERR_INVALID_DIMENSIONS;
  memset(out, 0, sizeof(*out));
  if (data == NULL || size == 0) {
    cimg_set_message(out->message, "no JPEG data");
    return CIMG_ERR_TRUNCATED;
  }

  jpeg_decode_context context;
  memset(&context, 0, sizeof(context));
  cimg_status status = decode(&context, data, size, max_pixels, out);
  if (context.created) jpeg_destroy_decompress(&context.cinfo);
  free(context.cmyk_row);
  if (status == CIMG_OK) {
    out->pixels = context.pixels;
    out->channels = 3;
  } else {
    free(context.pixels);
  }
  return status;
}
