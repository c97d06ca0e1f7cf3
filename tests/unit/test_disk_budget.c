/* The daemon's recording budget (server/io/disk_budget.c): takes within the limit and refuses
 * past it without taking anything, gives back, restored files forced past it, concurrent
 * takers never passing it, and the default sized from a directory's filesystem. */
#include "disk_budget.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

Test(disk_budget, takes_within_and_refuses_past_the_limit)
{
    disk_budget *b = disk_budget_new(1000);
    cr_assert_not_null(b);
    cr_assert_eq(disk_budget_take(b, 600), 0);
    cr_assert_eq(disk_budget_take(b, 500), -1, "600 + 500 passes 1000");
    cr_assert_eq(disk_budget_used(b), 600, "a refused take takes nothing");
    cr_assert_eq(disk_budget_take(b, 400), 0, "up to the limit exactly");
    cr_assert_eq(disk_budget_take(b, 1), -1);
    disk_budget_give(b, 400);
    cr_assert_eq(disk_budget_used(b), 600);
    cr_assert_eq(disk_budget_take(b, 0), 0, "nothing always fits");
    disk_budget_force(b, 900);
    cr_assert_eq(disk_budget_used(b), 1500, "restored files count past the limit");
    cr_assert_eq(disk_budget_take(b, 1), -1, "and leave no room");
    cr_assert_eq(disk_budget_limit(b), 1000);
    disk_budget_free(b);
}

Test(disk_budget, none_is_no_limit)
{
    cr_assert_eq(disk_budget_take(NULL, 1LL << 50), 0);
    disk_budget_give(NULL, 5);
    disk_budget_force(NULL, 5);
    cr_assert_eq(disk_budget_used(NULL), 0);
}

typedef struct {
    disk_budget *b;
    atomic_long granted;
} race;

static void *taker(void *arg)
{
    race *r = arg;
    for (int i = 0; i < 20000; i++)
        if (disk_budget_take(r->b, 3) == 0) atomic_fetch_add(&r->granted, 1);
    return NULL;
}

Test(disk_budget, concurrent_takers_never_pass_it)
{
    race r = {disk_budget_new(30001), 0};
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, taker, &r);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    cr_assert_eq(atomic_load(&r.granted), 10000, "exactly floor(30001 / 3) takes of 3");
    cr_assert_eq(disk_budget_used(r.b), 30000);
    disk_budget_free(r.b);
}

Test(disk_budget, default_from_the_filesystem)
{
    char dir[] = "/tmp/rodd-budget-XXXXXX", how[300], err[300] = "";
    cr_assert_not_null(mkdtemp(dir));
    const long long all = disk_budget_default(dir, 0, how, sizeof how, err, sizeof err);
    cr_assert_gt(all, 0, "%s", err);
    cr_assert(strstr(how, "3/4 of") && strstr(how, "bytes free"), "the log says how: %s", how);
    cr_assert_eq(disk_budget_default(dir, all * 8, how, sizeof how, err, sizeof err), 0,
                 "a reserve past the free space leaves nothing, not a negative budget");
    const long long reserve = 1LL << 20, less = disk_budget_default(dir, reserve, how, sizeof how, err, sizeof err);
    /* other processes write to the same disk meanwhile: within a few MiB */
    cr_assert(llabs(all - reserve - less) < (64LL << 20), "the reserve comes off: %lld - %lld vs %lld", all, reserve,
              less);
    cr_assert_eq(disk_budget_reserve(64, 256LL << 20), (64LL * 2 + 256) << 20, "2 MiB a session and one export");
    char missing[400];
    snprintf(missing, sizeof missing, "%s/no/such/dir", dir);
    cr_assert_eq(disk_budget_default(missing, 0, how, sizeof how, err, sizeof err), -1);
    cr_assert(strstr(err, missing), "the error names the directory: %s", err);
    rmdir(dir);
}
