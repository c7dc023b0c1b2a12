/**
 * @file driver.c
 * @brief Runs one stress test: actor threads, the start barrier, batches or soak, counting.
 *
 * Synchronisation argument (ITERATION). The main thread prepares a batch, then
 * publishes batch number b with a release store of `epoch`. Each actor waits for
 * epoch == b with acquire loads (so it sees the prepared states), then arrives at
 * a start barrier: a monotonic counter that reaches n_actors * b when all have
 * arrived, so it never needs a reset that could race with a late reader. After
 * its pass an actor adds 1 to `done` with release; the main thread waits for
 * done == n_actors * b with acquire, so the arbiter sees every actor's writes.
 * Everything is C11 atomics: ThreadSanitizer sees every edge.
 *
 * Waiting spins with PAUSE for a while and then yields: the machine may have
 * fewer cores than actors + main thread, and a pure spin would then burn the
 * time slice the awaited thread needs.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stress/stress.h"

#define SPINS_BEFORE_YIELD 2000u
/* The main thread is not latency-critical: it yields almost at once so the
 * actors keep the cores when there are fewer cores than threads. */
#define MAIN_SPINS_BEFORE_YIELD 64u
#define DEFAULT_STRIDE 64u
/* A broken fixture not yet caught may run this many budgets before it is
 * declared NOT caught: on a loaded machine actors overlap less often. */
#define EXPECT_FAIL_GRACE 4.0

double pcs_stress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wait until *v >= target (acquire), spinning up to max_spins before yielding. */
static void wait_spin(const _Atomic uint64_t *v, uint64_t target, unsigned max_spins)
{
    unsigned spins = 0;
    while (atomic_load_explicit(v, memory_order_acquire) < target) {
        if (++spins < max_spins)
            pcs_stress_pause();
        else
            sched_yield();
    }
}

static void wait_at_least(const _Atomic uint64_t *v, uint64_t target)
{
    wait_spin(v, target, SPINS_BEFORE_YIELD);
}

/* Where and when one actor ran its pass over a batch. */
typedef struct actor_span {
    _Alignas(64) double t0, t1;
    int cpu0, cpu1;
} actor_span;

typedef struct iter_shared {
    const pcs_stress_test *t;
    unsigned char *states;
    size_t state_stride; /* state_size rounded up to a cache line */
    unsigned n_states;
    _Atomic uint64_t epoch;   /* batch released; UINT64_MAX-free: quit flag is separate */
    _Atomic uint64_t arrived; /* start barrier, monotonic */
    _Atomic uint64_t done;    /* actors finished with the batch, monotonic */
    _Atomic int quit;
    actor_span spans[PCS_STRESS_MAX_ACTORS]; /* actor i writes [i]; main reads after `done` */
} iter_shared;

typedef struct actor_arg {
    iter_shared *sh;         /* ITERATION */
    void *shared;            /* SOAK */
    _Atomic uint64_t *start; /* SOAK start barrier */
    pcs_stress_ctl *ctl;
    pcs_stress_actor_fn fn;
    unsigned n_actors;
} actor_arg;

static void *iter_actor(void *p)
{
    actor_arg *a = p;
    iter_shared *sh = a->sh;
    for (uint64_t b = 1;; b++) {
        wait_at_least(&sh->epoch, b);
        if (atomic_load_explicit(&sh->quit, memory_order_acquire))
            break;
        atomic_fetch_add_explicit(&sh->arrived, 1, memory_order_acq_rel);
        wait_at_least(&sh->arrived, (uint64_t)a->n_actors * b);
        actor_span *sp = &sh->spans[a->ctl->actor];
        sp->cpu0 = sched_getcpu();
        sp->t0 = pcs_stress_now();
        for (unsigned i = 0; i < sh->n_states; i++)
            a->fn(sh->states + (size_t)i * sh->state_stride, a->ctl);
        sp->t1 = pcs_stress_now();
        sp->cpu1 = sched_getcpu();
        atomic_fetch_add_explicit(&sh->done, 1, memory_order_release);
    }
    return NULL;
}

static void *soak_actor(void *p)
{
    actor_arg *a = p;
    atomic_fetch_add_explicit(a->start, 1, memory_order_acq_rel);
    wait_at_least(a->start, a->n_actors);
    a->fn(a->shared, a->ctl);
    return NULL;
}

/* Pin actor i to the i-th CPU this process may use (wrapping), as jcstress does,
 * so the scheduler cannot stack yielding actors on one CPU. Best effort. */
static void pin_actor(pthread_t th, unsigned i)
{
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return;
    int n = CPU_COUNT(&allowed);
    if (n < 2)
        return;
    unsigned want = i % (unsigned)n, seen = 0;
    for (size_t c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &allowed))
            continue;
        if (seen++ == want) {
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            pthread_setaffinity_np(th, sizeof one, &one);
            return;
        }
    }
}

static void merge_ctl(pcs_stress_result *res, const pcs_stress_ctl *c)
{
    for (unsigned k = 0; k < PCS_STRESS_MAX_OUTCOMES; k++)
        res->counts[k] += c->counts[k];
    if (c->unknown) {
        res->unknown += c->unknown;
        res->unknown_id = c->unknown_id;
    }
}

static int table_ok(const pcs_stress_test *t)
{
    if (!t->outcomes || t->n_outcomes == 0 || t->n_actors == 0 ||
        t->n_actors > PCS_STRESS_MAX_ACTORS) {
        fprintf(stderr, "stress: %s: needs an outcome table and 1..%u actors\n", t->name,
                PCS_STRESS_MAX_ACTORS);
        return 0;
    }
    for (unsigned i = 0; i < t->n_outcomes; i++) {
        int id = t->outcomes[i].id;
        if (id < 0 || (unsigned)id >= PCS_STRESS_MAX_OUTCOMES) {
            fprintf(stderr, "stress: %s: outcome id %d outside [0, %u)\n", t->name, id,
                    PCS_STRESS_MAX_OUTCOMES);
            return 0;
        }
        for (unsigned j = 0; j < i; j++)
            if (t->outcomes[j].id == id) {
                fprintf(stderr, "stress: %s: outcome id %d listed twice\n", t->name, id);
                return 0;
            }
    }
    for (unsigned i = 0; i < t->n_actors; i++)
        if (!t->actors[i]) {
            fprintf(stderr, "stress: %s: actor %u has no function\n", t->name, i);
            return 0;
        }
    return 1;
}

/* Any FORBIDDEN or unknown outcome counted so far? (early stop for expect_fail) */
static int caught(const pcs_stress_test *t, const pcs_stress_result *res)
{
    pcs_stress_result tmp = *res;
    pcs_stress_judge(t, &tmp);
    return tmp.failed;
}

/* Did at least two actors run this batch at the same time on distinct CPUs (each
 * staying on its CPU)? Only then could they race; on one busy CPU they merely
 * take turns. With more actors than CPUs, "all at once" is impossible, so any
 * truly parallel pair counts. */
static int batch_parallel(const iter_shared *sh, unsigned n_actors)
{
    for (unsigned i = 0; i < n_actors; i++) {
        const actor_span *a = &sh->spans[i];
        if (a->cpu0 < 0 || a->cpu0 != a->cpu1)
            continue;
        for (unsigned j = 0; j < i; j++) {
            const actor_span *b = &sh->spans[j];
            if (b->cpu0 < 0 || b->cpu0 != b->cpu1 || b->cpu0 == a->cpu0)
                continue;
            double start = a->t0 > b->t0 ? a->t0 : b->t0;
            double end = a->t1 < b->t1 ? a->t1 : b->t1;
            if (start < end)
                return 1;
        }
    }
    return 0;
}

/* Prepare, run and judge one batch. Returns 0, or -1 on an init error. */
static int run_batch(iter_shared *sh, uint64_t b, unsigned n_actors, pcs_stress_result *res)
{
    const pcs_stress_test *t = sh->t;
    memset(sh->states, 0, sh->state_stride * sh->n_states);
    for (unsigned i = 0; i < sh->n_states; i++) {
        void *s = sh->states + (size_t)i * sh->state_stride;
        if (t->init && t->init(s) != 0) {
            fprintf(stderr, "stress: %s: init failed\n", t->name);
            for (unsigned k = 0; t->fini && k < i; k++)
                t->fini(sh->states + (size_t)k * sh->state_stride);
            return -1;
        }
    }
    atomic_store_explicit(&sh->epoch, b, memory_order_release);
    wait_spin(&sh->done, (uint64_t)n_actors * b, MAIN_SPINS_BEFORE_YIELD);
    res->batches++;
    res->parallel_batches += (uint64_t)batch_parallel(sh, n_actors);
    for (unsigned i = 0; i < sh->n_states; i++) {
        void *s = sh->states + (size_t)i * sh->state_stride;
        int id = t->arbiter(s);
        if (id >= 0 && (unsigned)id < PCS_STRESS_MAX_OUTCOMES) {
            res->counts[id]++;
        } else {
            res->unknown++;
            res->unknown_id = id;
        }
        if (t->fini)
            t->fini(s);
    }
    return 0;
}

static void run_iteration(const pcs_stress_test *t, double budget_s, pcs_stress_result *res)
{
    if (!t->arbiter || t->state_size == 0) {
        fprintf(stderr, "stress: %s: ITERATION style needs state_size and an arbiter\n", t->name);
        res->setup_error = 1;
        return;
    }
    iter_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.t = t;
    sh.n_states = t->stride ? t->stride : DEFAULT_STRIDE;
    sh.state_stride = (t->state_size + 63u) / 64u * 64u;
    sh.states = aligned_alloc(64, sh.state_stride * sh.n_states);
    pcs_stress_ctl *ctl = aligned_alloc(64, sizeof *ctl * t->n_actors);
    actor_arg args[PCS_STRESS_MAX_ACTORS];
    pthread_t th[PCS_STRESS_MAX_ACTORS];
    unsigned started = 0;
    if (!sh.states || !ctl) {
        res->setup_error = 1;
        goto out;
    }
    memset(ctl, 0, sizeof *ctl * t->n_actors);
    static const _Atomic int never_stop = 0;
    for (unsigned i = 0; i < t->n_actors; i++) {
        ctl[i].stop = &never_stop;
        ctl[i].actor = i;
        args[i] =
            (actor_arg){.sh = &sh, .ctl = &ctl[i], .fn = t->actors[i], .n_actors = t->n_actors};
        if (pthread_create(&th[i], NULL, iter_actor, &args[i]) != 0) {
            res->setup_error = 1;
            break;
        }
        pin_actor(th[i], i);
        started++;
    }
    double t0 = pcs_stress_now();
    for (uint64_t b = 1; !res->setup_error; b++) {
        if (run_batch(&sh, b, t->n_actors, res) != 0) {
            res->setup_error = 1;
            /* actors wait for batch b: release them into the quit check below */
            break;
        }
        double spent = pcs_stress_now() - t0;
        if (t->expect_fail) {
            if (caught(t, res) || spent >= budget_s * EXPECT_FAIL_GRACE)
                break;
        } else if (spent >= budget_s) {
            break;
        }
    }
out:
    atomic_store_explicit(&sh.quit, 1, memory_order_release);
    atomic_store_explicit(&sh.epoch, UINT64_MAX, memory_order_release);
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (ctl)
        for (unsigned i = 0; i < t->n_actors; i++)
            merge_ctl(res, &ctl[i]); /* iteration actors normally record nothing */
    free(ctl);
    free(sh.states);
}

static void sleep_s(double s)
{
    struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void run_soak(const pcs_stress_test *t, double budget_s, pcs_stress_result *res)
{
    if (!t->setup) {
        fprintf(stderr, "stress: %s: SOAK style needs setup\n", t->name);
        res->setup_error = 1;
        return;
    }
    void *shared = t->setup();
    if (!shared) {
        fprintf(stderr, "stress: %s: setup failed\n", t->name);
        res->setup_error = 1;
        return;
    }
    _Atomic int stop = 0;
    _Atomic uint64_t start = 0;
    pcs_stress_ctl *ctl = aligned_alloc(64, sizeof *ctl * (t->n_actors + 1));
    actor_arg args[PCS_STRESS_MAX_ACTORS];
    pthread_t th[PCS_STRESS_MAX_ACTORS];
    unsigned started = 0;
    if (!ctl) {
        res->setup_error = 1;
        if (t->teardown)
            t->teardown(shared);
        return;
    }
    memset(ctl, 0, sizeof *ctl * (t->n_actors + 1));
    for (unsigned i = 0; i <= t->n_actors; i++) {
        ctl[i].stop = &stop;
        ctl[i].actor = i;
    }
    for (unsigned i = 0; i < t->n_actors; i++) {
        args[i] = (actor_arg){.shared = shared,
                              .start = &start,
                              .ctl = &ctl[i],
                              .fn = t->actors[i],
                              .n_actors = t->n_actors};
        if (pthread_create(&th[i], NULL, soak_actor, &args[i]) != 0) {
            res->setup_error = 1;
            /* let the started ones through the barrier, then stop them */
            atomic_store_explicit(&start, UINT64_MAX / 2, memory_order_release);
            break;
        }
        pin_actor(th[i], i);
        started++;
    }
    if (!res->setup_error)
        sleep_s(budget_s);
    atomic_store_explicit(&stop, 1, memory_order_relaxed);
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (!res->setup_error && t->finish)
        t->finish(shared, &ctl[t->n_actors]);
    for (unsigned i = 0; i <= t->n_actors; i++)
        merge_ctl(res, &ctl[i]);
    free(ctl);
    if (t->teardown)
        t->teardown(shared);
}

void pcs_stress_run(const pcs_stress_test *t, double budget_s, pcs_stress_result *res)
{
    memset(res, 0, sizeof *res);
    if (PCS_STRESS_TSAN && t->native_only) {
        res->skipped = 1;
        res->passed = 1;
        return;
    }
    double t0 = pcs_stress_now();
    if (!table_ok(t))
        res->setup_error = 1;
    else if (t->style == PCS_STRESS_ITERATION)
        run_iteration(t, budget_s, res);
    else
        run_soak(t, budget_s, res);
    res->seconds = pcs_stress_now() - t0;
    pcs_stress_judge(t, res);
}
