/* /v1/sessions/{id}/recording: GET downloads the recorded frames as NDJSON, CSV or HDF5
 * (?format= or Accept; ?from=&to= in simulated seconds), PATCH changes what is recorded. */
#include "http.h"

#include "accept.h"

#include "frame_fields.h"
#include "service.h"
#include "session.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The format a request asks for: ?format= first, else the one Accept gives the highest
 * quality (a tie goes to the one Accept names first, then NDJSON, CSV, HDF5, MCAP; q=0 refuses a
 * type). -1 when ?format= names none of them, -2 when Accept accepts none. */
static int wanted_format(http_request *rq, export_format *fmt, char *why, size_t whylen)
{
    const char *q = req_query(rq, "format");
    if (q) {
        if (export_format_parse(q, fmt) == 0) return 0;
        snprintf(why, whylen, "query parameter format must be ndjson, csv, hdf5 or mcap, not \"%s\"", q);
        return -1;
    }
    const char *accept = req_header(rq, "Accept");
    double best_q = 0;
    const char *best_at = NULL;
    for (int f = EXPORT_NDJSON; f <= EXPORT_MCAP; f++) {
        const char *type = export_format_media_type((export_format)f);
        const double fq = accept_quality(accept, type);
        const char *at = accept ? strstr(accept, type) : NULL;
        if (fq > best_q || (fq == best_q && fq > 0 && at && (!best_at || at < best_at))) {
            best_q = fq;
            best_at = at;
            *fmt = (export_format)f;
        }
    }
    if (best_q > 0) return 0;
    snprintf(why, whylen, "a recording comes as application/x-ndjson, text/csv, application/x-hdf5 or application/x-mcap "
             "(Accept: %.80s)", accept);
    return -2;
}

static int time_param(http_request *rq, const char *name, double *v, cJSON *errors)
{
    const char *q = req_query(rq, name);
    if (!q) return 0;
    char *end;
    double x = strtod(q, &end);
    /* decimal only: strtod also reads 0x10 as 16, and inf and nan */
    if (!*q || *end || !isfinite(x) || strspn(q, "0123456789+-.eE") != strlen(q)) {
        cJSON *e = cJSON_CreateObject();
        char msg[96];
        snprintf(msg, sizeof msg, "query parameter %s must be a simulated time in seconds", name);
        cJSON_AddStringToObject(e, "path", ""); /* not in the body: the message names it */
        cJSON_AddStringToObject(e, "message", msg);
        cJSON_AddItemToArray(errors, e);
        return -1;
    }
    *v = x;
    return 0;
}

static void download(http_request *rq, http_response *rs, session *s, recording *r)
{
    export_format fmt;
    char why[256];
    int w = wanted_format(rq, &fmt, why, sizeof why);
    if (w == -2) {
        reply_problem(rs, PROBLEM_NOT_ACCEPTABLE, "no such representation", why, NULL);
        return;
    }
    double from = -INFINITY, to = INFINITY;
    cJSON *errors = cJSON_CreateArray();
    if (w == -1) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "path", "");
        cJSON_AddStringToObject(e, "message", why);
        cJSON_AddItemToArray(errors, e);
    }
    time_param(rq, "from", &from, errors);
    time_param(rq, "to", &to, errors);
    if (cJSON_GetArraySize(errors)) {
        reply_problem(rs, PROBLEM_INVALID_QUERY, "bad query", NULL, errors);
        return;
    }
    cJSON_Delete(errors);
    /* written to a file that the answer streams and nobody else sees: a long recording never
     * sits whole in memory */
    const char *dir = rq->d->cfg.state_dir[0] ? rq->d->cfg.state_dir : getenv("TMPDIR");
    char path[1100];
    snprintf(path, sizeof path, "%s/" EXPORT_TEMP_PREFIX "XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(why, sizeof why, "cannot create a file for the export: %s", strerror(errno));
        reply_problem(rs, PROBLEM_INTERNAL, "the export failed", why, NULL);
        return;
    }
    close(fd);
    char err[512];
    long n = recording_export(r, fmt, from, to, session_spec_json(s), path, err, sizeof err);
    if (n < 0) {
        unlink(path);
        const int retry = strstr(err, "ask again") != NULL, full = strstr(err, strerror(ENOSPC)) != NULL;
        if (full) /* the temporary file met a full disk: nothing wrong with the recording */
            reply_problem(rs, PROBLEM_INSUFFICIENT_STORAGE, "the export failed", err, NULL);
        else
            reply_problem(rs, retry ? PROBLEM_NOT_READY : PROBLEM_INTERNAL, "the export failed", err, NULL);
        if (retry) snprintf(rs->retry_after, sizeof rs->retry_after, "1");
        return;
    }
    rs->status = 200;
    rs->content_type = export_format_media_type(fmt);
    rs->file = strdup(path);
    rs->file_temporary = 1;
    if (!rs->file) unlink(path);
    static const char *const ext[] = {"ndjson", "csv", "h5", "mcap"};
    snprintf(rs->disposition, sizeof rs->disposition, "attachment; filename=\"%s.%s\"", session_id(s), ext[fmt]);
}

static void change(http_request *rq, http_response *rs, session *s, recording *r)
{
    cJSON *body = req_json(rq, rs);
    if (!body) return;
    recording_opts o;
    recording_get_opts(r, &o);
    cJSON *errors = cJSON_CreateArray();
    recording_opts_parse(body, "", session_points(s), recording_shape(r), &o, errors);
    cJSON_Delete(body);
    if (cJSON_GetArraySize(errors)) {
        reply_problem(rs, PROBLEM_INVALID_REQUEST, "the recording options are invalid", NULL, errors);
        return;
    }
    cJSON_Delete(errors);
    char err[512];
    if (recording_configure(r, &o, err, sizeof err) != 0) {
        reply_problem(rs, PROBLEM_INTERNAL, "the recording could not start afresh", err, NULL);
        return;
    }
    daemon_checkpoint_session(rq->d, s); /* the options outlive a restart */
    reply_json(rs, 200, recording_describe(r));
}

void h_recording(http_request *rq, http_response *rs, session *s)
{
    recording *r = session_recording(s);
    if (!r) {
        reply_problem(rs, PROBLEM_NOT_FOUND, "this session has no recording", NULL, NULL);
        return;
    }
    if (strcmp(rq->method, "PATCH") == 0) change(rq, rs, s, r);
    else download(rq, rs, s, r);
}
