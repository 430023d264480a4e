// 8-bit gray / RGB / CMYK → baseline or progressive JPEG with libjpeg-turbo, every failure contained.
#include "jpeg_errors.h"

#include <stdlib.h>
#include <string.h>

/// State that libjpeg changes, kept in the caller's frame (see jpeg_decode.c). `bytes` is the
/// memory destination's buffer, which libjpeg-turbo allocates and grows with malloc.
typedef struct {
  cimg_jpeg_errors errors;
  struct jpeg_compress_struct cinfo;
  int created;
  unsigned char *bytes;
  unsigned long size;
} jpeg_encode_context;

static cimg_status encode(jpeg_encode_context *context, const uint8_t *pixels, uint32_t width, uint32_t height,
                          uint32_t components, int quality, int progressive, cimg_buffer *out) {
  if (setjmp(context->errors.jump)) return context->errors.status;

  j_compress_ptr cinfo = &context->cinfo;
  cinfo->err = cimg_jpeg_install_errors(&context->errors, out->message);
  context->created = 1;
  jpeg_create_compress(cinfo);
  jpeg_mem_dest(cinfo, &context->bytes, &context->size);
  cinfo->image_width = width;
  cinfo->image_height = height;
  cinfo->input_components = (int)components;
  cinfo->in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_CMYK;
  jpeg_set_defaults(cinfo);
  jpeg_set_quality(cinfo, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
  if (progressive) jpeg_simple_progression(cinfo);
  jpeg_start_compress(cinfo, TRUE);
  size_t row_bytes = (size_t)width * components;
  while (cinfo->next_scanline < cinfo->image_height) {
    JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo->next_scanline * row_bytes);
    jpeg_write_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_compress(cinfo);
  return CIMG_OK;
}

cimg_status cimg_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t components,
                             int quality, int progressive, cimg_buffer *out) {
  if (out == NULL) return CIMG_ERR_INVALID_DIMENSIONS;
  memset(out, 0, sizeof(*out));
  if (pixels == NULL || width == 0 || height == 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION ||
      (components != 1 && components != 3 && components != 4)) {
    cimg_set_message(out->message, "a JPEG needs a width and height of 1…65500 and 1, 3 or 4 components");
    return CIMG_ERR_INVALID_DIMENSIONS;
  }

  jpeg_encode_context context;
  memset(&context, 0, sizeof(context));
  cimg_status status = encode(&context, pixels, width, height, components, quality, progressive, out);
  if (context.created) jpeg_destroy_compress(&context.cinfo);
  if (status == CIMG_OK) {
    out->bytes = context.bytes;
    out->size = context.size;
  } else {
    free(context.bytes);
  }
  return status;
}
