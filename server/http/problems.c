/* The pages the problem types name: GET /problems/SLUG explains one kind of error answer, so
 * that a problem's `type` (a URI reference, "/problems/SLUG", resolved against the request's
 * URL) leads somewhere useful. */
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *slug, *status, *title, *what;
} problems[] = {
    {"malformed-json", "400", "Malformed JSON",
     "The request body is empty, is not JSON, or is not one JSON object. <code>errors[0]</code> has the line and "
     "column where the parser stopped."},
    {"invalid-request", "400 or 422", "Invalid request",
     "The request's own members are wrong: an unknown key, a value of the wrong kind or out of range, a bad query "
     "parameter. Each problem is in <code>errors</code> with the JSON pointer of what is wrong."},
    {"invalid-spec", "422", "Invalid spec",
     "The rod's spec (or a checkpoint's) does not validate. Every problem is in <code>errors</code>, each with its "
     "JSON pointer, e.g. <code>/spec/rod/poisson_ratio: must be in (-1, 0.5)</code>. Nothing was created."},
    {"unauthorized", "401", "Unauthorized",
     "Tokens are configured and the request has no valid <code>Authorization: Bearer TOKEN</code>."},
    {"forbidden", "403", "Forbidden", "The token's role (viewer) may not do this; an operator token may."},
    {"not-found", "404", "Not found", "No session (or input, example, method) of that name."},
    {"method-not-allowed", "405", "Method not allowed",
     "The path exists but not with this method; the <code>Allow</code> header lists the ones it takes."},
    {"not-acceptable", "406", "Not acceptable",
     "The Accept header names no representation this resource has (a recording comes as application/x-ndjson, "
     "text/csv or application/x-hdf5)."},
    {"wrong-state", "409", "Wrong state",
     "The session's state does not allow this (the detail says which state and what is needed), e.g. "
     "<code>:advance</code> on a running session, or a command to a failed one."},
    {"idempotency-in-progress", "409", "Idempotency key in progress",
     "A request with this Idempotency-Key is still being answered; retry shortly."},
    {"idempotency-mismatch", "422", "Idempotency key reused",
     "This Idempotency-Key was used for a different request (method, path and body)."},
    {"body-too-large", "413", "Body too large", "The request body is over RODD_MAX_BODY bytes (default 4 MiB)."},
    {"too-many-sessions", "503", "Too many sessions",
     "The daemon holds RODD_MAX_SESSIONS sessions; delete one or retry after Retry-After seconds."},
    {"not-ready", "503", "Not ready",
     "The daemon is starting or draining, or a long step holds the session; retry after Retry-After seconds."},
    {"insufficient-storage", "507", "Insufficient storage",
     "The disk of the state directory is full: an export's temporary file could not be written. The recording "
     "itself is whole; free space (delete sessions, or their recordings) and ask again."},
    {"internal", "500", "Internal error", "The daemon could not do it (out of memory, a file it could not write)."},
    {"host-not-allowed", "403", "Host not allowed",
     "The request's Host is not one this daemon answers to (its listen address, or RODD_ALLOWED_HOSTS): a guard "
     "against DNS rebinding."},
    {"origin-not-allowed", "403", "Origin not allowed",
     "A browser page from another origin sent this; RODD_ALLOWED_ORIGINS lists the ones allowed."},
    {"upgrade-required", "426", "Upgrade required",
     "A session's stream (<code>/v1/sessions/ID/stream</code>) is a WebSocket: open it with a WebSocket client, "
     "which sends <code>Upgrade: websocket</code>. The session's <code>stream_url</code> is its address."},
    {"unsupported-media-type", "415", "Unsupported media type", "Request bodies are JSON (application/json)."},
    {"busy", "503", "Busy",
     "Too many request bodies are being received at once, or (a stream) RODD_MAX_STREAMS streams are open; retry "
     "shortly."},
};

void h_problem_page(http_request *rq, http_response *rs, const char *slug)
{
    (void)rq;
    for (size_t i = 0; i < sizeof problems / sizeof *problems; i++) {
        if (strcmp(problems[i].slug, slug) != 0) continue;
        char page[2048];
        snprintf(page, sizeof page,
                 "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head>\n"
                 "<body><h1>%s</h1>\n<p>HTTP status %s. Problem type <code>/problems/%s</code> "
                 "(RFC 9457).</p>\n<p>%s</p>\n<p>The API: <a href=\"/openapi.yaml\">/openapi.yaml</a>.</p>\n"
                 "</body></html>\n",
                 problems[i].title, problems[i].title, problems[i].status, problems[i].slug, problems[i].what);
        reply_text(rs, 200, "text/html; charset=utf-8", page);
        return;
    }
    reply_problem(rs, 404, "not-found", "No such problem type", slug, NULL);
}
