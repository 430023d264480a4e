// Helpers shared by the PNG and JPEG codecs.
#include "codec_support.h"

#include <stdlib.h>
#include <string.h>

void cimg_set_message(char *destination, const char *text) {
  if (destination == NULL) return;
  if (text == NULL) text = "";
  size_t length = strlen(text);
  if (length >= CIMG_MESSAGE_CAPACITY) length = CIMG_MESSAGE_CAPACITY - 1;
  memcpy(destination, text, length);
  destination[length] = '\0';
}

void cimg_free(void *pointer) { free(pointer); }
