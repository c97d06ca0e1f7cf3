/* rodd loads NLopt when `rodd optimize` first calls it, not at start-up (lazy_lib.h): only that
 * command uses it, and loading it cost every other command about half a millisecond. */
#include "lazy_lib.h"

#include <nlopt.h>
#include <pthread.h>

/* the library's soname (Debian's libnlopt0) */
#define NLOPT_SONAME "libnlopt.so.0"
#define PURPOSE "rodd optimize's local methods"

static struct {
    void (*srand)(unsigned long);
    nlopt_opt (*create)(nlopt_algorithm, unsigned);
    void (*destroy)(nlopt_opt);
    nlopt_result (*optimize)(nlopt_opt, double *, double *);
    nlopt_result (*force_stop)(nlopt_opt);
    const char *(*result_to_string)(nlopt_result);
    nlopt_result (*set_min_objective)(nlopt_opt, nlopt_func, void *);
    nlopt_result (*set_lower_bounds)(nlopt_opt, const double *);
    nlopt_result (*set_upper_bounds)(nlopt_opt, const double *);
    nlopt_result (*set_initial_step)(nlopt_opt, const double *);
    nlopt_result (*set_maxeval)(nlopt_opt, int);
    nlopt_result (*set_stopval)(nlopt_opt, double);
    nlopt_result (*set_xtol_rel)(nlopt_opt, double);
} nl;
static pthread_once_t nl_once = PTHREAD_ONCE_INIT;

static void load(void)
{
    void *lib = lazy_lib_open(NLOPT_SONAME, PURPOSE);
#define NEED(field, name) (*(void **)&nl.field = lazy_lib_symbol(lib, NLOPT_SONAME, name, PURPOSE))
    NEED(srand, "nlopt_srand");
    NEED(create, "nlopt_create");
    NEED(destroy, "nlopt_destroy");
    NEED(optimize, "nlopt_optimize");
    NEED(force_stop, "nlopt_force_stop");
    NEED(result_to_string, "nlopt_result_to_string");
    NEED(set_min_objective, "nlopt_set_min_objective");
    NEED(set_lower_bounds, "nlopt_set_lower_bounds");
    NEED(set_upper_bounds, "nlopt_set_upper_bounds");
    NEED(set_initial_step, "nlopt_set_initial_step");
    NEED(set_maxeval, "nlopt_set_maxeval");
    NEED(set_stopval, "nlopt_set_stopval");
    NEED(set_xtol_rel, "nlopt_set_xtol_rel");
#undef NEED
}

/* The calls that need no nlopt_opt may come first (the seed, a result's name); every other
 * call takes an nlopt_opt, which only nlopt_create makes. */
void nlopt_srand(unsigned long seed)
{
    pthread_once(&nl_once, load);
    nl.srand(seed);
}

const char *nlopt_result_to_string(nlopt_result r)
{
    pthread_once(&nl_once, load);
    return nl.result_to_string(r);
}

nlopt_opt nlopt_create(nlopt_algorithm a, unsigned n)
{
    pthread_once(&nl_once, load);
    return nl.create(a, n);
}

void nlopt_destroy(nlopt_opt o) { nl.destroy(o); }
nlopt_result nlopt_optimize(nlopt_opt o, double *x, double *f) { return nl.optimize(o, x, f); }
nlopt_result nlopt_force_stop(nlopt_opt o) { return nl.force_stop(o); }
nlopt_result nlopt_set_min_objective(nlopt_opt o, nlopt_func f, void *d) { return nl.set_min_objective(o, f, d); }
nlopt_result nlopt_set_lower_bounds(nlopt_opt o, const double *lb) { return nl.set_lower_bounds(o, lb); }
nlopt_result nlopt_set_upper_bounds(nlopt_opt o, const double *ub) { return nl.set_upper_bounds(o, ub); }
nlopt_result nlopt_set_initial_step(nlopt_opt o, const double *dx) { return nl.set_initial_step(o, dx); }
nlopt_result nlopt_set_maxeval(nlopt_opt o, int n) { return nl.set_maxeval(o, n); }
nlopt_result nlopt_set_stopval(nlopt_opt o, double v) { return nl.set_stopval(o, v); }
nlopt_result nlopt_set_xtol_rel(nlopt_opt o, double tol) { return nl.set_xtol_rel(o, tol); }
