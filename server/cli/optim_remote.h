/* rodd optimize's evaluations on rodd daemons (--daemon URL) over their REST API: statics by
 * POST /v1/solve, dynamics as a session created, advanced to --until and deleted. The daemon
 * integrates; its answers' coordinates (printed to 17 digits) come back into a local state of
 * the same model, which gives the quantities with optim_problem.c's own code, so a daemon's
 * objective is the in-process one: bit for bit when the daemon keeps no state directory (it
 * checkpoints each :advance's answer there, which restarts its integrator) and the model's
 * integration does not depend on where output times fall (the daemon stops every 10 ms);
 * otherwise to the solver's tolerance. */
#ifndef RODD_OPTIM_REMOTE_H
#define RODD_OPTIM_REMOTE_H

#include "optim_http.h"
#include "optim_objective.h"
#include "optim_problem.h"

#include <stddef.h>

/* GET URL/readyz answers 200: 0, or -1 with the reason in err. */
int optim_remote_ready(const char *url, const char *token, char *err, size_t len);
/* One evaluation at x on the daemon that conn talks to (its requests on that one kept-alive
 * connection), as optim_problem_run: an OPTIM_* status, the quantities in q, a message in msg
 * when not OPTIM_OK (a daemon that does not answer, or answers an error, is OPTIM_FAILED
 * naming the daemon). */
int optim_remote_run(const optim_problem *o, optim_http_conn *conn, const char *token, const double *x,
                     double q[Q_MAX], char *msg, size_t len);
/* Creates a session of spec_json (paused at t = 0) named name; its id into id (0) or -1 with
 * the reason in err. */
int optim_remote_open(const char *url, const char *token, const char *spec_json, const char *name, char *id,
                      size_t idlen, char *err, size_t errlen);

#endif
