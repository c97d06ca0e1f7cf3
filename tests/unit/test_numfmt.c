/* num_g10 against printf's "%.10g" itself, character for character: random bit patterns over
 * the whole range, magnitudes from 1e-60 to 1e30, the neighbours of every power of ten and of
 * the ten-digit rounding boundaries, values next to and on ties of the tenth digit, short
 * decimals and integers, zeros and the non-finite, and decimals of exactly ten digits. */
#include "numfmt.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t next_bits(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double unit_uniform(void)
{
    return (double)(next_bits() >> 11) * 0x1p-53;
}

static long compared;
static void same_as_printf(double v)
{
    char ours[40], theirs[40];
    const size_t n = num_g10(ours, v);
    snprintf(theirs, sizeof theirs, "%.10g", v);
    compared++;
    cr_assert_str_eq(ours, theirs, "%a: num_g10 wrote %s, printf %s", v, ours, theirs);
    cr_assert_eq(n, strlen(ours), "%a: length %zu for %s", v, n, ours);
}

Test(numfmt, random_bit_patterns)
{
    for (int i = 0; i < 400000; i++) {
        const uint64_t b = next_bits();
        double v;
        memcpy(&v, &b, sizeof v);
        same_as_printf(v);
    }
}

Test(numfmt, magnitudes_from_1e_minus_60_to_1e30)
{
    for (int i = 0; i < 400000; i++) same_as_printf((unit_uniform() - 0.5) * pow(10, (int)(unit_uniform() * 90) - 60));
}

Test(numfmt, neighbours_of_powers_of_ten_and_of_the_rounding_boundary)
{
    for (int k = -40; k <= 12; k++) {
        const double p = pow(10, k), edge = p * 9.9999999995; /* rounds up to the next power */
        double up = p, down = p, eu = edge, ed = edge;
        for (int j = 0; j < 40; j++) {
            same_as_printf(up), same_as_printf(-down), same_as_printf(eu), same_as_printf(-ed);
            up = nextafter(up, INFINITY), down = nextafter(down, 0);
            eu = nextafter(eu, INFINITY), ed = nextafter(ed, 0);
        }
    }
}

Test(numfmt, next_to_and_on_ties_of_the_tenth_digit)
{
    for (int i = 0; i < 100000; i++) {
        const double m = 1e9 + (double)(next_bits() % 9000000000ull), v = (m + 0.5) * pow(10, (int)(next_bits() % 50) - 40);
        same_as_printf(v), same_as_printf(nextafter(v, 0)), same_as_printf(nextafter(v, INFINITY));
    }
    /* exact binary ties: 11 significant digits ending in 5 */
    for (long i = 0; i < 2000; i++) same_as_printf((double)(20000000001ll + 2 * i) / 4), same_as_printf(1.00000000005 + i * 0x1p-36);
}

Test(numfmt, short_decimals_integers_zeros_and_non_finite)
{
    for (long i = -20000; i <= 20000; i++) {
        same_as_printf((double)i / 1000), same_as_printf((double)i * 0.5), same_as_printf((double)i);
        same_as_printf((double)i / 1024), same_as_printf((double)i * 1e6 + 0.25);
    }
    const double odd[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 5e-324, -2.2250738585072014e-308, 1.7976931348623157e308,
                          1e10, 9999999999.5, 9999999999.499999, 1e-5, 9.99999999995e-5, 0.0001, 123456789012.0};
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) same_as_printf(odd[i]);
}

/* The range the rounded product decides (1e-12 to 1e10): decimals of exactly ten digits, whose
 * product lands next to an integer, and the neighbours of each power of ten there, whose
 * product lands next to 10^9 or 10^10. */
Test(numfmt, ten_digit_decimals_and_powers_in_the_rounded_products_range)
{
    for (int i = 0; i < 200000; i++) {
        const double v = (double)(next_bits() % 10000000000ull) * pow(10, (int)(next_bits() % 24) - 22);
        same_as_printf(v), same_as_printf(-v);
    }
    for (int k = -12; k <= 10; k++) {
        double up = pow(10, k), down = up;
        for (int j = 0; j < 64; j++) {
            same_as_printf(up), same_as_printf(down);
            up = nextafter(up, INFINITY), down = nextafter(down, 0);
        }
    }
}

/* The fast path's own edges (numfmt.c): every count of significant digits (the trailing zeros
 * dropped with and without the point) at every decimal exponent from the exponent form below
 * 1e-4 through the digits before the point up to 10^9, and beyond the fast path's range. */
Test(numfmt, every_digit_count_at_every_exponent)
{
    for (int x = -16; x <= 12; x++)
        for (int nd = 1; nd <= 10; nd++)
            for (int i = 0; i < 400; i++) {
                long long d = 1;
                for (int j = 1; j < nd; j++) d = 10 * d + (long long)(next_bits() % 10);
                if (nd > 1 && d % 10 == 0) d += 1 + (long long)(next_bits() % 9); /* exactly nd digits */
                const double v = (double)d * pow(10, x - (nd - 1));
                same_as_printf(v), same_as_printf(-v), same_as_printf(nextafter(v, 0)), same_as_printf(nextafter(v, INFINITY));
            }
}

/* Uniform in the logarithm over the fast path's range (2^-40 to 2^33) and a decade beyond
 * either end, with all 52 bits of the fraction random: 3 million numbers. */
Test(numfmt, three_million_over_the_fast_paths_range)
{
    for (int i = 0; i < 3000000; i++) {
        const double v = pow(2, -44 + 81 * unit_uniform()) * (1 + 0x1p-52 * (double)(next_bits() >> 12));
        same_as_printf(next_bits() & 1 ? v : -v);
    }
}

/* The ends of each binade (the decimal exponent's estimate comes from the binary one) and the
 * numbers on either side of each power of ten's nearest double, where that estimate and the
 * rounded product meet the power: those just below it that round up to it (their product
 * reaching 10^10) and those whose double lies between the power and its nearest double. */
Test(numfmt, binade_ends_and_powers_of_ten)
{
    for (int b = -46; b <= 40; b++) {
        double up = ldexp(1, b), down = up;
        for (int j = 0; j < 200; j++) {
            same_as_printf(up), same_as_printf(down);
            up = nextafter(up, INFINITY), down = nextafter(down, 0);
        }
    }
    for (int k = -15; k <= 11; k++) {
        const double p = pow(10, k), lo = p * (1 - 5.2e-11), hi = p * (1 - 4.8e-11);
        for (double v = lo; v < hi; v = nextafter(v, INFINITY) + (hi - lo) * 1e-4) same_as_printf(v);
        double up = p, down = p;
        for (int j = 0; j < 2000; j++) {
            same_as_printf(up), same_as_printf(down);
            up = nextafter(up, INFINITY), down = nextafter(down, 0);
        }
    }
}

/* num_g10_row: the numbers as num_g10 writes each, joined by commas, the non-finite as the
 * text given or as printf writes them; none at all is the empty text. */
Test(numfmt, rows_of_numbers)
{
    char ours[40 * 33 + 1], theirs[40 * 40];
    double v[40];
    for (int trial = 0; trial < 20000; trial++) {
        const size_t n = (size_t)(next_bits() % 40);
        for (size_t i = 0; i < n; i++) {
            const uint64_t pick = next_bits() % 8;
            v[i] = pick == 0 ? 0.0 : pick == 1 ? -0.0 : (unit_uniform() - 0.5) * pow(10, (int)(next_bits() % 30) - 15);
            if (next_bits() % 500 == 0) v[i] = next_bits() & 1 ? NAN : -INFINITY;
        }
        const int json = trial & 1;
        const char *end = num_g10_row(ours, v, n, json ? "null" : NULL);
        size_t len = 0;
        theirs[0] = '\0';
        for (size_t i = 0; i < n; i++) {
            if (i) theirs[len++] = ',';
            len += (size_t)(json && !isfinite(v[i]) ? snprintf(theirs + len, 8, "null")
                                                    : snprintf(theirs + len, 40, "%.10g", v[i]));
        }
        cr_assert_str_eq(ours, theirs, "a row of %zu", n);
        cr_assert_eq((size_t)(end - ours), len, "the end of a row of %zu", n);
    }
}
