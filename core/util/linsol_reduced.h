/* CVODE's Newton systems on y = [q; q_dot] have the form
 *   [[I, -gamma I], [BL, BR]] [x1; x2] = [b1; b2]
 * because the top of the Jacobian is [0 I]. Eliminating x1 = b1 + gamma x2 leaves the n x n
 * system (BR + gamma BL) x2 = b2 - BL b1: an LU of n x n instead of 2n x 2n (8 times fewer
 * operations) and a solve of 3 n^2 instead of 8 n^2. A SUNLinearSolver for CVODE's dense
 * matrix. */
#ifndef ROD_LINSOL_REDUCED_H
#define ROD_LINSOL_REDUCED_H

#include <sundials/sundials_linearsolver.h>

SUNLinearSolver linsol_reduced_create(int n, SUNContext ctx);

#endif
