// Internal: a libjpeg error manager whose error_exit records a status and a message and longjmps
// (libjpeg's default calls exit()), and whose messages never reach stderr.
#ifndef HYBRIDAI_CIMAGECODECS_JPEG_ERRORS_H
#define HYBRIDAI_CIMAGECODECS_JPEG_ERRORS_H

#include "codec_support.h"

#include <setjmp.h>
#include <stdio.h>  // jpeglib.h needs size_t and FILE declared first

#include <jpeglib.h>

/// `pub` must stay first: libjpeg hands the handlers a pointer to it.
typedef struct {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  cimg_status status;
  char *message;
} cimg_jpeg_errors;

/// Fills `errors->pub` with libjpeg's defaults, then replaces error_exit, emit_message and
/// output_message. Returns `&errors->pub` for `cinfo.err`.
struct jpeg_error_mgr *cimg_jpeg_install_errors(cimg_jpeg_errors *errors, char *message);

/// Records `status` and `message` and longjmps to `errors->jump`. Never returns.
void cimg_jpeg_fail(j_common_ptr cinfo, cimg_status status, const char *message);

#endif
