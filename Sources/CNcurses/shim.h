#ifndef NEWSSTAND_CNCURSES_SHIM_H
#define NEWSSTAND_CNCURSES_SHIM_H

#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <dlfcn.h>
#include <locale.h>
#include <stdio.h>
#include <wchar.h>
#include <ncurses.h>

/* libncursesw is opened with dlopen when the shelf starts, not linked: it and libtinfo were
   loaded and relocated at the start of every command, before `main`, and only the shelf draws
   (see CChafa's shim). Every entry point and the four variables the shelf reads are looked up
   once into a cncurses_library; the ncw_ functions below call through it. tigetflag and
   tigetstr are libtinfo's, found through ncursesw's handle, which searches its dependencies. */

typedef struct cncurses_library {
    void *handle;
    __typeof__(set_escdelay) *fn_set_escdelay;
    __typeof__(newterm) *fn_newterm;
    __typeof__(endwin) *fn_endwin;
    __typeof__(cbreak) *fn_cbreak;
    __typeof__(noecho) *fn_noecho;
    __typeof__(nonl) *fn_nonl;
    __typeof__(intrflush) *fn_intrflush;
    __typeof__(keypad) *fn_keypad;
    __typeof__(curs_set) *fn_curs_set;
    __typeof__(mousemask) *fn_mousemask;
    __typeof__(mouseinterval) *fn_mouseinterval;
    __typeof__(has_colors) *fn_has_colors;
    __typeof__(start_color) *fn_start_color;
    __typeof__(use_default_colors) *fn_use_default_colors;
    __typeof__(tigetflag) *fn_tigetflag;
    __typeof__(tigetstr) *fn_tigetstr;
    __typeof__(ungetch) *fn_ungetch;
    __typeof__(key_defined) *fn_key_defined;
    __typeof__(define_key) *fn_define_key;
    __typeof__(werase) *fn_werase;
    __typeof__(clearok) *fn_clearok;
    __typeof__(wredrawln) *fn_wredrawln;
    __typeof__(wnoutrefresh) *fn_wnoutrefresh;
    __typeof__(doupdate) *fn_doupdate;
    __typeof__(setcchar) *fn_setcchar;
    __typeof__(mvadd_wch) *fn_mvadd_wch;
    __typeof__(init_extended_pair) *fn_init_extended_pair;
    __typeof__(resizeterm) *fn_resizeterm;
    __typeof__(wtimeout) *fn_wtimeout;
    __typeof__(wget_wch) *fn_wget_wch;
    __typeof__(unget_wch) *fn_unget_wch;
    __typeof__(getmouse) *fn_getmouse;
    __typeof__(def_prog_mode) *fn_def_prog_mode;
    __typeof__(reset_prog_mode) *fn_reset_prog_mode;
    WINDOW **var_stdscr;
    WINDOW **var_curscr;
    int *var_COLORS;
    int *var_COLOR_PAIRS;
} cncurses_library;

/* Opens `name` and looks up every entry point and variable; returns the name of the first one
   missing, "" when the library itself could not be opened (dlerror says why), or NULL when all
   were found. On failure the library is closed again. */
static inline const char *ncw_library_open(cncurses_library *library, const char *name) {
    library->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library->handle == NULL) return "";
#define NCW_FIND(field, symbol) \
    if ((*(void **)&library->field = dlsym(library->handle, symbol)) == NULL) { dlclose(library->handle); library->handle = NULL; return symbol; }
    NCW_FIND(fn_set_escdelay, "set_escdelay")
    NCW_FIND(fn_newterm, "newterm")
    NCW_FIND(fn_endwin, "endwin")
    NCW_FIND(fn_cbreak, "cbreak")
    NCW_FIND(fn_noecho, "noecho")
    NCW_FIND(fn_nonl, "nonl")
    NCW_FIND(fn_intrflush, "intrflush")
    NCW_FIND(fn_keypad, "keypad")
    NCW_FIND(fn_curs_set, "curs_set")
    NCW_FIND(fn_mousemask, "mousemask")
    NCW_FIND(fn_mouseinterval, "mouseinterval")
    NCW_FIND(fn_has_colors, "has_colors")
    NCW_FIND(fn_start_color, "start_color")
    NCW_FIND(fn_use_default_colors, "use_default_colors")
    NCW_FIND(fn_tigetflag, "tigetflag")
    NCW_FIND(fn_tigetstr, "tigetstr")
    NCW_FIND(fn_ungetch, "ungetch")
    NCW_FIND(fn_key_defined, "key_defined")
    NCW_FIND(fn_define_key, "define_key")
    NCW_FIND(fn_werase, "werase")
    NCW_FIND(fn_clearok, "clearok")
    NCW_FIND(fn_wredrawln, "wredrawln")
    NCW_FIND(fn_wnoutrefresh, "wnoutrefresh")
    NCW_FIND(fn_doupdate, "doupdate")
    NCW_FIND(fn_setcchar, "setcchar")
    NCW_FIND(fn_mvadd_wch, "mvadd_wch")
    NCW_FIND(fn_init_extended_pair, "init_extended_pair")
    NCW_FIND(fn_resizeterm, "resizeterm")
    NCW_FIND(fn_wtimeout, "wtimeout")
    NCW_FIND(fn_wget_wch, "wget_wch")
    NCW_FIND(fn_unget_wch, "unget_wch")
    NCW_FIND(fn_getmouse, "getmouse")
    NCW_FIND(fn_def_prog_mode, "def_prog_mode")
    NCW_FIND(fn_reset_prog_mode, "reset_prog_mode")
    NCW_FIND(var_stdscr, "stdscr")
    NCW_FIND(var_curscr, "curscr")
    NCW_FIND(var_COLORS, "COLORS")
    NCW_FIND(var_COLOR_PAIRS, "COLOR_PAIRS")
#undef NCW_FIND
    return NULL;
}

typedef const cncurses_library *ncw_lib;

static inline int ncw_set_escdelay(ncw_lib curses, int delay) { return curses->fn_set_escdelay(delay); }
static inline int ncw_endwin(ncw_lib curses) { return curses->fn_endwin(); }
static inline int ncw_cbreak(ncw_lib curses) { return curses->fn_cbreak(); }
static inline int ncw_noecho(ncw_lib curses) { return curses->fn_noecho(); }
static inline int ncw_nonl(ncw_lib curses) { return curses->fn_nonl(); }
static inline int ncw_intrflush(ncw_lib curses, WINDOW *window, bool flag) { return curses->fn_intrflush(window, flag); }
static inline int ncw_keypad(ncw_lib curses, WINDOW *window, bool flag) { return curses->fn_keypad(window, flag); }
static inline int ncw_curs_set(ncw_lib curses, int visibility) { return curses->fn_curs_set(visibility); }
static inline mmask_t ncw_mousemask(ncw_lib curses, mmask_t mask, mmask_t *old) { return curses->fn_mousemask(mask, old); }
static inline int ncw_mouseinterval(ncw_lib curses, int interval) { return curses->fn_mouseinterval(interval); }
static inline bool ncw_has_colors(ncw_lib curses) { return curses->fn_has_colors(); }
static inline int ncw_start_color(ncw_lib curses) { return curses->fn_start_color(); }
static inline int ncw_use_default_colors(ncw_lib curses) { return curses->fn_use_default_colors(); }
static inline int ncw_ungetch(ncw_lib curses, int character) { return curses->fn_ungetch(character); }
static inline int ncw_key_defined(ncw_lib curses, const char *sequence) { return curses->fn_key_defined(sequence); }
static inline int ncw_define_key(ncw_lib curses, const char *sequence, int code) { return curses->fn_define_key(sequence, code); }
static inline int ncw_werase(ncw_lib curses, WINDOW *window) { return curses->fn_werase(window); }
static inline int ncw_clearok(ncw_lib curses, WINDOW *window, bool flag) { return curses->fn_clearok(window, flag); }
static inline int ncw_wredrawln(ncw_lib curses, WINDOW *window, int line, int count) { return curses->fn_wredrawln(window, line, count); }
static inline int ncw_wnoutrefresh(ncw_lib curses, WINDOW *window) { return curses->fn_wnoutrefresh(window); }
static inline int ncw_doupdate(ncw_lib curses) { return curses->fn_doupdate(); }
static inline int ncw_setcchar(ncw_lib curses, cchar_t *character, const wchar_t *text, const attr_t attributes, NCURSES_PAIRS_T pair,
                               const void *options) {
    return curses->fn_setcchar(character, text, attributes, pair, options);
}
static inline int ncw_mvadd_wch(ncw_lib curses, int y, int x, const cchar_t *character) { return curses->fn_mvadd_wch(y, x, character); }
static inline int ncw_init_extended_pair(ncw_lib curses, int pair, int foreground, int background) {
    return curses->fn_init_extended_pair(pair, foreground, background);
}
static inline int ncw_resizeterm(ncw_lib curses, int lines, int columns) { return curses->fn_resizeterm(lines, columns); }
static inline void ncw_wtimeout(ncw_lib curses, WINDOW *window, int delay) { curses->fn_wtimeout(window, delay); }
static inline int ncw_wget_wch(ncw_lib curses, WINDOW *window, wint_t *character) { return curses->fn_wget_wch(window, character); }
static inline int ncw_unget_wch(ncw_lib curses, const wchar_t character) { return curses->fn_unget_wch(character); }
static inline int ncw_getmouse(ncw_lib curses, MEVENT *event) { return curses->fn_getmouse(event); }
static inline int ncw_def_prog_mode(ncw_lib curses) { return curses->fn_def_prog_mode(); }
static inline int ncw_reset_prog_mode(ncw_lib curses) { return curses->fn_reset_prog_mode(); }

/* Function-like macros and C globals that Swift cannot import. */
static inline WINDOW *ncw_stdscr(ncw_lib curses) { return *curses->var_stdscr; }
static inline int ncw_colors(ncw_lib curses) { return *curses->var_COLORS; }
static inline int ncw_color_pairs(ncw_lib curses) { return *curses->var_COLOR_PAIRS; }
static inline int ncw_lines(ncw_lib curses) { return getmaxy(*curses->var_stdscr); }
static inline int ncw_cols(ncw_lib curses) { return getmaxx(*curses->var_stdscr); }
static inline attr_t ncw_a_normal(void) { return A_NORMAL; }
static inline attr_t ncw_a_bold(void) { return A_BOLD; }
static inline attr_t ncw_a_reverse(void) { return A_REVERSE; }
static inline attr_t ncw_a_underline(void) { return A_UNDERLINE; }
static inline attr_t ncw_a_dim(void) { return A_DIM; }
static inline mmask_t ncw_all_mouse_events(void) { return ALL_MOUSE_EVENTS | REPORT_MOUSE_POSITION; }
static inline mmask_t ncw_button1_clicked(void) { return BUTTON1_CLICKED; }
static inline mmask_t ncw_button1_double_clicked(void) { return BUTTON1_DOUBLE_CLICKED; }
static inline mmask_t ncw_button1_pressed(void) { return BUTTON1_PRESSED; }
static inline mmask_t ncw_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t ncw_button5_pressed(void) { return BUTTON5_PRESSED; }
/* newterm on the standard streams: NULL for a terminal type terminfo does not know, where
   initscr would print ncurses' own words and exit. */
static inline SCREEN *ncw_newterm_stdio(ncw_lib curses) { return curses->fn_newterm(NULL, stdout, stdin); }
/* The same with another terminal type: a direct-colour sibling of $TERM. */
static inline SCREEN *ncw_newterm_type(ncw_lib curses, const char *type) { return curses->fn_newterm(type, stdout, stdin); }
/* Whether the terminal's description has the RGB capability (24-bit direct colour). */
static inline int ncw_has_rgb(ncw_lib curses) { return curses->fn_tigetflag("RGB") > 0; }
/* Whether the terminal can move its cursor to a place (cup): `dumb` and printing terminals cannot. */
static inline int ncw_can_address_cursor(ncw_lib curses) {
    const char *cup = curses->fn_tigetstr("cup");
    return cup != NULL && cup != (const char *)-1;
}

/* Bytes written past curses, on the stream it writes to (so in order with it), flushed. */
static inline void ncw_write_raw(const void *bytes, size_t count) {
    fwrite(bytes, 1, count, stdout);
    fflush(stdout);
}
/* Where curses believes the cursor is on the screen: put back after writing pictures past it. */
static inline void ncw_screen_cursor(ncw_lib curses, int *y, int *x) { getyx(*curses->var_curscr, *y, *x); }

#endif
