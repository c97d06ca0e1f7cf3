/* rodd probe: a health check for orchestrators, without curl in the image. */
#include "serve.h"

#include "cli.h"
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* rodd probe: GET /readyz (or --path) on the daemon's address; exit 0 on 200. */
int cli_probe(int argc, char **argv)
{
    server_config c;
    config_defaults(&c);
    char err[256];
    const char *path = "/readyz";
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
            if (config_set_listen(&c, argv[++i], err, sizeof err) != 0) {
                fprintf(stderr, "rodd probe: %s\n", err);
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            if (config_load_file(&c, argv[++i], err, sizeof err) != 0) {
                fprintf(stderr, "rodd probe: %s\n", err);
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
            path = argv[++i];
        } else {
            fprintf(stderr, "usage: rodd probe [--listen ADDR:PORT] [--config FILE] [--path /readyz]\n");
            return EXIT_USAGE;
        }
    }
    if (config_from_env(&c, err, sizeof err) != 0) {
        fprintf(stderr, "rodd probe: %s\n", err);
        return EXIT_USAGE;
    }
    const char *host = strcmp(c.listen_host, "0.0.0.0") == 0 || strcmp(c.listen_host, "*") == 0 ? "127.0.0.1"
                       : strcmp(c.listen_host, "::") == 0 ? "::1" : c.listen_host;
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_socktype = SOCK_STREAM;
    char port[16];
    snprintf(port, sizeof port, "%d", c.http_port);
    if (getaddrinfo(host, port, &hints, &ai) != 0) {
        fprintf(stderr, "rodd probe: cannot resolve %s\n", host);
        return EXIT_FAILURE_OTHER;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct timeval tv = {3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int ok = fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
    freeaddrinfo(ai);
    if (!ok) {
        fprintf(stderr, "rodd probe: cannot connect to %s:%d: %s\n", host, c.http_port, strerror(errno));
        if (fd >= 0) close(fd);
        return EXIT_FAILURE_OTHER;
    }
    char req[512];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path, host);
    char resp[256] = "";
    ssize_t got = write(fd, req, (size_t)n) == n ? read(fd, resp, sizeof resp - 1) : -1;
    close(fd);
    if (got > 0) resp[got] = '\0';
    int status = 0;
    if (got <= 0 || sscanf(resp, "HTTP/%*s %d", &status) != 1) {
        fprintf(stderr, "rodd probe: no HTTP answer from %s:%d\n", host, c.http_port);
        return EXIT_FAILURE_OTHER;
    }
    printf("%s %d\n", path, status);
    return status == 200 ? EXIT_OK : EXIT_FAILURE_OTHER;
}
