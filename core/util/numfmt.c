#include "numfmt.h"
#include "rod_text.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
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

/* The 10^4 groups of four digits as text, "0000" to "9999", four bytes each (the first digit
 * in the lowest byte where the byte order is little-endian), built once: a number's ten
 * digits are then two divisions and three lookups, against a pair table's four divisions and
 * five lookups or eight digits' passes of multiplications over one register (SWAR), whose
 * chain of multiplications took longer than the lookups (a frame's numbers 8.3 -> 6.3 ns
 * each, in a loop over a reaching run's). 40 KB: a frame's numbers keep it in the caches. */
static uint32_t quad_text[10000];
static pthread_once_t quad_once = PTHREAD_ONCE_INIT;
static atomic_int quad_ready; /* set once quad_text is built: the check every row makes, inline */

static void quad_build(void)
{
    char pair[100][2];
    for (int i = 0; i < 100; i++) pair[i][0] = (char)('0' + i / 10), pair[i][1] = (char)('0' + i % 10);
    for (int hi = 0; hi < 100; hi++)
        for (int lo = 0; lo < 100; lo++) {
            char *c = (char *)&quad_text[100 * hi + lo];
            memcpy(c, pair[hi], 2);
            memcpy(c + 2, pair[lo], 2);
        }
    atomic_store_explicit(&quad_ready, 1, memory_order_release);
}

static inline void quad_ensure(void)
{
    if (!atomic_load_explicit(&quad_ready, memory_order_acquire)) pthread_once(&quad_once, quad_build);
}

/* the lowest nbytes of w at p, the lowest first (one store where the byte order is
 * little-endian) */
static void put_le(char *p, uint64_t w, int nbytes)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &w, (size_t)nbytes);
#else
    for (int i = 0; i < nbytes; i++) p[i] = (char)(w >> (8 * i));
#endif
}

/* quad_text[i]'s four bytes as a number's, the first the lowest (as put_le stores them) */
static inline uint64_t quad_of(uint32_t i)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return quad_text[i];
#else
    const unsigned char *c = (const unsigned char *)&quad_text[i];
    return (uint64_t)c[0] | (uint64_t)c[1] << 8 | (uint64_t)c[2] << 16 | (uint64_t)c[3] << 24;
#endif
}

/* The ten digits of m in [10^9, 10^10) as text in three groups, as put_le stores them: the
 * first two (top2), the next four (mid), the last four (low); and nd, how many are left
 * without the trailing zeros (%g drops them, and the point with them). nd is 10 but for a
 * tenth of the numbers, and found by a branch rather than from the digits: predicted, it
 * leaves the digits out of the chain from the number to the length of its text, which the
 * next number's stores wait for (with it in the chain, a frame's numbers took a sixth
 * longer in all). */
typedef struct {
    uint64_t top2, mid, low;
    int nd;
} ten_digits;

static inline uint64_t first8_of(const ten_digits *d)
{
    return d->top2 | d->mid << 16 | (d->low & 0xFFFF) << 48;
}

static inline ten_digits digits_of_mantissa(uint64_t m)
{
    /* m / 10^4 as (m / 16) / 625 (m / 16 < 2^30): a multiplication by ceil(2^39 / 625), whose
     * excess (487 / 2^39 of it) stays below a 625th for numbers under 2^39 / 487 */
    const uint32_t q = (uint32_t)(((m >> 4) * 879609303ull) >> 39), top = q / 10000;
    ten_digits d = {quad_of(top) >> 16, quad_of(q - top * 10000), quad_of((uint32_t)m - q * 10000), 10};
    if (__builtin_expect((d.low >> 24) == '0', 0)) {
        const uint64_t d8 = first8_of(&d) - 0x3030303030303030ull; /* the values; the first is not 0 */
        d.nd = (d.low >> 16 & 0xFF) != '0' ? 9 : 8 - __builtin_clzll(d8) / 8;
    }
    return d;
}

/* the digits at p as they come, without a point: 0.000ddd's, stored group by group */
static inline void put_groups(char *p, const ten_digits *d)
{
    put_le(p, d->top2, 2);
    put_le(p + 2, d->mid, 4);
    put_le(p + 6, d->low, 4);
}

/* bytes 0..k-1 of w, a point, then w's bytes from k on (w << 8 keeps the first eight bytes of
 * what follows the point), for k in 1..7: the text with its point put together in a register
 * and stored once, as storing the digits and moving some stalled on reloading what was just
 * stored */
static uint64_t point_after(uint64_t w, int k)
{
    const uint64_t before = (1ull << (8 * k)) - 1, through_point = before << 8 | 0xFF;
    return (w & before) | (uint64_t)'.' << (8 * k) | ((w << 8) & ~through_point);
}

/* m, in [10^9, 10^10), with the decimal exponent x of its first digit as %.10g writes it at p,
 * for any x; returns the end. */
static char *put_any(char *p, uint64_t m, int x)
{
    const ten_digits d = digits_of_mantissa(m);
    if (x >= -4 && x < 0) { /* 0.000ddd */
        memcpy(p, "0.000000", 8);
        put_groups(p + 1 - x, &d);
        return p + 1 - x + d.nd;
    }
    const int before = x >= 0 && x < DIGITS ? x + 1 : 1; /* digits before the point */
    char *q = p;
    put_groups(q, &d);
    /* the point after the digits before it, the rest one place on */
    if (d.nd > before) {
        memmove(q + before + 1, q + before, (size_t)(d.nd - before));
        q[before] = '.';
        q += d.nd + 1;
    } else {
        q += before;
    }
    if (!(x >= 0 && x < DIGITS)) {
        *q++ = 'e';
        *q++ = x < 0 ? '-' : '+';
        const int ax = abs(x); /* at most 35: |v| is in [1e-35, 1e10] here */
        *q++ = (char)('0' + ax / 10);
        *q++ = (char)('0' + ax % 10);
    }
    return q;
}

/* What the fast path leaves: zeros aside, every number outside [2^-40, 2^33), on the point of
 * rounding either way, by the exact product or printf; non-finite ones as nonfinite (NULL:
 * as printf writes them). Writes v at p and returns the end, where a NUL follows. */
static char *put_rest(char *p, double v, const char *nonfinite)
{
    uint64_t m;
    int x;
    if (!isfinite(v) && nonfinite) {
        const size_t n = strlen(nonfinite);
        memcpy(p, nonfinite, n + 1);
        return p + n;
    }
    if (!isfinite(v) || !digits_of(fabs(v), &m, &x)) return p + snprintf(p, 32, "%.10g", v);
    *p = '-';
    p += v < 0;
    p = put_any(p, m, x);
    *p = '\0';
    return p;
}

/* v as %.10g writes it at p (with room for 32 bytes: the stores reach beyond the end), a
 * non-finite v as put_rest does; returns the end, without a NUL there. */
static inline char *put_g10(char *p, double v, const char *nonfinite)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    /* the binary exponent b, and floor(b log10 2), the decimal exponent or one less, as
     * (b 1233 + 64 4096) / 4096 - 64 for b in -40..32: integers instead of the conversions
     * between double and int, which were most of a number's latency */
    const int b = (int)((bits >> 52) & 0x7FF) - 1023;
    if ((unsigned)(b + 40) > 72u) {
        if (bits << 1 == 0) { /* a frame's numbers are often half zeros (a rod in a plane) */
            *p = '-';
            p += bits >> 63;
            *p = '0';
            return p + 1;
        }
        return put_rest(p, v, nonfinite);
    }
    /* +-1: a planar rod's rotations hold one a point, which the trailing zeros' branch
     * (ten_digits) would mostly mispredict: 5.8 -> 5.4 ns a number over a reaching run's */
    if (bits << 1 == 0x3FF0000000000000ull << 1) {
        *p = '-';
        p += bits >> 63;
        *p = '1';
        return p + 1;
    }
    const double a = fabs(v);
    int x = (int)((unsigned)(b * 1233 + 64 * 4096) >> 12) - 64;
    /* a 10^(9 - x) rounded: 10^(9 - x) is a double, so the product is within half an ulp (below
     * 2^-20 under 10^10) of the exact one, and its nearest integer (by adding and taking away
     * 2^52, where a double's unit is 1) is the exact product's wherever the product is not
     * within 4e-6 of an integer's half. x one less than the decimal exponent makes it 10^10 or
     * more: a branch again, not a comparison's result in x (see ten_digits). */
    double hi = a * pow10_exact[9 - x];
    if (hi >= 1e10) {
        x++;
        hi = a * pow10_exact[9 - x];
    }
    const double r = (hi + 0x1p52) - 0x1p52;
    if (fabs(hi - r) > 0.5 - 4e-6) return put_rest(p, v, nonfinite);
    /* the product 10^10 where the number rounds up to the next power; 10^9 - tiny, rounded
     * to 10^9, just below a power */
    uint64_t m = (uint64_t)(int64_t)r; /* below 2^34: the signed conversion, one instruction */
    if (m == 10000000000u) m = 1000000000u, x++;
    *p = '-';
    p += bits >> 63;
    if (!(x >= -4 && x < 7)) return put_any(p, m, x);
    const ten_digits d = digits_of_mantissa(m);
    if (x < 0) { /* 0.000ddd: the groups as they are (composed into words first, 6 % slower) */
        memcpy(p, "0.000000", 8);
        put_groups(p + 1 - x, &d);
        return p + 1 - x + d.nd;
    }
    const uint64_t first8 = first8_of(&d);
    const int k = x + 1; /* digits before the point */
    put_le(p, point_after(first8, k), 8);
    put_le(p + 8, first8 >> 56 | d.low >> 16 << 8, 4);
    return p + (d.nd > k ? d.nd + 1 : k);
}

size_t num_g10(char *buf, double v)
{
    quad_ensure();
    char *end = put_g10(buf, v, NULL);
    *end = '\0';
    return (size_t)(end - buf);
}

char *num_g10_row(char *p, const double *v, size_t n, const char *nonfinite)
{
    quad_ensure();
    /* a comma after each, the last taken back: no branch per number */
    for (size_t i = 0; i < n; i++) {
        p = put_g10(p, v[i], nonfinite);
        *p++ = ',';
    }
    p -= n > 0;
    *p = '\0';
    return p;
}

size_t rod_format_g10(char *buf, double v) { return num_g10(buf, v); }
char *rod_format_g10_row(char *p, const double *v, size_t n, const char *nonfinite)
{
    return num_g10_row(p, v, n, nonfinite);
}
