#include "persist.h"
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

int persist_load_all(const char *dir, int (*cb)(void *ctx, const char *file, const char *text, size_t len),
                     void *ctx)
{
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/sessions", dir);
    DIR *d = opendir(sub);
    if (!d) return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t nl = strlen(e->d_name);
        if (e->d_name[0] == '.' || nl < 6 || strcmp(e->d_name + nl - 5, ".json") != 0) continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
        size_t n;
        char *buf = read_text_file(path, 64u << 20, &n);
        if (buf && cb(ctx, path, buf, n) == 0) count++;
        free(buf);
    }
    closedir(d);
    return count;
}
