#include "idem.h"

#include "session.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char key[129];
    char fp[17];
    int busy;
    double when;
    idem_response r;
} entry;

struct idem {
    pthread_mutex_t mu;
    entry *e;
    int cap;
    double ttl;
};

idem *idem_new(int capacity, double ttl)
{
    idem *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->e = calloc((size_t)capacity, sizeof *t->e);
    if (!t->e) {
        free(t);
        return NULL;
    }
    t->cap = capacity;
    t->ttl = ttl;
    pthread_mutex_init(&t->mu, NULL);
    return t;
}

static void clear(entry *e)
{
    free(e->r.body);
    free(e->r.content_type);
    free(e->r.location);
    memset(e, 0, sizeof *e);
}

void idem_free(idem *t)
{
    if (!t) return;
    for (int i = 0; i < t->cap; i++) clear(&t->e[i]);
    free(t->e);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static entry *find(idem *t, const char *key)
{
    for (int i = 0; i < t->cap; i++)
        if (t->e[i].key[0] && strcmp(t->e[i].key, key) == 0) return &t->e[i];
    return NULL;
}

int idem_begin(idem *t, const char *key, const char *fp, idem_response *out)
{
    pthread_mutex_lock(&t->mu);
    const double now = mono_now();
    entry *e = find(t, key);
    if (e && !e->busy && now - e->when > t->ttl) {
        clear(e);
        e = NULL;
    }
    int rc;
    if (e) {
        if (strcmp(e->fp, fp) != 0) rc = IDEM_MISMATCH;
        else if (e->busy) rc = IDEM_BUSY;
        else {
            rc = IDEM_REPLAY;
            out->status = e->r.status;
            out->body = dup_or_null(e->r.body);
            out->content_type = dup_or_null(e->r.content_type);
            out->location = dup_or_null(e->r.location);
        }
    } else {
        /* a free slot, or the oldest finished one */
        entry *slot = NULL;
        for (int i = 0; i < t->cap; i++) {
            entry *c = &t->e[i];
            if (!c->key[0]) {
                slot = c;
                break;
            }
            if (!c->busy && (!slot || c->when < slot->when)) slot = c;
        }
        if (!slot) {
            rc = IDEM_BUSY; /* every slot is a request in flight */
        } else {
            clear(slot);
            snprintf(slot->key, sizeof slot->key, "%s", key);
            snprintf(slot->fp, sizeof slot->fp, "%s", fp);
            slot->busy = 1;
            slot->when = now;
            rc = IDEM_NEW;
        }
    }
    pthread_mutex_unlock(&t->mu);
    return rc;
}

void idem_finish(idem *t, const char *key, const idem_response *r)
{
    pthread_mutex_lock(&t->mu);
    entry *e = find(t, key);
    if (e) {
        e->busy = 0;
        e->when = mono_now();
        e->r.status = r->status;
        e->r.body = dup_or_null(r->body);
        e->r.content_type = dup_or_null(r->content_type);
        e->r.location = dup_or_null(r->location);
    }
    pthread_mutex_unlock(&t->mu);
}

void idem_abort(idem *t, const char *key)
{
    pthread_mutex_lock(&t->mu);
    entry *e = find(t, key);
    if (e) clear(e);
    pthread_mutex_unlock(&t->mu);
}

void idem_fingerprint(const char *method, const char *path, const char *body, size_t len, char out[17])
{
    uint64_t h = 1469598103934665603ull;
    const char *parts[2] = {method, path};
    for (int k = 0; k < 2; k++) {
        for (const char *p = parts[k]; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull;
    }
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)body[i]) * 1099511628211ull;
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}
