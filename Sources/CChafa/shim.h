#ifndef NEWSSTAND_CCHAFA_SHIM_H
#define NEWSSTAND_CCHAFA_SHIM_H

#include <chafa.h>

/* The symbols a cover is drawn with: blank and solid cells, halves, quadrants and sextants; chafa
   picks one per cell with the two colours that fit its pixels best. An enum of flags that Swift
   imports as a struct, so the combination is made here. */
static inline ChafaSymbolTags cchafa_cover_symbols(void) {
    return (ChafaSymbolTags)(CHAFA_SYMBOL_TAG_SPACE | CHAFA_SYMBOL_TAG_SOLID | CHAFA_SYMBOL_TAG_HALF
                             | CHAFA_SYMBOL_TAG_QUAD | CHAFA_SYMBOL_TAG_SEXTANT);
}

#endif
