/* rodd optimize's objective: an expression (muparser, as the spec's profiles) over the named
 * quantities of one run and the varied parameters. A parameter is named p0, p1, ... in --vary
 * order, and by its PATH with every character that is not a letter, digit or '_' made '_'
 * (rod.youngs_modulus -> rod_youngs_modulus; actuators.0.tension -> actuators_0_tension):
 * muparser's names cannot hold dots. Not thread-safe: one objective per thread. */
#ifndef RODD_OPTIM_OBJECTIVE_H
#define RODD_OPTIM_OBJECTIVE_H

#include <stddef.h>

enum {
    Q_TIP_X, Q_TIP_Y, Q_TIP_Z, Q_COM_X, Q_COM_Y, Q_COM_Z, Q_COM_VX, Q_COM_VY, Q_COM_VZ,
    Q_ENERGY_ELASTIC, Q_ENERGY_KINETIC, Q_VOLUME_CHANGE, Q_EFFORT, Q_COUNT
};
extern const char *const optim_quantity_names[Q_COUNT];
/* A model of several rods: tip_* and com_* are the first rod's, and each rod NAME has its own
 * as NAME.tip_x .. NAME.com_vz: the first Q_ROD_COUNT quantities (Q_TIP_X .. Q_COM_VZ) at
 * q[Q_COUNT + Q_ROD_COUNT * r] for rod r of the spec's order (r < OPTIM_MAX_RODS). */
#define Q_ROD_COUNT 9
#define OPTIM_MAX_RODS 64
#define Q_MAX (Q_COUNT + Q_ROD_COUNT * OPTIM_MAX_RODS)

typedef struct optim_objective optim_objective;

/* Compiles expr over the quantities, the nrods rods' (names: NULL for one rod) and the
 * nparams parameters' paths; NULL with a message naming the unknown name (and the known
 * ones) in err. */
optim_objective *optim_objective_create(const char *expr, const char *const *paths, int nparams,
                                        const char *const *rods, int nrods, char *err, size_t errlen);
void optim_objective_free(optim_objective *o);
/* The value at quantities q[Q_MAX] and parameters p[nparams]; NaN when not finite. */
double optim_objective_eval(optim_objective *o, const double *q, const double *p);
/* Whether the expression reads a quantity (1) or not (0): a dynamics-only quantity in a
 * statics run is refused before any evaluation. */
int optim_objective_uses(const optim_objective *o, int quantity);
/* The muparser name of a PATH (see above) into out. */
void optim_param_name(const char *path, char *out, size_t len);

#endif
