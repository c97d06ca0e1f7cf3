/* bench-load --reach's REST load: GET each of the paths in turn at RATE a second, open loop
 * (each request is due at its time on the schedule whether or not earlier ones have answered,
 * and its latency counts from that time, so a stall of the daemon is not hidden by requests
 * not sent meanwhile), over keep-alive connections to one daemon on this machine.
 *
 *   bench_rest_load HOST PORT RATE      (standard input a pipe: the paths, one a line, then an
 *                                        empty line; then the commands)
 *
 * Then on standard input: "record" starts the recording (the connections and the daemon's code
 * are warm by then), "stop" ends it; it waits up to 10 s for the answers of the requests in
 * flight, then prints {"latencies_ms": [...], "sent_at_s": [...], "sent", "failed", "wall_s",
 * "cpu_s", "connections"} on standard output and exits. "sent" counts the requests due while
 * recording; "failed" those answered with another status than 200, not answered within those
 * 10 s, lost with a connection the daemon closed, or due while all MAX_CONN connections waited;
 * the latencies are those of the 200 answers, each from its time on the schedule. A C client because the node one
 * (fetch on a worker thread) cost about as much CPU as the requests it timed, on the same two
 * cores as the daemon: what it measured was largely itself. */

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONN 256
#define MAX_PATHS 4096
#define RESP_MAX (1 << 20)

typedef struct {
    int fd;
    int busy;
    double due;          /* the request's time on the schedule (s, monotonic) */
    char *buf;           /* the answer so far */
    size_t len, need;    /* need: headers + body, once the headers are in */
} conn;

static conn conns[MAX_CONN];
static int nconn;
static struct sockaddr_in addr;
static char host[128];
static char *paths[MAX_PATHS];
static int npaths;
static double *lat, *sent_at;
static size_t nrec, caprec;
static long failed, sent_recorded;
static double record_from = -1, record_to = -1;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void connect_slot(int ep, int i)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) die("connect");
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    conns[i].fd = fd;
    conns[i].busy = 0;
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0) die("epoll_ctl");
}

static int open_conn(int ep)
{
    if (nconn == MAX_CONN) return -1;
    if (!(conns[nconn].buf = malloc(RESP_MAX))) die("malloc");
    connect_slot(ep, nconn);
    return nconn++;
}

static void record(double due, double done, int ok)
{
    if (record_from < 0 || due < record_from || (record_to >= 0 && due >= record_to)) return;
    sent_recorded++;
    if (!ok) {
        failed++;
        return;
    }
    if (nrec == caprec) {
        caprec = caprec ? 2 * caprec : 4096;
        lat = realloc(lat, caprec * sizeof *lat);
        sent_at = realloc(sent_at, caprec * sizeof *sent_at);
        if (!lat || !sent_at) die("realloc");
    }
    lat[nrec] = (done - due) * 1e3;
    sent_at[nrec++] = due - record_from;
}

/* a connection the daemon closed or reset (its idle timeout, an answer this client cannot
 * read): its request, if it had one, failed; the slot connects again */
static void reconnect(int ep, int i)
{
    conn *c = &conns[i];
    if (c->busy) record(c->due, now_s(), 0);
    close(c->fd); /* closing removes it from the epoll set */
    connect_slot(ep, i);
}

static void send_request(int ep, long k, double due)
{
    int i = 0;
    while (i < nconn && conns[i].busy) i++;
    if (i == nconn && (i = open_conn(ep)) < 0) {
        record(due, now_s(), 0); /* every connection waiting: counted as failed */
        return;
    }
    conn *c = &conns[i];
    char req[1024]; /* paths are at most 512 bytes, the host 127 */
    const int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: application/json\r\n\r\n",
                           paths[k % npaths], host);
    c->busy = 1;
    c->due = due;
    c->len = 0;
    c->need = 0;
    ssize_t w;
    do w = write(c->fd, req, (size_t)n); /* a few hundred bytes into an idle socket: whole or an error */
    while (w < 0 && errno == EINTR);
    if (w != n) reconnect(ep, i);
}

/* reads what is there, and records the answer once it is whole */
static void on_readable(int ep, int i)
{
    conn *c = &conns[i];
    for (;;) {
        const ssize_t r = read(c->fd, c->buf + c->len, RESP_MAX - 1 - c->len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (r <= 0) {
            reconnect(ep, i);
            return;
        }
        if (!c->busy) { /* nothing asked: not an answer */
            c->len = 0;
            continue;
        }
        c->len += (size_t)r;
        c->buf[c->len] = '\0';
        if (!c->need) {
            const char *end = strstr(c->buf, "\r\n\r\n");
            if (!end) continue;
            const char *cl = strcasestr(c->buf, "\r\nContent-Length:");
            if (cl && cl < end) c->need = (size_t)(end + 4 - c->buf) + strtoul(cl + 17, NULL, 10);
            if (!cl || cl > end || c->need >= RESP_MAX) { /* chunked, or too large: not ours to read */
                reconnect(ep, i);
                return;
            }
        }
        if (c->need && c->len >= c->need) {
            record(c->due, now_s(), strncmp(c->buf, "HTTP/1.1 200", 12) == 0);
            c->busy = 0;
            return;
        }
    }
}

/* a command line; at the end of standard input, as "stop" (and it leaves the epoll set) */
static void on_command(int ep)
{
    char line[64];
    if (!fgets(line, sizeof line, stdin)) {
        if (record_to < 0) record_to = now_s();
        epoll_ctl(ep, EPOLL_CTL_DEL, STDIN_FILENO, NULL);
        return;
    }
    if (strncmp(line, "record", 6) == 0) record_from = now_s();
    if (strncmp(line, "stop", 4) == 0) record_to = now_s();
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s HOST PORT RATE (paths and commands on standard input, a pipe)\n", argv[0]);
        return 64;
    }
    const double rate = atof(argv[3]);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)atoi(argv[2]));
    if (inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1 || !(rate > 0)) {
        fprintf(stderr, "%s: a numeric IPv4 host and a positive rate\n", argv[0]);
        return 64;
    }
    snprintf(host, sizeof host, "%s:%s", argv[1], argv[2]);
    signal(SIGPIPE, SIG_IGN); /* a write to a connection the daemon reset fails, and is counted */
    setvbuf(stdin, NULL, _IONBF, 0);
    char line[1024];
    while (npaths < MAX_PATHS && fgets(line, sizeof line, stdin) && line[0] != '\n') {
        line[strcspn(line, "\n")] = '\0';
        if (strlen(line) > 512) {
            fprintf(stderr, "%s: a path over 512 bytes\n", argv[0]);
            return 64;
        }
        if (!(paths[npaths++] = strdup(line))) die("strdup");
    }
    if (!npaths) return 64;

    const int ep = epoll_create1(0), tfd = timerfd_create(CLOCK_MONOTONIC, 0);
    if (ep < 0 || tfd < 0) die("epoll/timerfd");
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = MAX_CONN};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) != 0) die("epoll_ctl timerfd");
    ev.data.u32 = MAX_CONN + 1;
    if (epoll_ctl(ep, EPOLL_CTL_ADD, STDIN_FILENO, &ev) != 0) die("epoll_ctl standard input (a pipe, not a file)");
    for (int i = 0; i < 8; i++) open_conn(ep);
    printf("ready\n");
    fflush(stdout);

    const double t0 = now_s(), period = 1.0 / rate;
    long k = 0;
    while (record_to < 0 || now_s() < record_to + 10.0) {
        const double t = now_s();
        if (record_to < 0)
            for (; t0 + (double)k * period <= t; k++) send_request(ep, k, t0 + (double)k * period);
        int waiting = 0;
        for (int i = 0; i < nconn; i++) waiting += conns[i].busy;
        if (record_to >= 0 && !waiting) break;
        /* the next request's time; after "stop", no more requests: the answers or 10 s */
        const double next = record_to < 0 ? t0 + (double)k * period : record_to + 10.0;
        struct itimerspec its = {0};
        its.it_value.tv_sec = (time_t)next;
        its.it_value.tv_nsec = (long)((next - (double)(time_t)next) * 1e9);
        if (!its.it_value.tv_sec && !its.it_value.tv_nsec) its.it_value.tv_nsec = 1;
        timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
        struct epoll_event evs[MAX_CONN + 2];
        const int n = epoll_wait(ep, evs, MAX_CONN + 2, 100);
        for (int i = 0; i < n; i++) {
            const uint32_t id = evs[i].data.u32;
            if (id == MAX_CONN) {
                uint64_t expirations;
                if (read(tfd, &expirations, sizeof expirations) < 0 && errno != EAGAIN) die("timerfd");
            } else if (id == MAX_CONN + 1) {
                on_command(ep);
            } else {
                on_readable(ep, (int)id);
            }
        }
    }
    for (int i = 0; i < nconn; i++) /* still unanswered after 10 s */
        if (conns[i].busy) record(conns[i].due, now_s(), 0);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    printf("{\"sent\":%ld,\"failed\":%ld,\"wall_s\":%.6f,\"connections\":%d,\"cpu_s\":%.4f,\"latencies_ms\":[", sent_recorded,
           failed, record_to - record_from, nconn, cpu);
    for (size_t i = 0; i < nrec; i++) printf("%s%.4f", i ? "," : "", lat[i]);
    printf("],\"sent_at_s\":[");
    for (size_t i = 0; i < nrec; i++) printf("%s%.6f", i ? "," : "", sent_at[i]);
    printf("]}\n");
    return 0;
}
