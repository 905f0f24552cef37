#ifndef NEWSSTAND_CCHAFA_SHIM_H
#define NEWSSTAND_CCHAFA_SHIM_H

#include <chafa.h>
#include <dlfcn.h>

/* libchafa is opened with dlopen the first time a cover is drawn, not linked: it, GLib and
   PCRE2 were loaded and relocated at the start of every command, before `main`, and a refresh
   or a list never draws a cover (a C program that links them starts 1.3 ms later, and its
   dlopen of libcurl searches them too).

   Every entry point is looked up once into a cchafa_library; the wrappers below call through
   it. GLib's g_string_free is found through chafa's handle, which searches its dependencies. */

typedef struct cchafa_library {
    void *handle;
    __typeof__(chafa_symbol_map_new) *symbol_map_new;
    __typeof__(chafa_symbol_map_add_by_tags) *symbol_map_add_by_tags;
    __typeof__(chafa_symbol_map_unref) *symbol_map_unref;
    __typeof__(chafa_canvas_config_new) *canvas_config_new;
    __typeof__(chafa_canvas_config_unref) *canvas_config_unref;
    __typeof__(chafa_canvas_config_set_geometry) *canvas_config_set_geometry;
    __typeof__(chafa_canvas_config_set_cell_geometry) *canvas_config_set_cell_geometry;
    __typeof__(chafa_canvas_config_set_canvas_mode) *canvas_config_set_canvas_mode;
    __typeof__(chafa_canvas_config_set_color_space) *canvas_config_set_color_space;
    __typeof__(chafa_canvas_config_set_dither_mode) *canvas_config_set_dither_mode;
    __typeof__(chafa_canvas_config_set_pixel_mode) *canvas_config_set_pixel_mode;
    __typeof__(chafa_canvas_config_set_symbol_map) *canvas_config_set_symbol_map;
    __typeof__(chafa_canvas_config_set_work_factor) *canvas_config_set_work_factor;
    __typeof__(chafa_canvas_new) *canvas_new;
    __typeof__(chafa_canvas_unref) *canvas_unref;
    __typeof__(chafa_canvas_draw_all_pixels) *canvas_draw_all_pixels;
    __typeof__(chafa_canvas_get_char_at) *canvas_get_char_at;
    __typeof__(chafa_canvas_get_colors_at) *canvas_get_colors_at;
    __typeof__(chafa_canvas_get_raw_colors_at) *canvas_get_raw_colors_at;
    __typeof__(chafa_canvas_print) *canvas_print;
    __typeof__(chafa_term_db_get_default) *term_db_get_default;
    __typeof__(chafa_term_db_detect) *term_db_detect;
    __typeof__(chafa_term_info_unref) *term_info_unref;
    __typeof__(g_string_free) *string_free;
} cchafa_library;

/* Opens `name` and looks up every entry point; returns the name of the first one missing, "" when
   the library itself could not be opened (dlerror says why), or NULL when all were found. On
   failure the library is closed again. */
static inline const char *cchafa_library_open(cchafa_library *library, const char *name) {
    library->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library->handle == NULL) return "";
#define CCHAFA_FIND(field, symbol) \
    if ((*(void **)&library->field = dlsym(library->handle, symbol)) == NULL) { dlclose(library->handle); library->handle = NULL; return symbol; }
    CCHAFA_FIND(symbol_map_new, "chafa_symbol_map_new")
    CCHAFA_FIND(symbol_map_add_by_tags, "chafa_symbol_map_add_by_tags")
    CCHAFA_FIND(symbol_map_unref, "chafa_symbol_map_unref")
    CCHAFA_FIND(canvas_config_new, "chafa_canvas_config_new")
    CCHAFA_FIND(canvas_config_unref, "chafa_canvas_config_unref")
    CCHAFA_FIND(canvas_config_set_geometry, "chafa_canvas_config_set_geometry")
    CCHAFA_FIND(canvas_config_set_cell_geometry, "chafa_canvas_config_set_cell_geometry")
    CCHAFA_FIND(canvas_config_set_canvas_mode, "chafa_canvas_config_set_canvas_mode")
    CCHAFA_FIND(canvas_config_set_color_space, "chafa_canvas_config_set_color_space")
    CCHAFA_FIND(canvas_config_set_dither_mode, "chafa_canvas_config_set_dither_mode")
    CCHAFA_FIND(canvas_config_set_pixel_mode, "chafa_canvas_config_set_pixel_mode")
    CCHAFA_FIND(canvas_config_set_symbol_map, "chafa_canvas_config_set_symbol_map")
    CCHAFA_FIND(canvas_config_set_work_factor, "chafa_canvas_config_set_work_factor")
    CCHAFA_FIND(canvas_new, "chafa_canvas_new")
    CCHAFA_FIND(canvas_unref, "chafa_canvas_unref")
    CCHAFA_FIND(canvas_draw_all_pixels, "chafa_canvas_draw_all_pixels")
    CCHAFA_FIND(canvas_get_char_at, "chafa_canvas_get_char_at")
    CCHAFA_FIND(canvas_get_colors_at, "chafa_canvas_get_colors_at")
    CCHAFA_FIND(canvas_get_raw_colors_at, "chafa_canvas_get_raw_colors_at")
    CCHAFA_FIND(canvas_print, "chafa_canvas_print")
    CCHAFA_FIND(term_db_get_default, "chafa_term_db_get_default")
    CCHAFA_FIND(term_db_detect, "chafa_term_db_detect")
    CCHAFA_FIND(term_info_unref, "chafa_term_info_unref")
    CCHAFA_FIND(string_free, "g_string_free")
#undef CCHAFA_FIND
    return NULL;
}

/* The symbols a cover is drawn with: blank and solid cells, halves, quadrants and sextants; chafa
   picks one per cell with the two colours that fit its pixels best. An enum of flags that Swift
   imports as a struct, so the combination is made here. */
static inline ChafaSymbolTags cchafa_cover_symbols(void) {
    return (ChafaSymbolTags)(CHAFA_SYMBOL_TAG_SPACE | CHAFA_SYMBOL_TAG_SOLID | CHAFA_SYMBOL_TAG_HALF
                             | CHAFA_SYMBOL_TAG_QUAD | CHAFA_SYMBOL_TAG_SEXTANT);
}

static inline ChafaSymbolMap *cchafa_symbol_map_new(const cchafa_library *chafa) { return chafa->symbol_map_new(); }
static inline void cchafa_symbol_map_add_by_tags(const cchafa_library *chafa, ChafaSymbolMap *map, ChafaSymbolTags tags) {
    chafa->symbol_map_add_by_tags(map, tags);
}
static inline void cchafa_symbol_map_unref(const cchafa_library *chafa, ChafaSymbolMap *map) { chafa->symbol_map_unref(map); }
static inline ChafaCanvasConfig *cchafa_canvas_config_new(const cchafa_library *chafa) { return chafa->canvas_config_new(); }
static inline void cchafa_canvas_config_unref(const cchafa_library *chafa, ChafaCanvasConfig *config) { chafa->canvas_config_unref(config); }
static inline void cchafa_canvas_config_set_geometry(const cchafa_library *chafa, ChafaCanvasConfig *config, gint width, gint height) {
    chafa->canvas_config_set_geometry(config, width, height);
}
static inline void cchafa_canvas_config_set_cell_geometry(const cchafa_library *chafa, ChafaCanvasConfig *config, gint width, gint height) {
    chafa->canvas_config_set_cell_geometry(config, width, height);
}
static inline void cchafa_canvas_config_set_canvas_mode(const cchafa_library *chafa, ChafaCanvasConfig *config, ChafaCanvasMode mode) {
    chafa->canvas_config_set_canvas_mode(config, mode);
}
static inline void cchafa_canvas_config_set_color_space(const cchafa_library *chafa, ChafaCanvasConfig *config, ChafaColorSpace space) {
    chafa->canvas_config_set_color_space(config, space);
}
static inline void cchafa_canvas_config_set_dither_mode(const cchafa_library *chafa, ChafaCanvasConfig *config, ChafaDitherMode mode) {
    chafa->canvas_config_set_dither_mode(config, mode);
}
static inline void cchafa_canvas_config_set_pixel_mode(const cchafa_library *chafa, ChafaCanvasConfig *config, ChafaPixelMode mode) {
    chafa->canvas_config_set_pixel_mode(config, mode);
}
static inline void cchafa_canvas_config_set_symbol_map(const cchafa_library *chafa, ChafaCanvasConfig *config, const ChafaSymbolMap *map) {
    chafa->canvas_config_set_symbol_map(config, map);
}
static inline void cchafa_canvas_config_set_work_factor(const cchafa_library *chafa, ChafaCanvasConfig *config, gfloat factor) {
    chafa->canvas_config_set_work_factor(config, factor);
}
static inline ChafaCanvas *cchafa_canvas_new(const cchafa_library *chafa, const ChafaCanvasConfig *config) { return chafa->canvas_new(config); }
static inline void cchafa_canvas_unref(const cchafa_library *chafa, ChafaCanvas *canvas) { chafa->canvas_unref(canvas); }
static inline void cchafa_canvas_draw_all_pixels(const cchafa_library *chafa, ChafaCanvas *canvas, ChafaPixelType type,
                                                 const guint8 *pixels, gint width, gint height, gint rowstride) {
    chafa->canvas_draw_all_pixels(canvas, type, pixels, width, height, rowstride);
}
static inline gunichar cchafa_canvas_get_char_at(const cchafa_library *chafa, ChafaCanvas *canvas, gint x, gint y) {
    return chafa->canvas_get_char_at(canvas, x, y);
}
static inline void cchafa_canvas_get_colors_at(const cchafa_library *chafa, ChafaCanvas *canvas, gint x, gint y, gint *fg, gint *bg) {
    chafa->canvas_get_colors_at(canvas, x, y, fg, bg);
}
static inline void cchafa_canvas_get_raw_colors_at(const cchafa_library *chafa, ChafaCanvas *canvas, gint x, gint y, gint *fg, gint *bg) {
    chafa->canvas_get_raw_colors_at(canvas, x, y, fg, bg);
}
static inline GString *cchafa_canvas_print(const cchafa_library *chafa, ChafaCanvas *canvas, ChafaTermInfo *info) {
    return chafa->canvas_print(canvas, info);
}
static inline ChafaTermDb *cchafa_term_db_get_default(const cchafa_library *chafa) { return chafa->term_db_get_default(); }
static inline ChafaTermInfo *cchafa_term_db_detect(const cchafa_library *chafa, ChafaTermDb *db, gchar **envp) {
    return chafa->term_db_detect(db, envp);
}
static inline void cchafa_term_info_unref(const cchafa_library *chafa, ChafaTermInfo *info) { chafa->term_info_unref(info); }
static inline void cchafa_string_free(const cchafa_library *chafa, GString *string) { chafa->string_free(string, TRUE); }

#endif
