// PNG → 8-bit RGB with libpng, every failure contained (see CImageCodecs.h).
#include "png_errors.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/// Everything that changes while libpng runs lives here, in the caller's frame, so that it keeps
/// its value across the longjmp back into `decode` (whose own locals would be indeterminate).
typedef struct {
  cimg_png_errors errors;
  const uint8_t *data;
  size_t size;
  size_t offset;
  uint8_t *pixels;
  png_bytep *rows;
} png_decode_context;

static void read_bytes(png_structp png, png_bytep destination, size_t length) {
  png_decode_context *context = (png_decode_context *)png_get_io_ptr(png);
  if (length > context->size - context->offset) {
    context->errors.status = CIMG_ERR_TRUNCATED;
    png_error(png, "unexpected end of PNG data");
  }
  memcpy(destination, context->data + context->offset, length);
  context->offset += length;
}

static cimg_status decode(png_decode_context *context, png_structp png, png_infop info, uint64_t max_pixels,
                          cimg_image *out) {
  if (setjmp(png_jmpbuf(png))) return context->errors.status;

  png_set_read_fn(png, context, read_bytes);
  // libpng's own default limit is 1,000,000 × 1,000,000; the caller's pixel limit applies instead.
  png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
  png_read_info(png, info);

  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0;
  png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, NULL, NULL, NULL);
  out->width = width;
  out->height = height;
  if ((uint64_t)width * (uint64_t)height > max_pixels) {
    cimg_set_message(out->message, "declared size exceeds the pixel limit");
    return CIMG_ERR_TOO_LARGE;
  }

  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (bit_depth == 16) png_set_scale_16(png);
  if ((color_type & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, info, PNG_INFO_tRNS) != 0)
    png_set_strip_alpha(png);
  if ((color_type & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);

  if (png_get_channels(png, info) != 3 || png_get_bit_depth(png, info) != 8) {
    cimg_set_message(out->message, "could not convert the PNG to 8-bit RGB");
    return CIMG_ERR_UNSUPPORTED;
  }
  size_t row_bytes = png_get_rowbytes(png, info);
  if (row_bytes != (size_t)width * 3) {
    cimg_set_message(out->message, "unexpected row size after conversion to RGB");
    return CIMG_ERR_UNSUPPORTED;
  }

  context->pixels = malloc(row_bytes * (size_t)height);
  context->rows = malloc(sizeof(png_bytep) * (size_t)height);
  if (context->pixels == NULL || context->rows == NULL) {
    cimg_set_message(out->message, "out of memory for the decoded pixels");
    return CIMG_ERR_OUT_OF_MEMORY;
  }
  for (png_uint_32 y = 0; y < height; y++) context->rows[y] = context->pixels + (size_t)y * row_bytes;
  png_read_image(png, context->rows);
  // Read up to IEND, so that a file cut short after its pixel data is reported as truncated.
  png_read_end(png, NULL);
  return CIMG_OK;
}

cimg_status cimg_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, cimg_image *out) {
  if (out == NULL) return CIMG_ERR_INVALID_DIMENSIONS;
  memset(out, 0, sizeof(*out));
  if (data == NULL) size = 0;

  png_decode_context context;
  memset(&context, 0, sizeof(context));
  context.errors.status = CIMG_OK;
  context.errors.message = out->message;
  context.data = data;
  context.size = size;

  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context.errors, cimg_png_on_error,
                                           cimg_png_on_warning);
  if (png == NULL) {
    cimg_set_message(out->message, "libpng could not create a read structure");
    return CIMG_ERR_OUT_OF_MEMORY;
  }
  png_infop info = png_create_info_struct(png);
  if (info == NULL) {
    png_destroy_read_struct(&png, NULL, NULL);
    cimg_set_message(out->message, "libpng could not create an info structure");
    return CIMG_ERR_OUT_OF_MEMORY;
  }

  cimg_status status = decode(&context, png, info, max_pixels, out);
  png_destroy_read_struct(&png, &info, NULL);
  free(context.rows);
  if (status == CIMG_OK) {
    out->pixels = context.pixels;
    out->channels = 3;
  } else {
    free(context.pixels);
  }
  return status;
}
