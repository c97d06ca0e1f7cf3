/* Numbers as text the way printf's "%.10g" writes them, character for character, at a tenth
 * of its cost: the FRAME's JSON and the text exports print about a thousand numbers a frame,
 * and glibc's exact decimal conversion made that 0.4 ms, the most of a GET .../frame. */
#ifndef ROD_NUMFMT_H
#define ROD_NUMFMT_H

#include <stddef.h>

/* Writes v as snprintf(buf, 32, "%.10g", v) would (buf holds at least 32 bytes) and returns
 * the length. Non-finite values come out as printf writes them ("nan", "inf", "-inf"). */
size_t num_g10(char *buf, double v);
/* v[0], ..., v[n - 1] as num_g10 writes each, separated by commas, at p (with room for 33 bytes
 * a number), the non-finite as nonfinite ("null" for JSON; NULL: as printf writes them);
 * returns the end, where a NUL is written. A row of them at once: the call and the caller's
 * loop around each number were a fifth of a frame's text. */
char *num_g10_row(char *p, const double *v, size_t n, const char *nonfinite);

#endif
