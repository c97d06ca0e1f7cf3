/* Recordings: fixed-size float64 slots in a file, a 64-byte header saying how many were
 * ever written (total) and which is the oldest kept (first). Slot k lives at k % capacity, so
 * a ring overwrites in place and a reader can tell a slot it read was overwritten meanwhile
 * (total > k + capacity once it has been).
 *
 * A frame is one slot (its fields and the fixed part of its mechanics, frame_mech.h), and
 * for a model with contact as many more slots as its contacts fill: contacts come and go, and
 * a slot sized for the most a frame could have (thousands) would mostly hold nothing. Where a
 * frame can be several slots, frames are found by walking from the oldest one. */
#include "recording.h"

#include "disk_budget.h"
#include "frame_fields.h"
#include "frame_mech.h"
#include "log.h"

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
    uint32_t shape;      /* a hash of the frames' mechanics (0: none), so a file of another shape
                          * is not continued */
    uint8_t pad[4];
} header;
_Static_assert(sizeof(header) == HEADER_BYTES, "the header is 64 bytes");

typedef enum { REC_RECORDING, REC_OFF, REC_FULL, REC_FAILED } rec_state;
static const char *const state_names[] = {"recording", "off", "full", "failed"};

struct recording {
    pthread_mutex_t mu;
    int fd;
    char path[1100]; /* "" for a temporary file */
    recording_opts o;
    rod_frame shape; /* the frames' mechanics (names, no values) */
    header h;
    uint64_t last;   /* slot of the newest frame kept */
    uint64_t frames; /* frames kept (slots from first to total, when each frame is one) */
    double first_t, last_t; /* of the oldest and newest records kept */
    double next_t;          /* the next frame kept is at or after this time: */
    double grid_t0;         /* grid_t0 + grid_k / rate, a grid without rounding drift */
    double grid_k;
    rec_state state;
    char error[400];
    int space_stop;  /* stopped by the budget or a full disk: a PATCH tries again */
    disk_budget *budget; /* the daemon's, borrowed; NULL: no limit */
    long long charged;   /* bytes of the file taken from the budget: the farthest it was written */
    double *buf; /* a frame's slots, for the writer */
    uint64_t buf_slots;
};

void recording_opts_default(recording_opts *o)
{
    o->enabled = 1;
    o->rate = RECORDING_DEFAULT_RATE;
    o->fields = FRAME_F_ALL;
    o->max_bytes = RECORDING_DEFAULT_MAX_BYTES;
    o->ring = 1;
}

/* The values of a frame's fields (its first slot holds them, then the mechanics' fixed part);
 * several rods: each per-point field for every rod, rod after rod. */
static size_t field_values(const rod_frame *shape, int points, unsigned fields)
{
    if (shape) points *= mech_rods(shape);
    size_t n = 1; /* t */
    for (int b = 0; b < FRAME_F_COUNT; b++) {
        const unsigned bit = 1u << b;
        if (!(fields & bit)) continue;
        n += bit == FRAME_F_ENERGY ? 3 : bit == FRAME_F_VOLUME ? 1 : (size_t)frame_field_width(bit) * (size_t)points;
    }
    return n;
}

static size_t record_values(int points, unsigned fields, const rod_frame *shape)
{
    return field_values(shape, points, fields) + (shape ? mech_values(shape) : 0);
}

size_t recording_frame_bytes(int points, unsigned fields, const rod_frame *shape)
{
    return 8 * record_values(points, fields, shape);
}

static uint32_t shape_hash(const rod_frame *sh)
{
    if (!mech_any(sh) && !sh->nrods) return 0;
    uint32_t x = 2166136261u; /* FNV-1a */
    for (int i = 0; i < sh->nrods; i++) { /* the rods' names, in order, each ended by ';' */
        for (const char *c = sh->rods[i].name;; c++) {
            x = (x ^ (unsigned char)(*c ? *c : ';')) * 16777619u;
            if (!*c) break;
        }
        if (sh->rods[i].base_moving) x = (x ^ (unsigned char)'+') * 16777619u; /* its base is packed */
    }
    char text[80];
    const int n[4] = {sh->base_moving, sh->has_contacts, sh->ncons, sh->nbodies};
    for (int i = 0; i < 4 + sh->ncons + sh->nbodies; i++) {
        if (i < 4)
            snprintf(text, sizeof text, "%d;", n[i]);
        else if (i < 4 + sh->ncons)
            snprintf(text, sizeof text, "%s:%d;", sh->cons[i - 4].name, sh->cons[i - 4].volume);
        else
            snprintf(text, sizeof text, "%s;", sh->bodies[i - 4 - sh->ncons].name);
        for (const char *c = text; *c; c++) x = (x ^ (unsigned char)*c) * 16777619u;
    }
    return x | 1u;
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

int recording_opts_parse(const cJSON *v, const char *prefix, int points, const rod_frame *shape, recording_opts *o,
                         cJSON *errors)
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
    char msg[200];
    if (cJSON_GetArraySize(errors) == before && recording_check_size(points, shape, o, msg, sizeof msg) != 0)
        add_issue(errors, prefix, "max_bytes", msg);
    return cJSON_GetArraySize(errors) == before ? 0 : -1;
}

int recording_check_size(int points, const rod_frame *shape, const recording_opts *o, char *msg, size_t len)
{
    const size_t bytes = recording_frame_bytes(points, o->fields, shape);
    if ((unsigned long long)o->max_bytes >= HEADER_BYTES + 2 * bytes) return 0;
    snprintf(msg, len, "holds fewer than 2 frames of %d points with these fields (%zu bytes each)", points, bytes);
    return -1;
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

/* 0, -1 on a read error (errno), -2 when the file ends first. */
static int read_all(int fd, void *p, size_t n, off_t at)
{
    char *c = p;
    while (n > 0) {
        ssize_t r = pread(fd, c, n, at);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) return -2;
        if (r < 0) return -1;
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

/* The recording stopped (mu held): said once in the log, for whoever watches the disk. */
static void log_stop(const recording *r)
{
    log_event(LOG_WARN, "recording_stopped", "file=%s error=%s", log_q(r->path[0] ? r->path : "(temporary)"),
              log_q(r->error));
}

static void fail(recording *r, const char *what)
{
    const int full = errno == ENOSPC || errno == EDQUOT;
    r->state = REC_FAILED;
    r->space_stop = full;
    if (full)
        snprintf(r->error, sizeof r->error, "%s: %s: the disk is full; later frames are not recorded (the frames kept "
                 "export as before). Free space, then PATCH the recording to go on", what, strerror(errno));
    else
        snprintf(r->error, sizeof r->error, "%s: %s", what, strerror(errno));
    log_stop(r);
}

/* The file will reach `end` bytes: takes what it has not taken yet from the budget (mu held,
 * or not yet shared). -1, with the recording full, when the budget has no room. */
static int charge_to(recording *r, long long end)
{
    if (end <= r->charged) return 0;
    if (disk_budget_take(r->budget, end - r->charged) != 0) {
        r->state = REC_FULL;
        r->space_stop = 1;
        snprintf(r->error, sizeof r->error, "the daemon's recording budget is used up (%lld of %lld bytes for every "
                 "session's recording: recording_budget); later frames are not recorded. Delete sessions or raise "
                 "recording_budget, then PATCH the recording to go on", disk_budget_used(r->budget),
                 disk_budget_limit(r->budget));
        log_stop(r);
        return -1;
    }
    r->charged = end;
    return 0;
}

/* The file was emptied or is gone: its bytes go back to the budget. */
static void uncharge(recording *r)
{
    disk_budget_give(r->budget, r->charged);
    r->charged = 0;
}

/* Slots of a frame with nc contacts in the layout of header h: its first, and the contacts'
 * values after it. An export passes its own copy of the header: the recording's may be
 * replaced by a new layout meanwhile. */
static uint64_t slots_for(const header *h, const rod_frame *shape, int nc)
{
    const size_t v = h->record_bytes / 8;
    return 1 + ((size_t)nc * (size_t)mech_contact_values(shape) + v - 1) / v;
}

/* The writer's buffer holds at least n slots (mu held). */
static int reserve_slots(recording *r, uint64_t n)
{
    if (n <= r->buf_slots) return 0;
    double *b = realloc(r->buf, n * r->h.record_bytes);
    if (!b) return -1;
    r->buf = b;
    r->buf_slots = n;
    return 0;
}

/* An unnamed file in TMPDIR, for a recording without a state directory; -1 on failure. */
static int temporary_file(void)
{
    const char *tmp = getenv("TMPDIR");
    char templ[1024];
    snprintf(templ, sizeof templ, "%s/rodd-recording-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    const int fd = mkstemp(templ);
    if (fd >= 0) {
        unlink(templ); /* it lives as long as the session */
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    return fd;
}

/* A new, empty file in the recording's place (mu held), for a new layout: an export reading
 * the old file (its own descriptor) goes on reading it whole, as it was, instead of a file
 * truncated and rewritten under it. */
static int replace_file(recording *r)
{
    int fd;
    if (r->path[0]) {
        char tmp[1200];
        snprintf(tmp, sizeof tmp, "%s.new", r->path);
        fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0 && rename(tmp, r->path) != 0) {
            const int e = errno;
            close(fd);
            unlink(tmp);
            errno = e;
            fd = -1;
        }
    } else {
        fd = temporary_file();
    }
    if (fd < 0) {
        fail(r, "cannot start a new recording file");
        return -1;
    }
    close(r->fd);
    r->fd = fd;
    return 0;
}

/* A fresh, empty layout for the options (mu held, or not yet shared). */
static int start_fresh(recording *r, int points)
{
    const uint64_t gen = r->h.generation + 1;
    memset(&r->h, 0, sizeof r->h);
    memcpy(r->h.magic, MAGIC, 8);
    r->h.points = (uint32_t)points;
    r->h.fields = r->o.fields;
    r->h.record_bytes = recording_frame_bytes(points, r->o.fields, &r->shape);
    r->h.capacity = ((uint64_t)r->o.max_bytes - HEADER_BYTES) / r->h.record_bytes;
    r->h.generation = gen;
    r->h.shape = shape_hash(&r->shape);
    r->last = r->frames = 0;
    r->first_t = r->last_t = 0;
    r->next_t = -INFINITY;
    r->state = r->o.enabled ? REC_RECORDING : REC_OFF;
    r->error[0] = '\0';
    free(r->buf);
    r->buf = NULL;
    r->buf_slots = 0;
    if (reserve_slots(r, 1) != 0) {
        r->state = REC_FAILED;
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    r->space_stop = 0;
    if (ftruncate(r->fd, 0) != 0) {
        fail(r, "cannot write the recording");
        return -1;
    }
    uncharge(r);
    /* the header is taken whatever the budget: a session always has its (empty) recording */
    disk_budget_force(r->budget, HEADER_BYTES);
    r->charged = HEADER_BYTES;
    if (write_all(r->fd, &r->h, sizeof r->h, 0) != 0) {
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

/* Slots of the frame starting at slot k of header h (1 where frames cannot have contacts);
 * 0 when it cannot be read. */
static uint64_t frame_slots(recording *r, const header *h, uint64_t k)
{
    if (!r->shape.has_contacts) return 1;
    double n = 0;
    const off_t at = slot_offset(h, k) + (off_t)h->record_bytes - 8; /* the fixed part ends with the count */
    if (read_all(r->fd, &n, sizeof n, at) != 0 || !(n >= 0 && n < 1e9)) return 0;
    return slots_for(h, &r->shape, (int)n);
}

/* Finds last and frames by walking the frames from first; the file is cut after the last
 * whole one (mu held, or not yet shared). -1 when the file cannot be read. */
static int walk_frames(recording *r)
{
    header *h = &r->h;
    r->frames = 0;
    r->last = h->first;
    if (!r->shape.has_contacts) {
        r->frames = h->total - h->first;
        r->last = h->total > h->first ? h->total - 1 : h->first;
        return 0;
    }
    uint64_t k = h->first;
    while (k < h->total) {
        const uint64_t n = frame_slots(r, h, k);
        if (n == 0) return -1;
        if (k + n > h->total) break; /* a frame whose header count never came: dropped */
        r->last = k;
        r->frames++;
        k += n;
    }
    h->total = k;
    return 0;
}

/* Continues an existing file written with the same layout; -1 when it cannot be. */
static int continue_file(recording *r, int points)
{
    header h;
    const uint64_t bytes = recording_frame_bytes(points, r->o.fields, &r->shape);
    if (read_all(r->fd, &h, sizeof h, 0) != 0 || memcmp(h.magic, MAGIC, 8) != 0 || h.points != (uint32_t)points ||
        h.fields != r->o.fields || h.record_bytes != bytes || h.shape != shape_hash(&r->shape) ||
        h.capacity != ((uint64_t)r->o.max_bytes - HEADER_BYTES) / h.record_bytes || h.first > h.total ||
        h.total - h.first > h.capacity)
        return -1;
    /* records written after the header was (a crash between the two writes) are dropped */
    r->h = h;
    struct stat st;
    if (reserve_slots(r, 1) != 0 || walk_frames(r) != 0 || fstat(r->fd, &st) != 0) return -1;
    /* a restored file takes its bytes past any budget: it is on the disk already */
    disk_budget_force(r->budget, (long long)st.st_size - r->charged);
    r->charged = (long long)st.st_size;
    r->state = r->o.enabled ? REC_RECORDING : REC_OFF;
    if (r->frames) {
        r->first_t = record_time(r, h.first);
        r->last_t = record_time(r, r->last);
        if (isnan(r->first_t) || isnan(r->last_t)) return -1;
        r->grid_t0 = r->last_t;
        r->grid_k = 1;
        r->next_t = r->last_t + 1.0 / r->o.rate;
        if (!r->o.ring && r->h.total - r->h.first == r->h.capacity) r->state = REC_FULL;
    } else {
        r->next_t = -INFINITY;
    }
    return 0;
}

recording *recording_open(const char *state_dir, const char *id, int points, const rod_frame *shape,
                          const recording_opts *o, disk_budget *budget, char *err, size_t errlen)
{
    recording *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&r->mu, NULL);
    r->o = *o;
    r->fd = -1;
    r->budget = budget;
    if (shape && mech_shape_copy(&r->shape, shape) != 0) {
        snprintf(err, errlen, "out of memory");
        recording_close(r, 0);
        return NULL;
    }
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
        r->fd = temporary_file();
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
    uncharge(r); /* kept files are charged again when a daemon opens them */
    free(r->buf);
    rod_frame_free(&r->shape);
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

/* The frame's values in field order: t, per-point fields, energy, volume change, then the
 * mechanics (their contacts running on into the following slots). */
static void pack(const rod_frame *f, unsigned fields, const rod_frame *shape, double *v)
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
        } else if (f->nrods) {
            for (int r = 0; r < f->nrods; r++) {
                const size_t n = (size_t)frame_field_width(bit) * (size_t)f->rods[r].n;
                memcpy(v + at, frame_field_values(&f->rods[r], bit), n * sizeof *v);
                at += n;
            }
        } else {
            const size_t n = (size_t)frame_field_width(bit) * (size_t)f->n;
            memcpy(v + at, per_point[b], n * sizeof *v);
            at += n;
        }
    }
    mech_pack(shape, f, v + at);
}

/* Where f's array of per-point field b (a bit index) goes. */
static double **field_slot(rod_frame *f, int b)
{
    double **slot[FRAME_F_COUNT] = {&f->s, &f->position, &f->rotation, &f->rho, &f->radius, &f->kappa, &f->nu};
    return slot[b];
}

/* The frame of the values v into f; its arrays point into v, into tmpl's constraints, bodies
 * and rods (a copy of the shape, overwritten: unborrow before freeing it) and into contacts
 * and contact_rods (room for the frame's). */
static void unpack(const double *v, int n, unsigned fields, const rod_frame *shape, rod_frame *tmpl, double *contacts,
                   int *contact_rods, rod_frame *f)
{
    memset(f, 0, sizeof *f);
    f->n = shape->nrods ? 0 : n;
    f->nrods = shape->nrods;
    f->rods = tmpl->rods;
    for (int r = 0; r < f->nrods; r++) {
        f->rods[r].n = n;
        f->rods[r].t = v[0];
    }
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
            for (int r = 0; r < mech_rods(shape); r++) { /* borrowed: the frame is only read */
                *field_slot(f->nrods ? &f->rods[r] : f, b) = (double *)(v + at);
                at += (size_t)frame_field_width(bit) * (size_t)n;
            }
        }
    }
    f->cons = tmpl->cons;
    f->bodies = tmpl->bodies;
    mech_unpack(shape, v + at, f, contacts, contact_rods);
}

/* The session went back in time (a reset, or a restore from a checkpoint older than the last
 * frame recorded): the frames from t on belong to a past that no longer happened. */
static void rewind_to(recording *r, double t)
{
    header *h = &r->h;
    if (!r->shape.has_contacts) {
        while (h->total > h->first && !(record_time(r, h->total - 1) < t)) h->total--;
        r->frames = h->total - h->first;
        r->last = h->total > h->first ? h->total - 1 : h->first;
    } else { /* frames of several slots: the first one at or after t, from the oldest */
        uint64_t k = h->first, n;
        r->frames = 0;
        r->last = h->first;
        while (k < h->total && record_time(r, k) < t && (n = frame_slots(r, h, k)) > 0) {
            r->last = k;
            r->frames++;
            k += n;
        }
        h->total = k;
    }
    h->generation++; /* an export in progress must not mix the two timelines */
    if (write_all(r->fd, h, sizeof *h, 0) != 0) fail(r, "cannot write the recording");
    r->last_t = r->frames ? record_time(r, r->last) : 0;
    r->next_t = -INFINITY;
    if (r->state == REC_FULL) { /* the frames dropped made room, in the file and in the budget */
        r->state = REC_RECORDING;
        r->error[0] = '\0';
        r->space_stop = 0;
    }
}

/* Makes room for a frame of n slots (mu held): in a ring, drops the oldest frames; else the
 * recording is full. 0 when there is room. */
static int make_room(recording *r, uint64_t n)
{
    header *h = &r->h;
    if (n > h->capacity) {
        r->state = REC_FAILED;
        snprintf(r->error, sizeof r->error, "a frame of %llu slots (%llu bytes: its contacts) is more than max_bytes "
                 "holds; nothing later is recorded", (unsigned long long)n, (unsigned long long)(n * h->record_bytes));
        return -1;
    }
    while (h->total - h->first + n > h->capacity) {
        if (!r->o.ring) {
            r->state = REC_FULL;
            snprintf(r->error, sizeof r->error, "the recording holds max_bytes (%llu frames, t = %.6g to %.6g s); "
                     "later frames are not recorded", (unsigned long long)r->frames, r->first_t, r->last_t);
            return -1;
        }
        const uint64_t old = frame_slots(r, h, h->first);
        if (old == 0) {
            fail(r, "cannot read the recording");
            return -1;
        }
        h->first += old;
        r->frames--;
    }
    return 0;
}

void recording_add(recording *r, const rod_frame *f)
{
    pthread_mutex_lock(&r->mu);
    header *h = &r->h;
    if (r->frames && f->t < r->last_t) rewind_to(r, f->t);
    /* a frame due on the rate's grid may come a rounding error early */
    if (r->state != REC_RECORDING || mech_points(f) != (int)h->points || !mech_matches(&r->shape, f) ||
        f->t < r->next_t - 1e-6 / r->o.rate) {
        pthread_mutex_unlock(&r->mu);
        return;
    }
    const uint64_t n = slots_for(&r->h, &r->shape, r->shape.has_contacts ? f->ncontacts : 0);
    const uint64_t before = r->frames;
    if (make_room(r, n) != 0) {
        pthread_mutex_unlock(&r->mu);
        return;
    }
    if (reserve_slots(r, n) != 0) {
        r->state = REC_FAILED;
        snprintf(r->error, sizeof r->error, "out of memory");
        pthread_mutex_unlock(&r->mu);
        return;
    }
    long long end = 0; /* where the file ends once the slots are written (they may wrap) */
    for (uint64_t j = 0; j < n; j++) {
        const long long e = (long long)slot_offset(h, h->total + j) + (long long)h->record_bytes;
        if (e > end) end = e;
    }
    if (charge_to(r, end) != 0) {
        pthread_mutex_unlock(&r->mu);
        return;
    }
    /* the last slot's tail past the contacts is written too: zeros, not the last frame's bytes */
    memset(r->buf, 0, n * h->record_bytes);
    pack(f, h->fields, &r->shape, r->buf);
    /* the slots first, then the header that counts them: a crash between them loses one frame */
    int rc = 0;
    for (uint64_t j = 0; rc == 0 && j < n; j++)
        rc = write_all(r->fd, (const char *)r->buf + j * h->record_bytes, h->record_bytes, slot_offset(h, h->total + j));
    if (rc != 0) {
        fail(r, "cannot write the recording");
    } else {
        r->last = h->total;
        h->total += n;
        r->frames++;
        if (write_all(r->fd, h, sizeof *h, 0) != 0) fail(r, "cannot write the recording");
        if (r->frames == 1) r->first_t = f->t;
        else if (r->frames <= before) r->first_t = record_time(r, h->first); /* the ring dropped some */
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
        rc = replace_file(r) != 0 ? -1 : start_fresh(r, (int)r->h.points);
        if (rc) snprintf(err, errlen, "%s", r->error);
    } else if (r->state == REC_RECORDING || r->state == REC_OFF || (r->state == REC_FULL && o->ring) ||
               r->space_stop) {
        /* after the budget or the disk stopped it, the next frame tries again */
        r->state = o->enabled ? REC_RECORDING : REC_OFF;
        r->error[0] = '\0';
        r->space_stop = 0;
    }
    if (!relayout && r->frames) { /* a new rate's grid starts at the last frame */
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

const rod_frame *recording_shape(const recording *r)
{
    return &r->shape; /* set at open, never changed */
}

cJSON *recording_describe(recording *r)
{
    pthread_mutex_lock(&r->mu);
    cJSON *j = recording_opts_json(&r->o);
    const uint64_t frames = r->frames;
    cJSON_AddStringToObject(j, "state", state_names[r->state]);
    cJSON_AddNumberToObject(j, "frames", (double)frames);
    cJSON_AddNumberToObject(j, "bytes", (double)((r->h.total - r->h.first) * r->h.record_bytes));
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

/* The header of the file an export reads (its own descriptor fd), taken under mu so that no
 * frame is half written: the recording's current file, or one a new layout replaced, which no
 * longer changes. */
static int reader_header(recording *r, int fd, header *out)
{
    pthread_mutex_lock(&r->mu);
    const int rc = read_all(fd, out, sizeof *out, 0);
    pthread_mutex_unlock(&r->mu);
    return rc;
}

static void read_error(int rc, uint64_t k, char *err, size_t errlen)
{
    if (rc == -2)
        snprintf(err, errlen, "cannot read the recording: its file ends before frame slot %llu (damaged)",
                 (unsigned long long)k);
    else
        snprintf(err, errlen, "cannot read the recording: %s", strerror(errno));
}

/* A reader's view of the frame at slot k of its file fd: its slots read into *v (grown as
 * needed), or 0 when the ring passed it meanwhile (then *next is where the oldest frame now
 * is); -1 on a read error, -2 when the file went back in time (a reset or a restore rewound
 * it) while it was read. */
static int read_frame(recording *r, int fd, const header *h, uint64_t k, double **v, uint64_t *cap, uint64_t *next,
                      char *err, size_t errlen)
{
    uint64_t n = 1;
    for (int pass = 0; pass < 2; pass++) {
        /* the first slot, then (when it was not overwritten meanwhile, so its count holds) the rest */
        for (uint64_t j = pass ? 1 : 0; j < (pass ? n : 1); j++) {
            const int rc = read_all(fd, (char *)*v + j * h->record_bytes, h->record_bytes, slot_offset(h, k + j));
            if (rc != 0) {
                read_error(rc, k + j, err, errlen);
                return -1;
            }
        }
        header now;
        const int rc = reader_header(r, fd, &now);
        if (rc != 0) {
            read_error(rc, 0, err, errlen);
            return -1;
        }
        if (now.generation != h->generation) {
            snprintf(err, errlen, "the session went back in time during the export (a reset); ask again");
            return -2;
        }
        if (now.total > k + h->capacity) { /* its first slot was overwritten; later ones go later */
            *next = now.first > k ? now.first : k + 1;
            return 0;
        }
        if (pass) break;
        n = slots_for(h, &r->shape, mech_packed_contacts(&r->shape, *v + field_values(&r->shape, (int)h->points, h->fields)));
        if (n > h->capacity) {
            snprintf(err, errlen, "the recording is damaged: a frame of %llu slots", (unsigned long long)n);
            return -1;
        }
        if (n > *cap) {
            double *grown = realloc(*v, n * h->record_bytes);
            if (!grown) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            *v = grown;
            *cap = n;
        }
    }
    *next = k + n;
    return 1;
}

long recording_export(recording *r, export_format fmt, double from, double to, const char *spec_json,
                      const char *path, char *err, size_t errlen)
{
    /* its own descriptor of the file as it is now: a new layout (PATCH .../recording) replaces
     * the recording's file and leaves this one to the export, whole */
    pthread_mutex_lock(&r->mu);
    const header h = r->h;
    const int fd = fcntl(r->fd, F_DUPFD_CLOEXEC, 0);
    pthread_mutex_unlock(&r->mu);
    if (fd < 0) {
        snprintf(err, errlen, "cannot read the recording: %s", strerror(errno));
        return -1;
    }
    const export_meta meta = {(int)h.points, h.fields, spec_json, &r->shape};
    uint64_t cap = 1;
    double *v = malloc(h.record_bytes), *contacts = NULL;
    int *contact_rods = NULL;
    size_t contacts_cap = 0;
    rod_frame tmpl;
    const int have_tmpl = mech_shape_copy(&tmpl, &r->shape) == 0;
    export_writer *w = v && have_tmpl ? export_open(fmt, path, &meta, err, errlen) : NULL;
    if (!w) {
        if (!v || !have_tmpl) snprintf(err, errlen, "out of memory");
        close(fd);
        free(v);
        if (have_tmpl) rod_frame_free(&tmpl);
        return -1;
    }
    long n = 0;
    int rc = 0;
    for (uint64_t k = h.first, next; k < h.total && rc == 0; k = next) {
        const int got = read_frame(r, fd, &h, k, &v, &cap, &next, err, errlen);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got == 0 || v[0] < from || v[0] > to) continue; /* the ring passed it, or out of range */
        const int nc = mech_packed_contacts(&r->shape, v + field_values(&r->shape, (int)h.points, h.fields));
        if ((size_t)nc > contacts_cap) {
            double *grown = realloc(contacts, (size_t)nc * (size_t)mech_contact_values(&r->shape) * sizeof *grown);
            if (grown) contacts = grown;
            int *grown_rods = grown ? realloc(contact_rods, (size_t)nc * sizeof *grown_rods) : NULL;
            if (grown_rods) contact_rods = grown_rods;
            if (!grown || !grown_rods) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            contacts_cap = (size_t)nc;
        }
        rod_frame f;
        unpack(v, (int)h.points, h.fields, &r->shape, &tmpl, contacts, contact_rods, &f);
        if (export_frame(w, &f, err, errlen) != 0) rc = -1;
        else n++;
    }
    close(fd);
    free(v);
    free(contacts);
    free(contact_rods);
    for (int i = 0; i < tmpl.nrods; i++) memset(&tmpl.rods[i], 0, sizeof tmpl.rods[i]); /* their arrays were v's */
    rod_frame_free(&tmpl);
    if (rc != 0) {
        export_abort(w);
        return -1;
    }
    return export_close(w, NULL, NULL, err, errlen) == 0 ? n : -1;
}
