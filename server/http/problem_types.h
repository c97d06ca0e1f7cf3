/* The REST API's problem types (RFC 9457), one table: each kind's slug (its type is
 * /problems/SLUG), HTTP status, title and page. A call site names the kind; the status follows.
 * invalid-request comes in three kinds by what is wrong: the request line, a header or the
 * query (400, or 414 when the URL is too long: RFC 9110 15.5.1, 15.5.15), or the members of a
 * well-formed JSON body (422: RFC 9110 15.5.21), as api/openapi.yaml documents them. */
#ifndef RODD_PROBLEM_TYPES_H
#define RODD_PROBLEM_TYPES_H

typedef enum {
    PROBLEM_MALFORMED_JSON,
    PROBLEM_INVALID_QUERY,   /* invalid-request, 400: the request line, a header, the query */
    PROBLEM_URI_TOO_LONG,    /* invalid-request, 414 */
    PROBLEM_INVALID_REQUEST, /* invalid-request, 422: a JSON body's members */
    PROBLEM_INVALID_SPEC,
    PROBLEM_UNAUTHORIZED,
    PROBLEM_FORBIDDEN,
    PROBLEM_NOT_FOUND,
    PROBLEM_METHOD_NOT_ALLOWED,
    PROBLEM_NOT_ACCEPTABLE,
    PROBLEM_WRONG_STATE,
    PROBLEM_IDEMPOTENCY_IN_PROGRESS,
    PROBLEM_IDEMPOTENCY_MISMATCH,
    PROBLEM_BODY_TOO_LARGE,
    PROBLEM_TOO_MANY_SESSIONS,
    PROBLEM_NOT_READY,
    PROBLEM_INSUFFICIENT_STORAGE,
    PROBLEM_INTERNAL,
    PROBLEM_HOST_NOT_ALLOWED,
    PROBLEM_ORIGIN_NOT_ALLOWED,
    PROBLEM_UPGRADE_REQUIRED,
    PROBLEM_UNSUPPORTED_MEDIA_TYPE,
    PROBLEM_BUSY,
    PROBLEM_KINDS
} problem_kind;

typedef struct {
    const char *slug;
    int status;
    const char *title;
    const char *what; /* the page's text (HTML); NULL on a second kind of the same slug */
} problem_type;

const problem_type *problem_type_of(problem_kind k);
/* The kinds in table order, for the pages (NULL past the end). */
const problem_type *problem_type_at(int i);

#endif
