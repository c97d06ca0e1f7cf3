/* UTF-8 validity (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF), for text
 * that came in and will go out again in JSON every client must be able to parse. */
#ifndef RODD_UTF8_H
#define RODD_UTF8_H

#include <stddef.h>

struct cJSON;

int utf8_valid(const char *s, size_t n);
/* The first string or key in the tree that is not valid UTF-8: 1 and its JSON pointer in path
 * (relative to the tree's root), or 0 when all are valid. */
int json_find_bad_utf8(const struct cJSON *root, char *path, size_t len);

#endif
