#include "authors.h"

#include "quad.h"

#include <math.h>
#include <stdlib.h>

int authors_stations(rod_model *m)
{
    const rod_spec *sp = m->spec;
    const double L = m->L;
    const int ng = sp->points > 0 ? sp->points : AUTHORS_GAUSS_POINTS;
    const int cap = ng + 2 + sp->nloads;
    m->s = malloc((size_t)cap * sizeof *m->s);
    m->w = malloc((size_t)cap * sizeof *m->w);
    if (!m->s || !m->w) return -1;
    int n = 0;
    m->s[n] = 0.0;
    m->w[n++] = 0.0;
    quad_gauss_legendre(ng, 0.0, L, m->s + n, m->w + n);
    n += ng;
    m->s[n] = L;
    m->w[n++] = 0.0;
    /* a point load needs a station of its own: insert it with zero weight (their Xadd) */
    for (int l = 0; l < sp->nloads; l++) {
        const double x = sp->loads[l].s;
        int at = 0;
        while (at < n && m->s[at] < x) at++;
        if ((at < n && fabs(m->s[at] - x) <= 1e-12 * L) || (at > 0 && fabs(m->s[at - 1] - x) <= 1e-12 * L))
            continue;
        for (int j = n; j > at; j--) {
            m->s[j] = m->s[j - 1];
            m->w[j] = m->w[j - 1];
        }
        m->s[at] = x;
        m->w[at] = 0.0;
        n++;
    }
    m->ns = n;
    m->ngauss = ng;
    return 0;
}
