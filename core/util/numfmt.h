/* Numbers as text the way printf's "%.10g" writes them, character for character, at a tenth
 * of its cost: the FRAME's JSON and the text exports print about a thousand numbers a frame,
 * and glibc's exact decimal conversion made that 0.4 ms, the most of a GET .../frame. */
#ifndef ROD_NUMFMT_H
#define ROD_NUMFMT_H

#include <stddef.h>

/* Writes v as snprintf(buf, 32, "%.10g", v) would (buf holds at least 32 bytes) and returns
 * the length. Non-finite values come out as printf writes them ("nan", "inf", "-inf"). */
size_t num_g10(char *buf, double v);

#endif
