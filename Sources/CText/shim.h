#ifndef NEWSSTAND_CTEXT_SHIM_H
#define NEWSSTAND_CTEXT_SHIM_H

/* wcwidth, which Swift's Glibc module leaves out (it needs _XOPEN_SOURCE), measured in glibc's
   built-in C.UTF-8 locale whatever the process's locale: every UTF-8 locale has the same widths,
   and they are the ones ncurses places characters by. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <locale.h>
#include <wchar.h>

/* The locale, made once; a lost race frees its copy. Function-local, so that Swift's importer
   emits it with the function. */
static inline locale_t ctext_utf8_locale(void) {
    static locale_t cached;
    locale_t current = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (current != (locale_t)0) return current;
    locale_t made = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (made == (locale_t)0) return made;
    locale_t expected = (locale_t)0;
    if (__atomic_compare_exchange_n(&cached, &expected, made, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return made;
    freelocale(made);
    return expected;
}

/* The columns of one character, -1 when it is not printable, -2 without a C.UTF-8 locale. */
static inline int ctext_wcwidth(unsigned int character) {
    locale_t locale = ctext_utf8_locale();
    if (locale == (locale_t)0) return -2;
    locale_t previous = uselocale(locale);
    int width = wcwidth((wchar_t)character);
    uselocale(previous);
    return width;
}

#endif
