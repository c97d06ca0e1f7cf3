#include "persist.h"

#include "log.h"
#include "textfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int mkdir_p(const char *path)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int sync_dir(const char *path, char *err, size_t errlen)
{
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fsync(dfd) != 0) {
        snprintf(err, errlen, "fsync %s: %s", path, strerror(errno));
        if (dfd >= 0) close(dfd);
        return -1;
    }
    close(dfd);
    return 0;
}

int persist_init(const char *dir, char *err, size_t errlen)
{
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/sessions", dir);
    if (mkdir_p(sub) != 0) {
        snprintf(err, errlen, "state directory %s: %s", sub, strerror(errno));
        return -1;
    }
    if (access(sub, W_OK) != 0) {
        snprintf(err, errlen, "state directory %s is not writable: %s", sub, strerror(errno));
        return -1;
    }
    return 0;
}

int persist_write(const char *dir, const char *id, const char *text, size_t len, char *err, size_t errlen)
{
    if (!persist_id_valid(id)) {
        snprintf(err, errlen, "not a session id");
        return -1;
    }
    char final[1200], tmp[1300], sub[1024];
    snprintf(sub, sizeof sub, "%s/sessions", dir);
    snprintf(final, sizeof final, "%s/%s.json", sub, id);
    snprintf(tmp, sizeof tmp, "%s/.%s.json.tmp", sub, id);
    int fd = open(tmp, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            return -1;
        }
        done += (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, final) != 0) {
        snprintf(err, errlen, "rename to %s: %s", final, strerror(errno));
        unlink(tmp);
        return -1;
    }
    /* the rename itself is durable only once the directory is */
    return sync_dir(sub, err, errlen);
}

int persist_delete(const char *dir, const char *id, char *err, size_t errlen)
{
    if (!persist_id_valid(id)) {
        snprintf(err, errlen, "not a session id");
        return -1;
    }
    char final[1200], sub[1024];
    snprintf(sub, sizeof sub, "%s/sessions", dir);
    snprintf(final, sizeof final, "%s/%s.json", sub, id);
    if (unlink(final) != 0) {
        if (errno == ENOENT) return 0;
        snprintf(err, errlen, "%s: %s", final, strerror(errno));
        return -1;
    }
    /* else a crash could bring the file back */
    return sync_dir(sub, err, errlen);
}

int persist_id_valid(const char *id)
{
    size_t n = 0;
    for (const char *p = id; *p; p++, n++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
              *p == '_'))
            return 0;
    return n > 0 && n < 64;
}

int persist_quarantine(const char *dir, const char *name, const char *why)
{
    char rej[1024], from[1400], to[1500];
    snprintf(rej, sizeof rej, "%s/rejected", dir);
    snprintf(from, sizeof from, "%s/sessions/%s", dir, name);
    if (mkdir(rej, 0755) != 0 && errno != EEXIST) {
        log_event(LOG_ERROR, "checkpoint_rejected", "file=%s reason=%s quarantine=%s", log_q(from), log_q(why),
                  log_q(strerror(errno)));
        return -1;
    }
    /* never over an earlier rejected file of the same name */
    snprintf(to, sizeof to, "%s/%s", rej, name);
    for (int i = 1; access(to, F_OK) == 0 && i < 1000; i++) snprintf(to, sizeof to, "%s/%s.%d", rej, name, i);
    if (rename(from, to) != 0) {
        log_event(LOG_ERROR, "checkpoint_rejected", "file=%s reason=%s quarantine=%s", log_q(from), log_q(why),
                  log_q(strerror(errno)));
        return -1;
    }
    char err[256];
    char sub[1100];
    snprintf(sub, sizeof sub, "%s/sessions", dir);
    sync_dir(sub, err, sizeof err);
    sync_dir(rej, err, sizeof err);
    log_event(LOG_ERROR, "checkpoint_rejected", "file=%s reason=%s moved_to=%s", log_q(from), log_q(why), log_q(to));
    return 0;
}

int persist_load_all(const char *dir, persist_restore_fn cb, void *ctx)
{
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/sessions", dir);
    DIR *d = opendir(sub);
    if (!d) return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        size_t nl = strlen(name);
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", sub, name);
        if (name[0] == '.') {
            /* a temporary file a crash left behind: its rename never happened */
            if (nl > 9 && strcmp(name + nl - 9, ".json.tmp") == 0) unlink(path);
            continue;
        }
        if (nl < 6 || strcmp(name + nl - 5, ".json") != 0) continue;
        char id[80];
        if (nl - 5 >= sizeof id) {
            persist_quarantine(dir, name, "the file name is not a session id");
            continue;
        }
        memcpy(id, name, nl - 5);
        id[nl - 5] = '\0';
        if (!persist_id_valid(id)) {
            persist_quarantine(dir, name, "the file name is not a session id");
            continue;
        }
        /* a FIFO, a device or a symlink where a checkpoint belongs is not one: reading it
         * could wait forever for a writer, or read what the state directory does not hold */
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            persist_quarantine(dir, name, "not a regular file");
            continue;
        }
        size_t n;
        char *buf = read_regular_file(path, 64u << 20, &n);
        char why[512] = "unreadable, not a regular file or over 64 MiB";
        const int rc = buf ? cb(ctx, id, path, buf, n, why, sizeof why) : PERSIST_REJECT;
        if (rc == PERSIST_RESTORED) count++;
        else if (rc == PERSIST_REJECT) persist_quarantine(dir, name, why);
        free(buf);
    }
    closedir(d);
    return count;
}
