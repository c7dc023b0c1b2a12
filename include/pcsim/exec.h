/**
 * @file exec.h
 * @brief The worker pool: slow-job chunks on pinned worker threads, join or steal.
 *
 * A pool owns N pthreads ("pcsim-w0", "pcsim-w1", ...), each pinned with hwloc
 * to its own core other than the host thread's, preferring cores that share
 * the host's last-level cache, then its package (docs/ARCHITECTURE.md section 5). Any
 * number of worlds, ticked on any threads, may share one pool: attach each
 * with pcs_exec_attach. Their slow-job chunks then run on the workers between
 * submit and merge; at the merge tick the world's thread waits at most the
 * world's slow_join_timeout_s, then claims and runs the chunks no worker has
 * started (a "steal"), then waits for the chunks still running. A slow step is
 * never skipped, and results are identical for 0, 1, ... N workers because
 * the engine merges per-chunk outputs in chunk order at a fixed tick.
 *
 * Worker count: PCS_WORKERS_AUTO means max(1, min(2, ncpu - 2)), where ncpu is
 * the number of PUs this process may use: hwloc's allowed set (cgroup
 * cpusets) restricted to the process's current binding (taskset). Workers
 * never share a core with each other or with the host: if fewer free cores
 * exist than asked, fewer workers are started and a warning says so. 0
 * workers is allowed: every chunk then runs on the joining thread.
 *
 * Problems that do not stop the pool (affinity refused inside a container,
 * too few cores, host core unknown) are warnings: kept in the pool
 * (pcs_exec_warning) and passed to an optional callback. The library never
 * prints.
 *
 * Clocks: exec/ reads no clock (docs/ARCHITECTURE.md section 1). The join's bounded wait
 * is a futex wait with a relative timeout, measured by the kernel. Wait
 * durations in pcs_exec_stats are measured only if the host (profile/,
 * bench/) passes a clock function in the config; otherwise they stay 0.
 *
 * Thread-safety: pcs_exec_create/destroy on one thread, not concurrently with
 * any call on a world attached to the pool. Everything else is thread-safe.
 */
#ifndef PCSIM_EXEC_H
#define PCSIM_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/job.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

/** Most workers a pool may have. */
#define PCS_EXEC_MAX_WORKERS 256u
/** Warnings kept per pool; later ones are counted, not kept. */
#define PCS_EXEC_MAX_WARNINGS 16u
/** Longest warning kept, bytes including the terminating NUL. */
#define PCS_EXEC_WARNING_BYTES 256u

typedef struct pcs_exec pcs_exec;

/** Monotonic time in nanoseconds (e.g. from profile/); used for wait durations only. */
typedef uint64_t (*pcs_exec_clock_fn)(void *ctx);
/** Receives each warning once, on the thread that called pcs_exec_create. */
typedef void (*pcs_exec_warn_fn)(void *ctx, const char *message);

/** Pool configuration. Start from pcs_exec_default(). */
typedef struct pcs_exec_def {
    uint32_t workers; /**< PCS_WORKERS_AUTO (default) or [0, PCS_EXEC_MAX_WORKERS] */
    bool pin;         /**< pin each worker to its own core; default true */
    /**
     * Start exactly @c workers threads even if fewer cores are free; the extra
     * ones run unpinned. Default false. For tests and experiments only: it
     * breaks the "never oversubscribe" rule on purpose.
     */
    bool allow_oversubscribe;
    pcs_exec_clock_fn clock_ns; /**< optional, NULL = wait durations not measured */
    void *clock_ctx;            /**< passed to clock_ns */
    pcs_exec_warn_fn warn;      /**< optional warning callback */
    void *warn_ctx;             /**< passed to warn */
} pcs_exec_def;

/** Counters since pcs_exec_create, summed over every world using the pool. */
typedef struct pcs_exec_stats {
    uint64_t runs_submitted;   /**< job runs submitted */
    uint64_t runs_joined;      /**< job runs joined (merged or failed) */
    uint64_t chunks_worker;    /**< chunks run by pool workers */
    uint64_t chunks_stolen;    /**< chunks run by a joining world thread (steals) */
    uint64_t chunks_cancelled; /**< chunks dropped by unbind before they started */
    uint64_t joins_ready;      /**< joins that found every chunk finished */
    uint64_t waits;            /**< joins that waited for workers (bounded wait) */
    uint64_t waits_timed_out;  /**< bounded waits that hit the timeout (then stole) */
    uint64_t waits_inflight;   /**< joins that, after stealing, waited for running chunks */
    uint64_t wait_ns_total;    /**< ns blocked in joins (needs clock_ns, else 0) */
    uint64_t wait_ns_max;      /**< longest single join's blocked time, ns (needs clock_ns) */
} pcs_exec_stats;

/** Where one worker runs. */
typedef struct pcs_exec_worker_info {
    char name[16]; /**< thread name, "pcsim-w<i>" */
    int core;      /**< hwloc logical index of its core, -1 if unpinned */
    int core_os;   /**< OS index of the core's first PU, -1 if unpinned */
    bool pinned;   /**< its affinity was set successfully */
} pcs_exec_worker_info;

/** Fill @p cfg with the defaults above. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_exec_default(pcs_exec_def *cfg);

/**
 * The default worker count for @p ncpu usable PUs: max(1, min(2, ncpu - 2))
 * (docs/ARCHITECTURE.md section 5). Pure; thread-safe.
 */
PCS_API uint32_t pcs_exec_default_workers(uint32_t ncpu);

/**
 * Discover the topology, choose cores, start the workers and wait until each
 * is running (and pinned, or warned about). The calling thread is taken as
 * the host thread: its core (its binding if bound to one core, else the core
 * it last ran on) is kept free of workers.
 * @param cfg configuration; NULL means defaults.
 * @param out receives the pool on success only.
 * @return PCS_E_INVAL (bad field, named with its range), PCS_E_NOMEM,
 *         PCS_E_STATE (hwloc cannot read the topology, or a thread cannot be
 *         created; the message names which).
 */
PCS_API pcs_status pcs_exec_create(const pcs_exec_def *cfg, pcs_exec **out);

/**
 * Stop and join the workers (each finishes the chunk it is running; chunks not
 * started are left), revoke the pool from every world still attached
 * (pcs_world_executor_revoke: their pending runs re-run inline at merge, their
 * next submit fails with PCS_E_STATE), and free everything. NULL is allowed.
 * Must not run concurrently with any call on an attached world.
 */
PCS_API void pcs_exec_destroy(pcs_exec *pool);

/**
 * Fill @p ex with the pool's executor table (job.h), for
 * pcs_world_set_executor or for driving runs directly (bench/, stress/).
 * @return PCS_E_INVAL for NULL arguments.
 */
PCS_API pcs_status pcs_exec_executor(pcs_exec *pool, pcs_executor *ex);

/**
 * Run @p world's slow jobs on @p pool: pcs_world_set_executor with the pool's
 * table. Same rules and errors as pcs_world_set_executor.
 */
PCS_API pcs_status pcs_exec_attach(pcs_exec *pool, pcs_world *world);

/** Number of worker threads running (after capping); 0 for NULL. */
PCS_API uint32_t pcs_exec_worker_count(const pcs_exec *pool);

/** Where worker @p i runs. PCS_E_INVAL for NULL or i out of range. */
PCS_API pcs_status pcs_exec_worker_get(const pcs_exec *pool, uint32_t i, pcs_exec_worker_info *out);

/**
 * Bind the calling thread to the host core the pool kept free of workers
 * (pcs_exec_host_core), so the OS cannot later move the host onto a worker's
 * core. Call it from the host thread after pcs_exec_create and after starting
 * the host's own helper threads (they would inherit the binding); the library
 * never changes the host's affinity by itself.
 * Binding the host to one core *before* pcs_exec_create instead would make a
 * single-threaded process look like `taskset -c <core>` (Linux keeps no
 * process-wide mask apart from its threads' masks), leaving ncpu = 1.
 * @return PCS_OK; PCS_E_STATE if the host core is unknown or the OS refused
 *         (message says why; the caller may go on unpinned); PCS_E_INVAL for NULL.
 */
PCS_API pcs_status pcs_exec_pin_host(const pcs_exec *pool);

/** hwloc logical index of the host thread's core, -1 if unknown or NULL. */
PCS_API int pcs_exec_host_core(const pcs_exec *pool);

/** Usable PUs (allowed set restricted to the process binding); 0 for NULL. */
PCS_API uint32_t pcs_exec_ncpu(const pcs_exec *pool);

/** Copy the counters into @p out. Thread-safe (relaxed reads). PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_exec_stats_get(const pcs_exec *pool, pcs_exec_stats *out);

/** Warnings raised so far, including ones not kept (> PCS_EXEC_MAX_WARNINGS). */
PCS_API uint32_t pcs_exec_warning_count(const pcs_exec *pool);

/** Warning @p i (0-based) as a string owned by the pool; NULL if not kept. */
PCS_API const char *pcs_exec_warning(const pcs_exec *pool, uint32_t i);

/**
 * Describe the machine for `pcsim info`, lstopo style: packages, L3 caches,
 * cores with their PUs, which core is the host's and which worker is pinned
 * where, then the worker count and pinning outcome.
 * @param buf output, always NUL-terminated when @p len >= 1.
 * @return the length the full text needs (excluding NUL), like snprintf;
 *         0 for a NULL pool.
 */
PCS_API size_t pcs_exec_topology_describe(const pcs_exec *pool, char *buf, size_t len);

#endif
