// Internal: libpng error and warning handlers that record a status and a message instead of
// printing, and leave by png_longjmp to the setjmp of the function that called libpng.
#ifndef HYBRIDAI_CIMAGECODECS_PNG_ERRORS_H
#define HYBRIDAI_CIMAGECODECS_PNG_ERRORS_H

#include "codec_support.h"

#include <png.h>

/// The error pointer given to png_create_*_struct. `status` starts as CIMG_OK; code that calls
/// png_error for a reason of its own (truncated input, out of memory) sets it first.
typedef struct {
  cimg_status status;
  char *message;
} cimg_png_errors;

/// Records `message` (and CIMG_ERR_CORRUPT unless a status was set) and longjmps. Never returns.
PNG_NORETURN void cimg_png_on_error(png_structp png, png_const_charp message);

/// Swallows a libpng warning: nothing reaches stderr.
void cimg_png_on_warning(png_structp png, png_const_charp message);

#endif
