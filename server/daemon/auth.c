#include "auth.h"

#include "session.h"
#include "textfile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define MAX_TOKENS 256
#define MAX_TICKETS 1024

typedef struct {
    char token[160];
    role r;
} token_entry;

typedef struct {
    char ticket[65];
    char session[64];
    role r;
    double expires;
    double issued;
    int owner; /* the token that asked for it (-1: no tokens configured) */
} ticket_entry;

#define TICKETS_PER_OWNER 16

struct auth {
    token_entry tokens[MAX_TOKENS];
    int ntokens;
    pthread_mutex_t mu;
    ticket_entry tickets[MAX_TICKETS];
};

const char *role_name(role r)
{
    return r == ROLE_OPERATOR ? "operator" : r == ROLE_VIEWER ? "viewer" : "none";
}

int random_hex(char *out, size_t nbytes)
{
    unsigned char b[64];
    if (nbytes > sizeof b) return -1;
    size_t got = 0;
    while (got < nbytes) {
        ssize_t r = getrandom(b + got, nbytes - got, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        got += (size_t)r;
    }
    for (size_t i = 0; i < nbytes; i++) sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * nbytes] = '\0';
    return 0;
}

static int parse_role(const char *s, role *r)
{
    if (strcmp(s, "operator") == 0) *r = ROLE_OPERATOR;
    else if (strcmp(s, "viewer") == 0) *r = ROLE_VIEWER;
    else return -1;
    return 0;
}

static int add_token(auth *a, const char *rolename, const char *token, char *err, size_t errlen)
{
    role r;
    if (parse_role(rolename, &r) != 0) {
        snprintf(err, errlen, "token role \"%s\": must be operator or viewer", rolename);
        return -1;
    }
    size_t n = strlen(token);
    /* deploy/tokens.example's placeholders (and the README's CHANGE-ME) copied as they are
     * would be tokens anyone who read the repository knows */
    if (strstr(token, "replace-with") || strstr(token, "CHANGE-ME") || strstr(token, "change-me")) {
        snprintf(err, errlen, "the %s token is the example's placeholder \"%.60s\": put a real token there "
                 "(e.g. openssl rand -hex 24)", rolename, token);
        return -1;
    }
    if (n < 8 || n >= sizeof a->tokens[0].token) {
        snprintf(err, errlen, "a token must have 8 to %zu characters", sizeof a->tokens[0].token - 1);
        return -1;
    }
    if (a->ntokens == MAX_TOKENS) {
        snprintf(err, errlen, "more than %d tokens", MAX_TOKENS);
        return -1;
    }
    snprintf(a->tokens[a->ntokens].token, sizeof a->tokens[0].token, "%s", token);
    a->tokens[a->ntokens++].r = r;
    return 0;
}

/* A tokens file: {"tokens": [{"token", "role"}...]} or lines "ROLE TOKEN" (# comments). */
static int parse_tokens(auth *a, const char *path, char *buf, char *err, size_t errlen)
{
    const char *p = buf;
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
    if (*p == '{') {
        cJSON *o = cJSON_Parse(p);
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "tokens");
        int rc = cJSON_IsArray(arr) ? 0 : -1;
        if (rc) snprintf(err, errlen, "tokens file %s: expected {\"tokens\": [...]}", path);
        for (const cJSON *e = arr ? arr->child : NULL; e && rc == 0; e = e->next) {
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "token");
            const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "role");
            if (!cJSON_IsString(t) || !cJSON_IsString(r)) {
                snprintf(err, errlen, "tokens file %s: each entry needs \"token\" and \"role\"", path);
                rc = -1;
            } else {
                rc = add_token(a, r->valuestring, t->valuestring, err, errlen);
            }
        }
        cJSON_Delete(o);
        return rc;
    }
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char rolename[32], token[256];
        while (*line == ' ' || *line == '\t') line++;
        if (!*line || *line == '#') continue;
        if (sscanf(line, "%31s %255s", rolename, token) != 2) {
            snprintf(err, errlen, "tokens file %s: lines are \"ROLE TOKEN\"", path);
            return -1;
        }
        if (add_token(a, rolename, token, err, errlen) != 0) return -1;
    }
    return 0;
}

int auth_load_tokens_text(auth *a, const char *name, char *text, char *err, size_t errlen)
{
    return parse_tokens(a, name, text, err, errlen);
}

static int load_file(auth *a, const char *path, char *err, size_t errlen)
{
    char *buf = read_text_file(path, 1u << 20, NULL);
    if (!buf) {
        snprintf(err, errlen, "tokens file %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = parse_tokens(a, path, buf, err, errlen);
    free(buf);
    return rc;
}

auth *auth_new(const server_config *c, char *err, size_t errlen)
{
    auth *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    pthread_mutex_init(&a->mu, NULL);
    if (c->tokens_file[0] && load_file(a, c->tokens_file, err, errlen) != 0) {
        auth_free(a);
        return NULL;
    }
    if (c->tokens[0]) {
        char list[sizeof c->tokens];
        snprintf(list, sizeof list, "%s", c->tokens);
        char *save = NULL;
        for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
            char *colon = strchr(item, ':');
            if (!colon) {
                snprintf(err, errlen, "RODD_TOKENS: items are ROLE:TOKEN");
                auth_free(a);
                return NULL;
            }
            *colon = '\0';
            if (add_token(a, item, colon + 1, err, errlen) != 0) {
                auth_free(a);
                return NULL;
            }
        }
    }
    return a;
}

void auth_free(auth *a)
{
    if (!a) return;
    pthread_mutex_destroy(&a->mu);
    free(a);
}

int auth_enabled(const auth *a)
{
    return a->ntokens > 0;
}

int auth_token_count(const auth *a)
{
    return a->ntokens;
}

/* constant time in the length of the stored token */
static int same(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d = (unsigned char)(la != lb);
    for (size_t i = 0; i < la; i++) d |= (unsigned char)(a[i] ^ (i < lb ? b[i] : 0));
    return d == 0;
}

role auth_bearer(const auth *a, const char *header)
{
    if (!header || strncasecmp(header, "Bearer ", 7) != 0) return ROLE_NONE;
    const char *tok = header + 7;
    while (*tok == ' ') tok++;
    role best = ROLE_NONE;
    for (int i = 0; i < a->ntokens; i++)
        if (same(a->tokens[i].token, tok) && a->tokens[i].r > best) best = a->tokens[i].r;
    return best;
}

int auth_token_owner(const auth *a, const char *header)
{
    if (!header || strncasecmp(header, "Bearer ", 7) != 0) return -1;
    const char *tok = header + 7;
    while (*tok == ' ') tok++;
    for (int i = 0; i < a->ntokens; i++)
        if (same(a->tokens[i].token, tok)) return i;
    return -1;
}

/* The slot a new ticket of `owner` takes (mu held): its own oldest once it holds
 * TICKETS_PER_OWNER live ones, else a free or expired slot, else the oldest ticket of whoever
 * holds the most, so that one client asking for many cancels only its own. */
static ticket_entry *ticket_slot(auth *a, int owner, double now)
{
    int held[MAX_TOKENS + 1] = {0};
    ticket_entry *free_slot = NULL, *own_oldest = NULL;
    for (int i = 0; i < MAX_TICKETS; i++) {
        ticket_entry *e = &a->tickets[i];
        if (!e->ticket[0] || e->expires < now) {
            if (!free_slot) free_slot = e;
            continue;
        }
        held[e->owner + 1]++;
        if (e->owner == owner && (!own_oldest || e->issued < own_oldest->issued)) own_oldest = e;
    }
    if (held[owner + 1] >= TICKETS_PER_OWNER) return own_oldest;
    if (free_slot) return free_slot;
    int heavy = 0;
    for (int o = 1; o <= MAX_TOKENS; o++)
        if (held[o] > held[heavy]) heavy = o;
    ticket_entry *victim = NULL;
    for (int i = 0; i < MAX_TICKETS; i++) {
        ticket_entry *e = &a->tickets[i];
        if (e->owner + 1 == heavy && (!victim || e->issued < victim->issued)) victim = e;
    }
    return victim;
}

int auth_issue_ticket(auth *a, const char *session_id, role r, double ttl, int owner, char *out, size_t outlen)
{
    char t[65];
    if (outlen < sizeof t || random_hex(t, 32) != 0) return -1;
    if (owner < -1 || owner >= MAX_TOKENS) owner = -1;
    pthread_mutex_lock(&a->mu);
    const double now = mono_now();
    ticket_entry *e = ticket_slot(a, owner, now);
    if (!e) {
        pthread_mutex_unlock(&a->mu);
        return -1;
    }
    snprintf(e->ticket, sizeof e->ticket, "%s", t);
    snprintf(e->session, sizeof e->session, "%s", session_id ? session_id : "");
    e->r = r;
    e->expires = now + ttl;
    e->issued = now;
    e->owner = owner;
    pthread_mutex_unlock(&a->mu);
    snprintf(out, outlen, "%s", t);
    return 0;
}

role auth_redeem_ticket(auth *a, const char *ticket, const char *session_id)
{
    role r = ROLE_NONE;
    if (!ticket || strlen(ticket) != 64) return r;
    pthread_mutex_lock(&a->mu);
    const double now = mono_now();
    for (int i = 0; i < MAX_TICKETS; i++) {
        ticket_entry *e = &a->tickets[i];
        if (!e->ticket[0] || !same(e->ticket, ticket)) continue;
        if (e->expires >= now && (!e->session[0] || strcmp(e->session, session_id) == 0)) r = e->r;
        e->ticket[0] = '\0'; /* single use, valid or not */
        break;
    }
    pthread_mutex_unlock(&a->mu);
    return r;
}
