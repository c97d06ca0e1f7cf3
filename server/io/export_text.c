/* The text exports. Numbers carry 10 significant digits, as the JSON frames do: far below any
 * physical uncertainty of the model, and the HDF5 export keeps every bit for who needs it.
 *
 * CSV is the long form: a header, then one row per frame and point, base to tip, with the
 * frame's own values (energies, volume change, a moving base's pose, the bodies and the
 * constraints) repeated on each of its rows, so every row stands alone for a spreadsheet or a
 * data frame's group-by; a model with contact adds a row per contact after its frame's points
 * (README.md's "Exports"). A model of several rods adds a column "rod" (the rod's name) after
 * t: its rows are rod by rod, each rod's points base to tip, and a contact's row names the rod
 * it touches; where any rod's base moves (a joined rod's is free) the base columns hold the
 * row's rod's base, empty for a rod whose base is fixed and on a contact's row. */
#include "export_impl.h"
#include "frame_codec.h"
#include "frame_fields.h"
#include "frame_mech.h"
#include "rod_text.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* non-finite values as printf writes them: "nan", "inf", "-inf" */
static void num(codec_buf *o, double v)
{
    char text[32];
    codec_put(o, text, rod_format_g10(text, v));
}

static void put_int(codec_buf *o, int i)
{
    char text[16];
    codec_put(o, text, (size_t)snprintf(text, sizeof text, ",%d", i));
}

static const char *const csv_columns[FRAME_F_COUNT] = {
    "s",
    "x,y,z",
    "r11,r12,r13,r21,r22,r23,r31,r32,r33",
    "rho",
    "radius",
    "kappa1,kappa2,kappa3",
    "nu1,nu2,nu3",
    "e_kinetic,e_elastic,e_gravity",
    "volume_change",
};

/* The mechanics' columns, after the fields': dotted paths of the FRAME's keys (names are
 * letters, digits, '_', '-', '.': nothing to quote). */
static void csv_mech_header(FILE *o, const rod_frame *sh)
{
    static const char *const xyz = "xyz";
    if (sh->base_moving || mech_rod_bases(sh)) {
        fputs(",base.x,base.y,base.z", o);
        for (int a = 1; a <= 3; a++)
            for (int b = 1; b <= 3; b++) fprintf(o, ",base.r%d%d", a, b);
    }
    for (int i = 0; i < sh->nbodies; i++)
        for (int a = 0; a < 3; a++) fprintf(o, ",bodies.%s.%c", sh->bodies[i].name, xyz[a]);
    for (int i = 0; i < sh->ncons; i++) {
        const char *n = sh->cons[i].name;
        if (sh->cons[i].volume) {
            fprintf(o, ",constraints.%s.pressure", n);
        } else {
            static const char *const vec[] = {"force", "moment", "point", "target"};
            for (int k = 0; k < 4; k++)
                for (int a = 0; a < 3; a++) fprintf(o, ",constraints.%s.%s_%c", n, vec[k], xyz[a]);
        }
        fprintf(o, ",constraints.%s.violation", n);
    }
    if (sh->has_contacts)
        fputs(",contact,contacts.s,contacts.x,contacts.y,contacts.z,contacts.force_x,contacts.force_y,contacts.force_z", o);
}

int export_csv_header(export_writer *w)
{
    fputs(w->shape.nrods ? "t,rod,point" : "t,point", w->out); /* several rods: whose point */
    for (int i = 0; i < FRAME_F_COUNT; i++)
        if (w->meta.fields & (1u << i)) fprintf(w->out, ",%s", csv_columns[i]);
    csv_mech_header(w->out, &w->shape);
    fputc('\n', w->out);
    return ferror(w->out) ? -1 : 0;
}

static void csv_nums(codec_buf *o, const double *v, int n)
{
    for (int k = 0; k < n; k++) {
        codec_put(o, ",", 1);
        num(o, v[k]);
    }
}

/* The frame's own values: energies, volume change, the mechanics but for its contacts.
 * Several rods whose bases move (rod_bases): the base columns hold the row's rod's (rod; NULL
 * on a contact's row). */
static void csv_frame_values(codec_buf *o, unsigned mask, const rod_frame *f, int rod_bases, const rod_frame *rod)
{
    if (mask & FRAME_F_ENERGY) {
        const double e[3] = {f->e_kinetic, f->e_elastic, f->e_gravity};
        csv_nums(o, e, 3);
    }
    if (mask & FRAME_F_VOLUME) csv_nums(o, &f->volume_change, 1);
    if (f->base_moving) {
        csv_nums(o, f->base_position, 3);
        csv_nums(o, f->base_rotation, 9);
    } else if (rod_bases) { /* several rods: the row's rod's base, empty where it is fixed */
        if (rod && rod->base_moving) {
            csv_nums(o, rod->base_position, 3);
            csv_nums(o, rod->base_rotation, 9);
        } else {
            codec_str(o, ",,,,,,,,,,,,");
        }
    }
    for (int i = 0; i < f->nbodies; i++) csv_nums(o, f->bodies[i].position, 3);
    for (int i = 0; i < f->ncons; i++) {
        const rod_frame_constraint *c = &f->cons[i];
        if (c->volume) {
            csv_nums(o, &c->pressure, 1);
        } else {
            csv_nums(o, c->force, 3);
            csv_nums(o, c->moment, 3);
            csv_nums(o, c->point, 3);
            csv_nums(o, c->target, 3);
        }
        csv_nums(o, &c->violation, 1);
    }
}

/* The rows of a frame: one per point, then (models with contact) one per contact, whose
 * point and per-point columns are empty as the points' contact columns are. Every row has
 * the frame's own values, so that each stands alone. The frame's rows are made in memory
 * kept from frame to frame and written at once: a character at a time through stdio cost
 * more than making the numbers. */
int export_csv_frame(export_writer *w, const rod_frame *f)
{
    codec_buf *o = &w->line;
    o->len = 0;
    o->oom = 0;
    const unsigned mask = w->meta.fields;
    const int rod_bases = mech_rod_bases(&w->shape) > 0;
    int per_point = 0; /* columns of the per-point fields */
    for (int b = 0; b < FRAME_F_COUNT; b++)
        if (mask & (1u << b)) per_point += frame_field_width(1u << b);
    for (int r = 0; r < (f->nrods ? f->nrods : 1); r++) {
        const rod_frame *rod = f->nrods ? &f->rods[r] : f;
        for (int i = 0; i < rod->n; i++) {
            num(o, f->t);
            if (f->nrods) {
                codec_put(o, ",", 1);
                codec_str(o, rod->name);
            }
            put_int(o, i);
            for (int b = 0; b < FRAME_F_COUNT; b++) {
                const unsigned bit = 1u << b;
                if (!(mask & bit)) continue;
                const int width = frame_field_width(bit);
                if (width) csv_nums(o, frame_field_values(rod, bit) + (size_t)width * i, width);
            }
            csv_frame_values(o, mask, f, rod_bases, f->nrods ? rod : NULL);
            if (f->has_contacts) codec_str(o, ",,,,,,,,");
            codec_put(o, "\n", 1);
        }
    }
    for (int j = 0; j < f->ncontacts; j++) {
        num(o, f->t);
        if (f->nrods) { /* the rod the contact's point is on */
            const int r = f->contact_rod ? f->contact_rod[j] : -1;
            codec_put(o, ",", 1);
            codec_str(o, r >= 0 && r < f->nrods ? f->rods[r].name : "");
        }
        codec_put(o, ",", 1);
        for (int k = 0; k < per_point; k++) codec_put(o, ",", 1);
        csv_frame_values(o, mask, f, rod_bases, NULL);
        put_int(o, j);
        csv_nums(o, f->contact_s + j, 1);
        csv_nums(o, f->contact_point + 3 * j, 3);
        csv_nums(o, f->contact_force + 3 * j, 3);
        codec_put(o, "\n", 1);
    }
    if (o->oom) return -1;
    fwrite(o->b, 1, o->len, w->out);
    return ferror(w->out) ? -1 : 0;
}

/* The line at once and flushed, so that a reader of a pipe gets each frame as it is made: one
 * write(2) where out has a descriptor, as stdio splits a line longer than its buffer (a
 * reaching frame is 8 KB, the buffer 4) into three. */
static int write_line(FILE *out, const char *p, size_t n)
{
    const int fd = fileno(out);
    if (fd < 0) return fwrite(p, 1, n, out) == n && fflush(out) == 0 ? 0 : -1; /* in memory */
    if (fflush(out) != 0) return -1; /* what stdio holds goes first */
    while (n > 0) {
        const ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* One FRAME per line: the fields chosen, in the FRAME's order and shapes, and the mechanics. */
int export_ndjson_frame(export_writer *w, const rod_frame *f)
{
    codec_buf *b = &w->line;
    b->len = 0;
    b->oom = 0;
    frame_codec_json(b, f, w->meta.fields, 1, NULL);
    codec_put(b, "\n", 1);
    return b->oom ? -1 : write_line(w->out, b->b, b->len);
}
