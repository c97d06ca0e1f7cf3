/* Arrays of doubles in a checkpoint (checkpoint.c, asm_checkpoint.c): written with 17
 * significant digits so they read back bit for bit, and read back only whole and finite. */
#ifndef ROD_CHECKPOINT_ARRAYS_H
#define ROD_CHECKPOINT_ARRAYS_H

#include <cjson/cJSON.h>

/* a JSON array of v[0..n-1] at 17 digits, or NULL out of memory */
cJSON *checkpoint_exact_array(const double *v, int n);
/* 0 when a is an array of exactly n finite numbers (copied to out), -1 otherwise */
int checkpoint_read_array(const cJSON *a, int n, double *out);

#endif
