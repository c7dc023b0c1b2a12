/**
 * @file bench.h
 * @brief A JMH-style benchmark harness for C: registration, params, blackhole, teams.
 *
 * A benchmark is a pcs_bench_def registered with PCS_BENCH_REGISTER. Its name
 * is "group.name". For each combination of its params (JMH @Param; override
 * with --param name=v1,v2) and each mode, the harness runs a trial in a fresh
 * process per fork (-f; fork + exec of itself, as JMH forks a JVM):
 *
 *   setup(params)                         once per trial (JMH Level.Trial)
 *   warmup iterations  (-wi, -w seconds)  results discarded
 *   measurement iterations (-i, -r)       results kept
 *   teardown(ctx)
 *
 * Each iteration calls iteration_setup (untimed, optional), then run(ctx, n)
 * in timed batches until the iteration time is used: run must perform exactly
 * n invocations (each of info->ops_per_invocation operations, default 1) and
 * feed what it computes to the blackhole so the compiler cannot delete the
 * work. The harness sizes n so a batch lasts about 1 ms in avgt/thrpt mode
 * (and at least min_batch); sample mode times run(ctx, 1) one by one;
 * single-shot mode times one run(ctx, 1) per iteration.
 *
 * Threads: run() is called on the harness thread. A benchmark that needs more
 * threads (producers, readers) starts a pcs_bench_team in setup and reports
 * the total in info->threads. Test tooling may create threads; the library may
 * not (outside exec/).
 */
#ifndef PCS_BENCH_H
#define PCS_BENCH_H

#include <stdint.h>

/** Params a benchmark may declare, and values per param. */
#define PCS_BENCH_MAX_PARAMS 6u
#define PCS_BENCH_MAX_VALUES 16u

/** Modes (bit flags, as JMH's -bm). */
enum {
    PCS_BENCH_AVGT = 1u << 0,   /**< average time per op, ns/op */
    PCS_BENCH_THRPT = 1u << 1,  /**< operations per second, ops/s */
    PCS_BENCH_SAMPLE = 1u << 2, /**< per-op latency samples: p50 .. p99.9, max */
    PCS_BENCH_SS = 1u << 3,     /**< single shot: one cold op per iteration */
};

/** One declared param: its name and default values, comma separated ("1,2"). */
typedef struct pcs_bench_param_def {
    const char *name;
    const char *values;
} pcs_bench_param_def;

/** The param values of one trial (opaque). */
typedef struct pcs_bench_params pcs_bench_params;

/** Value of param @p name in this trial as a string, or NULL if not declared. */
const char *pcs_bench_param(const pcs_bench_params *p, const char *name);

/** Value of param @p name parsed as an integer, or @p fallback if absent or not a number. */
long long pcs_bench_param_int(const pcs_bench_params *p, const char *name, long long fallback);

/** What setup reports about the trial. */
typedef struct pcs_bench_info {
    int threads; /**< threads the benchmark runs on, harness thread included (default 1) */
    /** Operations one call of run(ctx, 1) performs (JMH @OperationsPerInvocation;
     *  default 1). Every score is per operation: avgt and thrpt count n times this
     *  many ops per run(ctx, n), and sample mode divides each timed invocation by
     *  it (rounded to the nearest ns), so a sample is the mean of a small batch.
     *  Use it for ns per cell of a grid step, or to batch ops far shorter than
     *  the timer (~20 ns) in sample mode. Set from params in setup. */
    uint64_t ops_per_invocation;
} pcs_bench_info;

/** A benchmark. Define one as a static const and register it with PCS_BENCH_REGISTER. */
typedef struct pcs_bench_def {
    const char *group;       /**< "tick" */
    const char *name;        /**< "empty_world"  ->  "tick.empty_world" */
    const char *description; /**< one line: what one operation is */
    pcs_bench_param_def params[PCS_BENCH_MAX_PARAMS];
    unsigned modes; /**< default modes (PCS_BENCH_*); 0 = AVGT */
    /** "group.name" of a benchmark measured in the same run, or several separated
     *  by commas ("a.floor,a.rwlock"); the table prints this score / each
     *  baseline's score (params matched by name where both have them), and in
     *  sample mode the same ratio for every percentile row. */
    const char *baseline;
    /** Build the trial's state. NULL = error (message on stderr). */
    void *(*setup)(const pcs_bench_params *p, pcs_bench_info *info);
    void (*teardown)(void *ctx);
    void (*iteration_setup)(void *ctx); /**< optional, untimed, before each iteration */
    /** Perform exactly @p n invocations (n * ops_per_invocation operations). */
    void (*run)(void *ctx, uint64_t n);
    /** Smallest n per run() call in avgt/thrpt (0 = 1): amortises per-call costs
     *  such as waking a team, so calibration cannot settle on a tiny batch. */
    uint64_t min_batch;
    /** Optional: allocations made so far in world heaps (pcs_world_alloc_count),
     *  which the malloc hook cannot see (mimalloc heaps). */
    uint64_t (*world_allocs)(void *ctx);
    /** Optional (JMH @AuxCounters): a monotonic count of something the benchmark's
     *  own threads do, e.g. publications of a writer thread. The harness reads it
     *  before and after each iteration's timed part and reports its rate per
     *  second of that wall time, named aux_name ("writes" -> "writes/s"). */
    uint64_t (*aux_counter)(void *ctx);
    const char *aux_name;
} pcs_bench_def;

/** Add @p d to the registry (called by PCS_BENCH_REGISTER before main). */
void pcs_bench_register(const pcs_bench_def *d);

/** Register a `static const pcs_bench_def` variable at program start. */
#define PCS_BENCH_REGISTER(var)                                                                    \
    __attribute__((constructor)) static void pcs_bench_register_##var(void)                        \
    {                                                                                              \
        pcs_bench_register(&(var));                                                                \
    }

/**
 * Blackhole: make the compiler believe @p v is used, so the computation that
 * produced it cannot be removed. Costs no instruction beyond keeping v in a
 * register.
 */
static inline void pcs_bench_consume_u64(uint64_t v)
{
    __asm__ volatile("" : : "r"(v));
}

static inline void pcs_bench_consume_f64(double v)
{
    __asm__ volatile("" : : "x"(v));
}

/** Blackhole for memory: @p p and everything reachable from it count as read. */
static inline void pcs_bench_consume_ptr(const void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* ---- teams: extra threads for multi-threaded benchmarks (bench/team.c) ----------- */

/** Work of team member @p idx for one round: @p n operations. */
typedef void (*pcs_bench_team_fn)(void *ctx, unsigned idx, uint64_t n);

typedef struct pcs_bench_team pcs_bench_team;

/** Start @p n_threads threads that wait for rounds. NULL on failure. */
pcs_bench_team *pcs_bench_team_start(unsigned n_threads, pcs_bench_team_fn fn, void *ctx);

/** Start a round: every member runs fn(ctx, idx, n_each). Returns at once. */
void pcs_bench_team_go(pcs_bench_team *t, uint64_t n_each);

/** Wait until every member finished the current round. */
void pcs_bench_team_wait(pcs_bench_team *t);

/** Stop and join the threads, free the team. NULL is allowed. */
void pcs_bench_team_stop(pcs_bench_team *t);

#endif
