/* rodd optimize's exact gradients (--gradient implicit): one static solve at x and the
 * objective's derivative by every parameter from the implicit-function theorem,
 * du/dp = -(dR/du)^-1 dR/dp at the solution u (rod_statics_tangent), instead of two more
 * solves per parameter (--gradient fd). dR/dp is a central difference of the residual at the
 * fixed solution between the models at p +- h (two residual evaluations a parameter, no
 * Newton solve); the objective then moves along (dp, du/dp) through the same quantities an
 * evaluation reads (the kinematics, the energies, the effort), a central difference of cheap
 * functions of (model, q). Statics only: a dynamics run's sensitivities would need CVODES
 * (README, "Inverse problems"). */
#ifndef RODD_OPTIM_GRADIENT_H
#define RODD_OPTIM_GRADIENT_H

#include "optim_objective.h"
#include "optim_problem.h"

#include <stddef.h>

/* Each parameter's step h for the residual's and the quantities' differences, a fraction of
 * its range (one-sided inside the box at a bound): the central differences' truncation error
 * (h^2) and rounding (eps / h) both stay near 1e-10 relative. */
#define OPTIM_GRADIENT_STEP 1e-5

/* One statics run at x: an OPTIM_* status (as optim_problem_run), the quantities in q, the
 * objective's value in *f and its derivative by each parameter (physical units) in g; a
 * message in msg when not OPTIM_OK (also when the run converged but the tangent failed). */
int optim_problem_run_gradient(const optim_problem *o, optim_objective *obj, const double *x, double *f, double *g,
                               double q[Q_MAX], char *msg, size_t len);

#endif
