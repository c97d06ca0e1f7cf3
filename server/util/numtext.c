#include "numtext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void num_shortest(char *buf, double v)
{
    if (!isfinite(v)) {
        snprintf(buf, 32, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
        return;
    }
    /* 17 significant digits always read back; most numbers people type need far fewer */
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) return;
    }
}
