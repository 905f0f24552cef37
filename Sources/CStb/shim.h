#ifndef NEWSSTAND_CSTB_SHIM_H
#define NEWSSTAND_CSTB_SHIM_H

#include <stb/stb_image.h>

/* Decodes PNG or JPEG bytes into 8-bit RGB; the caller frees the result with stbi_image_free. */
static inline unsigned char *cstb_decode_rgb(const unsigned char *bytes, int length, int *width, int *height) {
    int channels = 0;
    return stbi_load_from_memory(bytes, length, width, height, &channels, 3);
}

#endif
