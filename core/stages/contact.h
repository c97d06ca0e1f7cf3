/* Contact with obstacles and with the rod itself (seed 002, Figs. 7-9), with Coulomb
 * friction (Figs. 8, 17, 18). The rod's surface (radius rho z(s), so an inflating section
 * touches sooner) meets soft walls: per unit length, a normal force k eps - gamma v_n (never
 * pulling) on a penetration eps, and friction in the surface at the point of contact, with
 * the slip the centre line's velocity and the section's spin about its axis give it there, so
 * a section can roll or slip; the friction's moment turns the section about its axis only
 * (the power conjugate of that slip, so friction never does work). Evaluated at the model's
 * contact points (model.c). */
#ifndef ROD_CONTACT_H
#define ROD_CONTACT_H

#include "state.h"

typedef struct {
    double s;        /* arc length of the contact point */
    double point[3]; /* where it touches, global (on the obstacle's surface; between the two
                      * surfaces for self-contact) */
    double force[3]; /* on the rod, global, N: the resultant over the piece the point stands for */
} contact_report;

/* The friction force per unit length for slip velocity v_t (in the surface), normal force
 * fn >= 0 per unit length, the surface's axial direction u_axis (the rod's tangent
 * projected on the surface, unit; forward is +) and lateral direction u_lat (unit). Coulomb
 * with the static coefficient up to the threshold velocity v_eps (linear in the slip below
 * it, so sticking is a creep slower than v_eps) falling to the kinetic one within a few v_eps
 * above it, per direction. */
void contact_friction(const spec_friction *f, double fn, const double v_t[3],
                      const double u_axis[3], const double u_lat[3], double out[3]);

/* F (on i, per unit length squared) += the friction of environment.self_contact.friction
 * (isotropic: one coefficient for every direction) against the slip of i's surface (velocity
 * vi) over j's (vj) less its normal part vn (along n, from j toward i), for the normal force
 * fn: the law of a rod's contact with itself and with the other rods of a model alike. */
void contact_pair_friction(const spec_friction *fr, double fn, const double n[3], const double vi[3],
                           const double vj[3], double vn, double F[3]);

/* Adds the generalized forces of every contact at time t (moving obstacles where their
 * displacement puts them; slip and damping relative to them) to Q (n entries), for the poses
 * and Jacobians in st computed from q. eta: the body twists at every station (dynamics), or
 * NULL for statics (no damping, no friction: a resting contact has no slip). When rep is
 * not NULL, fills up to maxrep reports and sets *nrep. Q NULL: the reports alone, and st's
 * Jacobians are not read (a frame's contacts need only the poses and twists). */
int contact_forces(const rod_model *m, rod_state *st, const double *q, const double *eta,
                   double t, double factor, double *Q, contact_report *rep, int maxrep, int *nrep);

/* Adds the contacts' stiff derivatives at (t, q, eta), for the poses and Jacobians in st
 * computed from q, times wk to Kc (dQ/dq) and times wc to Cc (dQ/dq_dot; Cc may be Kc), the
 * strain and base block (n_xi x n_xi,
 * column-major with leading dimension ld): per wall contact ds Jv^T (dF/dv) Jv and
 * ds Jv^T (dF/dx) R J_lin with Jv the slip's Jacobian and dF/dv the point law's (friction
 * included, by differences of the 3-vector law), per self-contact pair the normal law's
 * through the two centre lines' relative motion and, with self_contact.friction, the pair's
 * friction's slope the same way through the two surfaces' relative velocity. What q moves through the frames and the
 * contact geometry is left out: an approximation for a Newton matrix, not a derivative to
 * test against. Nothing without eta (statics). */
void contact_jacobian(const rod_model *m, rod_state *st, const double *q, const double *eta,
                      double t, double wk, double *Kc, double wc, double *Cc, int ld);

/* The walls' normal law linearized for statics (no velocities, so no damping or friction),
 * at the poses and Jacobians in st computed from q: for every pair of a contact point and an
 * obstacle, its penetration eps[i] (negative: the gap), the weight w[i] = factor ds k of its
 * force and the direction g (row i of g, n entries) in which that force, w eps g, acts on q,
 * along which the penetration falls (d eps = -g . dq: the centre line moving out along the
 * normal, an inflating section's surface moving in). The frames' turning with q is left out.
 * Lets a Newton step see the walls it is about to meet. Returns the number of pairs (at most
 * ncontact times the obstacles; a point on an obstacle's axis, where no normal is defined,
 * gets w = 0). */
int contact_wall_normals(const rod_model *m, rod_state *st, const double *q, double t, double factor,
                         double *eps, double *w, double *g);

/* The longest step over which no moving obstacle moves more than half the thinnest contact
 * section's radius between t0 and t1 (its displacement sampled 64 times): BDF's steps are
 * held to it, since a rod at rest has a right-hand side of zero until an obstacle reaches it
 * and BDF's error test let it step over an obstacle's whole passage (a sphere pushed 2 cm
 * into a resting rod and withdrawn went unfelt: 2 steps for 0.8 s). INFINITY when none moves. */
double contact_obstacle_step_bound(const rod_model *m, rod_state *st, double t0, double t1);

/* The walls' laws along a Newton correction dx (solver.contact_laws "solved"): at an iterate,
 * contact_lin_points keeps every point a wall penetrates with its force and the Jacobians of
 * its slip and its centre line (the frames of st computed from q, eta the twists); then
 * contact_lin_force moves each point by the correction, its slip by cv Jv dx and its centre
 * line by cq Jl dx, evaluates the wall's law there exactly and adds the generalized force's
 * change ds Jv^T (F(dx) - F(0)) to G and, when A is not NULL, minus the slopes at the moved
 * point (as contact_jacobian forms them: cq dQ/dq + cv dQ/dq_dot) to A (n_xi x n_xi block,
 * column-major, ld). The kinematics are linearized; the laws are not (a touch, a lift-off, a
 * stick-slip switch within the correction). NULL from create: no memory. */
typedef struct contact_lin contact_lin;
contact_lin *contact_lin_create(const rod_model *m);
void contact_lin_free(contact_lin *L);
int contact_lin_points(const rod_model *m, rod_state *st, const double *q, const double *eta, double t,
                       contact_lin *L);
int contact_lin_count(const contact_lin *L);
/* The fastest slip a change of q_dot's rate dx gives the points a wall penetrates: the largest
 * |Jv dx| in the surface. */
double contact_lin_slip_rate(const contact_lin *L, const double *dx);
/* The same points at a new iterate, their Jacobians kept: 0, or -1 when the points a wall
 * penetrates are not the same (then contact_lin_points). */
int contact_lin_update(const rod_model *m, rod_state *st, const double *q, const double *eta, double t,
                       contact_lin *L);
void contact_lin_force(const contact_lin *L, const double *dx, double cq, double cv, double *G, double *A,
                       int ld);
/* Along a line of corrections dx + alpha d, one pass over the Jacobians for each direction (an
 * inner Newton iteration's): the points' moves Jc dx and Jc d are kept, so the laws at any alpha
 * (contact_lin_force_on_line: contact_lin_force at dx + alpha d), the limit on alpha and the move
 * of dx to dx + alpha d cost O(points). line_start sets dx = 0, line_direction sets d, and
 * line_advance moves dx to dx + alpha d.
 * contact_lin_line_limit: how far (a fraction in (0, 1]) the step d may go. A point that slides
 * at dx and at dx + d but passes through its stick disk (slip under v_eps) on the way stops at
 * the closest approach, inside the disk. Such a step reverses the point's friction within
 * v_eps, where the law is steepest: from either side, Newton's linearization sends it past
 * (Castro et al.'s transition-aware limiter for regularized friction, RA-L 2020). */
void contact_lin_line_start(contact_lin *L);
void contact_lin_line_direction(contact_lin *L, const double *d);
double contact_lin_line_limit(const contact_lin *L, double cv);
void contact_lin_line_advance(contact_lin *L, double alpha);
void contact_lin_force_on_line(const contact_lin *L, double alpha, double cq, double cv, double *G, double *A,
                               int ld);

/* The size of the per-point scratch a state keeps for self-contact (state_alloc.c). */
size_t contact_point_size(void);

#endif
