#include "disk_budget.h"

#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

struct disk_budget {
    long long limit;
    atomic_llong used;
};

disk_budget *disk_budget_new(long long limit)
{
    disk_budget *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->limit = limit < 0 ? 0 : limit;
    atomic_init(&b->used, 0);
    return b;
}

void disk_budget_free(disk_budget *b)
{
    free(b);
}

int disk_budget_take(disk_budget *b, long long n)
{
    if (!b || n <= 0) return 0;
    long long used = atomic_load(&b->used);
    do {
        if (used + n > b->limit) return -1;
    } while (!atomic_compare_exchange_weak(&b->used, &used, used + n));
    return 0;
}

void disk_budget_force(disk_budget *b, long long n)
{
    if (b && n > 0) atomic_fetch_add(&b->used, n);
}

void disk_budget_give(disk_budget *b, long long n)
{
    if (b && n > 0) atomic_fetch_sub(&b->used, n);
}

long long disk_budget_limit(const disk_budget *b)
{
    return b ? b->limit : -1;
}

long long disk_budget_used(const disk_budget *b)
{
    return b ? atomic_load(&((disk_budget *)b)->used) : 0;
}

long long disk_budget_reserve(int max_sessions, long long export_bytes)
{
    return (long long)(max_sessions > 0 ? max_sessions : 0) * (2LL << 20) + (export_bytes > 0 ? export_bytes : 0);
}

/* Bytes of the regular files in dir (0 when there is no such directory). */
static long long files_bytes(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    long long sum = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[1400];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) sum += (long long)st.st_blocks * 512;
    }
    closedir(d);
    return sum;
}

long long disk_budget_default(const char *dir, long long reserve, char *how, size_t howlen, char *err, size_t errlen)
{
    struct statvfs fs;
    if (statvfs(dir, &fs) != 0) {
        snprintf(err, errlen, "cannot ask the filesystem of %s for its free space: %s", dir, strerror(errno));
        return -1;
    }
    char rec[1100];
    snprintf(rec, sizeof rec, "%s/recordings", dir);
    const long long free_bytes = (long long)fs.f_bavail * (long long)fs.f_frsize, kept = files_bytes(rec);
    long long budget = (free_bytes + kept) / 4 * 3 - reserve;
    if (budget < 0) budget = 0;
    snprintf(how, howlen, "3/4 of (%lld bytes free + %lld in recordings) - %lld for checkpoints and an export",
             free_bytes, kept, reserve);
    return budget;
}
