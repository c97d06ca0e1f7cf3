/* "Did you mean": the nearest known word to a misspelt one, for the command line's commands and
 * options and the spec's keys. */
#include "rod_text.h"

#include <string.h>

/* Optimal string alignment distance: Levenshtein plus the swap of two neighbours, the typing
 * slip ("stifness", "untli") that plain Levenshtein counts twice. Words longer than the buffer
 * are never close. */
static int edit_distance(const char *a, const char *b)
{
    enum { MAXW = 64 };
    const size_t la = strlen(a), lb = strlen(b);
    if (la >= MAXW || lb >= MAXW) return MAXW;
    int d[MAXW + 1][MAXW + 1];
    for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

const char *rod_suggest(const char *word, const char *const *known)
{
    if (!word || !known) return NULL;
    /* close means at most a third of the word changed (and at least one edit allowed), so
     * "poison_ratio" finds "poisson_ratio" but "run" does not find "sweep" */
    const int len = (int)strlen(word);
    int limit = len / 3 < 1 ? 1 : len / 3;
    const char *best = NULL;
    for (; *known; known++) {
        int dist = edit_distance(word, *known);
        if (dist > 0 && dist <= limit) {
            limit = dist - 1; /* a strictly closer one wins; ties keep the first listed */
            best = *known;
        }
    }
    return best;
}
