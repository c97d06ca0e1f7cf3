/* What probes and scrapers read, and the API's index: GET /livez, /readyz, /metrics, /v1. */
#include "http.h"

#include "metrics.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

void h_livez(http_request *rq, http_response *rs)
{
    (void)rq;
    reply_text(rs, 200, "text/plain; charset=utf-8", "ok\n");
}

void h_readyz(http_request *rq, http_response *rs)
{
    if (!atomic_load(&rq->d->ready))
        reply_problem(rs, PROBLEM_NOT_READY, NULL, "starting or draining", NULL);
    else if (pool_count(rq->d->pool) >= pool_capacity(rq->d->pool))
        reply_problem(rs, PROBLEM_NOT_READY, NULL, "the session pool is full", NULL);
    else
        reply_text(rs, 200, "text/plain; charset=utf-8", "ready\n");
}

void h_metrics(http_request *rq, http_response *rs)
{
    metrics_sessions census;
    pool_census(rq->d->pool, &census);
    char *text = metrics_render(&census);
    if (text) reply_text(rs, 200, "text/plain; version=0.0.4", text);
    else reply_problem(rs, PROBLEM_INTERNAL, "out of memory", NULL, NULL);
    free(text);
}

void h_index(http_request *rq, http_response *rs)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", "rodd");
    cJSON_AddStringToObject(o, "version", ROD_VERSION);
    cJSON_AddStringToObject(o, "sessions", "/v1/sessions");
    cJSON_AddStringToObject(o, "openapi", "/openapi.yaml");
    cJSON_AddBoolToObject(o, "auth", auth_enabled(rq->d->auth));
    reply_json(rs, 200, o);
}
