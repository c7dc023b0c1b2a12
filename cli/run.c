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
          "  --realtime      pace ticks to wall-clock time\n"
          "  --csv FILE      write the timeline channels every tick interval to FILE\n"
          "  --trace FILE    write a Chrome/Perfetto trace of the run\n"
          "  --journal FILE  write every applied command with its tick, and the final hash\n"
          "  --save FILE     save the world at the end\n"
          "  --load FILE     resume from a saved world (built from the same scenario)\n"
          "  --check-finite  fail the tick that writes NaN/Inf into a physics store\n"
          "                  (on by default in debug builds)\n"
          "  --max-scenario-bytes N  refuse a scenario file larger than N bytes (default\n"
          "                  4194304), checked before it is read\n"
          "  --quiet         only the final summary\n"
          "  --json          summary as JSON on stdout\n"
          "  --help          this text\n",
          f);
}

static int parse_double(const char *s, double lo, double hi, double *out)
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
        {"scenario", 1, 0, 'F'}, {"check-finite", 0, 0, 'N'},
        {"max-scenario-bytes", 1, 0, 'M'}, {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->workers = o->readers = -1;
    o->seconds = -1.0;
    optind = 1;
    int ch;
    double v;
    while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (ch) {
        case 's':
            if (parse_double(optarg, 0.0, 1e9, &o->seconds))
                return host_fail(2, "--seconds '%s': expected a number in [0, 1e9]", optarg);
            break;
        case 'w':
        case 'r':
            if (parse_double(optarg, 0, 256, &v) || v != (int)v)
                return host_fail(2, "--%s '%s': expected an integer in [0, 256]",
                                 ch == 'w' ? "workers" : "readers", optarg);
            *(ch == 'w' ? &o->workers : &o->readers) = (int)v;
            break;
        case 'R': o->realtime = 1; break;
        case 'c': o->csv = optarg; break;
        case 't': o->trace = optarg; break;
        case 'j': o->journal = optarg; break;
        case 'S': o->save = optarg; break;
        case 'L': o->load = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'J': o->json = o->quiet = 1; break;
        case 'F': o->scenario = optarg; break;
        case 'N': o->check_finite = 1; break;
        case 'M': /* at most 2^40: an exact integer in a double */
            if (parse_double(optarg, 1.0, 1099511627776.0, &v) || v != (double)(uint64_t)v)
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
    return 0;
}

int host_load_scenario(host *h)
{
    pcs_scenario_load_opts lo = {.max_bytes = h->opt.max_scenario_bytes};
    pcs_status st = h->opt.scenario ? pcs_scenario_load_file(h->opt.scenario, &lo, &h->scn)
                                    : pcs_scenario_default(&h->scn);
    if (st != PCS_OK)
        return host_fail(2, "%s", pcs_last_error());
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
    /* Rounding warnings (docs/ARCHITECTURE.md section 3) go to stderr, one per line. */
    for (const char *line = h->warnings; *line;) {
        const char *end = strchr(line, '\n');
        int n = end ? (int)(end - line) : (int)strlen(line);
        fprintf(stderr, "pcsim: warning: %.*s\n", n, line);
        line += n + (end != NULL);
    }
    return 0;
}

static int resolve_script(host *h)
{
    uint32_t n = pcs_scenario_action_count(h->scn);
    h->actions = calloc(n + 1, sizeof *h->actions);
    if (!h->actions)
        return host_fail(1, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        h->actions[i].tick = pcs_scenario_action_get(h->scn, i)->tick;
        if (pcs_station_script_command(h->station, h->scn, i, &h->actions[i].cmd) != PCS_OK)
            return host_fail(2, "%s", pcs_last_error());
    }
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
    if (!h->opt.replay && resolve_script(h) != 0)
        return 2;
    if (pcs_snapshot_attach(h->world, NULL, &h->pool) != PCS_OK)
        return host_fail(1, "snapshot: %s", pcs_last_error());
    if (pcs_profile_attach(h->world, &h->profile) != PCS_OK)
        return host_fail(1, "profile: %s", pcs_last_error());
    pcs_world_set_event_callback(h->world, report_events, h);
    report_timeline_channels(h);
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

/* Journal and CSV are written whole or not at all, like saves: through a
 * temporary renamed over the path at the end, so a symlink there is replaced,
 * never written through. */
static int open_output(const char *opt, const char *path, pcs_atomic_file **out, FILE **stream)
{
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
    *f = NULL;
    *stream = NULL;
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

static int open_outputs(host *h)
{
    if (h->opt.save && check_save_path(h->opt.save) != 0)
        return 2;
    if (h->opt.csv && open_output("csv", h->opt.csv, &h->csv_out, &h->csv) != 0)
        return 2;
    if (h->opt.journal && open_output("journal", h->opt.journal, &h->journal_out, &h->journal))
        return 2;
    if (h->journal)
        fprintf(h->journal, "# pcsim journal v%u\n# scenario %s\n# start_tick %" PRIu64 "\n",
                PCS_JOURNAL_FILE_VERSION, pcs_scenario_source(h->scn), h->start_tick);
    if (h->csv)
        report_csv_header(h);
    if (h->opt.trace && pcs_profile_trace_begin(h->opt.trace) != PCS_OK)
        return host_fail(2, "--trace: %s", pcs_last_error());
    return 0;
}

static void drain_journal(host *h)
{
    pcs_command buf[64];
    uint32_t n;
    while ((n = pcs_journal_read(h->world, &h->journal_cursor, buf, 64, NULL)) > 0)
        for (uint32_t i = 0; h->journal && i < n; i++)
            fprintf(h->journal, "%" PRIu64 " %u %u %.17g %.17g %.17g %.17g\n", buf[i].tick,
                    buf[i].kind, buf[i].target, buf[i].args[0], buf[i].args[1], buf[i].args[2],
                    buf[i].args[3]);
}

static void pace(host *h, uint64_t t0, uint64_t done)
{
    if (!h->opt.realtime)
        return;
    uint64_t due = t0 + (uint64_t)((double)done * h->world_cfg.dt_s * 1e9);
    uint64_t now = host_now_ns();
    if (due > now) {
        struct timespec ts = {(time_t)((due - now) / 1000000000u),
                              (long)((due - now) % 1000000000u)};
        nanosleep(&ts, NULL);
    }
}

static int tick_loop(host *h)
{
    uint64_t every = h->run.timeline_ticks;
    uint64_t t0 = host_now_ns();
    /* A progress bar on a terminal; plain timeline lines otherwise. */
    int bar = !h->opt.quiet && isatty(STDOUT_FILENO);
    uint64_t bar_every = h->run.run_ticks / 200 + 1;
    for (uint64_t i = 0; i < h->run.run_ticks; i++) {
        uint64_t tick = pcs_world_clock(h->world)->tick;
        script_before_tick(h, tick);
        uint64_t a = host_now_ns();
        pcs_status st = pcs_world_tick(h->world);
        hist_add(&h->tick_ns, host_now_ns() - a);
        if (st != PCS_OK)
            return host_fail(1, "tick %" PRIu64 " failed: %s", tick, pcs_last_error());
        h->ticks_run++;
        drain_journal(h);
        if (every && (tick + 1) % every == 0) {
            if (!h->opt.quiet)
                report_timeline(h);
            if (h->csv)
                report_csv_row(h);
        }
        if (bar && (i + 1) % bar_every == 0)
            report_progress(h, i + 1, h->run.run_ticks);
        pace(h, t0, i + 1);
    }
    return 0;
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
    if (close_output("journal", &h->journal_out, &h->journal, ran) != 0)
        rc = 1;
    pcs_station_destroy(h->station); /* before its world */
    h->station = NULL;
    pcs_world_destroy(h->world); /* before the worker pool: unbinds its jobs */
    pcs_exec_destroy(h->exec);
    pcs_scenario_destroy(h->scn);
    h->scn = NULL;
    free(h->actions);
    return rc;
}

static int finish(host *h, uint64_t wall_ns)
{
    uint64_t hash = pcs_world_state_hash(h->world);
    h->final_hash = hash;
    if (h->journal)
        fprintf(h->journal, "# end_tick %" PRIu64 " hash %016" PRIx64 "\n",
                pcs_world_clock(h->world)->tick, hash);
    if (h->opt.save && pcs_world_save(h->world, h->opt.save) != PCS_OK)
        return host_fail(1, "%s", pcs_last_error());
    report_summary(h, wall_ns);
    return 0;
}

/* Shared by run and replay once h->opt is filled. */
int host_run(host *h, int (*after_build)(host *h))
{
    int rc = host_load_scenario(h);
    if (!rc)
        rc = build_world(h);
    if (!rc && after_build)
        rc = after_build(h);
    if (!rc)
        rc = open_outputs(h);
    int script_started = 0;
    if (!rc)
        rc = script_start(h);
    if (!rc) {
        script_started = 1;
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
