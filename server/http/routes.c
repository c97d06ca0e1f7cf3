/* The REST API's routes, in the order they are tried, with the methods each takes. The
 * handlers live in http_*.c and problems.c; the adapters here give them the part of the path
 * they take. */
#include "routes.h"

#include "stream_admit.h"

#include <string.h>

#define READ "GET, HEAD"

/* /v1/sessions/{id}/...: a stream URL asked for without an upgrade, or a session's resource */
static void session_paths(http_request *rq, http_response *rs)
{
    char sid[80];
    const int get = strcmp(rq->method, "GET") == 0 || strcmp(rq->method, "HEAD") == 0;
    if (stream_session_id_of(rq->path, sid, sizeof sid) == 0) {
        /* a WebSocket upgrade to this path never gets here (http.c hands it to the streams) */
        if (!get) reply_not_allowed(rs, READ);
        else if (req_need(rq, rs, ROLE_VIEWER))
            reply_problem(rs, PROBLEM_UPGRADE_REQUIRED, "a stream is a WebSocket",
                          "open this URL as a WebSocket (GET with Upgrade: websocket)", NULL);
        return;
    }
    if (!h_session_route(rq, rs)) reply_problem(rs, PROBLEM_NOT_FOUND, "no such resource", rq->path, NULL);
}

static void examples_all(http_request *rq, http_response *rs)
{
    h_examples(rq, rs, NULL);
}

static void examples_one(http_request *rq, http_response *rs)
{
    h_examples(rq, rs, rq->path + strlen("/v1/examples/"));
}

static void not_found(http_request *rq, http_response *rs)
{
    reply_problem(rs, PROBLEM_NOT_FOUND, "no such resource", rq->path, NULL);
}

/* /problems/SLUG explains a problem type; deeper paths are the viewer's files */
static void problem_page(http_request *rq, http_response *rs)
{
    const char *slug = rq->path + strlen("/problems/");
    if (*slug && !strchr(slug, '/')) h_problem_page(rq, rs, slug);
    else h_static(rq, rs);
}

const route routes[] = {
    {"/livez", ROUTE_EXACT, READ, h_livez},
    {"/readyz", ROUTE_EXACT, READ, h_readyz},
    {"/metrics", ROUTE_EXACT, READ, h_metrics},
    {"/v1", ROUTE_EXACT, READ, h_index},
    {"/v1/sessions", ROUTE_EXACT, NULL, h_sessions_collection},
    {"/v1/sessions/", ROUTE_PREFIX, NULL, session_paths},
    {"/v1/solve", ROUTE_EXACT, "POST", h_solve},
    {"/v1/stream-tickets", ROUTE_EXACT, "POST", h_stream_ticket},
    {"/v1/examples", ROUTE_EXACT, READ, examples_all},
    {"/v1/examples/", ROUTE_PREFIX, READ, examples_one},
    {"/v1/", ROUTE_PREFIX, NULL, not_found},
    {"/problems/", ROUTE_PREFIX, READ, problem_page},
    {"", ROUTE_PREFIX, READ, h_static}, /* the rest: the viewer's files */
};
const int nroutes = (int)(sizeof routes / sizeof *routes);
