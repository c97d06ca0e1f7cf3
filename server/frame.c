#include "frame.h"

#include "clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void frame_retain(published_frame *f)
{
    atomic_fetch_add(&f->refs, 1);
}

void frame_release(published_frame *f)
{
    if (!f || atomic_fetch_sub(&f->refs, 1) != 1) return;
    rod_frame_free(&f->f);
    free(f->json);
    free(f);
}

published_frame *frame_compute(const rod_model *m, const rod_state *st, int points)
{
    published_frame *pf = calloc(1, sizeof *pf);
    if (!pf) return NULL;
    atomic_init(&pf->refs, 1);
    if (rod_frame_compute(m, st, points, &pf->f) != ROD_OK) {
        free(pf);
        return NULL;
    }
    pf->json = rod_frame_to_json(&pf->f);
    if (!pf->json) {
        frame_release(pf);
        return NULL;
    }
    pf->wall = mono_now();
    pf->published = unix_now();
    return pf;
}

int frame_stamp(published_frame *pf, uint64_t seq)
{
    pf->seq = seq;
    /* {"seq":N,"published":T, + the FRAME's members */
    char *body = pf->json;
    const size_t bl = strlen(body);
    pf->json = malloc(bl + 64);
    if (!pf->json) {
        free(body);
        return -1;
    }
    pf->json_len = (size_t)snprintf(pf->json, bl + 64, "{\"seq\":%llu,\"published\":%.6f,%s",
                                    (unsigned long long)pf->seq, pf->published, body + 1);
    free(body);
    return 0;
}
