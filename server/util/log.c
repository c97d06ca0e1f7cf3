#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int min_level = LOG_INFO;

void log_set_level(int level)
{
    min_level = level;
}

const char *log_q(const char *s)
{
    static __thread char ring[4][512];
    static __thread int k;
    char *out = ring[k++ & 3];
    size_t j = 0;
    out[j++] = '"';
    for (const char *p = s ? s : ""; *p && j < sizeof ring[0] - 3; p++) {
        if (*p == '"' || *p == '\\') out[j++] = '\\';
        out[j++] = (*p == '\n' || *p == '\r') ? ' ' : *p;
    }
    out[j++] = '"';
    out[j] = '\0';
    return out;
}

void log_event(int level, const char *event, const char *fmt, ...)
{
    if (level < min_level) return;
    static const char *const names[] = {"debug", "info", "warn", "error"};
    char line[2048];
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "ts=%04d-%02d-%02dT%02d:%02d:%02d.%03dZ level=%s event=%s",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     (int)(tv.tv_usec / 1000), names[level], event);
    if (fmt && *fmt && n > 0 && (size_t)n < sizeof line - 2) {
        line[n++] = ' ';
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
        va_end(ap);
        if (m > 0) n += m;
    }
    if (n < 0) return;
    if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(2, line, (size_t)n);
    (void)w;
}
