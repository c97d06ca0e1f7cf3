/* The HDF5 export: one float64 dataset per FRAME field, time-major (the first dimension is
 * the frame), extendible and chunked so frames are appended as they come; units and a
 * description on every dataset, the spec and the layout on the root. The mechanics are
 * groups: base/ (several rods: rods/NAME/base/ for each rod whose base moves), bodies/NAME/,
 * constraints/NAME/, and contacts/, a table of every frame's
 * contacts one row each (a frame has none to thousands: a fixed width would cut some frames
 * or pad all of them) with each row's frame and each frame's count. MATLAB's h5read shows
 * the dimensions reversed (position is 3 x points x frames there), as it does for any
 * row-major file.
 *
 * Frames are gathered per dataset and written a chunk at a time: one HDF5 write per frame
 * and dataset would cost more than computing the frame. A dataset is created when its first
 * chunk is written, so that its chunks are sized by what is written: a short export (all its
 * frames gathered when the file closes) is one chunk of exactly its frames, where a chunk
 * sized for a long one would store mostly padding. Chunks are compressed with HDF5's own
 * filters, shuffle then deflate (zlib), which h5py, MATLAB, Octave and jsfive read without
 * plug-ins (a filter they lack would make the file unreadable to them). Frames' float64
 * values have busy low mantissa bytes: deflate takes about 2.8x off them, shuffle moves that
 * by under 3% either way here, and does more for smooth or constant fields. */
#include "export_impl.h"
#include "frame_fields.h"
#include "frame_mech.h"

#include <hdf5.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_VERSION 1
#define CHUNK_BYTES (256 * 1024)
/* zlib's level. rodd run of 1000 frames of octopus-reaching (51 points, every field), CPU
 * seconds and file size: uncompressed 0.09 s, 9.6 MB; level 1 0.25 s, 3.64 MB; 4 0.32 s,
 * 3.46 MB; 6 0.65 s, 3.43 MB. Past 4 the bytes saved cost twice the time. */
#define DEFLATE_LEVEL 4
typedef struct {
    hid_t id;            /* -1 until the first chunk is written */
    char *path;          /* from the file's root, for the late creation */
    const char *units, *description; /* static strings */
    int integer;         /* int64 (counts and indices); else float64 */
    int rank;            /* 1 + the per-frame dimensions */
    hsize_t frame[3];    /* per-frame dimensions */
    size_t frame_values; /* values per frame */
    hsize_t written;     /* frames in the file */
    hsize_t chunk;       /* frames per chunk = frames gathered before a write */
    double *pending;     /* up to chunk frames not yet written (int64 ones bit-copied) */
    hsize_t npending;
} h5_set;

struct export_h5 {
    hid_t file;
    h5_set *sets;
    int nsets, cap;
    int set_of[FRAME_F_COUNT + 1]; /* dataset index by field bit index; [FRAME_F_COUNT] is t */
    int nrods;                     /* several rods: rods/NAME/FIELD, and then */
    int *rod_set;                  /* [rod * FRAME_F_COUNT + bit index]: each rod's per-point sets */
    int energy_set;                /* the first of energy's three datasets, or -1 */
    const rod_frame *shape;        /* the writer's; the mechanics' datasets follow in its order: */
    int mech_set;                  /* base position, rotation; each body's position; each
                                    * constraint's force, moment, point, target, violation (a
                                    * volume's pressure, violation); or -1 when none */
    int contact_set;               /* contacts' count, frame, s, point, force; or -1 */
    long long frames;              /* frames written: the next one's index in t */
    int in_memory;
    char detail[300];              /* HDF5's message for the first failure */
};

/* The innermost message of HDF5's error stack: the most specific one (for a file that
 * cannot be created, it names the system's error). */
static herr_t first_error(unsigned n, const H5E_error2_t *e, void *data)
{
    char *msg = data;
    if (n == 0 && e->desc) {
        snprintf(msg, 300, "%s", e->desc);
        for (char *c = msg; *c; c++)
            if (*c == '\n') *c = ' '; /* one line on stderr or in a problem */
    }
    return 0;
}

/* Keeps HDF5's message of a failure; called before any other HDF5 call, which would clear it. */
static void note_error(export_h5 *h)
{
    if (!h->detail[0]) H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_error, h->detail);
}

static void h5_error(export_h5 *h, char *err, size_t errlen, const char *what)
{
    note_error(h);
    snprintf(err, errlen, "HDF5: cannot %s%s%s", what, h->detail[0] ? ": " : "", h->detail);
}

static int attr_string(hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = -1;
    int rc = -1;
    if (type >= 0 && space >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 &&
        H5Tset_cset(type, H5T_CSET_UTF8) >= 0 &&
        (a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
        rc = H5Awrite(a, type, &value) >= 0 ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    return rc;
}

static int attr_int(hid_t obj, const char *name, long long value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = space >= 0 ? H5Acreate2(obj, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
    int rc = a >= 0 && H5Awrite(a, H5T_NATIVE_LLONG, &value) >= 0 ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    if (space >= 0) H5Sclose(space);
    return rc;
}

/* Declares an extendible dataset of frames x dims at where/name (created by create_set when
 * its first chunk is written); -1 on failure. units and description must be static. */
static int add_typed_set(export_h5 *h, hid_t where, const char *name, int integer, int ndims, const hsize_t *dims,
                         const char *units, const char *description)
{
    if (h->nsets == h->cap) {
        const int cap = h->cap ? 2 * h->cap : 16;
        h5_set *grown = realloc(h->sets, (size_t)cap * sizeof *grown);
        if (!grown) return -1;
        h->sets = grown;
        h->cap = cap;
    }
    h5_set *d = &h->sets[h->nsets];
    memset(d, 0, sizeof *d);
    d->id = -1;
    d->integer = integer;
    d->rank = 1 + ndims;
    d->frame_values = 1;
    d->units = units;
    d->description = description;
    for (int i = 0; i < ndims; i++) {
        d->frame[i] = dims[i];
        d->frame_values *= dims[i];
    }
    const hsize_t c = CHUNK_BYTES / (8 * d->frame_values);
    d->chunk = c < 1 ? 1 : c > 4096 ? 4096 : c;
    d->pending = malloc(d->chunk * d->frame_values * sizeof *d->pending);
    char at[512];
    const ssize_t n = H5Iget_name(where, at, sizeof at);
    const size_t len = n > 0 && (size_t)n < sizeof at ? (size_t)n + strlen(name) + 2 : 0;
    d->path = len ? malloc(len) : NULL;
    if (d->path) snprintf(d->path, len, "%s%s%s", at, strcmp(at, "/") ? "/" : "", name);
    h->nsets++; /* counted even when half made, so that closing frees it */
    if (!d->pending || !d->path) {
        if (n < 0) note_error(h);
        return -1;
    }
    return 0;
}

/* Creates the dataset with chunks of d->chunk frames, compressed where zlib is there. */
static int create_set(export_h5 *h, h5_set *d)
{
    hsize_t cur[4] = {0}, max[4] = {H5S_UNLIMITED}, chunk[4] = {d->chunk};
    for (int i = 1; i < d->rank; i++) cur[i] = max[i] = chunk[i] = d->frame[i - 1];
    hid_t space = H5Screate_simple(d->rank, cur, max);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int ok = space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, d->rank, chunk) >= 0;
    if (ok && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0)
        ok = H5Pset_shuffle(dcpl) >= 0 && H5Pset_deflate(dcpl, DEFLATE_LEVEL) >= 0;
    ok = ok &&
         (d->id = H5Dcreate2(h->file, d->path, d->integer ? H5T_STD_I64LE : H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl,
                             H5P_DEFAULT)) >= 0 &&
         attr_string(d->id, "units", d->units) == 0 && attr_string(d->id, "description", d->description) == 0;
    if (!ok) note_error(h);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return ok ? 0 : -1;
}

static int add_set(export_h5 *h, hid_t where, const char *name, int ndims, const hsize_t *dims, const char *units,
                   const char *description)
{
    return add_typed_set(h, where, name, 0, ndims, dims, units, description);
}

/* Writes the gathered frames of a dataset, creating it first: its chunk is then what was
 * gathered (a whole chunk, or every frame of a short export; at least one frame). */
static int flush_set(export_h5 *h, h5_set *d)
{
    if (d->id < 0) {
        if (d->npending < d->chunk) d->chunk = d->npending > 0 ? d->npending : 1;
        if (create_set(h, d) != 0) return -1;
    }
    if (d->npending == 0) return 0;
    hsize_t dims[4], start[4] = {d->written}, count[4] = {d->npending};
    dims[0] = d->written + d->npending;
    for (int i = 1; i < d->rank; i++) {
        dims[i] = count[i] = d->frame[i - 1];
        start[i] = 0;
    }
    if (H5Dset_extent(d->id, dims) < 0) {
        note_error(h);
        return -1;
    }
    hid_t file_space = H5Dget_space(d->id);
    hid_t mem_space = H5Screate_simple(d->rank, count, NULL);
    int rc = -1;
    if (file_space >= 0 && mem_space >= 0 &&
        H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
        H5Dwrite(d->id, d->integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, mem_space, file_space, H5P_DEFAULT,
                 d->pending) >= 0) {
        d->written += d->npending;
        d->npending = 0;
        rc = 0;
    } else {
        note_error(h);
    }
    if (mem_space >= 0) H5Sclose(mem_space);
    if (file_space >= 0) H5Sclose(file_space);
    return rc;
}

/* One row (a frame's, or a contact's) of values; v is int64_t for an integer dataset. */
static int append(export_h5 *h, int set, const void *v)
{
    h5_set *d = &h->sets[set];
    memcpy(d->pending + d->npending * d->frame_values, v, d->frame_values * sizeof *d->pending);
    d->npending++;
    return d->npending == d->chunk ? flush_set(h, d) : 0;
}

static const struct {
    const char *units, *description;
} field_doc[FRAME_F_COUNT] = {
    {"m", "arc length of each point in the reference configuration, base (0) to tip (L)"},
    {"m", "centreline position of each point in the base frame: [frame, point, xyz]"},
    {"1", "rotation of each cross-section: rotation[frame, point, a, b] = R_ab; the columns of R are "
          "the directors d1, d2, d3 in the base frame (d3 along the centreline at rest)"},
    {"1", "inflation ratio rho of the cross-section (1 everywhere for the classic model)"},
    {"m", "deformed radius rho * z(s)"},
    {"1/m", "angular strain kappa: bend1, bend2, twist, in the section frame"},
    {"1", "linear strain nu: shear1, shear2, stretch, in the section frame; (0, 0, 1) unstrained"},
    {"J", "energies"},
    {"1", "relative change of the rod's volume, Delta V / V0 (Sec. 5.2 of the GVS paper)"},
};

static const char layout[] =
    "float64 datasets with the frame as their first dimension (time-major); t holds each frame's "
    "simulation time. contacts/ is a table instead, a row per contact in frame order: contacts/frame "
    "(int64) is the row of t it belongs to (0-based), contacts/count[k] (int64) the rows of frame k";

static int write_root_attrs(export_h5 *h, const export_meta *meta)
{
    char fields[200] = "t";
    const rod_frame *sh = meta->shape;
    const char *mech[4] = {sh->base_moving ? "base" : NULL, sh->nbodies ? "bodies" : NULL,
                           sh->ncons ? "constraints" : NULL, sh->has_contacts ? "contacts" : NULL};
    for (int i = 0; i < FRAME_F_COUNT + 4; i++) {
        const char *name = i < FRAME_F_COUNT ? (meta->fields & (1u << i) ? frame_field_name(i) : NULL)
                                             : mech[i - FRAME_F_COUNT];
        if (!name) continue;
        strncat(fields, ",", sizeof fields - strlen(fields) - 1);
        strncat(fields, name, sizeof fields - strlen(fields) - 1);
    }
    return attr_string(h->file, "format", "rodd frames") || attr_int(h->file, "format_version", FORMAT_VERSION) ||
           attr_string(h->file, "rodd_version", ROD_VERSION) || attr_int(h->file, "points", meta->points) ||
           attr_string(h->file, "fields", fields) ||
           attr_string(h->file, "layout", layout) ||
           (meta->spec_json && attr_string(h->file, "spec", meta->spec_json))
               ? -1 : 0;
}

static hid_t group(hid_t where, const char *name, const char *description);

/* Several rods: a group rods/NAME per rod holding its per-point datasets, in the spec's order. */
static int rod_sets(export_h5 *h, const export_meta *meta)
{
    const rod_frame *sh = meta->shape;
    const hsize_t n = (hsize_t)meta->points;
    h->nrods = sh->nrods;
    h->rod_set = malloc((size_t)sh->nrods * FRAME_F_COUNT * sizeof *h->rod_set);
    if (!h->rod_set) return -1;
    hid_t g = group(h->file, "rods", "one group per rod of the model, by name, in the spec's order (attribute "
                                     "order); each holds the rod's per-point datasets");
    int rc = g < 0;
    char order[4096] = "";
    for (int r = 0; !rc && r < sh->nrods; r++) {
        hid_t rg = group(g, sh->rods[r].name, NULL);
        rc = rg < 0 || attr_int(rg, "index", r);
        for (int b = 0; !rc && b < FRAME_F_COUNT; b++) {
            const unsigned bit = 1u << b;
            const int w = frame_field_width(bit);
            h->rod_set[r * FRAME_F_COUNT + b] = -1;
            if (!w || !(meta->fields & bit)) continue;
            h->rod_set[r * FRAME_F_COUNT + b] = h->nsets;
            const hsize_t dims[3] = {n, w == 9 ? 3 : (hsize_t)w, 3};
            rc = add_set(h, rg, frame_field_name(b), w == 1 ? 1 : w == 3 ? 2 : 3, dims, field_doc[b].units,
                         field_doc[b].description);
        }
        if (rg >= 0) H5Gclose(rg);
        if (r) strncat(order, ",", sizeof order - strlen(order) - 1);
        strncat(order, sh->rods[r].name, sizeof order - strlen(order) - 1);
    }
    rc = rc || attr_string(g, "order", order);
    if (g >= 0) H5Gclose(g);
    return rc ? -1 : 0;
}

static int create_sets(export_h5 *h, const export_meta *meta)
{
    const hsize_t n = (hsize_t)meta->points;
    h->set_of[FRAME_F_COUNT] = h->nsets;
    if (add_set(h, h->file, "t", 0, NULL, "s", "simulation time of each frame")) return -1;
    for (int b = 0; b < FRAME_F_COUNT; b++) {
        const unsigned bit = 1u << b;
        h->set_of[b] = -1;
        if (!(meta->fields & bit)) continue;
        h->set_of[b] = h->nsets;
        const int w = frame_field_width(bit);
        const hsize_t dims[3] = {n, w == 9 ? 3 : (hsize_t)w, 3};
        const int ndims = w == 0 ? 0 : w == 1 ? 1 : w == 3 ? 2 : 3;
        if (bit == FRAME_F_ENERGY) {
            hid_t g = H5Gcreate2(h->file, "energy", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            if (g < 0) return -1;
            h->energy_set = h->nsets;
            int rc = attr_string(g, "description", "kinetic, elastic and gravitational energy of the rod") ||
                     add_set(h, g, "kinetic", 0, NULL, "J", "kinetic energy") ||
                     add_set(h, g, "elastic", 0, NULL, "J", "elastic (strain) energy") ||
                     add_set(h, g, "gravity", 0, NULL, "J", "gravitational potential energy (buoyancy "
                                                           "included), zero at the base's height");
            H5Gclose(g);
            if (rc) return -1;
            continue;
        }
        if (w && meta->shape && meta->shape->nrods) {
            h->set_of[b] = -1; /* in rods/NAME/ instead: rod_sets */
            continue;
        }
        if (add_set(h, h->file, frame_field_name(b), ndims, dims, field_doc[b].units, field_doc[b].description))
            return -1;
    }
    return meta->shape && meta->shape->nrods ? rod_sets(h, meta) : 0;
}

static hid_t group(hid_t where, const char *name, const char *description)
{
    hid_t g = H5Gcreate2(where, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g >= 0 && description && attr_string(g, "description", description) != 0) {
        H5Gclose(g);
        return -1;
    }
    return g;
}

static int pose_sets(export_h5 *h, hid_t g)
{
    static const hsize_t three[1] = {3};
    return add_set(h, g, "force", 1, three, "N", "reaction force on the rod, world frame: [frame, xyz]") ||
           add_set(h, g, "moment", 1, three, "N m", "reaction moment on the rod, world frame: [frame, xyz]") ||
           add_set(h, g, "point", 1, three, "m", "where the constrained point is, world frame: [frame, xyz]") ||
           add_set(h, g, "target", 1, three, "m", "where it is held (the point's own component where one is free)") ||
           add_set(h, g, "violation", 0, NULL, "m or rad", "how far the constraint is from being met: the largest "
                                                          "held component");
}

/* The mechanics' datasets, in the order export_h5_frame appends to them. */
static int create_mech_sets(export_h5 *h, const rod_frame *sh)
{
    static const hsize_t three[1] = {3}, rot[2] = {3, 3};
    h->mech_set = h->contact_set = -1;
    if (sh->base_moving || sh->nbodies || sh->ncons || mech_rod_bases(sh)) h->mech_set = h->nsets;
    int rc = 0;
    /* the model's base, then (several rods) each rod's that moves as rods/NAME/base */
    for (int r = -1; !rc && r < sh->nrods; r++) {
        if (r < 0 ? !sh->base_moving : !sh->rods[r].base_moving) continue;
        hid_t rg = r < 0 ? h->file : H5Gopen2(h->file, "rods", H5P_DEFAULT);
        hid_t parent = r < 0 ? rg : rg >= 0 ? H5Gopen2(rg, sh->rods[r].name, H5P_DEFAULT) : -1;
        hid_t g = parent >= 0 ? group(parent, "base", r < 0 ? "the pose of the rod's base (a moving or free base)"
                                                            : "the pose of this rod's base (a joined rod's is free)")
                              : -1;
        rc = g < 0 || add_set(h, g, "position", 1, three, "m", "the base's position, world frame: [frame, xyz]") ||
             add_set(h, g, "rotation", 2, rot, "1", "the base's rotation: rotation[frame, a, b] = R_ab, its columns "
                                                    "the base's d1, d2, d3 in the world frame");
        if (g >= 0) H5Gclose(g);
        if (r >= 0 && parent >= 0) H5Gclose(parent);
        if (r >= 0 && rg >= 0) H5Gclose(rg);
    }
    if (!rc && sh->nbodies) {
        hid_t g = group(h->file, "bodies", "rigid bodies attached to the rod, by name");
        rc = g < 0;
        for (int i = 0; !rc && i < sh->nbodies; i++) {
            hid_t b = group(g, sh->bodies[i].name, NULL);
            rc = b < 0 || add_set(h, b, "position", 1, three, "m", "the body's centre of mass, world frame: [frame, xyz]");
            if (b >= 0) H5Gclose(b);
        }
        if (g >= 0) H5Gclose(g);
    }
    if (!rc && sh->ncons) {
        hid_t g = group(h->file, "constraints", "constraints by name: a pose's reaction, or a volume's pressure");
        rc = g < 0;
        for (int i = 0; !rc && i < sh->ncons; i++) {
            hid_t c = group(g, sh->cons[i].name, NULL);
            rc = c < 0 || attr_string(c, "kind", sh->cons[i].volume ? "volume" : "pose");
            if (!rc && sh->cons[i].volume)
                rc = add_set(h, c, "pressure", 0, NULL, "Pa", "the hydrostat's pressure: the multiplier (or penalty "
                                                             "force) over the reference volume") ||
                     add_set(h, c, "violation", 0, NULL, "1", "relative volume error");
            else if (!rc)
                rc = pose_sets(h, c);
            if (c >= 0) H5Gclose(c);
        }
        if (g >= 0) H5Gclose(g);
    }
    if (!rc && sh->has_contacts) {
        hid_t g = group(h->file, "contacts", "one row per contact of a touching point with an obstacle (two per "
                                             "self-contact pair), frame by frame");
        h->contact_set = h->nsets;
        rc = g < 0 || add_typed_set(h, g, "count", 1, 0, NULL, "1", "contacts of each frame: [frame]") ||
             add_typed_set(h, g, "frame", 1, 0, NULL, "1", "the frame (row of t, 0-based) of each contact") ||
             add_set(h, g, "s", 0, NULL, "m", "arc length of the touching point on the rod") ||
             add_set(h, g, "point", 1, three, "m", "where it touches, world frame: [contact, xyz]") ||
             add_set(h, g, "force", 1, three, "N", "the contact's force on the rod, world frame: [contact, xyz]") ||
             (sh->nrods && add_typed_set(h, g, "rod", 1, 0, NULL, "1", "the rod (its index in rods/' order) whose "
                                                                     "point touches"));
        if (g >= 0) H5Gclose(g);
    }
    return rc ? -1 : 0;
}

export_h5 *export_h5_open(const char *path, const export_meta *meta, char *err, size_t errlen)
{
    static atomic_uint memory_files;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors come back as messages, not on stderr */
    export_h5 *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    h->file = -1;
    h->energy_set = h->mech_set = h->contact_set = -1;
    h->in_memory = path == NULL;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    char name[64];
    if (h->in_memory) {
        /* the core driver without a backing store; the name only tells open files apart */
        snprintf(name, sizeof name, "rodd-memory-%u.h5", atomic_fetch_add(&memory_files, 1));
        path = name;
        if (fapl >= 0 && H5Pset_fapl_core(fapl, 1 << 20, 0) < 0) {
            H5Pclose(fapl);
            fapl = -1;
        }
    }
    if (fapl >= 0) h->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (h->file < 0) { /* read the error stack before the next call clears it */
        char what[300];
        snprintf(what, sizeof what, "create %s", h->in_memory ? "a file in memory" : path);
        h5_error(h, err, errlen, what);
    }
    if (fapl >= 0) H5Pclose(fapl);
    if (h->file < 0) {
        export_h5_abort(h);
        return NULL;
    }
    h->shape = meta->shape;
    if (write_root_attrs(h, meta) != 0 || create_sets(h, meta) != 0 || create_mech_sets(h, meta->shape) != 0) {
        h5_error(h, err, errlen, "lay out the file");
        export_h5_abort(h);
        return NULL;
    }
    return h;
}

static int mech_frame(export_h5 *h, const rod_frame *f)
{
    int k = h->mech_set, rc = 0;
    if (k >= 0 && f->base_moving) rc = append(h, k++, f->base_position) || append(h, k++, f->base_rotation);
    for (int r = 0; !rc && k >= 0 && r < h->shape->nrods; r++)
        if (h->shape->rods[r].base_moving)
            rc = append(h, k++, f->rods[r].base_position) || append(h, k++, f->rods[r].base_rotation);
    for (int i = 0; !rc && k >= 0 && i < f->nbodies; i++) rc = append(h, k++, f->bodies[i].position);
    for (int i = 0; !rc && k >= 0 && i < f->ncons; i++) {
        const rod_frame_constraint *c = &f->cons[i];
        if (c->volume)
            rc = append(h, k++, &c->pressure);
        else
            rc = append(h, k++, c->force) || append(h, k++, c->moment) || append(h, k++, c->point) ||
                 append(h, k++, c->target);
        rc = rc || append(h, k++, &c->violation);
    }
    if (!rc && h->contact_set >= 0) {
        const int c = h->contact_set;
        const int64_t count = f->ncontacts, frame = h->frames;
        rc = append(h, c, &count);
        for (int i = 0; !rc && i < f->ncontacts; i++)
        {
            const int64_t rod = f->contact_rod ? f->contact_rod[i] : 0;
            rc = append(h, c + 1, &frame) || append(h, c + 2, f->contact_s + i) || append(h, c + 3, f->contact_point + 3 * i) ||
                 append(h, c + 4, f->contact_force + 3 * i) || (h->nrods && append(h, c + 5, &rod));
        }
    }
    if (!rc) h->frames++;
    return rc;
}

int export_h5_frame(export_h5 *h, const rod_frame *f, char *err, size_t errlen)
{
    int rc = append(h, h->set_of[FRAME_F_COUNT], &f->t);
    const double *per_point[FRAME_F_COUNT] = {f->s, f->position, f->rotation, f->rho, f->radius, f->kappa, f->nu};
    for (int b = 0; !rc && b < FRAME_F_COUNT; b++) {
        if (h->set_of[b] < 0) continue;
        if (per_point[b]) rc = append(h, h->set_of[b], per_point[b]);
    }
    for (int r = 0; !rc && r < h->nrods && r < f->nrods; r++)
        for (int b = 0; !rc && b < FRAME_F_COUNT; b++) {
            const int set = h->rod_set[r * FRAME_F_COUNT + b];
            if (set >= 0) rc = append(h, set, frame_field_values(&f->rods[r], 1u << b));
        }
    if (!rc && h->energy_set >= 0)
        rc = append(h, h->energy_set, &f->e_kinetic) || append(h, h->energy_set + 1, &f->e_elastic) ||
             append(h, h->energy_set + 2, &f->e_gravity);
    const int volume = FRAME_F_COUNT - 1; /* volume_change is the last field */
    if (!rc && h->set_of[volume] >= 0) rc = append(h, h->set_of[volume], &f->volume_change);
    if (!rc) rc = mech_frame(h, f);
    if (rc) h5_error(h, err, errlen, "write a frame");
    return rc ? -1 : 0;
}

static void free_sets(export_h5 *h)
{
    for (int i = 0; i < h->nsets; i++) {
        if (h->sets[i].id >= 0) H5Dclose(h->sets[i].id);
        free(h->sets[i].pending);
        free(h->sets[i].path);
    }
    free(h->sets);
    free(h->rod_set);
    h->rod_set = NULL;
    h->nrods = 0;
    h->sets = NULL;
    h->nsets = h->cap = 0;
}

int export_h5_close(export_h5 *h, char **image, size_t *len, char *err, size_t errlen)
{
    int rc = 0;
    for (int i = 0; !rc && i < h->nsets; i++) rc = flush_set(h, &h->sets[i]);
    if (rc) h5_error(h, err, errlen, "write the last frames");
    free_sets(h);
    if (!rc && image) {
        ssize_t n = H5Fflush(h->file, H5F_SCOPE_LOCAL) >= 0 ? H5Fget_file_image(h->file, NULL, 0) : -1;
        char *buf = n > 0 ? malloc((size_t)n) : NULL;
        if (!buf || H5Fget_file_image(h->file, buf, (size_t)n) != n) {
            if (n > 0 && !buf)
                snprintf(err, errlen, "out of memory for a %zd-byte file", n);
            else
                h5_error(h, err, errlen, "take the file's image");
            free(buf);
            rc = -1;
        } else {
            *image = buf;
            *len = (size_t)n;
        }
    }
    if (H5Fclose(h->file) < 0 && !rc) {
        h5_error(h, err, errlen, "close the file");
        rc = -1;
    }
    free(h);
    return rc;
}

void export_h5_abort(export_h5 *h)
{
    if (!h) return;
    free_sets(h);
    if (h->file >= 0) H5Fclose(h->file);
    free(h);
}
