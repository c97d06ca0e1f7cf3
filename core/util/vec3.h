/* Small 3-vector helpers, defined once for every file that needs them. Rotation matrices are
 * column-major 3 x 3, as lie_pose keeps them. */
#ifndef ROD_VEC3_H
#define ROD_VEC3_H

static inline double vec3_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* c = a x b (c must not alias a or b) */
static inline void vec3_cross(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* o = R v */
static inline void vec3_rot(const double R[9], const double v[3], double o[3])
{
    for (int i = 0; i < 3; i++) o[i] = R[i] * v[0] + R[i + 3] * v[1] + R[i + 6] * v[2];
}

/* o = R^T v */
static inline void vec3_rot_t(const double R[9], const double v[3], double o[3])
{
    for (int i = 0; i < 3; i++) o[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

#endif
