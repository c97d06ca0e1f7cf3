/* One rodd optimize problem: the spec, its fixed --set values and the varied parameters, the
 * checks made before any run, and one evaluation (a run and its named quantities). Each call
 * builds its own model and state from the spec file, so evaluations run on any thread. */
#ifndef RODD_OPTIM_PROBLEM_H
#define RODD_OPTIM_PROBLEM_H

#include "optim_objective.h"
#include "rod.h"

#include <stddef.h>

#define OPTIM_MAX_VARY 32
#define OPTIM_MAX_TIED 8

typedef struct {
    char text[512];               /* the PATH part as given, cut at its commas */
    char *paths[OPTIM_MAX_TIED];  /* into text: the paths tied to this value */
    int npaths;
    double lo, hi;
} optim_vary;

typedef struct {
    const char *spec_path;
    const char *sets[64];        /* --set PATH=VALUE, borrowed */
    int nsets;
    optim_vary v[OPTIM_MAX_VARY];
    int n;
    double until, from;          /* until 0: statics */
    int nrods;                   /* several rods (optim_problem_check_paths): their names, else 0 */
    char rod_names[OPTIM_MAX_RODS][72];
    const char *rods[OPTIM_MAX_RODS]; /* into rod_names, for the objective */
} optim_problem;

enum { OPTIM_OK, OPTIM_BAD_SPEC, OPTIM_FAILED, OPTIM_NO_CONVERGENCE };
extern const char *const optim_status_names[4];

/* Adds "PATH[,PATH...]=LO:HI"; -1 with the reason on stderr. */
int optim_problem_add_vary(optim_problem *o, const char *arg);
/* The unit box's u (mapped by reflection) to the parameters' values x. */
void optim_problem_physical(const optim_problem *o, const double *u, double *x);
/* The model at parameter values x (NULL and iss filled when it does not validate). */
rod_model *optim_problem_load(const optim_problem *o, const double *x, rod_issues *iss);
/* Every PATH exists in the spec and holds a number: EXIT_OK, or an EXIT_* with the reason on
 * stderr. Notes the rods of a model of several (nrods, rods). */
int optim_problem_check_paths(optim_problem *o);
/* The spec validates at the box's corners: EXIT_OK or EXIT_BAD_SPEC with the issues on stderr. */
int optim_problem_check_corners(const optim_problem *o);
/* One run at x: an OPTIM_* status, the quantities in q, a message in msg when not OPTIM_OK. */
int optim_problem_run(const optim_problem *o, const double *x, double q[Q_MAX], char *msg, size_t len);

/* The pieces of a run that the daemon route (optim_remote.h) shares, so both compute the
 * quantities alike: the actuators' squared values now (effort's integrand), each rod's
 * centroid now (c[3 r + a]; one rod: r = 0) (0, or -1 when no frame), and the final frame's
 * quantities into q (com_v* from com0, the centroids at --from); 0, or -1 when no frame. */
double optim_problem_effort_rate(const rod_model *m, rod_state *st);
int optim_problem_centroid_now(const rod_model *m, rod_state *st, double c[3 * OPTIM_MAX_RODS]);
int optim_problem_final(const optim_problem *o, const rod_model *m, rod_state *st,
                        const double com0[3 * OPTIM_MAX_RODS], double q[Q_MAX]);
/* The output points of a dynamics run (effort's trapezoid): t_k = until k / OPTIM_EFFORT_STEPS. */
#define OPTIM_EFFORT_STEPS 50

#endif
