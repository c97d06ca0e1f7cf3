/* POST /v1/solve, the examples, stream tickets and the viewer's static files. */
#include "http.h"
#include "frame_codec.h"

#include "service.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void h_solve(http_request *rq, http_response *rs)
{
    if (!req_need(rq, rs, ROLE_OPERATOR)) return;
    cJSON *b = req_json(rq, rs);
    if (!b) return;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(b, "spec");
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(b, "points");
    int points = ROD_FRAME_DEFAULT_POINTS;
    cJSON *errors = cJSON_CreateArray();
    for (cJSON *it = b->child; it; it = it->next)
        if (strcmp(it->string, "spec") != 0 && strcmp(it->string, "points") != 0) {
            cJSON *e = cJSON_CreateObject();
            char p[160];
            snprintf(p, sizeof p, "/%s", it->string);
            cJSON_AddStringToObject(e, "path", p);
            cJSON_AddStringToObject(e, "message", "unknown key");
            cJSON_AddItemToArray(errors, e);
        }
    if (!cJSON_IsObject(spec)) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "path", "/spec");
        cJSON_AddStringToObject(e, "message", spec ? "must be an object" : "is required");
        cJSON_AddItemToArray(errors, e);
    }
    if (pts) {
        if (cJSON_IsNumber(pts) && pts->valuedouble >= 2 && pts->valuedouble <= rq->d->cfg.max_points &&
            pts->valuedouble == (int)pts->valuedouble)
            points = (int)pts->valuedouble;
        else {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "path", "/points");
            cJSON_AddStringToObject(e, "message", "must be an integer within the daemon's output cap");
            cJSON_AddItemToArray(errors, e);
        }
    }
    if (cJSON_GetArraySize(errors)) {
        reply_problem(rs, PROBLEM_INVALID_REQUEST, NULL, NULL, errors);
        cJSON_Delete(b);
        return;
    }
    cJSON_Delete(errors);
    char *text = cJSON_PrintUnformatted(spec);
    cJSON_Delete(b);
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = text ? rod_model_compile(text, strlen(text), NULL, 0, &iss) : NULL;
    free(text);
    if (!m) {
        cJSON *e = cJSON_CreateArray();
        for (int i = 0; i < iss.count; i++) {
            cJSON *x = cJSON_CreateObject();
            char p[512];
            snprintf(p, sizeof p, "/spec%s", iss.items[i].path);
            cJSON_AddStringToObject(x, "path", p);
            cJSON_AddStringToObject(x, "message", iss.items[i].message);
            cJSON_AddItemToArray(e, x);
        }
        reply_problem(rs, PROBLEM_INVALID_SPEC, NULL, NULL, e);
        rod_issues_free(&iss);
        return;
    }
    rod_issues_free(&iss);
    if (rod_model_ndof(m) > rq->d->cfg.max_dof) {
        reply_problem(rs, PROBLEM_INVALID_SPEC, "the model is too large", "more coordinates than the daemon allows", NULL);
        rod_model_free(m);
        return;
    }
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    if (!st) {
        reply_problem(rs, PROBLEM_INTERNAL, "could not create a state", err, NULL);
        rod_model_free(m);
        return;
    }
    rod_statics_result res;
    int rc = rod_statics_solve(m, st, 0.0, &res);
    rod_frame f;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "converged", res.converged);
    cJSON_AddNumberToObject(o, "iterations", res.iterations);
    cJSON_AddNumberToObject(o, "load_steps", res.load_steps);
    cJSON_AddNumberToObject(o, "residual", res.residual);
    if (rc != ROD_OK) cJSON_AddStringToObject(o, "message", rod_state_error(st));
    cJSON_AddItemToObject(o, "q", cJSON_CreateDoubleArray(rod_state_q(st), rod_model_ndof(m)));
    if (rod_frame_compute(m, st, points, &f) == ROD_OK) {
        cJSON_AddItemToObject(o, "frame", frame_codec_cjson(&f));
        rod_frame_free(&f);
    }
    reply_json(rs, 200, o);
    rod_state_free(st);
    rod_model_free(m);
}

void h_examples(http_request *rq, http_response *rs, const char *name)
{
    if (!req_need(rq, rs, ROLE_VIEWER)) return;
    if (name && *name) {
        char *text = read_example(rq->d, name);
        if (!text) {
            reply_problem(rs, PROBLEM_NOT_FOUND, "no such example", name, NULL);
            return;
        }
        reply_text(rs, 200, "application/json", text);
        free(text);
        return;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(o, "examples");
    DIR *dir = opendir(rq->d->cfg.examples_dir);
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0 || e->d_name[0] == '.') continue;
        char nm[256];
        snprintf(nm, sizeof nm, "%.*s", (int)(n - 5), e->d_name);
        char *text = read_example(rq->d, nm);
        cJSON *spec = text ? cJSON_Parse(text) : NULL;
        free(text);
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "name", nm);
        const cJSON *desc = cJSON_GetObjectItemCaseSensitive(spec, "description");
        cJSON_AddStringToObject(x, "description", cJSON_IsString(desc) ? desc->valuestring : "");
        cJSON_AddItemToArray(arr, x);
        cJSON_Delete(spec);
    }
    if (dir) closedir(dir);
    reply_json(rs, 200, o);
}

void h_stream_ticket(http_request *rq, http_response *rs)
{
    if (!req_need(rq, rs, ROLE_VIEWER)) return;
    cJSON *b = rq->len ? req_json(rq, rs) : cJSON_CreateObject();
    if (!b) return;
    for (const cJSON *it = b->child; it; it = it->next)
        if (strcmp(it->string, "session") != 0) {
            cJSON *e = cJSON_CreateArray(), *x = cJSON_CreateObject();
            char pth[160];
            snprintf(pth, sizeof pth, "/%s", it->string);
            cJSON_AddStringToObject(x, "path", pth);
            cJSON_AddStringToObject(x, "message", "unknown key");
            cJSON_AddItemToArray(e, x);
            reply_problem(rs, PROBLEM_INVALID_REQUEST, NULL, NULL, e);
            cJSON_Delete(b);
            return;
        }
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(b, "session");
    const char *id = cJSON_IsString(sid) ? sid->valuestring : "";
    if (sid && !cJSON_IsString(sid)) {
        reply_problem(rs, PROBLEM_INVALID_REQUEST, "session must be a session id", NULL, NULL);
        cJSON_Delete(b);
        return;
    }
    if (*id) {
        session *s = pool_find(rq->d->pool, id);
        if (!s) {
            reply_problem(rs, PROBLEM_NOT_FOUND, "no such session", id, NULL);
            cJSON_Delete(b);
            return;
        }
        session_release(s);
    }
    char t[80];
    const int owner = auth_token_owner(rq->d->auth, req_header(rq, "Authorization"));
    if (auth_issue_ticket(rq->d->auth, id, rq->role, rq->d->cfg.ticket_ttl, owner, t, sizeof t) != 0) {
        reply_problem(rs, PROBLEM_INTERNAL, "could not make a ticket", NULL, NULL);
        cJSON_Delete(b);
        return;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "ticket", t);
    cJSON_AddNumberToObject(o, "expires_in", rq->d->cfg.ticket_ttl);
    if (*id) {
        char url[512], full[700];
        stream_url_for(rq, id, url, sizeof url);
        snprintf(full, sizeof full, "%s?ticket=%s", url, t);
        cJSON_AddStringToObject(o, "stream_url", full);
    }
    cJSON_Delete(b);
    reply_json(rs, 201, o);
}

static const char *mime(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot) return "application/octet-stream";
    static const char *const map[][2] = {{".html", "text/html; charset=utf-8"}, {".js", "text/javascript"},
                                         {".mjs", "text/javascript"}, {".css", "text/css"},
                                         {".json", "application/json"}, {".svg", "image/svg+xml"},
                                         {".png", "image/png"}, {".ico", "image/x-icon"},
                                         {".yaml", "application/yaml"}, {".map", "application/json"},
                                         {".wasm", "application/wasm"}, {".txt", "text/plain; charset=utf-8"}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(dot, map[i][0]) == 0) return map[i][1];
    return "application/octet-stream";
}

void h_static(http_request *rq, http_response *rs)
{
    char path[2200];
    const char *p = rq->path;
    if (strstr(p, "..") || strchr(p, '\\')) {
        reply_problem(rs, PROBLEM_NOT_FOUND, "no such file", NULL, NULL);
        return;
    }
    if (strcmp(p, "/openapi.yaml") == 0 || strcmp(p, "/spec.schema.json") == 0) {
        /* the contract and the spec's schema it refers to, from beside the examples */
        snprintf(path, sizeof path, "%s/..%s", rq->d->cfg.examples_dir, p);
    } else {
        const size_t pl = strlen(p); /* "" when the request's target had no path */
        snprintf(path, sizeof path, "%s%s%s", rq->d->cfg.web_root, p, !pl || p[pl - 1] == '/' ? "index.html" : "");
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (strcmp(p, "/") == 0) {
            reply_text(rs, 200, "text/html; charset=utf-8",
                       "<!doctype html><title>rodd</title><p>rodd is running. The viewer is not built here "
                       "(<code>make web</code>); the API is at <a href=\"/v1/sessions\">/v1/sessions</a>.</p>");
            return;
        }
        reply_problem(rs, PROBLEM_NOT_FOUND, "no such file", p, NULL);
        return;
    }
    /* a per-request copy of the path: h_static runs on several threads */
    char *copy = strdup(path);
    if (!copy) {
        reply_problem(rs, PROBLEM_INTERNAL, "out of memory", NULL, NULL);
        return;
    }
    rs->status = 200;
    rs->content_type = mime(path);
    rs->file = copy;
}
