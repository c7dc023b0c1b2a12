/**
 * @file harness_internal.h
 * @brief The bench harness's own types and the functions its files share (not for benchmarks).
 */
#ifndef PCS_BENCH_HARNESS_INTERNAL_H
#define PCS_BENCH_HARNESS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"

/** Most measurement iterations per fork (-i). */
#define BENCH_MAX_ITERS 1024u

/** Most baselines one benchmark may name. */
#define BENCH_MAX_BASELINES 4u

/** Longest param value kept. */
#define BENCH_VALUE_MAX 64u

struct pcs_bench_params {
    unsigned n;
    const char *names[PCS_BENCH_MAX_PARAMS];
    char values[PCS_BENCH_MAX_PARAMS][BENCH_VALUE_MAX];
};

/** Command-line options that shape a trial. */
typedef struct bench_opts {
    int warmup_iters;     /**< -wi */
    int iters;            /**< -i */
    int forks;            /**< -f; 0 = in this process */
    double warmup_s;      /**< -w, seconds per warmup iteration */
    double iter_s;        /**< -r, seconds per measurement iteration */
    unsigned modes;       /**< -bm override; 0 = each benchmark's own */
    int perf;             /**< --perf: hardware counters */
    int quiet;            /**< -q: no per-iteration lines */
    const char *json;     /**< --json FILE */
    const char *cflags;   /**< --cflags, recorded in the machine description */
    double load_start[3]; /**< getloadavg() when the run started (-1 if unknown) */
} bench_opts;

/** Secondary metrics, per operation. */
enum {
    SEC_ALLOC_BYTES = 0, /**< bytes malloc'ed per op (malloc hook) */
    SEC_ALLOC_COUNT,     /**< malloc calls per op */
    SEC_WORLD_ALLOCS,    /**< world-heap allocations per op (pcs_world_alloc_count) */
    SEC_AUX_RATE,        /**< the benchmark's aux_counter per second of wall time (not per op) */
    SEC_CYCLES,          /**< perf: cycles per op */
    SEC_INSTRUCTIONS,
    SEC_CACHE_MISSES,
    SEC_BRANCH_MISSES,
    SEC_COUNT
};
#define SEC_FIRST_PERF SEC_CYCLES

/** One measurement iteration. */
typedef struct iter_result {
    double score; /**< in the mode's unit */
    uint64_t ops; /**< operations measured */
    double ns;    /**< time measured, ns */
    double sec[SEC_COUNT];
} iter_result;

/** A latency value and how often it was sampled (sample mode). */
typedef struct sample_bin {
    uint64_t value_ns;
    uint64_t count;
} sample_bin;

/** Everything one fork (one process) measured. */
typedef struct fork_result {
    iter_result *iters;
    unsigned n_iters;
    sample_bin **hist; /**< sample mode: per iteration, sorted by value */
    unsigned *hist_n;
    uint64_t sample_max_ns; /**< exact max over all invocations (sample mode) */
    int threads;
    int perf_ok;
    char perf_msg[160];
    int failed;
} fork_result;

/** One benchmark x params x mode, over all forks, with its aggregate. */
typedef struct run_result {
    const pcs_bench_def *def;
    pcs_bench_params params;
    unsigned mode;
    fork_result *forks;
    unsigned n_forks;
    int failed;
    int threads;
    uint64_t n_samples; /**< sample mode: invocations kept in the reservoirs */
    double score, error, ci_lo, ci_hi;
    double pct[10]; /**< at bench_pct_levels */
    double sec_score[SEC_COUNT], sec_error[SEC_COUNT];
    int sec_present[SEC_COUNT];
    int perf_ok;
    char perf_msg[160];
    /** The benchmarks named by def->baseline, in that order; NULL where absent or failed. */
    const struct run_result *baselines[BENCH_MAX_BASELINES];
    unsigned n_baselines;
} run_result;

/** The percentile levels JMH reports. */
extern const double bench_pct_levels[10];

/* registry (harness.c) */
const pcs_bench_def *bench_find(const char *full_name);
void bench_full_name(const pcs_bench_def *d, char *out, size_t cap);
const char *bench_mode_name(unsigned mode);
const char *bench_mode_unit(unsigned mode);

/* trial.c */
double bench_now_ns(void);
int bench_trial_run(const pcs_bench_def *d, const pcs_bench_params *p, unsigned mode,
                    const bench_opts *o, fork_result *out);
void bench_fork_result_free(fork_result *f);

/* fork.c */
int bench_fork_spawn(const char *self, const pcs_bench_def *d, const pcs_bench_params *p,
                     unsigned mode, const bench_opts *o, fork_result *out);
int bench_fork_child_main(int argc, char **argv);

/* alloc_hook.c */
void bench_alloc_read(uint64_t *count, uint64_t *bytes);
int bench_alloc_selftest(void);

/* perf_counters.c */
typedef struct bench_perf {
    int fd[4];
    int ok;
    char msg[160];
} bench_perf;
void bench_perf_open(bench_perf *p);
void bench_perf_start(bench_perf *p);
void bench_perf_stop(bench_perf *p, double out[4]);
void bench_perf_close(bench_perf *p);

/* stats.c */
double bench_mean(const double *x, size_t n);
double bench_stddev(const double *x, size_t n);
double bench_t_quantile(double p, double dof);
double bench_error_999(const double *x, size_t n);
double bench_percentile(double *sorted, size_t n, double p);
void bench_sort(double *x, size_t n);
double bench_bins_percentile(const sample_bin *bins, size_t nb, uint64_t total, double p);
int bench_stats_selftest(void);

/* aggregate.c */
/** Baseline number @p k of @p d's comma-separated list into @p out; 0 if there is none. */
int bench_baseline_name(const pcs_bench_def *d, unsigned k, char *out, size_t cap);
void bench_aggregate(run_result *r);
void bench_link_baselines(run_result *runs, size_t n);

/* report.c */
void bench_report(const run_result *runs, size_t n, const bench_opts *o);

/* machine.c + json_out.c */
int bench_json_write(const char *path, const run_result *runs, size_t n, const bench_opts *o,
                     const char *self);

#endif
