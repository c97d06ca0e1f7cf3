/* The daemon's recording budget: the bytes every session's recording file may take together
 * (config recording_budget, RODD_RECORDING_BUDGET), so that recordings cannot fill the disk
 * the checkpoints live on. Each recording takes bytes before its file grows and gives them
 * back when the file is emptied or closed; the file's own max_bytes caps one session.
 *
 * Threads: any; take and give are lock-free. */
#ifndef RODD_DISK_BUDGET_H
#define RODD_DISK_BUDGET_H

#include <stddef.h>

typedef struct disk_budget disk_budget;

/* A budget of limit bytes (>= 0); NULL when out of memory. Free with disk_budget_free. */
disk_budget *disk_budget_new(long long limit);
void disk_budget_free(disk_budget *b);
/* Takes n bytes: 0, or -1 (nothing taken) when they would pass the limit. b NULL: no limit. */
int disk_budget_take(disk_budget *b, long long n);
/* Takes n bytes even past the limit: files that exist already (restored recordings) use the
 * disk whatever the budget says. */
void disk_budget_force(disk_budget *b, long long n);
void disk_budget_give(disk_budget *b, long long n);
long long disk_budget_limit(const disk_budget *b);
long long disk_budget_used(const disk_budget *b);

/* Bytes kept out of the default budget for checkpoints (max_sessions of up to 1 MiB, each
 * written beside its previous one before the rename: 2 MiB a session; the examples' are
 * about 4 kB, a spec near its 4 MiB limit would need more) and one export's
 * temporary file (export_bytes: a recording at its largest; NDJSON is about the size of the
 * recording, CSV 1.3x, HDF5 0.4x). */
long long disk_budget_reserve(int max_sessions, long long export_bytes);
/* The default budget for recordings under dir (created already): 3/4 of what the filesystem
 * has free for unprivileged writers plus what dir/recordings/ holds already (the restored
 * recordings take it again), less reserve; at least 0. -1 with err when dir's filesystem
 * cannot be asked. how gets the sum in words, for the log. */
long long disk_budget_default(const char *dir, long long reserve, char *how, size_t howlen, char *err, size_t errlen);

#endif
