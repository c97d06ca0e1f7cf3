/* Recordings: fixed-size float64 records in a file, a 64-byte header saying how many were
 * ever written (total) and which is the oldest kept (first). Record k lives in slot
 * k % capacity, so a ring overwrites in place and a reader can tell a record it read was
 * overwritten meanwhile (total > k + capacity once it has been). */
#include "recording.h"

#include "frame_fields.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "RODDREC1"
#define HEADER_BYTES 64

typedef struct {
    char magic[8];
    uint32_t points, fields;
    uint64_t record_bytes, capacity, first, total;
    uint64_t generation; /* counts fresh starts, so that a reader notices one */
    uint8_t pad[8];
} header;
_Static_assert(sizeof(header) == HEADER_BYTES, "the header is 64 bytes");

typedef enum { REC_RECORDING, REC_OFF, REC_FULL, REC_FAILED } rec_state;
static const char *const state_names[] = {"recording", "off", "full", "failed"};

struct recording {
    pthread_mutex_t mu;
    int fd;
    char path[1100]; /* "" for a temporary file */
    recording_opts o;
    header h;
    double first_t, last_t; /* of the oldest and newest records kept */
    double next_t;          /* the next frame kept is at or after this time: */
    double grid_t0;         /* grid_t0 + grid_k / rate, a grid without rounding drift */
    double grid_k;
    rec_state state;
    char error[300];
    double *buf; /* one record, for the writer */
};

void recording_opts_default(recording_opts *o)
{
    o->enabled = 1;
    o->rate = RECORDING_DEFAULT_RATE;
    o->fields = FRAME_F_ALL;
    o->max_bytes = RECORDING_DEFAULT_MAX_BYTES;
    o->ring = 1;
}

static size_t record_values(int points, unsigned fields)
{
    size_t n = 1; /* t */
    for (int b = 0; b < FRAME_F_COUNT; b++) {
        const unsigned bit = 1u << b;
        if (!(fields & bit)) continue;
        n += bit == FRAME_F_ENERGY ? 3 : bit == FRAME_F_VOLUME ? 1 : (size_t)frame_field_width(bit) * (size_t)points;
    }
    return n;
}

static void add_issue(cJSON *errors, const char *prefix, const char *key, const char *msg)
{
    cJSON *e = cJSON_CreateObject();
    char p[256];
    snprintf(p, sizeof p, "%s%s%s", prefix, key[0] ? "/" : "", key);
    cJSON_AddStringToObject(e, "path", p);
    cJSON_AddStringToObject(e, "message", msg);
    cJSON_AddItemToArray(errors, e);
}

int recording_opts_parse(const cJSON *v, const char *prefix, int points, recording_opts *o, cJSON *errors)
{
    const int before = cJSON_GetArraySize(errors);
    if (cJSON_IsBool(v)) {
        o->enabled = cJSON_IsTrue(v);
        return 0;
    }
    if (!cJSON_IsObject(v)) {
        add_issue(errors, prefix, "", "must be an object ({\"rate\", \"fields\", \"max_bytes\", \"when_full\", \"enabled\"}) or a boolean");
        return -1;
    }
    for (const cJSON *it = v->child; it; it = it->next) {
        const char *k = it->string;
        if (strcmp(k, "enabled") == 0) {
            if (!cJSON_IsBool(it)) add_issue(errors, prefix, k, "must be true or false");
            else o->enabled = cJSON_IsTrue(it);
        } else if (strcmp(k, "rate") == 0) {
            if (!cJSON_IsNumber(it) || !(it->valuedouble > 0) || it->valuedouble > 10000)
                add_issue(errors, prefix, k, "must be frames per simulated second in (0, 10000]");
            else o->rate = it->valuedouble;
        } else if (strcmp(k, "fields") == 0) {
            unsigned mask = 0;
            int ok = cJSON_IsArray(it);
            for (const cJSON *e = ok ? it->child : NULL; e; e = e->next) {
                const unsigned bit = cJSON_IsString(e) ? frame_field_bit(e->valuestring) : 0;
                if (!bit) {
                    char msg[200];
                    snprintf(msg, sizeof msg, "unknown field %s (s, position, rotation, rho, radius, kappa, nu, "
                             "energy, volume_change)", cJSON_IsString(e) ? e->valuestring : "(not a string)");
                    add_issue(errors, prefix, k, msg);
                    ok = 0;
                    break;
                }
                mask |= bit;
            }
            if (!cJSON_IsArray(it)) add_issue(errors, prefix, k, "must be an array of field names (empty: all)");
            else if (ok) o->fields = mask ? mask : FRAME_F_ALL;
        } else if (strcmp(k, "max_bytes") == 0) {
            if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) || it->valuedouble < 80 ||
                it->valuedouble > 1e12)
                add_issue(errors, prefix, k, "must be an integer number of bytes in [80, 1e12]");
            else o->max_bytes = (long long)it->valuedouble;
        } else if (strcmp(k, "when_full") == 0) {
            if (!cJSON_IsString(it) || (strcmp(it->valuestring, "ring") && strcmp(it->valuestring, "stop")))
                add_issue(errors, prefix, k, "must be \"ring\" (overwrite the oldest frames) or \"stop\"");
            else o->ring = strcmp(it->valuestring, "ring") == 0;
        } else {
            add_issue(errors, prefix, k, "unknown key");
        }
    }
    if (cJSON_GetArraySize(errors) == before &&
        (unsigned long long)o->max_bytes < HEADER_BYTES + 2 * 8 * record_values(points, o->fields)) {
        char msg[200];
        snprintf(msg, sizeof msg, "holds fewer than 2 frames of %d points with these fields (%zu bytes each)", points,
                 8 * record_values(points, o->fields));
        add_issue(errors, prefix, "max_bytes", msg);
    }
    return cJSON_GetArraySize(errors) == before ? 0 : -1;
}

cJSON *recording_opts_json(const recording_opts *o)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "enabled", o->enabled);
    cJSON_AddNumberToObject(j, "rate", o->rate);
    cJSON *f = cJSON_AddArrayToObject(j, "fields");
    for (int b = 0; f && b < FRAME_F_COUNT; b++)
        if (o->fields & (1u << b)) cJSON_AddItemToArray(f, cJSON_CreateString(frame_field_name(b)));
    cJSON_AddNumberToObject(j, "max_bytes", (double)o->max_bytes);
    cJSON_AddStringToObject(j, "when_full", o->ring ? "ring" : "stop");
    return j;
}

static int write_all(int fd, const void *p, size_t n, off_t at)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = pwrite(fd, c, n, at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w;
        n -= (size_t)w;
        at += w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n, off_t at)
{
    char *c = p;
    while (n > 0) {
        ssize_t r = pread(fd, c, n, at);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        c += r;
        n -= (size_t)r;
        at += r;
    }
    return 0;
}

static off_t slot_offset(const header *h, uint64_t k)
{
    return (off_t)(HEADER_BYTES + (k % h->capacity) * h->record_bytes);
}

static void fail(recording *r, const char *what)
{
    r->state = REC_FAILED;
    snprintf(r->error, sizeof r->error, "%s: %s", what, strerror(errno));
}

/* A fresh, empty layout for the options (mu held, or not yet shared). */
static int start_fresh(recording *r, int points)
{
    const uint64_t gen = r->h.generation + 1;
    memset(&r->h, 0, sizeof r->h);
    memcpy(r->h.magic, MAGIC, 8);
    r->h.points = (uint32_t)points;
    r->h.fields = r->o.fields;
    r->h.record_bytes = 8 * record_values(points, r->o.fields);
    r->h.capacity = ((uint64_t)r->o.max_bytes - HEADER_BYTES) / r->h.record_bytes;
    r->h.generation = gen;
    r->first_t = r->last_t = 0;
    r->next_t = -INFINITY;
    r->state = r->o.enabled ? REC_RECORDING : REC_OFF;
    r->error[0] = '\0';
    free(r->buf);
    r->buf = malloc(r->h.record_bytes);
    if (!r->buf) {
        r->state = REC_FAILED;
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    if (ftruncate(r->fd, 0) != 0 || write_all(r->fd, &r->h, sizeof r->h, 0) != 0) {
        fail(r, "cannot write the recording");
        return -1;
    }
    return 0;
}

static double record_time(recording *r, uint64_t k)
{
    double t = 0;
    if (read_all(r->fd, &t, sizeof t, slot_offset(&r->h, k)) != 0) return NAN;
    return t;
}

/* Continues an existing file written with the same layout; -1 when it cannot be. */
static int continue_file(recording *r, int points)
{
    header h;
    struct stat st;
    if (read_all(r->fd, &h, sizeof h, 0) != 0 || memcmp(h.magic, MAGIC, 8) != 0 || h.points != (uint32_t)points ||
        h.fields != r->o.fields || h.record_bytes != 8 * record_values(points, r->o.fields) ||
        h.capacity != ((uint64_t)r->o.max_bytes - HEADER_BYTES) / h.record_bytes || h.first > h.total ||
        h.total - h.first > h.capacity || fstat(r->fd, &st) != 0)
        return -1;
    /* records written after the header was (a crash between the two writes) are dropped */
    r->h = h;
    r->buf = malloc(h.record_bytes);
    if (!r->buf) return -1;
    r->state = r->o.enabled ? REC_RECORDING : REC_OFF;
    if (h.total > h.first) {
        r->first_t = record_time(r, h.first);
        r->last_t = record_time(r, h.total - 1);
        if (isnan(r->first_t) || isnan(r->last_t)) return -1;
        r->grid_t0 = r->last_t;
        r->grid_k = 1;
        r->next_t = r->last_t + 1.0 / r->o.rate;
        if (!r->o.ring && h.total == h.capacity) r->state = REC_FULL;
    } else {
        r->next_t = -INFINITY;
    }
    return 0;
}

recording *recording_open(const char *state_dir, const char *id, int points, const recording_opts *o, char *err,
                          size_t errlen)
{
    recording *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&r->mu, NULL);
    r->o = *o;
    r->fd = -1;
    if (state_dir && state_dir[0]) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/recordings", state_dir);
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
            recording_close(r, 0);
            return NULL;
        }
        snprintf(r->path, sizeof r->path, "%s/%s.rec", dir, id);
        r->fd = open(r->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    } else {
        const char *tmp = getenv("TMPDIR");
        char templ[1024];
        snprintf(templ, sizeof templ, "%s/rodd-recording-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        r->fd = mkstemp(templ);
        if (r->fd >= 0) {
            unlink(templ); /* it lives as long as the session */
            fcntl(r->fd, F_SETFD, FD_CLOEXEC);
        }
    }
    if (r->fd < 0) {
        snprintf(err, errlen, "cannot open the recording %s: %s", r->path[0] ? r->path : "(temporary file)",
                 strerror(errno));
        recording_close(r, 0);
        return NULL;
    }
    if (continue_file(r, points) != 0 && start_fresh(r, points) != 0) {
        snprintf(err, errlen, "%s", r->error);
        recording_close(r, 1);
        return NULL;
    }
    return r;
}

void recording_close(recording *r, int remove_file)
{
    if (!r) return;
    if (r->fd >= 0) close(r->fd);
    if (remove_file && r->path[0]) unlink(r->path);
    free(r->buf);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

void recording_unlink(recording *r)
{
    pthread_mutex_lock(&r->mu);
    if (r->path[0]) unlink(r->path);
    r->path[0] = '\0';
    pthread_mutex_unlock(&r->mu);
}

/* The record's values in field order: t, per-point fields, energy, volume change. */
static void pack(const rod_frame *f, unsigned fields, double *v)
{
    const double *per_point[FRAME_F_COUNT] = {f->s, f->position, f->rotation, f->rho, f->radius, f->kappa, f->nu};
    size_t at = 0;
    v[at++] = f->t;
    for (int b = 0; b < FRAME_F_COUNT; b++) {
        const unsigned bit = 1u << b;
        if (!(fields & bit)) continue;
        if (bit == FRAME_F_ENERGY) {
            v[at++] = f->e_kinetic;
            v[at++] = f->e_elastic;
            v[at++] = f->e_gravity;
        } else if (bit == FRAME_F_VOLUME) {
            v[at++] = f->volume_change;
        } else {
            const size_t n = (size_t)frame_field_width(bit) * (size_t)f->n;
            memcpy(v + at, per_point[b], n * sizeof *v);
            at += n;
        }
    }
}

static void unpack(const double *v, int n, unsigned fields, rod_frame *f)
{
    double **per_point[FRAME_F_COUNT] = {&f->s, &f->position, &f->rotation, &f->rho, &f->radius, &f->kappa, &f->nu};
    memset(f, 0, sizeof *f);
    f->n = n;
    size_t at = 0;
    f->t = v[at++];
    for (int b = 0; b < FRAME_F_COUNT; b++) {
        const unsigned bit = 1u << b;
        if (!(fields & bit)) continue;
        if (bit == FRAME_F_ENERGY) {
            f->e_kinetic = v[at++];
            f->e_elastic = v[at++];
            f->e_gravity = v[at++];
        } else if (bit == FRAME_F_VOLUME) {
            f->volume_change = v[at++];
        } else {
            *per_point[b] = (double *)(v + at); /* borrowed: the frame is only read */
            at += (size_t)frame_field_width(bit) * (size_t)n;
        }
    }
}

/* The session went back in time (a reset, or a restore from a checkpoint older than the last
 * frame recorded): the frames from t on belong to a past that no longer happened. */
static void rewind_to(recording *r, double t)
{
    header *h = &r->h;
    while (h->total > h->first && !(record_time(r, h->total - 1) < t)) h->total--;
    h->generation++; /* an export in progress must not mix the two timelines */
    if (write_all(r->fd, h, sizeof *h, 0) != 0) fail(r, "cannot write the recording");
    r->last_t = h->total > h->first ? record_time(r, h->total - 1) : 0;
    r->next_t = -INFINITY;
    if (r->state == REC_FULL) {
        r->state = REC_RECORDING;
        r->error[0] = '\0';
    }
}

void recording_add(recording *r, const rod_frame *f)
{
    pthread_mutex_lock(&r->mu);
    header *h = &r->h;
    if (h->total > h->first && f->t < r->last_t) rewind_to(r, f->t);
    /* a frame due on the rate's grid may come a rounding error early */
    if (r->state != REC_RECORDING || f->n != (int)h->points || f->t < r->next_t - 1e-6 / r->o.rate) {
        pthread_mutex_unlock(&r->mu);
        return;
    }
    if (h->total - h->first == h->capacity) {
        if (!r->o.ring) {
            r->state = REC_FULL;
            snprintf(r->error, sizeof r->error, "the recording holds max_bytes (%llu frames, t = %.6g to %.6g s); "
                     "later frames are not recorded", (unsigned long long)h->capacity, r->first_t, r->last_t);
            pthread_mutex_unlock(&r->mu);
            return;
        }
        h->first++;
    }
    pack(f, h->fields, r->buf);
    /* the record first, then the header that counts it: a crash between them loses one frame */
    if (write_all(r->fd, r->buf, h->record_bytes, slot_offset(h, h->total)) != 0) {
        fail(r, "cannot write the recording");
    } else {
        h->total++;
        if (write_all(r->fd, h, sizeof *h, 0) != 0) fail(r, "cannot write the recording");
        if (h->total - h->first == 1) r->first_t = f->t;
        else if (h->first > 0 && r->o.ring) r->first_t = record_time(r, h->first);
        r->last_t = f->t;
        /* the next on the grid of the rate from the first frame; after a gap (frames came
         * sparser than the rate) the grid's next point at least half an interval on */
        if (!isfinite(r->next_t)) {
            r->grid_t0 = f->t;
            r->grid_k = 0;
        }
        r->grid_k = fmax(r->grid_k + 1, ceil((f->t - r->grid_t0) * r->o.rate + 0.5));
        r->next_t = r->grid_t0 + r->grid_k / r->o.rate;
    }
    pthread_mutex_unlock(&r->mu);
}

double recording_next_due(recording *r)
{
    pthread_mutex_lock(&r->mu);
    const int on = r->state == REC_RECORDING;
    const double t = r->next_t;
    pthread_mutex_unlock(&r->mu);
    return on ? t : INFINITY;
}

int recording_configure(recording *r, const recording_opts *o, char *err, size_t errlen)
{
    pthread_mutex_lock(&r->mu);
    const int relayout = o->fields != r->o.fields || o->max_bytes != r->o.max_bytes;
    r->o = *o;
    int rc = 0;
    if (relayout) {
        rc = start_fresh(r, (int)r->h.points);
        if (rc) snprintf(err, errlen, "%s", r->error);
    } else if (r->state == REC_RECORDING || r->state == REC_OFF || (r->state == REC_FULL && o->ring)) {
        r->state = o->enabled ? REC_RECORDING : REC_OFF;
        r->error[0] = '\0';
    }
    if (!relayout && r->h.total > r->h.first) { /* a new rate's grid starts at the last frame */
        r->grid_t0 = r->last_t;
        r->grid_k = 1;
        r->next_t = r->last_t + 1.0 / o->rate;
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

void recording_get_opts(recording *r, recording_opts *o)
{
    pthread_mutex_lock(&r->mu);
    *o = r->o;
    pthread_mutex_unlock(&r->mu);
}

cJSON *recording_describe(recording *r)
{
    pthread_mutex_lock(&r->mu);
    cJSON *j = recording_opts_json(&r->o);
    const uint64_t frames = r->h.total - r->h.first;
    cJSON_AddStringToObject(j, "state", state_names[r->state]);
    cJSON_AddNumberToObject(j, "frames", (double)frames);
    cJSON_AddNumberToObject(j, "bytes", (double)(frames * r->h.record_bytes));
    cJSON_AddNumberToObject(j, "frame_bytes", (double)r->h.record_bytes);
    if (frames) {
        cJSON_AddNumberToObject(j, "from", r->first_t);
        cJSON_AddNumberToObject(j, "to", r->last_t);
    } else {
        cJSON_AddNullToObject(j, "from");
        cJSON_AddNullToObject(j, "to");
    }
    if (r->error[0]) cJSON_AddStringToObject(j, "error", r->error);
    else cJSON_AddNullToObject(j, "error");
    pthread_mutex_unlock(&r->mu);
    return j;
}

long recording_export(recording *r, export_format fmt, double from, double to, const char *spec_json,
                      const char *path, char *err, size_t errlen)
{
    pthread_mutex_lock(&r->mu);
    const header h = r->h;
    pthread_mutex_unlock(&r->mu);
    const export_meta meta = {(int)h.points, h.fields, spec_json};
    double *v = malloc(h.record_bytes);
    export_writer *w = v ? export_open(fmt, path, &meta, err, errlen) : NULL;
    if (!w) {
        if (!v) snprintf(err, errlen, "out of memory");
        free(v);
        return -1;
    }
    long n = 0;
    int rc = 0;
    for (uint64_t k = h.first; k < h.total && rc == 0; k++) {
        if (read_all(r->fd, v, h.record_bytes, slot_offset(&h, k)) != 0) {
            snprintf(err, errlen, "cannot read the recording: %s", strerror(errno));
            rc = -1;
            break;
        }
        pthread_mutex_lock(&r->mu);
        const int restarted = r->h.generation != h.generation;
        const int overwritten = r->h.total > k + h.capacity;
        pthread_mutex_unlock(&r->mu);
        if (restarted) {
            snprintf(err, errlen, "the recording started afresh during the export; ask again");
            rc = -1;
            break;
        }
        if (overwritten || v[0] < from || v[0] > to) continue; /* the ring passed it, or out of range */
        rod_frame f;
        unpack(v, (int)h.points, h.fields, &f);
        if (export_frame(w, &f, err, errlen) != 0) rc = -1;
        else n++;
    }
    free(v);
    if (rc != 0) {
        export_abort(w);
        return -1;
    }
    return export_close(w, NULL, NULL, err, errlen) == 0 ? n : -1;
}
