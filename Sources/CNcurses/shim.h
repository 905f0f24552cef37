#ifndef NEWSSTAND_CNCURSES_SHIM_H
#define NEWSSTAND_CNCURSES_SHIM_H

#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <wchar.h>
#include <ncurses.h>

/* Function-like macros and C globals that Swift cannot import. */
static inline WINDOW *ncw_stdscr(void) { return stdscr; }
static inline int ncw_colors(void) { return COLORS; }
static inline int ncw_color_pairs(void) { return COLOR_PAIRS; }
static inline int ncw_lines(void) { return getmaxy(stdscr); }
static inline int ncw_cols(void) { return getmaxx(stdscr); }
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
static inline SCREEN *ncw_newterm_stdio(void) { return newterm(NULL, stdout, stdin); }
/* The same with another terminal type: a direct-colour sibling of $TERM. */
static inline SCREEN *ncw_newterm_type(const char *type) { return newterm(type, stdout, stdin); }
/* Whether the terminal's description has the RGB capability (24-bit direct colour). */
static inline int ncw_has_rgb(void) { return tigetflag("RGB") > 0; }
/* Whether the terminal can move its cursor to a place (cup): `dumb` and printing terminals cannot. */
static inline int ncw_can_address_cursor(void) {
    const char *cup = tigetstr("cup");
    return cup != NULL && cup != (const char *)-1;
}

/* Bytes written past curses, on the stream it writes to (so in order with it), flushed. */
static inline void ncw_write_raw(const void *bytes, size_t count) {
    fwrite(bytes, 1, count, stdout);
    fflush(stdout);
}
/* Where curses believes the cursor is on the screen: put back after writing pictures past it. */
static inline void ncw_screen_cursor(int *y, int *x) { getyx(curscr, *y, *x); }

#endif
