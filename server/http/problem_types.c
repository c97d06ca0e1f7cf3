/* The problem types' table (problem_types.h): the slug, status and title every answer of a
 * kind carries, and the text of its page (problems.c). */
#include "problem_types.h"

#include <stddef.h>

static const problem_type types[PROBLEM_KINDS] = {
    [PROBLEM_MALFORMED_JSON] = {"malformed-json", 400, "Malformed JSON",
     "The request body is empty, is not JSON, or is not one JSON object. <code>errors[0]</code> has the line and "
     "column where the parser stopped."},
    [PROBLEM_INVALID_QUERY] = {"invalid-request", 400, "Invalid request",
     "The request's own members are wrong: an unknown key, a value of the wrong kind or out of range, a bad query "
     "parameter. Each problem is in <code>errors</code> with the JSON pointer of what is wrong."},
    [PROBLEM_URI_TOO_LONG] = {"invalid-request", 414, "Invalid request", NULL},
    [PROBLEM_INVALID_REQUEST] = {"invalid-request", 422, "Invalid request", NULL},
    [PROBLEM_INVALID_SPEC] = {"invalid-spec", 422, "Invalid spec",
     "The rod's spec (or a checkpoint's) does not validate. Every problem is in <code>errors</code>, each with its "
     "JSON pointer, e.g. <code>/spec/rod/poisson_ratio: must be in (-1, 0.5)</code>. Nothing was created."},
    [PROBLEM_UNAUTHORIZED] = {"unauthorized", 401, "Unauthorized",
     "Tokens are configured and the request has no valid <code>Authorization: Bearer TOKEN</code>."},
    [PROBLEM_FORBIDDEN] = {"forbidden", 403, "Forbidden",
     "The token's role (viewer) may not do this; an operator token may."},
    [PROBLEM_NOT_FOUND] = {"not-found", 404, "Not found",
     "No session (or input, example, method) of that name."},
    [PROBLEM_METHOD_NOT_ALLOWED] = {"method-not-allowed", 405, "Method not allowed",
     "The path exists but not with this method; the <code>Allow</code> header lists the ones it takes."},
    [PROBLEM_NOT_ACCEPTABLE] = {"not-acceptable", 406, "Not acceptable",
     "The Accept header names no representation this resource has (a recording comes as application/x-ndjson, "
     "text/csv or application/x-hdf5)."},
    [PROBLEM_WRONG_STATE] = {"wrong-state", 409, "Wrong state",
     "The session's state does not allow this (the detail says which state and what is needed), e.g. "
     "<code>:advance</code> on a running session, or a command to a failed one."},
    [PROBLEM_IDEMPOTENCY_IN_PROGRESS] = {"idempotency-in-progress", 409, "Idempotency key in progress",
     "A request with this Idempotency-Key is still being answered; retry shortly."},
    [PROBLEM_IDEMPOTENCY_MISMATCH] = {"idempotency-mismatch", 422, "Idempotency key reused",
     "This Idempotency-Key was used for a different request (method, path and body)."},
    [PROBLEM_BODY_TOO_LARGE] = {"body-too-large", 413, "Body too large",
     "The request body is over RODD_MAX_BODY bytes (default 4 MiB)."},
    [PROBLEM_TOO_MANY_SESSIONS] = {"too-many-sessions", 503, "Too many sessions",
     "The daemon holds RODD_MAX_SESSIONS sessions; delete one or retry after Retry-After seconds."},
    [PROBLEM_NOT_READY] = {"not-ready", 503, "Not ready",
     "The daemon is starting or draining, or a long step holds the session; retry after Retry-After seconds."},
    [PROBLEM_INSUFFICIENT_STORAGE] = {"insufficient-storage", 507, "Insufficient storage",
     "The disk of the state directory is full: an export's temporary file could not be written. The recording "
     "itself is whole; free space (delete sessions, or their recordings) and ask again."},
    [PROBLEM_INTERNAL] = {"internal", 500, "Internal error",
     "The daemon could not do it (out of memory, a file it could not write)."},
    [PROBLEM_HOST_NOT_ALLOWED] = {"host-not-allowed", 403, "Host not allowed",
     "The request's Host is not one this daemon answers to (its listen address, or RODD_ALLOWED_HOSTS): a guard "
     "against DNS rebinding."},
    [PROBLEM_ORIGIN_NOT_ALLOWED] = {"origin-not-allowed", 403, "Origin not allowed",
     "A browser page from another origin sent this; RODD_ALLOWED_ORIGINS lists the ones allowed."},
    [PROBLEM_UPGRADE_REQUIRED] = {"upgrade-required", 426, "Upgrade required",
     "A session's stream (<code>/v1/sessions/ID/stream</code>) is a WebSocket: open it with a WebSocket client, "
     "which sends <code>Upgrade: websocket</code>. The session's <code>stream_url</code> is its address."},
    [PROBLEM_UNSUPPORTED_MEDIA_TYPE] = {"unsupported-media-type", 415, "Unsupported media type",
     "Request bodies are JSON (application/json)."},
    [PROBLEM_BUSY] = {"busy", 503, "Busy",
     "Too many request bodies are being received at once, or (a stream) RODD_MAX_STREAMS streams are open; retry "
     "shortly."},
};

const problem_type *problem_type_of(problem_kind k)
{
    return &types[k];
}

const problem_type *problem_type_at(int i)
{
    return i >= 0 && i < PROBLEM_KINDS ? &types[i] : NULL;
}
