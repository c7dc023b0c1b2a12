/**
 * @file probes.h
 * @brief USDT probes (systemtap <sys/sdt.h>) at the engine's landmarks (internal).
 *
 * Each probe compiles to one NOP plus an ELF note (.note.stapsdt) naming the
 * provider "pcsim", the probe and where its arguments live. Nothing runs and
 * no clock is read unless a tracer (perf, bpftrace, systemtap) attaches, so
 * the probes stay in release builds. The engine may include this header; it
 * must never include profile/ (profile/README.md shows the perf and bpftrace
 * commands). Without <sys/sdt.h> the probes compile to nothing.
 *
 * Probe                         arguments
 * pcsim:tick_begin              tick
 * pcsim:tick_end                tick, status (pcs_status; 0 = ok)
 * pcsim:stage_begin             tick, stage (pcs_stage)
 * pcsim:stage_end               tick, stage
 * pcsim:command_applied         tick, kind, source_class, source_id, seq
 * pcsim:snapshot_published      tick, buffer index, sequence      (snapshot/)
 * pcsim:job_submitted           job id, tick
 * pcsim:job_merged              job id, submit tick, merge tick
 */
#ifndef PCS_ENGINE_PROBES_H
#define PCS_ENGINE_PROBES_H

#if defined(__has_include)
#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#define PCS_HAVE_SDT 1
#endif
#endif

#ifdef PCS_HAVE_SDT
/* sdt.h's macros pass an empty variadic list, which clang -Wpedantic flags at
 * every use; silence exactly that warning, only around the probe. */
#if defined(__clang__)
#define PCS_SDT_QUIET_BEGIN                                                                        \
    _Pragma("clang diagnostic push")                                                               \
        _Pragma("clang diagnostic ignored \"-Wgnu-zero-variadic-macro-arguments\"")
#define PCS_SDT_QUIET_END _Pragma("clang diagnostic pop")
#else
#define PCS_SDT_QUIET_BEGIN
#define PCS_SDT_QUIET_END
#endif
/* One probe "pcsim:name" with n arguments. The DTRACE_PROBEn call is pasted
 * together in the body (not passed in as a macro argument, which would expand
 * it before the pragma takes effect). */
#define PCS_PROBE(n, name, ...)                                                                    \
    do {                                                                                           \
        PCS_SDT_QUIET_BEGIN DTRACE_PROBE##n(pcsim, name, __VA_ARGS__);                             \
        PCS_SDT_QUIET_END                                                                          \
    } while (0)
#define PCS_PROBE_TICK_BEGIN(tick) PCS_PROBE(1, tick_begin, tick)
#define PCS_PROBE_TICK_END(tick, status) PCS_PROBE(2, tick_end, tick, status)
#define PCS_PROBE_STAGE_BEGIN(tick, stage) PCS_PROBE(2, stage_begin, tick, stage)
#define PCS_PROBE_STAGE_END(tick, stage) PCS_PROBE(2, stage_end, tick, stage)
#define PCS_PROBE_COMMAND_APPLIED(tick, kind, cls, id, seq)                                        \
    PCS_PROBE(5, command_applied, tick, kind, cls, id, seq)
#define PCS_PROBE_SNAPSHOT_PUBLISHED(tick, index, seq)                                             \
    PCS_PROBE(3, snapshot_published, tick, index, seq)
#define PCS_PROBE_JOB_SUBMITTED(job, tick) PCS_PROBE(2, job_submitted, job, tick)
#define PCS_PROBE_JOB_MERGED(job, submit_tick, tick)                                               \
    PCS_PROBE(3, job_merged, job, submit_tick, tick)
#else
#define PCS_PROBE_TICK_BEGIN(tick) ((void)0)
#define PCS_PROBE_TICK_END(tick, status) ((void)0)
#define PCS_PROBE_STAGE_BEGIN(tick, stage) ((void)0)
#define PCS_PROBE_STAGE_END(tick, stage) ((void)0)
#define PCS_PROBE_COMMAND_APPLIED(tick, kind, cls, id, seq) ((void)0)
#define PCS_PROBE_SNAPSHOT_PUBLISHED(tick, index, seq) ((void)0)
#define PCS_PROBE_JOB_SUBMITTED(job, tick) ((void)0)
#define PCS_PROBE_JOB_MERGED(job, submit_tick, tick) ((void)0)
#endif

#endif
