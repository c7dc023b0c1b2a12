/**
 * @file host.h
 * @brief The host program's shared state for one run (internal to cli/).
 */
#ifndef PCS_CLI_HOST_H
#define PCS_CLI_HOST_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/hist.h"
#include "pcsim/pcsim.h"
#include "pcsim/station.h"

/** Options of `pcsim run` (and of `replay`, which reuses the run). */
typedef struct run_opts {
    const char *scenario; /**< file, or NULL for the built-in default */
    const char *csv, *trace, *journal, *save, *load; /* csv "-": standard output */
    double csv_every_s;       /**< --csv-every: 0 for the timeline's interval */
    uint32_t trace_spans;     /**< --trace-spans: trace buffer; 0 for the default */
    const char *csv_channels; /**< --csv-channels: comma-separated globs; NULL: all */
    const char *replay; /**< path of the journal to replay instead of the script */
    int workers;        /**< -1: from the scenario */
    int readers;        /**< -1: from the scenario */
    double seconds;     /**< < 0: from the scenario */
    int quiet, json, realtime;
    double speed;              /**< --speed: realtime multiplier; 0: not given (1x) */
    int check_finite;          /**< --check-finite: world config check_finite = 1 */
    int parallel_units;        /**< --parallel-units: pcs_world_set_parallel_units(w, 1) */
    size_t max_scenario_bytes; /**< scenario size limit; 0: PCS_SCENARIO_DEFAULT_MAX_BYTES */
} run_opts;

#define HOST_MAX_TIMELINE 64

/** Capacity of the script producer's command source: the most commands the
 *  producer may have queued for one tick (cli/script.c). */
#define HOST_SCRIPT_RING PCS_JOURNAL_TICK_COMMANDS_MAX

/** A scripted command resolved against the built world. */
typedef pcs_timed_command host_action;

/** What the load-time check found for a script action (host.action_state). */
enum host_action_state {
    HOST_ACTION_READY = 0,    /**< its target exists: resolved at the start */
    HOST_ACTION_DEFERRED = 1, /**< a later unit's target: resolved only at its tick */
    HOST_ACTION_REFUSED = 2,  /**< deferred, and its target did not exist at its tick */
};

/** Totals over the reader threads at the end of a run. */
typedef struct reader_totals {
    uint32_t threads;
    uint64_t reads, retries, max_staleness, events_read, events_missed, bad_values;
} reader_totals;

typedef struct pcs_snapshot_pool pcs_snapshot_pool;
typedef struct pcs_profile pcs_profile;

typedef struct host {
    run_opts opt;
    pcs_snapshot_pool *pool; /**< the world's snapshot pool */
    pcs_profile *profile;    /**< per-stage timers of the run */
    reader_totals reader_totals;
    pcs_scenario *scn;       /**< the loaded scenario (pcsim/station.h) */
    pcs_world_def world_cfg; /**< the scenario's, with the command line's overrides */
    pcs_scenario_run run;    /**< the scenario's run settings, with overrides */
    char warnings[1024];     /**< the scenario's rounding warnings, and --seconds' */
    pcs_world *world;
    pcs_exec *exec;        /**< slow-job workers (exec.h), attached to world */
    pcs_station *station;  /**< the station built into world */
    host_action *actions;  /**< the script, in tick order */
    uint8_t *action_state; /**< per action, enum host_action_state: written by the
                                main thread before it announces the action's tick */
    uint32_t n_actions;
    uint32_t n_refused;         /**< actions refused at their tick (HOST_ACTION_REFUSED) */
    pcs_world *probe_world;     /**< the plant with its later units built (cli/probe.c) */
    pcs_station *probe_station; /**< the station in probe_world */
    _Atomic uint64_t main_at;   /**< tick the main thread is about to run (+1) */
    _Atomic uint64_t submitted; /**< actions submitted so far */
    hist tick_ns;               /**< wall time of the ticks, ns */
    uint64_t ticks_run;
    uint64_t final_hash;       /**< state hash at the end of the run */
    uint64_t tick_allocations; /**< world-heap allocations made while ticking */
    uint64_t start_tick;
    FILE *csv;                             /**< stream of csv_out; stdout for --csv - */
    FILE *out;          /**< timeline, events, summary: stdout, or stderr for --csv - */
    uint64_t csv_ticks; /**< ticks between CSV rows */
    uint32_t *csv_ids;  /**< the CSV's columns' channels in the run's world;
                             UINT32_MAX: no such channel now (an empty field) */
    char **csv_names;   /**< the CSV's columns, fixed at the start */
    uint32_t n_csv;
    uint64_t csv_layout;                   /**< the world's layout version csv_ids were found at */
    pcs_atomic_file *csv_out;              /**< committed at the end (cli/run.c) */
    pcs_journal_writer *journal;           /**< --journal, committed at the end */
    pcs_journal_file *replay;              /**< the journal a replay runs (cli/replay.c) */
    pcs_status replay_status;              /**< how pcs_replay ended */
    char replay_error[PCS_LAST_ERROR_MAX]; /**< and its message */
    uint64_t tick_t0;                      /**< wall time the current tick started, ns */
    uint64_t loop_t0;                      /**< wall time the tick loop started, ns (pacing) */
    uint64_t pace_last;                    /**< --realtime: wall time of the last advance, ns */
    uint64_t behind_max;                   /**< --realtime: most ticks owed at once */
    uint64_t behind_end;                   /**< --realtime: ticks owed when the run ended */
    int behind_warned;                     /**< --realtime: "falling behind" said, not caught up */
    int bar;                               /**< draw a progress bar (stdout is a terminal) */
    uint32_t timeline_channels[HOST_MAX_TIMELINE];
    uint32_t n_timeline;
    uint32_t timeline_per_line; /**< channels per printed line (one unit) */
    uint64_t timeline_layout;   /**< the world's layout version timeline_channels are of */
} host;

/** Print to stderr "pcsim: <msg>" and return @p code. */
int host_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** A real number in [@p lo, @p hi], all of the text @p s (NaN is outside):
 *  0, or -1 leaving *@p out as it was (cli/run.c). */
int host_parse_double(const char *s, double lo, double hi, double *out);

/** Monotonic wall time in ns (cli/ may read clocks). */
uint64_t host_now_ns(void);

/* cli/run.c: load the scenario (with the options' overrides; a replay's
 * from its journal unless --scenario is given), build the world and the
 * station, tick (or replay) and report. */
int host_load_scenario(host *h);
int host_run(host *h, int (*after_build)(host *h));

/* cli/script.c: the producer thread that submits actions at their ticks. */
int script_start(host *h);
void script_before_tick(host *h, uint64_t tick);
void script_stop(host *h);
/* The script's command source (NULL before script_start): its counters. */
pcs_command_source *script_source(void);

/* cli/probe.c: the scenario's plant with its later units built, aside.
 * probe_needed: the scenario has units the run's station has not built;
 * probe_get builds the probe once (0, or an exit status after saying why);
 * probe_free frees it (and is a no-op without one). */
int probe_needed(const host *h);
int probe_get(host *h);
void probe_free(host *h);

/* cli/readers.c: reader threads on the snapshot pool. */
int readers_start(host *h);
void readers_stop_all(host *h);

/* cli/report.c: events, timeline, CSV, summary. */
void report_events(void *ctx, const pcs_event *ev, uint32_t n);
void report_timeline(host *h);
void report_timeline_channels(host *h);
void report_progress(host *h, uint64_t done, uint64_t total);
int report_csv_select(host *h);
void report_csv_header(host *h);
void report_csv_row(host *h);
void report_csv_free(host *h);
void report_summary(host *h, uint64_t wall_ns);

int cmd_run(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_plot(int argc, char **argv); /* cli/plot.c */

#endif
