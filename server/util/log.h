/* Structured log lines on stderr, logfmt: ts=... level=info event=listening addr=... */
#ifndef RODD_LOG_H
#define RODD_LOG_H

enum { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

void log_set_level(int level);
/* fmt continues the line with key=value pairs; values with spaces should be quoted by the
 * caller with %s and log_q(). Thread-safe: one write per line. */
void log_event(int level, const char *event, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A logfmt-quoted copy of s in a per-thread ring of buffers (valid for a few calls). */
const char *log_q(const char *s);

#endif
