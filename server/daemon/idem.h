/* Idempotency-Key: a retried create or command gets the first attempt's answer instead of
 * acting twice. Keys live for a while (ttl) in a bounded table, oldest evicted first. */
#ifndef RODD_IDEM_H
#define RODD_IDEM_H

#include <stddef.h>

typedef struct idem idem;

typedef struct {
    int status;
    char *body;        /* malloc'd copies */
    char *content_type;
    char *location;
} idem_response;

enum { IDEM_NEW, IDEM_REPLAY, IDEM_MISMATCH, IDEM_BUSY };

idem *idem_new(int capacity, double ttl);
void idem_free(idem *t);
/* Looks the key up for a request whose method, path and body give fingerprint. IDEM_NEW
 * reserves it: call idem_finish or idem_abort after. IDEM_REPLAY fills *out (caller frees its
 * strings). */
int idem_begin(idem *t, const char *key, const char *fingerprint, idem_response *out);
void idem_finish(idem *t, const char *key, const idem_response *r);
void idem_abort(idem *t, const char *key);
/* A fingerprint of a request: FNV-1a over the parts, as hex. out: 17 bytes. */
void idem_fingerprint(const char *method, const char *path, const char *body, size_t len, char out[17]);

#endif
