#include "numfmt.h"
#include "rod_text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIGITS 10

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* a b = p + e exactly (Dekker's product: without -mfma, fma() is a library call that cost more
 * than the rest of the conversion) */
static double two_product(double a, double b, double *e)
{
    const double split = 134217729.0; /* 2^27 + 1 */
    const double p = a * b;
    const double ca = split * a, ah = ca - (ca - a), al = a - ah;
    const double cb = split * b, bh = cb - (cb - b), bl = b - bh;
    *e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return p;
}

/* v 10^k as hi + lo: exact for k <= 22, where 10^k is a double; for 22 < k <= 44 the second
 * factor adds an error of about 2^-104 of it. */
static void scaled(double v, int k, double *hi, double *lo)
{
    double l, h = two_product(v, pow10_exact[k <= 22 ? k : 22], &l);
    if (k > 22) {
        double L;
        const double q = pow10_exact[k - 22], H = two_product(h, q, &L);
        L += l * q;
        h = H + L;
        l = L - (h - H);
    }
    *hi = h;
    *lo = l;
}

/* hi + lo < c, for a double c */
static int below(double hi, double lo, double c)
{
    return hi < c || (hi == c && lo < 0);
}

/* The ten significant digits of |v| (as an integer in [1e9, 1e10)) and the decimal exponent of
 * the first, rounded to nearest as printf rounds the exact binary value; 0 where the rounding
 * is too close to a tie to decide here or |v| is out of the exact range (printf decides then). */
static int digits_of(double a, uint64_t *mant, int *exp10)
{
    if (!(a >= 1e-35 && a < 1e10)) return 0; /* 10^(9 - e) must be within 10^44 and >= 1 */
    /* the binary exponent times log10(2) is within one of the decimal one; read off the bits,
     * as floor(), ilogb() and log10() are library calls at the default -march */
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    const double t = ((int)(bits >> 52) - 1023) * 0.30102999566398120;
    int e = (int)t - (t < (int)t);
    double hi, lo;
    for (int tries = 0;; tries++) {
        if (9 - e < 0 || 9 - e > 44 || tries > 2) return 0;
        scaled(a, 9 - e, &hi, &lo);
        if (below(hi, lo, 1e9))
            e--;
        else if (!below(hi, lo, 1e10))
            e++;
        else
            break;
    }
    double r = (double)(uint64_t)hi, f = (hi - r) + lo; /* 0 < hi < 2^53: truncation is exact */
    if (f < 0) r -= 1, f += 1;
    if (f >= 1) r += 1, f -= 1;
    if (fabs(f - 0.5) < 1e-6) return 0;
    uint64_t m = (uint64_t)r + (f > 0.5);
    if (m == 10000000000ull) m = 1000000000ull, e++;
    *mant = m;
    *exp10 = e;
    return 1;
}

/* The common case without the exact product: for 10^k a double (k <= 22) the rounded product
 * a 10^k is within half an ulp (below 2^-20 for it under 10^10) of the exact one, so its
 * integer part and rounding are the exact product's wherever it is not within 4e-6 of an
 * integer's half or of 10^10 (at 10^9 the exact product just below rounds up to the same
 * digits: 1, 0.1 and the like stay here); 0 leaves those to digits_of. */
static int digits_rounded_product(double a, uint64_t *mant, int *exp10)
{
    if (!(a >= 1e-12 && a < 1e10)) return 0;
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    /* floor(b log10 2) for the binary exponent b in -40..33 as (b 1233 + 64 4096) / 4096 - 64:
     * the decimal exponent or one less. Integers here and the rounding by 2^52 below, not the
     * conversions between double and int they replace, which were most of a number's latency. */
    int e = (int)((unsigned)(((int)(bits >> 52) - 1023) * 1233 + 64 * 4096) >> 12) - 64;
    double hi = a * pow10_exact[9 - e];
    if (hi >= 1e10 && e < 9) {
        e++;
        hi = a * pow10_exact[9 - e];
    }
    if (!(hi >= 1e9 && hi < 1e10 - 1)) return 0;
    /* hi to the nearest integer by adding and taking away 2^52, where a double's unit is 1 */
    const double r = (hi + 0x1p52) - 0x1p52;
    if (fabs(hi - r) > 0.5 - 4e-6) return 0;
    *mant = (uint64_t)r;
    *exp10 = e;
    return 1;
}

static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* the ten digits of m, in [10^9, 10^10), as five pairs of the table, in three independent
 * chains of divisions */
static void digit_pairs_of(uint64_t m, const char *pair[5])
{
    const uint32_t top = (uint32_t)(m / 100000000u), rest = (uint32_t)(m % 100000000u);
    const uint32_t a = rest / 10000, b = rest % 10000;
    pair[0] = digit_pairs + 2 * top;
    pair[1] = digit_pairs + 2 * (a / 100);
    pair[2] = digit_pairs + 2 * (a % 100);
    pair[3] = digit_pairs + 2 * (b / 100);
    pair[4] = digit_pairs + 2 * (b % 100);
}

static void put_pairs(char *d, const char *const pair[5])
{
    for (int j = 0; j < 5; j++) memcpy(d + 2 * j, pair[j], 2);
}

size_t num_g10(char *buf, double v)
{
    if (v == 0) { /* a frame's numbers are often half zeros (a rod moving in a plane) */
        char *p = buf;
        *p = '-';
        p += signbit(v) != 0;
        memcpy(p, "0", 2);
        return (size_t)(p + 1 - buf);
    }
    uint64_t m;
    int x;
    const double a = fabs(v);
    if (!isfinite(v) || !(digits_rounded_product(a, &m, &x) || digits_of(a, &m, &x)))
        return (size_t)snprintf(buf, 32, "%.10g", v);
    /* the digits are stored where they end up, a pair at a time from the table: those after
     * a point one place right of their index, those before it (again) at it, the point last
     * over what that wrote beyond them. Moving bytes of the pairs just stored instead made a
     * call to memmove, or a wide reload of them that the processor cannot forward. */
    const char *pair[5];
    digit_pairs_of(m, pair);
    char *p = buf;
    *p = '-';
    p += v < 0;
    int nd = DIGITS; /* %g drops trailing zeros, and the point with them */
    if (x >= -4 && x < 0) {
        memcpy(p, "0.000000", 8);
        char *digits = p + 1 - x;
        put_pairs(digits, pair);
        while (nd > 1 && digits[nd - 1] == '0') nd--;
        p += 1 - x + nd;
    } else {
        const int before = x >= 0 && x < DIGITS ? x + 1 : 1; /* digits before the point */
        put_pairs(p + 1, pair);
        while (nd > 1 && p[nd] == '0') nd--;
        for (int j = 0; 2 * j < before; j++) memcpy(p + 2 * j, pair[j], 2);
        p[before] = '.';
        p += nd > before ? nd + 1 : before;
        if (!(x >= 0 && x < DIGITS)) {
            *p++ = 'e';
            *p++ = x < 0 ? '-' : '+';
            const int ax = abs(x); /* at most 35: |v| is in [1e-35, 1e10] here */
            *p++ = (char)('0' + ax / 10);
            *p++ = (char)('0' + ax % 10);
        }
    }
    *p = '\0';
    return (size_t)(p - buf);
}

size_t rod_format_g10(char *buf, double v) { return num_g10(buf, v); }
