// Internal helpers shared by the codecs in CImageCodecs (not part of the public header).
#ifndef HYBRIDAI_CIMAGECODECS_SUPPORT_H
#define HYBRIDAI_CIMAGECODECS_SUPPORT_H

#include "CImageCodecs.h"

/// Copies `text` into a CIMG_MESSAGE_CAPACITY-byte buffer, truncating and NUL-terminating.
void cimg_set_message(char *destination, const char *text);

#endif
