/* The objective's expression through muparser's C API; its variables point into the
 * objective's own arrays, filled before each evaluation. */
#include "optim_objective.h"

#include <ctype.h>
#include <math.h>
#include <muParserDLL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const optim_quantity_names[Q_COUNT] = {
    "tip_x", "tip_y", "tip_z", "com_x", "com_y", "com_z", "com_vx", "com_vy", "com_vz",
    "energy_elastic", "energy_kinetic", "volume_change", "effort"};

struct optim_objective {
    muParserHandle_t h;
    int nparams;
    double q[Q_MAX];
    double *p;
    int uses[Q_MAX];
};

void optim_param_name(const char *path, char *out, size_t len)
{
    size_t i = 0;
    for (; path[i] && i + 1 < len; i++) out[i] = isalnum((unsigned char)path[i]) || path[i] == '_' ? path[i] : '_';
    out[i] = '\0';
}

void optim_objective_free(optim_objective *o)
{
    if (!o) return;
    if (o->h) mupRelease(o->h);
    free(o->p);
    free(o);
}

optim_objective *optim_objective_create(const char *expr, const char *const *paths, int nparams,
                                        const char *const *rods, int nrods, char *err, size_t errlen)
{
    optim_objective *o = calloc(1, sizeof *o);
    if (o) o->p = calloc((size_t)(nparams > 0 ? nparams : 1), sizeof(double));
    if (o && o->p) o->h = mupCreate(muBASETYPE_FLOAT);
    if (!o || !o->p || !o->h) {
        snprintf(err, errlen, "out of memory");
        optim_objective_free(o);
        return NULL;
    }
    o->nparams = nparams;
    for (int i = 0; i < Q_COUNT; i++) mupDefineVar(o->h, optim_quantity_names[i], &o->q[i]);
    /* each rod's NAME.tip_x ..: '.' joins the names' characters (numbers still read first) */
    mupDefineNameChars(o->h, "0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.");
    for (int r = 0; rods && r < nrods && r < OPTIM_MAX_RODS; r++)
        for (int i = 0; i < Q_ROD_COUNT; i++) {
            char name[200], rod[100];
            optim_param_name(rods[r], rod, sizeof rod);
            snprintf(name, sizeof name, "%s.%s", rod, optim_quantity_names[i]);
            mupDefineVar(o->h, name, &o->q[Q_COUNT + Q_ROD_COUNT * r + i]);
        }
    for (int i = 0; i < nparams; i++) {
        char name[300];
        snprintf(name, sizeof name, "p%d", i);
        mupDefineVar(o->h, name, &o->p[i]);
        optim_param_name(paths[i], name, sizeof name);
        mupDefineVar(o->h, name, &o->p[i]);
    }
    mupSetExpr(o->h, expr);
    mupEval(o->h);
    if (mupError(o->h)) {
        char text[256];
        snprintf(text, sizeof text, "%s", mupGetErrorMsg(o->h));
        snprintf(err, errlen, "%s (names: tip_x..z, com_x..z, com_vx..vz, energy_elastic, energy_kinetic, "
                 "volume_change, effort, p0..p%d or each --vary PATH with '.' as '_'%s)", text, nparams - 1,
                 nrods ? "; each rod's ROD.tip_x .. ROD.com_vz" : "");
        optim_objective_free(o);
        return NULL;
    }
    int nv = mupGetExprVarNum(o->h);
    for (int i = 0; i < nv; i++) {
        const char *name = NULL;
        double *ptr = NULL;
        mupGetExprVar(o->h, (unsigned)i, &name, &ptr);
        for (int k = 0; k < Q_MAX; k++)
            if (ptr == &o->q[k]) o->uses[k] = 1;
    }
    return o;
}

int optim_objective_uses(const optim_objective *o, int quantity) { return o->uses[quantity]; }

double optim_objective_eval(optim_objective *o, const double *q, const double *p)
{
    memcpy(o->q, q, sizeof o->q);
    if (o->nparams) memcpy(o->p, p, sizeof(double) * o->nparams);
    double v = mupEval(o->h);
    return mupError(o->h) || !isfinite(v) ? NAN : v;
}
