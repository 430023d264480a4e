// libpng error handling for CImageCodecs: errors become a status and a message, warnings vanish.
#include "png_errors.h"

void cimg_png_on_error(png_structp png, png_const_charp message) {
  cimg_png_errors *errors = (cimg_png_errors *)png_get_error_ptr(png);
  if (errors != NULL) {
    if (errors->status == CIMG_OK) errors->status = CIMG_ERR_CORRUPT;
    cimg_set_message(errors->message, message);
  }
  png_longjmp(png, 1);
}

void cimg_png_on_warning(png_structp png, png_const_charp message) {
  (void)png;
  (void)message;
}

const char *cimg_png_version(void) { return png_get_libpng_ver(NULL); }
