/* Content negotiation by Accept (server/http/accept.c). */
#include "accept.h"

#include <criterion/criterion.h>

Test(accept, quality_of_a_type)
{
    cr_expect_eq(accept_quality(NULL, "text/csv"), 1);
    cr_expect_eq(accept_quality("", "text/csv"), 1);
    cr_expect_eq(accept_quality("text/csv", "text/csv"), 1);
    cr_expect_eq(accept_quality("text/csv", "application/x-hdf5"), 0);
    cr_expect_eq(accept_quality("application/x-hdf5;q=0, text/csv", "application/x-hdf5"), 0);
    cr_expect_eq(accept_quality("application/x-hdf5;q=0, text/csv", "text/csv"), 1);
    cr_expect_eq(accept_quality("text/csv; q=0.5", "text/csv"), 0.5);
    cr_expect_eq(accept_quality("TEXT/CSV;Q=0.25", "text/csv"), 0.25);
    cr_expect_eq(accept_quality("text/*;q=0.3", "text/csv"), 0.3);
    cr_expect_eq(accept_quality("*/*;q=0.1", "application/x-hdf5"), 0.1);
}

Test(accept, the_most_specific_range_decides)
{
    cr_expect_eq(accept_quality("*/*, application/x-hdf5;q=0", "application/x-hdf5"), 0);
    cr_expect_eq(accept_quality("text/*;q=0, text/csv", "text/csv"), 1);
    cr_expect_eq(accept_quality("text/*;q=0, */*", "text/csv"), 0);
}

Test(accept, a_malformed_q_accepts_nothing)
{
    cr_expect_eq(accept_quality("text/csv;q=0x1", "text/csv"), 0);
    cr_expect_eq(accept_quality("text/csv;q=2", "text/csv"), 0);
    cr_expect_eq(accept_quality("text/csv;q=", "text/csv"), 0);
    cr_expect_eq(accept_quality("text/csv;q=-1", "text/csv"), 0);
    cr_expect_eq(accept_quality("text/csvx", "text/csv"), 0);
}
