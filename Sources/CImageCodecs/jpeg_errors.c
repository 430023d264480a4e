// libjpeg error handling for CImageCodecs: errors and a premature end of data become a status and
// a message; other warnings are counted (num_warnings) and never printed.
#include "jpeg_errors.h"

#include <jerror.h>

#define CIMG_STRINGIFY_VALUE(x) #x
#define CIMG_STRINGIFY(x) CIMG_STRINGIFY_VALUE(x)

void cimg_jpeg_fail(j_common_ptr cinfo, cimg_status status, const char *message) {
  cimg_jpeg_errors *errors = (cimg_jpeg_errors *)cinfo->err;
  errors->status = status;
  cimg_set_message(errors->message, message);
  longjmp(errors->jump, 1);
}

static void fail_with_library_message(j_common_ptr cinfo, cimg_status status) {
  char text[JMSG_LENGTH_MAX];
  text[0] = '\0';
  (*cinfo->err->format_message)(cinfo, text);
  cimg_jpeg_fail(cinfo, status, text);
}

static void on_error_exit(j_common_ptr cinfo) {
  cimg_status status;
  switch (cinfo->err->msg_code) {
    case JERR_OUT_OF_MEMORY: status = CIMG_ERR_OUT_OF_MEMORY; break;
    case JERR_INPUT_EMPTY:
    case JERR_INPUT_EOF: status = CIMG_ERR_TRUNCATED; break;
    case JERR_CONVERSION_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_BAD_J_COLORSPACE: status = CIMG_ERR_UNSUPPORTED; break;
    default: status = CIMG_ERR_CORRUPT; break;
  }
  fail_with_library_message(cinfo, status);
}

static void on_emit_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;  // trace messages
  // The memory source inserts a fake end-of-image marker when the data runs out and only warns;
  // a truncated file is an error here, as in libjpeg-turbo's TJFLAG_STOPONWARNING mode for this case.
  if (cinfo->err->msg_code == JWRN_JPEG_EOF) fail_with_library_message(cinfo, CIMG_ERR_TRUNCATED);
  cinfo->err->num_warnings++;
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

struct jpeg_error_mgr *cimg_jpeg_install_errors(cimg_jpeg_errors *errors, char *message) {
  struct jpeg_error_mgr *manager = jpeg_std_error(&errors->pub);
  manager->error_exit = on_error_exit;
  manager->emit_message = on_emit_message;
  manager->output_message = on_output_message;
  errors->status = CIMG_OK;
  errors->message = message;
  return manager;
}

const char *cimg_jpeg_version(void) {
  return CIMG_STRINGIFY(LIBJPEG_TURBO_VERSION) " (libjpeg API " CIMG_STRINGIFY(JPEG_LIB_VERSION) ")";
}
