/**
 * @file test_plugin.c
 * @brief Plugins (pcsim/plugin.h): callback order by (priority, id), where
 *        before_step and after_step run relative to the slow-job merge and
 *        the stages, shutdown order, errors naming the plugin, refused
 *        registrations, what initialize registered, zero allocations per
 *        tick, and the station's plugins (sections, unchanged hash).
 *
 * Its checks are static functions, run in groups by the Tests at the end of
 * the file, one process a group (issue 19's test cost); each group's comment
 * lists what it checks.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "tests/alloc_count.h"

/* ---- A log of what ran, in order ------------------------------------------ */

#define LOG_MAX 256

typedef struct plog {
    char line[LOG_MAX][40];
    int n;
} plog;

static void plog_add(plog *l, const char *what, const char *who)
{
    if (l->n < LOG_MAX)
        snprintf(l->line[l->n++], sizeof l->line[0], "%s %s", what, who);
}

/* The log as one string, lines joined by "; ", for a whole-sequence compare. */
static const char *plog_text(const plog *l, int from)
{
    static char buf[LOG_MAX * 42];
    buf[0] = '\0';
    for (int i = from; i < l->n; i++) {
        if (i > from)
            strcat(buf, "; ");
        strcat(buf, l->line[i]);
    }
    return buf;
}

/* A plugin's ctx: its name in the log and where the log is. */
typedef struct probe {
    const char *name;
    plog *log;
    int fail_before, fail_after, fail_init;
} probe;

static pcs_status p_init(pcs_world *w, void *ctx, const char *section_json)
{
    (void)w, (void)section_json;
    probe *p = ctx;
    plog_add(p->log, "init", p->name);
    if (p->fail_init)
        return pcs_error_set(PCS_E_INVAL, "field 'every' = %d is outside [1, 100]", 0);
    return PCS_OK;
}

static pcs_status p_before(pcs_world *w, void *ctx)
{
    (void)w;
    probe *p = ctx;
    plog_add(p->log, "before", p->name);
    return p->fail_before ? pcs_error_set(PCS_E_NUMERIC, "probe value %g is not finite", 1.0 / 0.0)
                          : PCS_OK;
}

static pcs_status p_after(pcs_world *w, void *ctx)
{
    (void)w;
    probe *p = ctx;
    plog_add(p->log, "after", p->name);
    return p->fail_after ? pcs_error_set(PCS_E_IO, "cannot write '%s'", "/nonexistent/x") : PCS_OK;
}

static void p_shutdown(pcs_world *w, void *ctx)
{
    (void)w;
    probe *p = ctx;
    plog_add(p->log, "shutdown", p->name);
}

static pcs_plugin_def probe_def(const char *id, int32_t priority)
{
    pcs_plugin_def d;
    pcs_plugin_default(&d);
    d.id = id;
    d.priority = priority;
    d.initialize = p_init;
    d.before_step = p_before;
    d.after_step = p_after;
    d.shutdown = p_shutdown;
    return d;
}

static pcs_world *new_world(void)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    return w;
}

static void steps_run_by_priority_then_id_and_shutdown_in_reverse(void)
{
    static plog log;
    /* Added out of order: init follows the add order, the steps (priority, id). */
    static probe p[4];
    static const char *const ids[4] = {"t.b", "t.a", "t.c", "t.d"};
    static const int32_t prio[4] = {0, 0, -5, 10};
    pcs_world *w = new_world();
    for (int i = 0; i < 4; i++) {
        p[i] = (probe){.name = ids[i], .log = &log};
        pcs_plugin_def d = probe_def(ids[i], prio[i]);
        cr_assert_eq(pcs_plugin_add(w, &d, &p[i]), PCS_OK, "%s", pcs_last_error());
    }
    cr_assert_eq(pcs_plugin_count(w), 4);
    cr_assert_str_eq(plog_text(&log, 0), "init t.b; init t.a; init t.c; init t.d");
    static const char *const order[4] = {"t.c", "t.a", "t.b", "t.d"};
    static const int32_t order_prio[4] = {-5, 0, 0, 10};
    for (uint32_t i = 0; i < 4; i++) {
        pcs_schedule_plugin s;
        cr_assert_eq(pcs_schedule_plugin_at(w, i, &s), PCS_OK);
        cr_assert_str_eq(s.id, order[i], "position %u", i);
        cr_assert_eq(s.priority, order_prio[i], "position %u", i);
        cr_assert(s.has_before_step && s.has_after_step && s.has_shutdown);
    }
    pcs_schedule_plugin s;
    cr_assert_eq(pcs_schedule_plugin_at(w, 4, &s), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(), "pcs_schedule_plugin_at: index 4 is outside [0, 4)");
    int mark = log.n;
    cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    cr_assert_str_eq(plog_text(&log, mark), "before t.c; before t.a; before t.b; before t.d; "
                                            "after t.c; after t.a; after t.b; after t.d");
    mark = log.n;
    pcs_world_destroy(w);
    cr_assert_str_eq(plog_text(&log, mark),
                     "shutdown t.d; shutdown t.b; shutdown t.a; shutdown t.c");
}

/* ---- Where the steps run: slow merge, stage 1, stage 13 ------------------- */

typedef struct tick_probe {
    plog *log;
    pcs_world *w;
} tick_probe;

static pcs_status sys_log(pcs_world *w, void *ctx)
{
    plog_add(ctx, pcs_stage_name(PCS_STAGE_COMMANDS), "system");
    (void)w;
    return PCS_OK;
}

static pcs_status sys_log13(pcs_world *w, void *ctx)
{
    plog_add(ctx, pcs_stage_name(PCS_STAGE_EVENTS), "system");
    (void)w;
    return PCS_OK;
}

static pcs_status job_copy(pcs_world *w, void *ctx, void *input)
{
    (void)w, (void)input;
    plog_add(ctx, "job", "copy_inputs");
    return PCS_OK;
}

static pcs_status job_chunk(void *ctx, const void *input, uint32_t chunk, void *output)
{
    (void)ctx, (void)input, (void)chunk, (void)output;
    return PCS_OK;
}

static pcs_status job_merge(pcs_world *w, void *ctx, const void *input, void *const *outputs,
                            uint32_t n)
{
    (void)w, (void)input, (void)outputs, (void)n;
    plog_add(ctx, "job", "merge");
    return PCS_OK;
}

/* A world with a slow job, a stage-1 and a stage-13 system and one probe
 * plugin, all logging into @p log. */
static pcs_world *staged_world(plog *log, probe *p)
{
    pcs_world *w = new_world();
    pcs_job_desc j = {.name = "slow",
                      .domain = PCS_DOMAIN_SLOW,
                      .n_chunks = 1,
                      .input_bytes = 8,
                      .output_bytes = 8,
                      .copy_inputs = job_copy,
                      .run_chunk = job_chunk,
                      .merge = job_merge,
                      .ctx = log};
    cr_assert_eq(pcs_job_register(w, &j, NULL), PCS_OK, "%s", pcs_last_error());
    pcs_system_desc s1 = {.name = "s1", .stage = PCS_STAGE_COMMANDS, .fn = sys_log, .ctx = log};
    pcs_system_desc s13 = {.name = "s13", .stage = PCS_STAGE_EVENTS, .fn = sys_log13, .ctx = log};
    cr_assert_eq(pcs_system_register(w, &s1, NULL), PCS_OK);
    cr_assert_eq(pcs_system_register(w, &s13, NULL), PCS_OK);
    *p = (probe){.name = "t.p", .log = log};
    pcs_plugin_def d = probe_def("t.p", 0);
    cr_assert_eq(pcs_plugin_add(w, &d, p), PCS_OK, "%s", pcs_last_error());
    return w;
}

static void before_step_follows_the_slow_merge_and_after_step_follows_stage_13(void)
{
    static plog log;
    static probe p;
    pcs_world *w = staged_world(&log, &p);
    uint32_t period = pcs_clock_period(PCS_DOMAIN_SLOW);
    cr_assert_eq(period, 20);
    int mark = log.n;
    cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error()); /* tick 0: first submit */
    cr_assert_str_eq(plog_text(&log, mark), "job copy_inputs; before t.p; commands system; "
                                            "events system; after t.p");
    for (uint32_t t = 1; t < period; t++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    mark = log.n;
    cr_assert_eq(pcs_world_tick(w), PCS_OK); /* tick 20: merge of tick 0's run */
    cr_assert_str_eq(plog_text(&log, mark),
                     "job merge; job copy_inputs; before t.p; commands system; events system; "
                     "after t.p");
    pcs_world_destroy(w);
}

/* The clock reads the running tick in both steps. */
static pcs_status note_tick(pcs_world *w, void *ctx)
{
    uint64_t *at = ctx;
    *at++ = pcs_world_clock(w)->tick;
    return PCS_OK;
}

static pcs_status note_tick_after(pcs_world *w, void *ctx)
{
    uint64_t *at = ctx;
    at[1] = pcs_world_clock(w)->tick;
    return PCS_OK;
}

static void both_steps_see_the_tick_being_run(void)
{
    pcs_world *w = new_world();
    static uint64_t at[2] = {99, 99};
    pcs_plugin_def d;
    pcs_plugin_default(&d);
    d.id = "t.clock";
    d.before_step = note_tick;
    d.after_step = note_tick_after;
    cr_assert_eq(pcs_plugin_add(w, &d, at), PCS_OK);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(at[0], 5);
    cr_assert_eq(at[1], 5);
    cr_assert_eq(pcs_world_clock(w)->tick, 6);
    pcs_world_destroy(w);
}

/* ---- Errors --------------------------------------------------------------- */

static void a_failing_before_step_fails_the_tick_naming_the_plugin(void)
{
    static plog log;
    static probe p;
    pcs_world *w = staged_world(&log, &p);
    p.fail_before = 1;
    int mark = log.n;
    cr_assert_eq(pcs_world_tick(w), PCS_E_NUMERIC);
    cr_assert_str_eq(pcs_last_error(), "tick 0: plugin 't.p' before_step: probe value inf is not "
                                       "finite");
    /* The stages did not run, the clock did not advance. */
    cr_assert_str_eq(plog_text(&log, mark), "job copy_inputs; before t.p");
    cr_assert_eq(pcs_world_clock(w)->tick, 0);
    p.fail_before = 0;
    cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error()); /* the retry runs */
    cr_assert_eq(pcs_world_clock(w)->tick, 1);
    pcs_world_destroy(w);
}

static void a_failing_after_step_fails_the_tick_naming_the_plugin(void)
{
    static plog log;
    static probe p;
    pcs_world *w = staged_world(&log, &p);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    p.fail_after = 1;
    cr_assert_eq(pcs_world_tick(w), PCS_E_IO);
    cr_assert_str_eq(pcs_last_error(),
                     "tick 1: plugin 't.p' after_step: cannot write '/nonexistent/x'");
    cr_assert_eq(pcs_world_clock(w)->tick, 1, "the clock commits only after after_step");
    pcs_world_destroy(w);
}

static void a_failing_initialize_is_not_added_and_never_shut_down(void)
{
    static plog log;
    static probe p = {.name = "t.bad", .log = &log, .fail_init = 1};
    pcs_world *w = new_world();
    pcs_plugin_def d = probe_def("t.bad", 0);
    cr_assert_eq(pcs_plugin_add(w, &d, &p), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(),
                     "plugin 't.bad' initialize: field 'every' = 0 is outside [1, 100]");
    cr_assert_eq(pcs_plugin_count(w), 0);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    pcs_world_destroy(w);
    cr_assert_str_eq(plog_text(&log, 0), "init t.bad", "no step and no shutdown for it");
}

static pcs_status nested_init(pcs_world *w, void *ctx, const char *section_json)
{
    (void)section_json;
    pcs_plugin_def d = probe_def("t.inner", 0);
    return pcs_plugin_add(w, &d, ctx);
}

static void refused_registrations_say_why(void)
{
    static plog log;
    static probe p = {.name = "t.x", .log = &log};
    pcs_world *w = new_world();
    pcs_plugin_def d = probe_def("t.x", 0);
    d.section = "recorder";
    cr_assert_eq(pcs_plugin_add(w, &d, &p), PCS_OK);
    cr_assert_eq(pcs_plugin_add(w, &d, &p), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_plugin_add: a plugin with id 't.x' was already added");
    d.id = "t.y";
    cr_assert_eq(pcs_plugin_add(w, &d, &p), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_plugin_add: plugin 't.y' owns section 'recorder', "
                                       "which plugin 't.x' already owns");
    d.section = NULL;
    d.section_json = "{}";
    cr_assert_eq(pcs_plugin_add(w, &d, &p), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(),
                     "pcs_plugin_add: plugin 't.y' has section_json but no section it owns");
    d.section_json = NULL;
    d.id = "has space";
    cr_assert_eq(pcs_plugin_add(w, &d, &p), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "has space"), "%s", pcs_last_error());
    d.id = NULL;
    cr_assert_eq(pcs_plugin_add(w, &d, &p), PCS_E_INVAL);
    cr_assert_eq(pcs_plugin_add(w, NULL, &p), PCS_E_INVAL);
    cr_assert_eq(pcs_plugin_add(NULL, &d, &p), PCS_E_INVAL);
    pcs_plugin_def n;
    pcs_plugin_default(&n);
    n.id = "t.outer";
    n.initialize = nested_init;
    cr_assert_eq(pcs_plugin_add(w, &n, &p), PCS_E_STATE);
    cr_assert_str_eq(pcs_last_error(),
                     "plugin 't.outer' initialize: pcs_plugin_add: 't.inner' added from inside "
                     "another plugin's initialize (add plugins one after another)");
    cr_assert_eq(pcs_plugin_count(w), 1);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    d.id = "t.late";
    cr_assert_eq(pcs_plugin_add(w, &d, &p), PCS_E_STATE);
    cr_assert(strstr(pcs_last_error(), "pcs_plugin_add: the world is sealed"), "%s",
              pcs_last_error());
    cr_assert_eq(pcs_plugin_count(w), 1);
    pcs_world_destroy(w);
}

/* ---- What initialize registered -------------------------------------------- */

static pcs_status nop_sys(pcs_world *w, void *ctx)
{
    (void)w, (void)ctx;
    return PCS_OK;
}

static pcs_status reg_init(pcs_world *w, void *ctx, const char *section_json)
{
    (void)ctx, (void)section_json;
    uint32_t a, b;
    pcs_status st = pcs_store_register(w, "p.a", 8, 4, PCS_STORE_STATE, &a);
    if (st == PCS_OK)
        st = pcs_store_register(w, "p.b", 8, 4, PCS_STORE_STATE, &b);
    pcs_system_desc d = {
        .name = "p.sys", .stage = PCS_STAGE_HEAT, .fn = nop_sys, .writes = &a, .n_writes = 1};
    if (st == PCS_OK)
        st = pcs_system_register(w, &d, NULL);
    return st;
}

static void schedule_names_what_initialize_registered(void)
{
    pcs_world *w = new_world();
    uint32_t s0;
    cr_assert_eq(pcs_store_register(w, "host.s", 8, 1, PCS_STORE_STATE, &s0), PCS_OK);
    pcs_system_desc h = {.name = "host.sys", .stage = PCS_STAGE_ALARMS, .fn = nop_sys};
    cr_assert_eq(pcs_system_register(w, &h, NULL), PCS_OK);
    pcs_plugin_def d;
    pcs_plugin_default(&d);
    d.id = "t.reg";
    d.priority = 7;
    d.section = "reg";
    d.initialize = reg_init;
    cr_assert_eq(pcs_plugin_add(w, &d, NULL), PCS_OK, "%s", pcs_last_error());
    pcs_schedule_plugin s;
    cr_assert_eq(pcs_schedule_plugin_at(w, 0, &s), PCS_OK);
    cr_assert_str_eq(s.id, "t.reg");
    cr_assert_str_eq(s.section, "reg");
    cr_assert_eq(s.priority, 7);
    cr_assert_eq(s.first_store, 1);
    cr_assert_eq(s.n_stores, 2);
    cr_assert_eq(s.first_system, 1);
    cr_assert_eq(s.n_systems, 1);
    cr_assert_eq(s.n_jobs, 0);
    cr_assert(!s.has_before_step && !s.has_after_step && !s.has_shutdown);
    /* Its system is an ordinary system at its stage. */
    cr_assert_eq(pcs_system_count(w, PCS_STAGE_HEAT), 1);
    pcs_world_destroy(w);
}

/* ---- Zero allocations per tick --------------------------------------------- */

static void ticks_with_plugins_allocate_nothing(void)
{
    static plog log;
    static probe p;
    pcs_world *w = staged_world(&log, &p);
    static uint64_t at[2];
    pcs_plugin_def d;
    pcs_plugin_default(&d);
    d.id = "t.clock";
    d.before_step = note_tick;
    d.after_step = note_tick_after;
    cr_assert_eq(pcs_plugin_add(w, &d, at), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK); /* seal outside the measured window */
    log.n = LOG_MAX;                         /* the probe's log is full: it only counts now */
    uint64_t heap_before = pcs_world_alloc_count(w);
    pcs_test_alloc_begin();
    for (int i = 0; i < 2000; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    uint64_t mallocs = pcs_test_alloc_end();
    cr_assert_eq(mallocs, 0, "heap allocations during 2,000 ticks with plugins");
    cr_assert_eq(pcs_world_alloc_count(w), heap_before);
    cr_assert_eq(at[1], 2000);
    pcs_world_destroy(w);
}

/* ---- The station's plugins ------------------------------------------------- */

/* A host plugin that only reads: it owns "plugins.probe" and records the
 * section it was given and the sum of one channel's values. */
typedef struct reader_plugin {
    char section[128];
    uint32_t channel;
    double sum;
    uint64_t n;
} reader_plugin;

static pcs_status reader_init(pcs_world *w, void *ctx, const char *section_json)
{
    reader_plugin *r = ctx;
    snprintf(r->section, sizeof r->section, "%s", section_json ? section_json : "(null)");
    return pcs_channel_find(w, "u1.core.power", &r->channel);
}

static pcs_status reader_after(pcs_world *w, void *ctx)
{
    reader_plugin *r = ctx;
    r->sum += pcs_channel_value(w, r->channel);
    r->n++;
    return PCS_OK;
}

static uint64_t station_hash(const char *text, reader_plugin *r, uint32_t ticks)
{
    pcs_scenario *scn = NULL;
    cr_assert_eq(pcs_scenario_load_string("t.json", text, strlen(text), NULL, &scn), PCS_OK, "%s",
                 pcs_last_error());
    pcs_world_def cfg = pcs_scenario_world_def(scn);
    cfg.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    pcs_station *st = NULL;
    cr_assert_eq(pcs_station_add(w, scn, &st), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_plugin_count(w), 2);
    pcs_schedule_plugin s;
    cr_assert_eq(pcs_schedule_plugin_at(w, 0, &s), PCS_OK);
    cr_assert_str_eq(s.id, PCS_STATION_PLUGIN_PLANT);
    cr_assert_str_eq(s.section, "units");
    cr_assert_eq(s.priority, PCS_STATION_PLUGIN_PLANT_PRIORITY);
    cr_assert_eq(s.first_store, 0);
    cr_assert_gt(s.n_systems, 0);
    cr_assert_eq(pcs_schedule_plugin_at(w, 1, &s), PCS_OK);
    cr_assert_str_eq(s.id, PCS_STATION_PLUGIN_INSTRUMENTATION);
    cr_assert_eq(s.priority, PCS_STATION_PLUGIN_INSTRUMENTATION_PRIORITY);
    if (r) {
        char sec[128];
        size_t n = pcs_scenario_section_json(scn, "plugins.probe", sec, sizeof sec);
        pcs_plugin_def d;
        pcs_plugin_default(&d);
        d.id = "host.probe";
        d.section = "plugins.probe";
        d.section_json = n ? sec : NULL;
        d.initialize = reader_init;
        d.after_step = reader_after;
        cr_assert_eq(pcs_plugin_add(w, &d, r), PCS_OK, "%s", pcs_last_error());
    }
    for (uint32_t i = 0; i < ticks; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    uint64_t h = pcs_world_state_hash(w);
    pcs_station_destroy(st);
    pcs_world_destroy(w);
    pcs_scenario_destroy(scn);
    return h;
}

/* The default scenario with a "plugins" object in front of its fields. */
static char *with_plugins(const char *plugins)
{
    const char *def = pcs_scenario_default_text();
    const char *brace = strchr(def, '{');
    cr_assert_not_null(brace);
    size_t len = strlen(def) + strlen(plugins) + 32;
    char *t = malloc(len);
    cr_assert_not_null(t);
    snprintf(t, len, "{\"plugins\": %s, %s", plugins, brace + 1);
    return t;
}

/* A one-unit station is enough to show a read-only plugin changes nothing
 * (each build settles its units: the default's four cost twice as much). */
static void a_read_only_host_plugin_leaves_the_station_hash_unchanged(void)
{
    static const char text[] =
        "{\"plugins\": {\"probe\": {\"every\": 3, \"channel\": \"u1.core.power\"}}, "
        "\"schema\": 1, \"world\": {\"dt_s\": 0.05, \"seed\": 20261130}, "
        "\"units\": [{\"name\": \"u1\"}]}";
    static reader_plugin r;
    uint64_t plain = station_hash(text, NULL, 60);
    uint64_t with = station_hash(text, &r, 60);
    cr_assert_eq(plain, with, "hash %016llx without the plugin, %016llx with it",
                 (unsigned long long)plain, (unsigned long long)with);
    cr_assert_str_eq(r.section, "{\"channel\":\"u1.core.power\",\"every\":3}");
    cr_assert_eq(r.n, 60);
    cr_assert_gt(r.sum / 60.0, 1e8, "u1 runs at power: mean %g W", r.sum / 60.0);
}

static void scenario_sections_for_plugins(void)
{
    pcs_scenario *scn = NULL;
    cr_assert_eq(pcs_scenario_default(&scn), PCS_OK);
    char buf[8];
    size_t n = pcs_scenario_section_json(scn, "units", buf, sizeof buf);
    cr_assert_gt(n, sizeof buf, "the units section is longer than the buffer (%zu)", n);
    cr_assert_eq(strlen(buf), sizeof buf - 1, "cut to the buffer, NUL-terminated");
    cr_assert_eq(strncmp(buf, "[{", 2), 0, "%s", buf);
    cr_assert_eq(pcs_scenario_section_json(scn, "plugins.none", NULL, 0), 0);
    cr_assert_eq(pcs_scenario_section_json(scn, "instrumentation", NULL, 0), 0,
                 "the built-in scenario leaves instrumentation to its defaults");
    cr_assert_eq(pcs_scenario_section_json(NULL, "units", NULL, 0), 0);
    pcs_scenario_destroy(scn);
    char *text = with_plugins("{\"rec\": 5}");
    cr_assert_eq(pcs_scenario_load_string("p.json", text, strlen(text), NULL, &scn), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "p.json: $.plugins.rec: expected an object"), "%s",
              pcs_last_error());
    free(text);
}

/* Issue 19's budget: Criterion runs every Test in its own process, and under
 * ASan a process costs ~0.2 s before it checks anything, so the checks above
 * run grouped, one process per behaviour, in the order listed. Each keeps its
 * own assertions and messages; a failure names the check's line. */

/* Plugin steps run by priority then id, at their stages, seeing the tick being run; shutdown in
 * reverse. */
Test(plugin, steps_order_and_the_tick_they_see)
{
    steps_run_by_priority_then_id_and_shutdown_in_reverse();
    before_step_follows_the_slow_merge_and_after_step_follows_stage_13();
    both_steps_see_the_tick_being_run();
}

/* Failing steps and initializers, and refused registrations, say which plugin and why. */
Test(plugin, failures_and_refusals_name_the_plugin)
{
    a_failing_before_step_fails_the_tick_naming_the_plugin();
    a_failing_after_step_fails_the_tick_naming_the_plugin();
    a_failing_initialize_is_not_added_and_never_shut_down();
    refused_registrations_say_why();
}

/* The schedule names what initialize registered; plugin ticks allocate nothing; a read-only plugin
 * keeps the station hash; scenario sections. */
Test(plugin, schedule_allocation_and_scenario_sections)
{
    schedule_names_what_initialize_registered();
    ticks_with_plugins_allocate_nothing();
    a_read_only_host_plugin_leaves_the_station_hash_unchanged();
    scenario_sections_for_plugins();
}
