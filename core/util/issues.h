/* Internal helpers for the rod_issues list of rod.h. */
#ifndef ROD_ISSUES_H
#define ROD_ISSUES_H

#include "rod.h"

/* Records one issue; a NULL list ignores it. */
void issues_add(rod_issues *l, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
