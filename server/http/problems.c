/* The pages the problem types name: GET /problems/SLUG explains one kind of error answer, so
 * that a problem's `type` (a URI reference, "/problems/SLUG", resolved against the request's
 * URL) leads somewhere useful. The text is problem_types.c's. */
#include "http.h"

#include "problem_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "400", "400 or 422", "400, 414 or 422": every status the slug's kinds answer with */
static void statuses_of(const char *slug, char *out, size_t len)
{
    int st[PROBLEM_KINDS], n = 0;
    for (int i = 0; problem_type_at(i); i++)
        if (strcmp(problem_type_at(i)->slug, slug) == 0) st[n++] = problem_type_at(i)->status;
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(out + at, len - at, "%s%d", i == 0 ? "" : i == n - 1 ? " or " : ", ", st[i]);
}

void h_problem_page(http_request *rq, http_response *rs, const char *slug)
{
    (void)rq;
    for (int i = 0; problem_type_at(i); i++) {
        const problem_type *p = problem_type_at(i);
        if (strcmp(p->slug, slug) != 0 || !p->what) continue;
        char status[64], page[2048];
        statuses_of(slug, status, sizeof status);
        snprintf(page, sizeof page,
                 "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head>\n"
                 "<body><h1>%s</h1>\n<p>HTTP status %s. Problem type <code>/problems/%s</code> "
                 "(RFC 9457).</p>\n<p>%s</p>\n<p>The API: <a href=\"/openapi.yaml\">/openapi.yaml</a>.</p>\n"
                 "</body></html>\n",
                 p->title, p->title, status, p->slug, p->what);
        reply_text(rs, 200, "text/html; charset=utf-8", page);
        return;
    }
    reply_problem(rs, PROBLEM_NOT_FOUND, "no such problem type", slug, NULL);
}
