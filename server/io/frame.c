#include "frame.h"
#include "frame_codec.h"
#include "frame_fields.h"

#include "clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void frame_retain(published_frame *f)
{
    atomic_fetch_add(&f->refs, 1);
}

struct frame_text {
    pthread_mutex_t mu;
    char *json;
    size_t len;
};

void frame_release(published_frame *f)
{
    if (!f || atomic_fetch_sub(&f->refs, 1) != 1) return;
    rod_frame_free(&f->f);
    if (f->text) {
        pthread_mutex_destroy(&f->text->mu);
        free(f->text->json);
        free(f->text);
    }
    free(f);
}

published_frame *frame_compute(const rod_model *m, const rod_state *st, int points)
{
    published_frame *pf = calloc(1, sizeof *pf);
    if (!pf) return NULL;
    pf->text = calloc(1, sizeof *pf->text);
    if (!pf->text || pthread_mutex_init(&pf->text->mu, NULL) != 0) {
        free(pf->text);
        free(pf);
        return NULL;
    }
    atomic_init(&pf->refs, 1);
    if (rod_frame_compute(m, st, points, &pf->f) != ROD_OK) {
        frame_release(pf);
        return NULL;
    }
    pf->wall = mono_now();
    pf->published = unix_now();
    return pf;
}

void frame_stamp(published_frame *pf, uint64_t seq)
{
    pf->seq = seq;
}

const char *frame_json(const published_frame *pf, size_t *len)
{
    struct frame_text *t = pf->text;
    pthread_mutex_lock(&t->mu);
    if (!t->json) {
        /* {"seq":N,"published":T, + the FRAME's members */
        char head[96];
        snprintf(head, sizeof head, "\"seq\":%llu,\"published\":%.6f,", (unsigned long long)pf->seq,
                 pf->published);
        codec_buf b = {0};
        if (frame_codec_json(&b, &pf->f, FRAME_F_ALL, 1, head) == 0) {
            t->json = b.b;
            t->len = b.len;
        } else {
            free(b.b);
        }
    }
    const char *j = t->json;
    if (len) *len = t->len;
    pthread_mutex_unlock(&t->mu);
    return j;
}
