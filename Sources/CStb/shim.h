#ifndef NEWSSTAND_CSTB_SHIM_H
#define NEWSSTAND_CSTB_SHIM_H

#include <dlfcn.h>
#include <stb/stb_image.h>

/* libstb is opened with dlopen the first time a cover is decoded, not linked (see CChafa's shim:
   a command that draws no cover should not load it at its start). */

typedef struct cstb_library {
    void *handle;
    __typeof__(stbi_info_from_memory) *info_from_memory;
    __typeof__(stbi_load_from_memory) *load_from_memory;
    __typeof__(stbi_image_free) *image_free;
} cstb_library;

/* Opens `name` and looks up every entry point; returns the name of the first one missing, "" when
   the library itself could not be opened (dlerror says why), or NULL when all were found. */
static inline const char *cstb_library_open(cstb_library *library, const char *name) {
    library->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library->handle == NULL) return "";
#define CSTB_FIND(field, symbol) \
    if ((*(void **)&library->field = dlsym(library->handle, symbol)) == NULL) { dlclose(library->handle); library->handle = NULL; return symbol; }
    CSTB_FIND(info_from_memory, "stbi_info_from_memory")
    CSTB_FIND(load_from_memory, "stbi_load_from_memory")
    CSTB_FIND(image_free, "stbi_image_free")
#undef CSTB_FIND
    return NULL;
}

/* The size and channels of PNG or JPEG bytes, without decoding them; 1 when they could be read. */
static inline int cstb_info(const cstb_library *stb, const unsigned char *bytes, int length, int *width, int *height, int *channels) {
    return stb->info_from_memory(bytes, length, width, height, channels);
}

/* Decodes PNG or JPEG bytes into 8-bit RGB; the caller frees the result with cstb_free. */
static inline unsigned char *cstb_decode_rgb(const cstb_library *stb, const unsigned char *bytes, int length, int *width, int *height) {
    int channels = 0;
    return stb->load_from_memory(bytes, length, width, height, &channels, 3);
}

static inline void cstb_free(const cstb_library *stb, void *pixels) { stb->image_free(pixels); }

#endif
