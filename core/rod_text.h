/* Text helpers the engine uses and lends to its callers (the command line's "did you mean",
 * the text exports' numbers): not the engine's API, which is rod.h. */
#ifndef ROD_TEXT_H
#define ROD_TEXT_H

#include <stddef.h>

/* The word of the NULL-terminated list `known` nearest to `word` when it is close enough to be
 * a slip ("poison_ratio" -> "poisson_ratio"), else NULL. Borrowed from `known`. */
const char *rod_suggest(const char *word, const char *const *known);
/* Writes v as snprintf(buf, 32, "%.10g", v) would, at a tenth of its cost (buf holds at least
 * 32 bytes), and returns the length; "nan", "inf", "-inf" as printf writes them. */
size_t rod_format_g10(char *buf, double v);
/* v[0], ..., v[n - 1] as rod_format_g10 writes each, separated by commas, at p (with room for
 * 33 bytes a number), the non-finite as the text nonfinite ("null" for JSON; NULL: as printf
 * writes them); returns the end, where a NUL is written. */
char *rod_format_g10_row(char *p, const double *v, size_t n, const char *nonfinite);

#endif
