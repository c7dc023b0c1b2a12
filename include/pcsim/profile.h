/**
 * @file profile.h
 * @brief Profiling: per-stage timers and latency histograms, and a Chrome/Perfetto trace.
 *
 * The engine reads no clock (docs/ARCHITECTURE.md section 1); this module does. It is off
 * by default: a world without an attached profile runs its stages with one
 * NULL-pointer test each (system.h stage observer), which the benchmark
 * tick.empty_world_profile_detached measures against tick.empty_world.
 *
 * Stage timers. pcs_profile_attach installs itself as the world's stage
 * observer and times every stage of every tick on CLOCK_MONOTONIC. A stage's
 * end timestamp is reused as the next stage's start, so a tick costs 14 clock
 * reads and the stage times of a tick add up exactly to the tick time. The
 * tick is measured from the start of stage 1 (commands) to the end of stage 13
 * (events); the slow-job join before stage 1 is not part of it.
 * Latencies go into log-linear histograms (32 sub-buckets per power of two:
 * every percentile is within 1/32 = 3.1 % above the true value) with exact
 * count, total, min and max. Nothing is allocated after attach.
 *
 * Trace. pcs_profile_trace_begin starts a process-wide trace session that
 * collects spans into a buffer allocated at begin; pcs_profile_trace_end
 * writes them as Chrome trace-event JSON ("X" complete events, microsecond
 * timestamps with nanosecond digits, one track per thread id), which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open. Ticks and stages of every
 * world with an attached profile are recorded; other code adds its own spans
 * with pcs_profile_span_begin/end (the worker pool: one "exec.chunk" span per
 * slow-job chunk, on the thread that ran it). Every thread started by
 * pcs_thread_start or the pool has a named track. When the buffer is full
 * further spans are counted as dropped (pcs_profile_trace_stats_get and the
 * file's otherData.dropped_spans), never blocking. No I/O happens between begin and end except at those two calls.
 *
 * USDT probes for perf and bpftrace need no API: see profile/README.md.
 */
#ifndef PCSIM_PROFILE_H
#define PCSIM_PROFILE_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/system.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A world's stage timers (opaque). */
typedef struct pcs_profile pcs_profile;

/** Latency summary, in nanoseconds. All zero when count is 0. */
typedef struct pcs_profile_stats {
    uint64_t count;    /**< samples (ticks in which the stage completed) */
    uint64_t total_ns; /**< sum of all samples */
    uint64_t min_ns;   /**< exact */
    uint64_t max_ns;   /**< exact */
    double mean_ns;    /**< total_ns / count */
    uint64_t p50_ns;   /**< nearest-rank percentiles from the histogram: at most */
    uint64_t p95_ns;   /**<   3.1 % above the true value, never above max_ns */
    uint64_t p99_ns;
} pcs_profile_stats;

/**
 * Attach stage timers to @p w (installs the world's stage observer, replacing
 * any other). Build phase or between ticks, on the world's thread.
 * @return PCS_E_INVAL for NULL, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_profile_attach(pcs_world *w, pcs_profile **out);

/** Remove the observer from its world and free @p p. NULL is allowed. Between ticks. */
PCS_API void pcs_profile_detach(pcs_profile *p);

/** Forget every sample (histograms, counts). World's thread, between ticks. */
PCS_API void pcs_profile_reset(pcs_profile *p);

/**
 * Latency of @p stage over the ticks seen since attach or reset.
 * @return PCS_E_INVAL for NULL or a stage outside [0, PCS_STAGE_COUNT).
 * World's thread, between ticks.
 */
PCS_API pcs_status pcs_profile_stage_stats(const pcs_profile *p, pcs_stage stage,
                                           pcs_profile_stats *out);

/** Latency of whole ticks (stage 1 start to stage 13 end). PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_profile_tick_stats(const pcs_profile *p, pcs_profile_stats *out);

/** Default trace buffer: spans kept per session (56 bytes each on 64-bit). */
#define PCS_PROFILE_TRACE_DEFAULT_SPANS (1u << 18)

/**
 * Start the process-wide trace session, writing to @p path at the end. The
 * file is created (truncated) now so a bad path fails here.
 * @return PCS_E_INVAL (NULL path), PCS_E_STATE (a session is running),
 *         PCS_E_IO (cannot create @p path), PCS_E_NOMEM.
 * Thread-safe; one session at a time.
 */
PCS_API pcs_status pcs_profile_trace_begin(const char *path);

/** pcs_profile_trace_begin with a buffer of @p max_spans spans (1 .. 2^26). */
PCS_API pcs_status pcs_profile_trace_begin_n(const char *path, uint32_t max_spans);

/**
 * Stop the session and write the trace file (waits for spans being recorded
 * on other threads to finish). Spans that did not fit are reported in the
 * file's "otherData": {"dropped_spans": N}.
 * @return PCS_E_STATE (no session), PCS_E_IO (write failed). Thread-safe.
 */
PCS_API pcs_status pcs_profile_trace_end(void);

/** True while a trace session is recording. Any thread; one relaxed load. */
PCS_API int pcs_profile_tracing(void);

/** An open span. Plain data: keep it on the stack between begin and end. */
typedef struct pcs_profile_span {
    const char *name; /**< NULL when no session was recording at begin */
    const char *cat;
    uint64_t t0_ns;
    uint64_t arg; /**< written to the trace as args.value */
} pcs_profile_span;

/**
 * Open a span named @p name in category @p cat (both must stay valid until
 * pcs_profile_trace_end: use string literals), with a numeric @p arg (a tick,
 * a job id). Costs one relaxed load when no session is recording. Any thread.
 */
PCS_API pcs_profile_span pcs_profile_span_begin(const char *name, const char *cat, uint64_t arg);

/** Close @p span and record it on the calling thread's track. Any thread. */
PCS_API void pcs_profile_span_end(const pcs_profile_span *span);

/**
 * Name the calling thread's track ("pcsim-main", "pcsim-w0"): the name (first
 * 31 bytes, copied) is kept in thread-local storage and registered in the
 * running session now, and in every later session at the thread's first
 * span, so a thread named at its start gets a named track in any trace.
 * pcs_thread_start and the worker pool name their threads this way. Any thread.
 */
PCS_API void pcs_profile_trace_thread_name(const char *name);

/** Counts of the running trace session, or of the last one ended. */
typedef struct pcs_profile_trace_stats {
    uint64_t spans;         /**< spans kept in the buffer */
    uint64_t dropped;       /**< spans that did not fit (the file's otherData.dropped_spans) */
    uint32_t named_threads; /**< named tracks registered in the session */
} pcs_profile_trace_stats;

/**
 * The running session's counts (a snapshot while other threads record), or
 * the last ended session's; all zero before any session.
 * @return PCS_E_INVAL for NULL. Any thread.
 */
PCS_API pcs_status pcs_profile_trace_stats_get(pcs_profile_trace_stats *out);

#ifdef __cplusplus
}
#endif

#endif
