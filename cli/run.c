/**
 * @file run.c
 * @brief `pcsim run` and `pcsim replay`: build the scenario's world, tick it to
 *        the end with the script producer (and readers), report, save.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/host.h"
#include "pcsim/profile.h"
#include "pcsim/snapshot.h"

int host_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("pcsim: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

uint64_t host_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run_usage(FILE *f)
{
    fputs("usage: pcsim run [SCENARIO.json] [options]\n"
          "  Runs a scenario (the built-in pwr-station when none is given) at full speed.\n"
          "  --seconds S     run length in simulated seconds (default: the scenario's)\n"
          "  --workers N     slow-job worker threads (default: the scenario's)\n"
          "  --readers N     snapshot reader threads (default: the scenario's)\n"
          "  --realtime      pace ticks to wall-clock time (the summary says whether the\n"
          "                  machine kept up)\n"
          "  --speed X       with --realtime: simulated seconds per wall second, in\n"
          "                  [0.1, 1000] (default 1)\n"
          "  --csv FILE      write every channel to FILE as CSV (first column t_s), a row\n"
          "                  each timeline interval; FILE '-' is standard output, and the\n"
          "                  timeline, events and summary then go to standard error; a\n"
          "                  field is empty while its channel does not exist (a unit the\n"
          "                  scenario adds later, a removed pump)\n"
          "  --csv-every S   seconds of simulated time between CSV rows, in (0, 1e9]\n"
          "                  (default: the scenario's run.timeline_every_s)\n"
          "  --csv-channels PATTERNS  only the channels matching one of these\n"
          "                  comma-separated shell globs (e.g. 'u*.core.power,u1.loop?.flow');\n"
          "                  a pattern that matches no channel is an error\n"
          "  --trace FILE    write a Chrome/Perfetto trace of the run (one track per\n"
          "                  thread: main, workers, readers, script producer)\n"
          "  --trace-spans N  spans the trace keeps, in [1, 67108864] (default 262144);\n"
          "                  the rest are counted as dropped, in the file and the summary\n"
          "  --journal FILE  write every applied command with its tick, and the final hash\n"
          "  --save FILE     save the world at the end\n"
          "  --load FILE     resume from a saved world (built from the same scenario)\n"
          "  --check-finite  fail the tick that writes NaN/Inf into a physics store\n"
          "  --parallel-units  run each stage's per-unit systems as a parallel-for over\n"
          "                  units on the workers (the host takes part); same results\n"
          "                  (on by default in debug builds)\n"
          "  --max-scenario-bytes N  refuse a scenario file larger than N bytes (default\n"
          "                  4194304), checked before it is read\n"
          "  --quiet         only the final summary\n"
          "  --json          summary as JSON on stdout\n"
          "  --help          this text\n",
          f);
}

int host_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

static int parse_run_opts(int argc, char **argv, run_opts *o)
{
    static const struct option longs[] = {
        {"seconds", 1, 0, 's'}, {"workers", 1, 0, 'w'}, {"readers", 1, 0, 'r'},
        {"realtime", 0, 0, 'R'}, {"csv", 1, 0, 'c'},     {"trace", 1, 0, 't'},
        {"journal", 1, 0, 'j'},  {"save", 1, 0, 'S'},    {"load", 1, 0, 'L'},
        {"quiet", 0, 0, 'q'},    {"json", 0, 0, 'J'},    {"help", 0, 0, 'h'},
        {"scenario", 1, 0, 'F'}, {"check-finite", 0, 0, 'N'}, {"parallel-units", 0, 0, 'P'},
        {"max-scenario-bytes", 1, 0, 'M'}, {"speed", 1, 0, 'X'},
        {"csv-every", 1, 0, 'E'}, {"csv-channels", 1, 0, 'C'},
        {"trace-spans", 1, 0, 'T'}, {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->workers = o->readers = -1;
    o->seconds = -1.0;
    optind = 1;
    int ch;
    double v;
    while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (ch) {
        case 's':
            if (host_parse_double(optarg, 0.0, 1e9, &o->seconds))
                return host_fail(2, "--seconds '%s': expected a number in [0, 1e9]", optarg);
            break;
        case 'w':
        case 'r':
            if (host_parse_double(optarg, 0, 256, &v) || v != (int)v)
                return host_fail(2, "--%s '%s': expected an integer in [0, 256]",
                                 ch == 'w' ? "workers" : "readers", optarg);
            *(ch == 'w' ? &o->workers : &o->readers) = (int)v;
            break;
        case 'R': o->realtime = 1; break;
        case 'X':
            if (host_parse_double(optarg, PCS_SPEED_MIN, PCS_SPEED_MAX, &o->speed))
                return host_fail(2, "--speed '%s': expected a multiplier in [%g, %g]", optarg,
                                 PCS_SPEED_MIN, PCS_SPEED_MAX);
            break;
        case 'c': o->csv = optarg; break;
        case 'E':
            if (host_parse_double(optarg, 0.0, 1e9, &o->csv_every_s) || !(o->csv_every_s > 0.0))
                return host_fail(2, "--csv-every '%s': expected seconds in (0, 1e9]", optarg);
            break;
        case 'C': o->csv_channels = optarg; break;
        case 't': o->trace = optarg; break;
        case 'T':
            if (host_parse_double(optarg, 1.0, 67108864.0, &v) || v != (uint32_t)v)
                return host_fail(2, "--trace-spans '%s': expected an integer in [1, 67108864]",
                                 optarg);
            o->trace_spans = (uint32_t)v;
            break;
        case 'j': o->journal = optarg; break;
        case 'S': o->save = optarg; break;
        case 'L': o->load = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'J': o->json = o->quiet = 1; break;
        case 'F': o->scenario = optarg; break;
        case 'N': o->check_finite = 1; break;
        case 'P': o->parallel_units = 1; break;
        case 'M': /* at most 2^40: an exact integer in a double */
            if (host_parse_double(optarg, 1.0, 1099511627776.0, &v) || v != (double)(uint64_t)v)
                return host_fail(2, "--max-scenario-bytes '%s': expected an integer in [1, "
                                    "1099511627776]",
                                 optarg);
            o->max_scenario_bytes = (size_t)v;
            break;
        case 'h': run_usage(stdout); return 1;
        default: run_usage(stderr); return 2;
        }
    }
    if (optind < argc)
        o->scenario = argv[optind++];
    if (optind < argc)
        return host_fail(2, "unexpected argument '%s' (see --help)", argv[optind]);
    if ((o->csv_every_s > 0.0 || o->csv_channels) && !o->csv)
        return host_fail(2, "--%s needs --csv FILE (or --csv - for standard output)",
                         o->csv_every_s > 0.0 ? "csv-every" : "csv-channels");
    if (o->speed > 0.0 && !o->realtime)
        return host_fail(2, "--speed %g needs --realtime (without it the run goes as fast as "
                            "it can)",
                         o->speed);
    return 0;
}

/* A replay runs on the journal's own scenario (its text, or the built-in
 * one it names); --scenario overrides it, if it is the same scenario. */
static int replay_scenario(host *h, const pcs_scenario_load_opts *lo)
{
    pcs_status st = h->opt.scenario ? pcs_scenario_load_file(h->opt.scenario, lo, &h->scn)
                                    : pcs_journal_file_scenario(h->replay, lo, &h->scn);
    if (st == PCS_E_NOTFOUND)
        return host_fail(2, "%s; pass --scenario %s", pcs_last_error(),
                         pcs_journal_file_scenario_source(h->replay));
    if (st == PCS_OK && h->opt.scenario)
        st = pcs_journal_file_check_scenario(h->replay, h->scn);
    return st == PCS_OK ? 0 : host_fail(st == PCS_E_NOMEM ? 1 : 2, "%s", pcs_last_error());
}

int host_load_scenario(host *h)
{
    pcs_scenario_load_opts lo = {.max_bytes = h->opt.max_scenario_bytes};
    if (h->replay) {
        if (replay_scenario(h, &lo) != 0)
            return 2;
    } else if ((h->opt.scenario ? pcs_scenario_load_file(h->opt.scenario, &lo, &h->scn)
                                : pcs_scenario_default(&h->scn)) != PCS_OK) {
        return host_fail(2, "%s", pcs_last_error());
    }
    h->world_cfg = pcs_scenario_world_def(h->scn);
    h->run = pcs_scenario_run_params(h->scn);
    snprintf(h->warnings, sizeof h->warnings, "%s", pcs_scenario_warnings(h->scn));
    if (h->opt.workers >= 0)
        h->world_cfg.workers = (uint32_t)h->opt.workers;
    if (h->opt.readers >= 0)
        h->run.readers = (uint32_t)h->opt.readers;
    if (h->opt.check_finite)
        h->world_cfg.check_finite = 1;
    if (h->opt.seconds >= 0.0 &&
        pcs_scenario_seconds_to_ticks(h->world_cfg.dt_s, h->opt.seconds, 0, "--seconds",
                                      &h->run.run_ticks, h->warnings, sizeof h->warnings))
        return host_fail(2, "--seconds %g: %s", h->opt.seconds, pcs_last_error());
    /* CSV rows: every timeline interval unless --csv-every says otherwise
     * (whole ticks, at least one; rounding by more than 1 % warns). */
    h->csv_ticks = h->run.timeline_ticks;
    if (h->opt.csv_every_s > 0.0 &&
        pcs_scenario_seconds_to_ticks(h->world_cfg.dt_s, h->opt.csv_every_s, 1, "--csv-every",
                                      &h->csv_ticks, h->warnings, sizeof h->warnings))
        return host_fail(2, "--csv-every %g: %s", h->opt.csv_every_s, pcs_last_error());
    /* Rounding warnings (docs/ARCHITECTURE.md section 3) go to stderr, one per line. */
    for (const char *line = h->warnings; *line;) {
        const char *end = strchr(line, '\n');
        int n = end ? (int)(end - line) : (int)strlen(line);
        fprintf(stderr, "pcsim: warning: %.*s\n", n, line);
        line += n + (end != NULL);
    }
    return 0;
}

/* Action @p i against the run's station; when that refuses it and the
 * scenario builds units later, against the probe (cli/probe.c: the plant
 * with those units built): a target that will exist once its unit is added
 * is deferred to its tick (cli/script.c resolves it there, or refuses it),
 * any other is refused now with the probe's message, which knows the later
 * units ("no control bank 'bank_z' in u2"). */
static int resolve_action(host *h, uint32_t i)
{
    if (pcs_station_script_command(h->station, h->scn, i, &h->actions[i].cmd) == PCS_OK)
        return 0;
    if (!probe_needed(h))
        return host_fail(2, "%s", pcs_last_error());
    if (probe_get(h) != 0)
        return 1;
    pcs_command later;
    if (pcs_station_script_command(h->probe_station, h->scn, i, &later) != PCS_OK)
        return host_fail(2, "%s", pcs_last_error());
    h->action_state[i] = HOST_ACTION_DEFERRED;
    return 0;
}

static int resolve_script(host *h)
{
    uint32_t n = pcs_scenario_action_count(h->scn);
    h->actions = calloc(n + 1, sizeof *h->actions);
    h->action_state = calloc(n + 1, sizeof *h->action_state);
    if (!h->actions || !h->action_state)
        return host_fail(1, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        h->actions[i].tick = pcs_scenario_action_get(h->scn, i)->tick;
        int rc = resolve_action(h, i);
        if (rc != 0)
            return rc;
    }
    pcs_error_clear();
    h->n_actions = n;
    return 0;
}

static void pool_warning(void *ctx, const char *msg)
{
    const host *h = ctx;
    if (!h->opt.quiet)
        fprintf(stderr, "pcsim: warning: %s\n", msg);
}

/* Workers as the scenario (or --workers) asks; the pool caps them at the free cores. */
static int start_pool(host *h)
{
    pcs_exec_def cfg;
    pcs_exec_default(&cfg);
    cfg.workers = h->world_cfg.workers;
    cfg.warn = pool_warning;
    cfg.warn_ctx = h;
    if (pcs_exec_create(&cfg, &h->exec) != PCS_OK)
        return host_fail(2, "worker pool: %s", pcs_last_error());
    if (pcs_exec_attach(h->exec, h->world) != PCS_OK)
        return host_fail(2, "worker pool: %s", pcs_last_error());
    return 0;
}

static int build_world(host *h)
{
    if (pcs_world_create(&h->world_cfg, &h->world) != PCS_OK)
        return host_fail(2, "%s: world: %s", pcs_scenario_source(h->scn), pcs_last_error());
    if (pcs_station_add(h->world, h->scn, &h->station) != PCS_OK)
        return host_fail(2, "%s", pcs_last_error());
    int rc = h->opt.replay ? 0 : resolve_script(h);
    if (rc != 0)
        return rc;
    if (pcs_snapshot_attach(h->world, NULL, &h->pool) != PCS_OK)
        return host_fail(1, "snapshot: %s", pcs_last_error());
    if (pcs_profile_attach(h->world, &h->profile) != PCS_OK)
        return host_fail(1, "profile: %s", pcs_last_error());
    pcs_world_set_event_callback(h->world, report_events, h);
    report_timeline_channels(h);
    /* Last of the registrations, so the first tick finds its sections built. */
    if (h->opt.parallel_units && pcs_world_set_parallel_units(h->world, 1) != PCS_OK)
        return host_fail(1, "--parallel-units: %s", pcs_last_error());
    if (h->opt.load) {
        if (pcs_world_load(h->world, h->opt.load) != PCS_OK)
            return host_fail(2, "%s", pcs_last_error());
        h->start_tick = pcs_world_clock(h->world)->tick;
    }
    return start_pool(h);
}

/* pcs_world_save writes a new temporary beside the path and renames it: make
 * (and remove) one now, so an unwritable --save fails before the run rather
 * than after all of it. Nothing at or beside the path is touched. */
static int check_save_path(const char *path)
{
    pcs_atomic_file *probe = NULL;
    if (pcs_atomic_file_create(path, &probe) != PCS_OK)
        return host_fail(2, "--save '%s': %s", path, pcs_last_error());
    pcs_atomic_file_discard(probe);
    return 0;
}

static int csv_to_stdout(const host *h)
{
    return h->opt.csv && strcmp(h->opt.csv, "-") == 0;
}

/* The CSV is written whole or not at all, like saves and journals: through
 * a temporary renamed over the path at the end, so a symlink there is
 * replaced, never written through. "-" is standard output, as it comes. */
static int open_output(const char *opt, const char *path, pcs_atomic_file **out, FILE **stream)
{
    if (strcmp(path, "-") == 0) {
        *out = NULL;
        *stream = stdout;
        return 0;
    }
    if (pcs_atomic_file_create(path, out) != PCS_OK)
        return host_fail(2, "--%s '%s': %s", opt, path, pcs_last_error());
    *stream = pcs_atomic_file_stream(*out);
    return 0;
}

/* Put what was written in place when the run started, also after a failed
 * tick (a partial journal shows how far it got); when the run never started,
 * drop it and leave the path as it was. Says why when that fails. */
static int close_output(const char *opt, pcs_atomic_file **f, FILE **stream, int keep)
{
    pcs_atomic_file *file = *f;
    FILE *s = *stream;
    *f = NULL;
    *stream = NULL;
    if (s == stdout) /* "-": a closed pipe or a full disk is still an error */
        return fflush(stdout) == 0 && !ferror(stdout)
                   ? 0
                   : host_fail(1, "--%s -: writing standard output failed", opt);
    if (!file)
        return 0;
    if (!keep) {
        pcs_atomic_file_discard(file);
        return 0;
    }
    if (pcs_atomic_file_commit(file) != PCS_OK)
        return host_fail(1, "--%s: %s", opt, pcs_last_error());
    return 0;
}

/* The journal writer writes its header now: after the build and a --load,
 * before the first tick. Its file is a pcs_atomic_file like the CSV. */
static int open_outputs(host *h)
{
    if (h->opt.save && check_save_path(h->opt.save) != 0)
        return 2;
    if (h->opt.csv && report_csv_select(h) != 0)
        return 2;
    if (h->opt.csv && open_output("csv", h->opt.csv, &h->csv_out, &h->csv) != 0)
        return 2;
    if (h->opt.journal &&
        pcs_journal_writer_open(h->opt.journal, h->station, h->scn, &h->journal) != PCS_OK)
        return host_fail(2, "--journal '%s': %s", h->opt.journal, pcs_last_error());
    if (h->csv)
        report_csv_header(h);
    probe_free(h); /* its names are copied: the run does not carry its world */
    uint32_t spans = h->opt.trace_spans ? h->opt.trace_spans : PCS_PROFILE_TRACE_DEFAULT_SPANS;
    if (h->opt.trace && pcs_profile_trace_begin_n(h->opt.trace, spans) != PCS_OK)
        return host_fail(2, "--trace: %s", pcs_last_error());
    pcs_profile_trace_thread_name("pcsim-main"); /* the ticking thread's track */
    return 0;
}

static void before_tick(void *ctx, uint64_t tick)
{
    host *h = ctx;
    (void)tick;
    h->tick_t0 = host_now_ns();
}

/* What follows each tick of a run or a replay: its time, the timeline and
 * CSV rows, the progress bar. */
static void after_tick(void *ctx, uint64_t tick)
{
    host *h = ctx;
    hist_add(&h->tick_ns, host_now_ns() - h->tick_t0);
    uint64_t done = ++h->ticks_run, every = h->run.timeline_ticks;
    if (every && (tick + 1) % every == 0 && !h->opt.quiet)
        report_timeline(h);
    if (h->csv && h->csv_ticks && (tick + 1) % h->csv_ticks == 0)
        report_csv_row(h);
    if (h->bar && done % (h->run.run_ticks / 200 + 1) == 0)
        report_progress(h, done, h->run.run_ticks);
}

/* The journal's commands at their ticks (pcs_replay); a hash that differs
 * is reported after the summary (cmd_replay). */
static int replay_loop(host *h)
{
    pcs_replay_opts o = {.before_tick = before_tick, .after_tick = after_tick, .ctx = h};
    pcs_replay_result r;
    h->replay_status = pcs_replay(h->station, h->replay, &o, &r);
    snprintf(h->replay_error, sizeof h->replay_error, "%s", pcs_last_error());
    /* A target line checked at its command's tick (journal_replay.c) that
     * the station refuses is bad input, as the header's checks are: 2. */
    if (h->replay_status != PCS_OK && !r.completed)
        return host_fail(h->replay_status == PCS_E_INVAL ? 2 : 1, "%s", pcs_last_error());
    return 0;
}

/* Ticks a machine that keeps up runs per wall second at the run's speed. */
static double required_rate(const host *h)
{
    return pcs_world_speed(h->world) / h->world_cfg.dt_s;
}

/* A backlog worth this much wall time at the run's speed is "falling behind":
 * at 1x and dt 0.05 s, 5 ticks, so a machine doing 14 ticks/s of the 20 needed
 * is told within a second; one slow tick of less than this is not. */
#define HOST_BEHIND_WARN_S 0.25

/* Falling behind: say so once, with the rate achieved so far against the
 * rate the speed needs; again only after catching up. */
static void note_lag(host *h, uint64_t behind)
{
    if (behind > h->behind_max)
        h->behind_max = behind;
    h->behind_end = behind;
    if (behind == 0) {
        h->behind_warned = 0;
        return;
    }
    double behind_s = (double)behind / required_rate(h);
    if (behind_s < HOST_BEHIND_WARN_S || h->behind_warned)
        return;
    h->behind_warned = 1;
    double wall_s = (double)(host_now_ns() - h->loop_t0) * 1e-9;
    if (!h->opt.quiet)
        fprintf(stderr,
                "pcsim: warning: --realtime is falling behind at tick %" PRIu64 ": %" PRIu64
                " ticks (%.1f s) owed; %.1f ticks/s achieved, %.1f needed at %gx\n",
                pcs_world_clock(h->world)->tick, behind, behind_s,
                wall_s > 0 ? (double)h->ticks_run / wall_s : 0.0, required_rate(h),
                pcs_world_speed(h->world));
}

static void sleep_s(double s)
{
    uint64_t ns = (uint64_t)(s * 1e9);
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    nanosleep(&ts, NULL);
}

/* The next tick with what surrounds it: the script's commands for it first,
 * then the journal, timeline and CSV. With --realtime the tick runs only when
 * it is due, else this sleeps until it is and returns without it. */
static int host_tick(host *h)
{
    uint64_t tick = pcs_world_clock(h->world)->tick;
    script_before_tick(h, tick);
    before_tick(h, tick);
    pcs_status st;
    uint64_t ran;
    if (h->opt.realtime) {
        /* The library paces (world.h, "Run state and pacing"): this thread
         * measures CLOCK_MONOTONIC and passes the wall time since its last
         * call; at most one tick a call, so the steps around a tick stay. */
        uint64_t now = host_now_ns();
        pcs_world_advance_result r = {0};
        st = pcs_world_advance(h->world, (double)(now - h->pace_last) * 1e-9, 1, &r);
        h->pace_last = now;
        ran = r.ticks_run;
        if (st == PCS_OK)
            note_lag(h, r.ticks_behind);
        if (st == PCS_OK && r.ticks_run == 0)
            sleep_s(r.wait_s);
    } else {
        st = pcs_world_tick(h->world);
        ran = st == PCS_OK;
    }
    if (st != PCS_OK)
        return host_fail(1, "tick %" PRIu64 " failed: %s", tick, pcs_last_error());
    if (ran == 0)
        return 0;
    if (h->journal && pcs_journal_writer_drain(h->journal) != PCS_OK)
        return host_fail(1, "--journal: %s", pcs_last_error());
    after_tick(h, tick);
    return 0;
}

static int tick_loop(host *h)
{
    h->loop_t0 = h->pace_last = host_now_ns();
    /* A progress bar on a terminal; plain timeline lines otherwise. */
    h->bar = !h->opt.quiet && h->out == stdout && isatty(STDOUT_FILENO);
    if (h->replay)
        return replay_loop(h);
    if (h->opt.realtime &&
        pcs_world_set_speed(h->world, h->opt.speed > 0.0 ? h->opt.speed : 1.0) != PCS_OK)
        return host_fail(2, "--speed: %s", pcs_last_error());
    while (h->ticks_run < h->run.run_ticks)
        if (host_tick(h) != 0)
            return 1;
    return 0;
}

/* The summary's realtime line: what the machine achieved against what the
 * speed needs, and how far behind it fell. */
static void report_pacing(const host *h, uint64_t wall_ns)
{
    if (!h->opt.realtime || h->opt.json)
        return;
    double wall_s = (double)wall_ns * 1e-9, need = required_rate(h);
    fprintf(h->out,
            "realtime: speed %gx needs %.1f ticks/s, achieved %.1f ticks/s; behind at the end "
            "%" PRIu64 " ticks (%.3f s), at most %" PRIu64 " (%.3f s)\n",
            pcs_world_speed(h->world), need, wall_s > 0 ? (double)h->ticks_run / wall_s : 0.0,
            h->behind_end, (double)h->behind_end / need, h->behind_max,
            (double)h->behind_max / need);
}

/* @p ran: the tick loop ran, so the outputs are kept. Returns 1 when one
 * could not be put in place, else 0. */
static int host_free(host *h, int ran)
{
    int rc = 0;
    if (h->opt.trace && pcs_profile_tracing() && pcs_profile_trace_end() != PCS_OK)
        rc = host_fail(1, "--trace: %s", pcs_last_error());
    pcs_profile_detach(h->profile);
    h->profile = NULL;
    if (close_output("csv", &h->csv_out, &h->csv, ran) != 0)
        rc = 1;
    if (pcs_journal_writer_close(h->journal, ran) != PCS_OK)
        rc = host_fail(1, "--journal: %s", pcs_last_error());
    h->journal = NULL;
    pcs_station_destroy(h->station); /* before its world */
    h->station = NULL;
    pcs_world_destroy(h->world); /* before the worker pool: unbinds its jobs */
    pcs_exec_destroy(h->exec);
    pcs_scenario_destroy(h->scn);
    h->scn = NULL;
    probe_free(h);
    free(h->actions);
    free(h->action_state);
    h->action_state = NULL;
    report_csv_free(h);
    return rc;
}

static int finish(host *h, uint64_t wall_ns)
{
    uint64_t hash = pcs_world_state_hash(h->world);
    h->final_hash = hash;
    if (h->journal && pcs_journal_writer_end(h->journal) != PCS_OK)
        return host_fail(1, "--journal: %s", pcs_last_error());
    if (h->opt.save && pcs_world_save(h->world, h->opt.save) != PCS_OK)
        return host_fail(1, "%s", pcs_last_error());
    /* End the trace before the summary, which reports its spans and drops:
     * the readers and the producer have stopped, so the counts are final. */
    if (h->opt.trace && pcs_profile_tracing() && pcs_profile_trace_end() != PCS_OK)
        return host_fail(1, "--trace: %s", pcs_last_error());
    report_summary(h, wall_ns);
    report_pacing(h, wall_ns);
    return 0;
}

/* Shared by run and replay once h->opt (and for a replay h->replay) is filled. */
int host_run(host *h, int (*after_build)(host *h))
{
    /* With the CSV on standard output, what a person reads goes to stderr. */
    h->out = csv_to_stdout(h) ? stderr : stdout;
    int rc = host_load_scenario(h);
    if (!rc)
        rc = build_world(h);
    if (!rc && after_build)
        rc = after_build(h);
    if (!rc)
        rc = open_outputs(h);
    int script_started = 0;
    if (!rc && !h->replay) /* a replay queues the journal's commands itself */
        rc = script_start(h);
    if (!rc) {
        script_started = !h->replay;
        rc = readers_start(h);
    }
    if (rc) { /* stop what started before freeing the world it uses */
        if (script_started)
            script_stop(h);
        readers_stop_all(h);
        host_free(h, 0);
        return rc;
    }
    /* Keep this (the ticking) thread on the core the workers left free. Only
     * now: threads started later would inherit the binding. */
    if (pcs_exec_worker_count(h->exec) > 0 && pcs_exec_pin_host(h->exec) != PCS_OK)
        pool_warning(h, pcs_last_error());
    uint64_t allocs = pcs_world_alloc_count(h->world);
    uint64_t t0 = host_now_ns();
    rc = tick_loop(h);
    uint64_t wall = host_now_ns() - t0;
    h->tick_allocations = pcs_world_alloc_count(h->world) - allocs;
    if (!h->replay)
        script_stop(h);
    readers_stop_all(h);
    if (!rc)
        rc = finish(h, wall);
    int free_rc = host_free(h, 1);
    return rc ? rc : free_rc;
}

int cmd_run(int argc, char **argv)
{
    static host h;
    memset(&h, 0, sizeof h);
    int rc = parse_run_opts(argc, argv, &h.opt);
    if (rc)
        return rc == 1 ? 0 : rc;
    return host_run(&h, NULL);
}
