/* The muscle amplitude B-spline (seed 002 Fig. 6, built as its authors' code builds it):
 * against closed forms of the same clamped cubic spline. */
#include "muscle.h"

#include <criterion/criterion.h>
#include <math.h>

Test(muscle, two_values_make_the_cubic_bezier_with_zero_ends)
{
    /* knots 0,0,0,0,1,1,1,1 and coefficients (0, b0, b1, 0): 3 X (1-X) (b0 (1-X) + b1 X) */
    const double beta[2] = {2.0, -0.5};
    for (int i = 0; i <= 20; i++) {
        const double X = i / 20.0;
        const double want = 3 * X * (1 - X) * (beta[0] * (1 - X) + beta[1] * X);
        cr_assert_float_eq(muscle_bspline(2, beta, X), want, 1e-14, "X = %g", X);
    }
}

Test(muscle, equal_values_give_them_back_where_the_end_zeros_do_not_reach)
{
    /* n = 3: knots 0,0,0,0,1/2,1,1,1,1; at X = 1/2 only the three middle basis functions are
     * non-zero and they sum to one */
    const double beta[3] = {1.5, 1.5, 1.5};
    cr_assert_float_eq(muscle_bspline(3, beta, 0.5), 1.5, 1e-14);
    /* the six of Fig. 10, and any values: zero at both ends, a partition of unity inside */
    const double fig10[6] = {0, 17.4, 48.5, 5.4, 14.7, 0}, ones[6] = {1, 1, 1, 1, 1, 1};
    cr_assert_float_eq(muscle_bspline(6, fig10, 0.0), 0.0, 1e-14);
    cr_assert_float_eq(muscle_bspline(6, fig10, 1.0), 0.0, 1e-14);
    for (int i = 1; i < 10; i++) {
        const double X = 0.2 + 0.6 * i / 10.0; /* between the second and fifth knots */
        cr_assert_float_eq(muscle_bspline(6, ones, X), 1.0, 1e-14, "X = %g", X);
    }
}
