/* Multi-rod frames built by hand: see rods_frame.h. */
#include "rods_frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *alloc(size_t n)
{
    void *p = calloc(n ? n : 1, 1);
    if (!p) abort();
    return p;
}

static void fill_rod(rod_frame *r, const char *name, int i, int n, double t)
{
    snprintf(r->name, sizeof r->name, "%s", name);
    r->n = n;
    r->t = t;
    r->s = alloc((size_t)n * sizeof *r->s);
    r->position = alloc((size_t)3 * n * sizeof *r->position);
    r->rotation = alloc((size_t)9 * n * sizeof *r->rotation);
    r->rho = alloc((size_t)n * sizeof *r->rho);
    r->radius = alloc((size_t)n * sizeof *r->radius);
    r->kappa = alloc((size_t)3 * n * sizeof *r->kappa);
    r->nu = alloc((size_t)3 * n * sizeof *r->nu);
    for (int k = 0; k < n; k++) {
        r->s[k] = k / 10.0;
        r->position[3 * k] = i;
        r->position[3 * k + 1] = k;
        r->position[3 * k + 2] = 0.5 * t;
        for (int a = 0; a < 3; a++) r->rotation[9 * k + 4 * a] = 1;
        r->rho[k] = 1 + i / 10.0;
        r->radius[k] = 0.01 * (1 + i / 10.0);
        r->kappa[3 * k] = 0.1 * i;
        r->kappa[3 * k + 1] = 0.01 * k;
        r->kappa[3 * k + 2] = 1.0 / 3.0;
        r->nu[3 * k + 2] = 1;
    }
}

rod_frame rf_shape(int nrods, const char *const *names, const int *points, int contacts)
{
    (void)points;
    rod_frame f;
    memset(&f, 0, sizeof f);
    f.nrods = nrods;
    f.rods = alloc((size_t)nrods * sizeof *f.rods);
    for (int i = 0; i < nrods; i++) snprintf(f.rods[i].name, sizeof f.rods[i].name, "%s", names[i]);
    f.nbodies = 2;
    f.bodies = alloc(2 * sizeof *f.bodies);
    snprintf(f.bodies[0].name, sizeof f.bodies[0].name, "hub");
    snprintf(f.bodies[1].name, sizeof f.bodies[1].name, "%s.tip_mass", names[0]);
    if (nrods > 1) {
        f.ncons = 1;
        f.cons = alloc(sizeof *f.cons);
        snprintf(f.cons[0].name, sizeof f.cons[0].name, "%s.base", names[1]);
    }
    f.has_contacts = contacts;
    return f;
}

rod_frame rf_build(double t, int nrods, const char *const *names, const int *points, int contacts)
{
    rod_frame f = rf_shape(nrods, names, points, contacts);
    f.t = t;
    for (int i = 0; i < nrods; i++) {
        fill_rod(&f.rods[i], names[i], i, points[i], t);
        f.rods[i].t = t;
    }
    f.e_kinetic = 1.5;
    f.e_elastic = 0.25;
    f.e_gravity = -2;
    f.bodies[0].position[2] = -0.1;
    f.bodies[1].position[1] = points[0] - 1;
    if (f.ncons) {
        f.cons[0].force[0] = 3;
        f.cons[0].moment[1] = -0.5;
        f.cons[0].point[0] = 0;
        f.cons[0].target[0] = 0;
        f.cons[0].violation = 1e-9;
    }
    if (contacts) {
        f.ncontacts = 2;
        f.contact_s = alloc(2 * sizeof(double));
        f.contact_point = alloc(6 * sizeof(double));
        f.contact_force = alloc(6 * sizeof(double));
        f.contact_rod = alloc(2 * sizeof(int));
        for (int j = 0; j < 2; j++) {
            f.contact_s[j] = 0.1 * (j + 1);
            f.contact_point[3 * j] = nrods - 1;
            f.contact_point[3 * j + 1] = j + 1;
            f.contact_force[3 * j] = -1.0 - j;
            f.contact_rod[j] = nrods - 1;
        }
    }
    return f;
}
