#include "checkpoint_arrays.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* cJSON prints a double with 15 digits when that reads back within an epsilon, which is not
 * bit for bit: one raw item of 17-digit numbers instead */
cJSON *checkpoint_exact_array(const double *v, int n)
{
    size_t cap = (size_t)n * 26 + 3, used = 0;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    buf[used++] = '[';
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%.17g", i ? "," : "", v[i]);
    buf[used++] = ']';
    buf[used] = '\0';
    cJSON *raw = cJSON_CreateRaw(buf);
    free(buf);
    return raw;
}

int checkpoint_read_array(const cJSON *a, int n, double *out)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n) return -1;
    int i = 0;
    for (const cJSON *e = a->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) return -1;
        out[i] = e->valuedouble;
    }
    return 0;
}
