/* The daemon's configuration: defaults, then a JSON file, then environment variables, then
 * command-line flags, each overriding the one before. Every option has one row in config.c's
 * table (key, RODD_* variable, range, default): each source is checked against the same range,
 * and an error names the option as it was given (the key, the variable or the flag). */
#ifndef RODD_CONFIG_H
#define RODD_CONFIG_H

#include <stddef.h>

typedef struct {
    char listen_host[128]; /* "127.0.0.1" */
    int http_port;         /* REST and the viewer */
    int ws_port;           /* a port for streams alone, besides the REST port's; 0 = none */
    char state_dir[512];   /* "" = no persistence */
    char web_root[512];    /* the built viewer */
    char examples_dir[512];
    char tokens_file[512];
    char tokens[2048];     /* "role:token,role:token" */
    char allowed_origins[1024]; /* comma-separated; "" = the daemon's own hosts only */
    char allowed_hosts[1024];   /* Host names besides the listen address's; comma-separated */
    char peers[2048];           /* "HOST:PORT,..." of the group's daemons, entry i = ordinal i: GET
                                 * /v1/sessions lists their sessions too; "" = this daemon's only */
    char public_stream_url[512]; /* ws:// or wss:// base announced in stream_url; "" = the REST port, from Host */
    int workers;
    int max_sessions;
    int max_dof;
    int max_points;
    size_t max_body;
    int http_threads;
    int connection_timeout;  /* s idle */
    double request_timeout;  /* s for a request's headers, and again for its body */
    size_t max_bodies_in_flight; /* bytes of request bodies held at once, all requests */
    int per_ip_connections;
    int max_connections;
    int max_streams;
    double checkpoint_period; /* s */
    double ticket_ttl;        /* s */
    double stream_idle_timeout; /* s */
    double default_rate;      /* Hz */
    double max_rate;          /* Hz */
    double advance_limit;     /* s of wall time one :advance may take */
    double drain_timeout;     /* s a drain waits for a worker's step to end */
    double min_sim_rate;      /* a session computing slower than this x real time fails */
    double sim_rate_window;   /* s of computing that rate is measured over */
    size_t ws_max_message;
    int ordinal;              /* session ids start r<ordinal>; -1: from the host name */
    size_t recording_budget;  /* bytes for every session's recording together; 0 = sized at start
                               * from the state directory's free space (disk_budget_default) */
} server_config;

void config_defaults(server_config *c);
/* Reads a JSON file; returns 0 or -1 with a message. Unknown keys are errors. */
int config_load_file(server_config *c, const char *path, char *err, size_t errlen);
/* The same from a file's text; name is for messages. */
int config_load_text(server_config *c, const char *name, const char *text, size_t len, char *err, size_t errlen);
int config_from_env(server_config *c, char *err, size_t errlen);
/* "HOST:PORT", ":PORT" or "PORT" */
int config_set_listen(server_config *c, const char *addr, char *err, size_t errlen);
/* Sets option key (config.c's table) from text, a decimal number for numeric options, checked
 * against its range; source names the option in the error ("--ws-port", "RODD_WORKERS").
 * 0, or -1 with err and c unchanged. */
int config_set_text(server_config *c, const char *key, const char *text, const char *source, char *err,
                    size_t errlen);
/* What no single option can tell: options that contradict each other. 0, or -1 with err. */
int config_check(const server_config *c, char *err, size_t errlen);

#endif
