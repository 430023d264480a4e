// 8-bit gray / RGB / RGBA → PNG with libpng, every failure contained (see CImageCodecs.h).
#include "png_errors.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/// State that libpng's callbacks change, kept in the caller's frame (see png_decode.c).
typedef struct {
  cimg_png_errors errors;
  uint8_t *bytes;
  size_t size;
  size_t capacity;
  png_bytep *rows;
} png_encode_context;

static void write_bytes(png_structp png, png_bytep source, size_t length) {
  png_encode_context *context = (png_encode_context *)png_get_io_ptr(png);
  if (length > context->capacity - context->size) {
    size_t capacity = context->capacity == 0 ? 4096 : context->capacity;
    while (length > capacity - context->size) {
      if (capacity > SIZE_MAX / 2) {
        context->errors.status = CIMG_ERR_OUT_OF_MEMORY;
        png_error(png, "encoded PNG too large");
      }
      capacity *= 2;
    }
    uint8_t *bytes = realloc(context->bytes, capacity);
    if (bytes == NULL) {
      context->errors.status = CIMG_ERR_OUT_OF_MEMORY;
      png_error(png, "out of memory for the encoded PNG");
    }
    context->bytes = bytes;
    context->capacity = capacity;
  }
  memcpy(context->bytes + context->size, source, length);
  context->size += length;
}

static void flush_bytes(png_structp png) { (void)png; }

static cimg_status encode(png_encode_context *context, png_structp png, png_infop info, const uint8_t *pixels,
                          uint32_t width, uint32_t height, uint32_t channels) {
  if (setjmp(png_jmpbuf(png))) return context->errors.status;

  png_set_write_fn(png, context, write_bytes, flush_bytes);
  int color_type = channels == 1 ? PNG_COLOR_TYPE_GRAY
                   : channels == 3 ? PNG_COLOR_TYPE_RGB
                                   : PNG_COLOR_TYPE_RGB_ALPHA;
  png_set_IHDR(png, info, width, height, 8, color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);

  size_t row_bytes = (size_t)width * channels;
  context->rows = malloc(sizeof(png_bytep) * (size_t)height);
  if (context->rows == NULL) {
    context->errors.status = CIMG_ERR_OUT_OF_MEMORY;
    png_error(png, "out of memory for the row table");
  }
  for (uint32_t y = 0; y < height; y++) context->rows[y] = (png_bytep)(pixels + (size_t)y * row_bytes);
  png_write_image(png, context->rows);
  png_write_end(png, NULL);
  return CIMG_OK;
}

cimg_status cimg_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels,
                            cimg_buffer *out) {
  if (out == NULL) return CIMG_ERR_INVALID_DIMENSIONS;
  memset(out, 0, sizeof(*out));
  if (pixels == NULL || width == 0 || height == 0 || width > PNG_UINT_31_MAX || height > PNG_UINT_31_MAX ||
      (channels != 1 && channels != 3 && channels != 4)) {
    cimg_set_message(out->message, "a PNG needs a width and height of 1…2^31-1 and 1, 3 or 4 channels");
    return CIMG_ERR_INVALID_DIMENSIONS;
  }

  png_encode_context context;
  memset(&context, 0, sizeof(context));
  context.errors.status = CIMG_OK;
  context.errors.message = out->message;

  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context.errors, cimg_png_on_error,
                                            cimg_png_on_warning);
  if (png == NULL) {
    cimg_set_message(out->message, "libpng could not create a write structure");
    return CIMG_ERR_OUT_OF_MEMORY;
  }
  png_infop info = png_create_info_struct(png);
  if (info == NULL) {
    png_destroy_write_struct(&png, NULL);
    cimg_set_message(out->message, "libpng could not create an info structure");
    return CIMG_ERR_OUT_OF_MEMORY;
  }

  cimg_status status = encode(&context, png, info, pixels, width, height, channels);
  png_destroy_write_struct(&png, &info);
  free(context.rows);
  if (status == CIMG_OK) {
    out->bytes = context.bytes;
    out->size = context.size;
  } else {
    free(context.bytes);
  }
  return status;
}
