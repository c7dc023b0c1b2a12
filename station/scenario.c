/**
 * @file scenario.c
 * @brief Scenario loading: parse, migrate older schemas, validate, convert times to ticks.
 *
 * Schema history
 *   0  flat: "dt", "seed", "duration_s", "events" (list of {time, action,
 *      unit, value}). No "schema" field, or "schema": 0.
 *   1  sections: "world", "run", "readers", "script", plant sections.
 * Migration rewrites the document to the current schema before validation, so
 * validation exists once and old files keep working.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "station/jsonr.h"
#include "station/scenario.h"
#include "station/scenario_units.h"
#include "pcsim/clock.h"
#include "pcsim/plant.h"
#include "pcsim/turbine.h"

static int migrate_v0_event(json_t *ev, size_t i, char *err, size_t err_len)
{
    static const struct {
        const char *from, *to;
    } renames[] = {{"time", "t_s"}, {"action", "command"}, {"unit", "target"}};
    if (!json_is_object(ev)) {
        snprintf(err, err_len, "$.events[%zu]: expected an object (schema 0)", i);
        return -1;
    }
    for (size_t k = 0; k < sizeof renames / sizeof renames[0]; k++) {
        json_t *v = json_object_get(ev, renames[k].from);
        if (v) {
            json_object_set(ev, renames[k].to, v);
            json_object_del(ev, renames[k].from);
        }
    }
    return 0;
}

static int migrate_v0(json_t *doc, char *err, size_t err_len)
{
    /* The migration builds these sections from the flat v0 fields; a v1 file
     * that forgot "schema" would have them silently replaced by defaults. */
    static const char *const v1_only[] = {"world", "run", "script"};
    for (size_t i = 0; i < sizeof v1_only / sizeof v1_only[0]; i++)
        if (json_object_get(doc, v1_only[i])) {
            snprintf(err, err_len,
                     "$.%s: schema-1 section in a file without \"schema\" (read as schema 0, "
                     "whose fields are dt, seed, duration_s, events); add \"schema\": 1",
                     v1_only[i]);
            return -1;
        }
    json_t *world = json_object();
    json_t *run = json_object();
    if (json_object_get(doc, "dt"))
        json_object_set(world, "dt_s", json_object_get(doc, "dt"));
    if (json_object_get(doc, "seed"))
        json_object_set(world, "seed", json_object_get(doc, "seed"));
    if (json_object_get(doc, "duration_s"))
        json_object_set(run, "seconds", json_object_get(doc, "duration_s"));
    json_object_del(doc, "dt");
    json_object_del(doc, "seed");
    json_object_del(doc, "duration_s");
    json_object_set_new(doc, "world", world);
    json_object_set_new(doc, "run", run);
    json_t *events = json_object_get(doc, "events");
    if (events) {
        if (!json_is_array(events)) {
            snprintf(err, err_len, "$.events: expected an array (schema 0)");
            return -1;
        }
        for (size_t i = 0; i < json_array_size(events); i++)
            if (migrate_v0_event(json_array_get(events, i), i, err, err_len) != 0)
                return -1;
        json_object_set(doc, "script", events);
        json_object_del(doc, "events");
    }
    json_object_set_new(doc, "schema", json_integer(1));
    return 0;
}

int scenario_migrate(json_t *doc, char *err, size_t err_len)
{
    json_t *v = json_object_get(doc, "schema");
    if (v && !json_is_integer(v)) {
        snprintf(err, err_len, "$.schema: expected an integer in [0, %d]", PCS_SCENARIO_SCHEMA);
        return -1;
    }
    json_int_t schema = v ? json_integer_value(v) : 0;
    if (schema < 0 || schema > PCS_SCENARIO_SCHEMA) {
        snprintf(err, err_len, "$.schema: version %lld is not supported (this build reads 0..%d)",
                 (long long)schema, PCS_SCENARIO_SCHEMA);
        return -1;
    }
    if (schema == 0 && migrate_v0(doc, err, err_len) != 0)
        return -1;
    return 0;
}

static const char *const top_keys[] = {"schema",  "name",   "world", "run",
                                       "readers", "script", "units", "instrumentation",
                                       "plugins", "freeze", "sleep", NULL};

static const jr_field world_fields[] = {
    {"dt_s", JR_NUM, PCS_CLOCK_DT_MIN_S, PCS_CLOCK_DT_MAX_S, offsetof(pcs_world_def, dt_s)},
    {"seed", JR_U64, 0, 0, offsetof(pcs_world_def, seed)},
    {"k_slow", JR_NUM, 1e-9, 1e9, offsetof(pcs_world_def, k_slow)},
    {"k_storage", JR_NUM, 1e-9, 1e9, offsetof(pcs_world_def, k_storage)},
    {"workers", JR_U32, 0, 256, offsetof(pcs_world_def, workers)},
    {"snapshot_buffers", JR_U32, 3, 64, offsetof(pcs_world_def, snapshot_buffers)},
    {"commands_per_tick", JR_U32, 1, 65536, offsetof(pcs_world_def, commands_per_tick)},
    /* Structural changes a run may apply (pcsim/structure.h): past it stage 1
     * refuses them with PCS_E_OVERFLOW. 0 allows none; the top is world.c's. */
    {"structure_log_capacity", JR_U32, 0, 1u << 20,
     offsetof(pcs_world_def, structure_log_capacity)},
};

static int parse_world(jr_ctx *c, json_t *doc, scenario *s)
{
    return jr_table_section(c, doc, "world", world_fields,
                            sizeof world_fields / sizeof world_fields[0], &s->world);
}

static const jr_field run_fields[] = {
    {"seconds", JR_NUM, 0.0, 1e9, offsetof(scenario, run.run_seconds)},
    {"timeline_every_s", JR_NUM, 0.01, 1e9, offsetof(scenario, run.timeline_every_s)},
    /* The seed design's cc.token_rate / cc.token_burst maxima; 0: no limit. */
    {"command_rate_per_s", JR_NUM, 0.0, 100000.0, offsetof(scenario, run.command_rate_per_s)},
    {"command_burst", JR_U32, 1, 200000, offsetof(scenario, run.command_burst)},
};

static int parse_run(jr_ctx *c, json_t *doc, scenario *s)
{
    return jr_table_section(c, doc, "run", run_fields, sizeof run_fields / sizeof run_fields[0], s);
}

/* The "names" array of the readers section: channel names to read. */
static int reader_names(jr_ctx *c, json_t *r, scenario *s)
{
    int rc = 0;
    json_t *names = jr_arr(c, r, "names");
    size_t q = jr_push_key(c, "names");
    for (size_t i = 0; !c->failed && names && i < json_array_size(names); i++) {
        json_t *v = json_array_get(names, i);
        size_t k = jr_push_index(c, i);
        if (i >= SCN_MAX_READER_CHANNELS)
            rc = jr_fail(c, "at most %d channel names", SCN_MAX_READER_CHANNELS);
        else if (!json_is_string(v) || json_string_length(v) == 0 ||
                 json_string_length(v) >= sizeof s->reader_names[0])
            rc = jr_fail(c, "expected a channel name of 1..%zu characters",
                         sizeof s->reader_names[0] - 1);
        else
            snprintf(s->reader_names[s->run.n_reader_names++], sizeof s->reader_names[0], "%s",
                     json_string_value(v));
        jr_pop(c, k);
    }
    jr_pop(c, q);
    return rc;
}

static int readers_fields(jr_ctx *c, json_t *r, void *out)
{
    scenario *s = out;
    int rc = jr_u32(c, r, "count", 0, 256, &s->run.readers);
    rc |= jr_num(c, r, "rate_hz", 0.001, 1e6, &s->run.reader_rate_hz);
    rc |= jr_u32(c, r, "channels", 1, SCN_MAX_READER_CHANNELS, &s->run.reader_channels);
    return rc | reader_names(c, r, s);
}

static int parse_readers(jr_ctx *c, json_t *doc, scenario *s)
{
    static const char *const keys[] = {"count", "rate_hz", "channels", "names", NULL};
    return jr_section(c, doc, "readers", keys, readers_fields, s);
}

/* "freeze": {"hold": "as_frozen" | "shutdown", "decay_heat_clock":
 * "real_time" | "split", "split_mean_life_s": s}; present = units freezable
 * (pcsim/station_freeze.h), absent = not (the world is built as before). */
static int freeze_word(jr_ctx *c, json_t *f, const char *key, const char *a, const char *b,
                       int *out)
{
    const char *v = NULL;
    int rc = jr_str(c, f, key, &v);
    if (rc || !v)
        return rc;
    if (strcmp(v, a) == 0 || strcmp(v, b) == 0) {
        *out = strcmp(v, b) == 0;
        return 0;
    }
    size_t k = jr_push_key(c, key);
    rc = jr_fail(c, "'%s' is neither \"%s\" nor \"%s\"", v, a, b);
    jr_pop(c, k);
    return rc;
}

static int freeze_fields(jr_ctx *c, json_t *f, void *out)
{
    scenario *s = out;
    int hold = 0, split = 0;
    int rc = freeze_word(c, f, "hold", "as_frozen", "shutdown", &hold);
    rc |= freeze_word(c, f, "decay_heat_clock", "real_time", "split", &split);
    rc |= jr_num(c, f, "split_mean_life_s", 1e-3, 1e15, &s->freeze_def.split_mean_life_s);
    s->freeze_def.hold = hold ? PCS_FREEZE_HOLD_SHUTDOWN : PCS_FREEZE_HOLD_AS_FROZEN;
    s->freeze_def.decay_heat_clock =
        split ? PCS_DECAY_HEAT_CLOCK_SPLIT : PCS_DECAY_HEAT_CLOCK_REAL_TIME;
    return rc;
}

static int parse_freeze(jr_ctx *c, json_t *doc, scenario *s)
{
    static const char *const keys[] = {"hold", "decay_heat_clock", "split_mean_life_s", NULL};
    s->freeze_def = pcs_station_freeze_default();
    s->freeze = json_is_object(json_object_get(doc, "freeze"));
    return jr_section(c, doc, "freeze", keys, freeze_fields, s);
}

/* "sleep": {"tolerance_per_s": 1/s, "window_s": s, "wake_every_s": s};
 * present = units may sleep (pcsim/station_sleep.h), absent = not (the world
 * is built as before). The lower ends that depend on dt (one tick, one SLOW
 * period) are checked by pcs_station_sleep_add, which names them. */
static int sleep_fields(jr_ctx *c, json_t *f, void *out)
{
    scenario *s = out;
    int rc = jr_num(c, f, "tolerance_per_s", 1e-15, 1.0, &s->sleep_def.tolerance_per_s);
    rc |= jr_num(c, f, "window_s", 1e-6, 3600.0, &s->sleep_def.window_s);
    return rc | jr_num(c, f, "wake_every_s", 2e-5, 1e6, &s->sleep_def.wake_every_s);
}

static int parse_sleep(jr_ctx *c, json_t *doc, scenario *s)
{
    static const char *const keys[] = {"tolerance_per_s", "window_s", "wake_every_s", NULL};
    s->sleep_def = pcs_station_sleep_default();
    s->sleep = json_is_object(json_object_get(doc, "sleep"));
    int rc = jr_section(c, doc, "sleep", keys, sleep_fields, s);
    if (!rc && s->sleep && s->freeze) {
        size_t k = jr_push_key(c, "sleep");
        rc = jr_fail(c, "a scenario has \"sleep\" or \"freeze\", not both (both gate a "
                        "unit's systems)");
        jr_pop(c, k);
    }
    return rc;
}

static int parse_action(jr_ctx *c, json_t *a, scn_action *out)
{
    static const char *const keys[] = {"t_s", "command", "target", "value", NULL};
    if (!json_is_object(a))
        return jr_fail(c, "expected an object");
    const char *cmd = NULL, *target = "";
    int rc = jr_only_keys(c, a, keys);
    rc |= jr_num_req(c, a, "t_s", 0.0, 1e9, &out->t_s);
    rc |= jr_str_req(c, a, "command", &cmd);
    rc |= jr_str(c, a, "target", &target);
    rc |= jr_num(c, a, "value", -1e12, 1e12, &out->value);
    if (rc)
        return -1;
    out->has_value = json_object_get(a, "value") != NULL;
    if (strlen(cmd) >= sizeof out->command || strlen(target) >= sizeof out->target)
        return jr_fail(c, "command or target name longer than 31 characters");
    strcpy(out->command, cmd);
    strcpy(out->target, target);
    return 0;
}

/* Issue 15's migration of schema-1 scripts: sg_pressure moved a unit's SG
 * boundary pressure, and the old default scenario used it on u3 as a load
 * change. A steam-side unit's SG pressure is an outcome (its handler refuses
 * the command at run time): refuse it here, at load, naming the load
 * demand that replaces it. Units are parsed before the script; a target
 * that is not "uN" of a listed unit is left to the station's check. */
static int steam_side_sg_pressure(jr_ctx *c, const scenario *s, const scn_action *a)
{
    unsigned n = 0;
    int used = 0;
    if (strcmp(a->command, "sg_pressure") != 0 || sscanf(a->target, "u%u%n", &n, &used) != 1 ||
        a->target[used] != '\0' || n < 1 || n > s->n_units ||
        s->units[n - 1].sg_model != PCS_PLANT_SG_STEAM_SIDE)
        return 0;
    size_t p = jr_push_key(c, "command");
    jr_fail(c,
            "sg_pressure on '%s' (sg_model steam_side, $.units[%u]): the steam side's SG pressure "
            "is an outcome; use turbine_load (target '%s', value the load fraction [0, %g] of "
            "rated) for a load change",
            a->target, n - 1, a->target, PCS_TURBINE_LOAD_MAX);
    jr_pop(c, p);
    return -1;
}

static int script_item(jr_ctx *c, json_t *item, size_t i, void *out)
{
    (void)i;
    scenario *s = out;
    scn_action *a = &s->script[s->n_script];
    memset(a, 0, sizeof *a);
    if (parse_action(c, item, a) != 0)
        return -1;
    if (s->n_script && a->t_s < s->script[s->n_script - 1].t_s)
        return jr_fail(c,
                       "t_s %g is earlier than the previous action's %g (keep the "
                       "script in time order)",
                       a->t_s, s->script[s->n_script - 1].t_s);
    if (steam_side_sg_pressure(c, s, a) != 0)
        return -1;
    s->n_script++;
    return 0;
}

static int parse_script(jr_ctx *c, json_t *doc, scenario *s)
{
    return jr_array_section(c, doc, "script", SCN_MAX_SCRIPT, "actions", script_item, s);
}

int scenario_seconds_to_ticks(double dt_s, double seconds, uint64_t min_ticks, const char *where,
                              uint64_t *ticks, char *warn, size_t warn_len)
{
    pcs_clock clk;
    bool off = false;
    if (pcs_clock_init(&clk, dt_s, 1.0, 1.0) != PCS_OK ||
        pcs_clock_seconds_to_ticks(&clk, seconds, ticks, &off) != PCS_OK)
        return -1;
    if (*ticks < min_ticks) {
        *ticks = min_ticks;
        off = true;
    }
    size_t used = strlen(warn);
    if (off && used < warn_len) {
        double got = (double)*ticks * dt_s;
        double pct = seconds > 0.0
                         ? 100.0 * (got > seconds ? got - seconds : seconds - got) / seconds
                         : 100.0;
        snprintf(warn + used, warn_len - used,
                 "%s: %g s is %llu tick%s of %g s (%g s, %.3g %% off)\n", where, seconds,
                 (unsigned long long)*ticks, *ticks == 1 ? "" : "s", dt_s, got, pct);
    }
    return 0;
}

/* Whole-tick conversion after all times are known (docs/ARCHITECTURE.md section 3);
 * rounding by more than 1 % is reported as a warning, not hidden. */
static int to_ticks(jr_ctx *c, scenario *s)
{
    pcs_clock clk;
    if (pcs_clock_init(&clk, s->world.dt_s, s->world.k_slow, s->world.k_storage) != PCS_OK)
        return jr_fail(c, "%s", pcs_last_error());
    char where[320];
    double dt = s->world.dt_s;
    size_t wl = sizeof s->warnings;
    snprintf(where, sizeof where, "%s: $.run.seconds", s->source);
    if (scenario_seconds_to_ticks(dt, s->run.run_seconds, 0, where, &s->run.run_ticks, s->warnings,
                                  wl))
        return jr_fail(c, "run.seconds: %s", pcs_last_error());
    snprintf(where, sizeof where, "%s: $.run.timeline_every_s", s->source);
    if (scenario_seconds_to_ticks(dt, s->run.timeline_every_s, 1, where, &s->run.timeline_ticks,
                                  s->warnings, wl))
        return jr_fail(c, "run.timeline_every_s: %s", pcs_last_error());
    for (uint32_t i = 0; i < s->n_script; i++) {
        snprintf(where, sizeof where, "%s: $.script[%u].t_s", s->source, i);
        if (scenario_seconds_to_ticks(dt, s->script[i].t_s, 0, where, &s->script[i].tick,
                                      s->warnings, wl))
            return jr_fail(c, "script[%u].t_s: %s", i, pcs_last_error());
    }
    return 0;
}

static void defaults(scenario *s)
{
    memset(s, 0, sizeof *s);
    pcs_world_default(&s->world);
    s->run.run_seconds = 60.0;
    s->run.timeline_every_s = 10.0;
    s->run.reader_rate_hz = 10.0;
    s->run.reader_channels = 8;
    s->run.command_rate_per_s = 400.0; /* the seed design's defaults (scenarios/README.md) */
    s->run.command_burst = 800;
    snprintf(s->name, sizeof s->name, "unnamed");
}

/* "plugins": one object per host plugin, keyed by the section name the
 * plugin owns (pcs_scenario_section_json "plugins.NAME"). Their fields are
 * the plugin's to check at its initialize (pcsim/plugin.h); the loader only
 * requires objects, so a typo'd top level still fails here. */
static int parse_plugins(jr_ctx *c, json_t *doc)
{
    json_t *o = jr_obj(c, doc, "plugins");
    if (!o)
        return c->failed ? -1 : 0;
    size_t p = jr_push_key(c, "plugins");
    const char *key;
    json_t *v;
    int rc = 0;
    json_object_foreach(o, key, v)
    {
        if (!json_is_object(v)) {
            size_t q = jr_push_key(c, key);
            rc = jr_fail(c, "expected an object (the section of the plugin that owns '%s')", key);
            jr_pop(c, q);
            break;
        }
    }
    jr_pop(c, p);
    return rc;
}

/* Copy a name, cutting a long one before a whole UTF-8 character so the
 * summary (text or JSON) never holds half of one. */
static void copy_name(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len) {
        n = len - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
            n--; /* src[n] is a continuation byte: back up to its lead byte */
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The world's build hash (pcs_world_def.build_hash), which a save records
 * and a load compares: XXH3-64 of the migrated, validated scenario document
 * in canonical text (json_dumps with sorted keys, compact), less what does not
 * build the world: "name", "run", "readers", "script", "world.workers" (the
 * state does not depend on it) and "world.seed" (saved and compared on its
 * own, with its own message). So the built-in scenario and the same file hash
 * alike, a v0 file and its v1 spelling hash alike, and a save resumes under
 * another run length, script or reader load but not in a world built from
 * other parameters. A file that spells out a default differs from one that
 * leaves it out: such a save is refused, the safe side. */
static int scenario_build_hash(const json_t *doc, uint64_t *out)
{
    static const char *const not_built[] = {"name", "run", "readers", "script"};
    json_t *c = json_deep_copy(doc);
    if (!c)
        return -1;
    for (size_t i = 0; i < sizeof not_built / sizeof not_built[0]; i++)
        json_object_del(c, not_built[i]);
    json_t *w = json_object_get(c, "world");
    if (json_is_object(w)) {
        json_object_del(w, "seed");
        json_object_del(w, "workers");
    }
    char *text = json_dumps(c, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(c);
    if (!text)
        return -1;
    *out = XXH3_64bits(text, strlen(text));
    free(text);
    return 0;
}

/* Migrate and validate a parsed document; takes @p doc (kept in out->doc on
 * success, released on failure). */
static int scenario_from_doc(jr_ctx *c, json_t *doc, const char *shown, scenario *out, char *err,
                             size_t err_len)
{
    char why[512];
    if (scenario_migrate(doc, why, sizeof why) != 0) {
        snprintf(err, err_len, "%s: %s", shown, why);
        json_decref(doc);
        return -1;
    }
    snprintf(out->source, sizeof out->source, "%s", shown);
    const char *name = NULL;
    int rc = jr_only_keys(c, doc, top_keys);
    rc |= jr_str(c, doc, "name", &name);
    if (!rc && name)
        copy_name(out->name, sizeof out->name, name);
    if (!rc)
        rc = parse_world(c, doc, out) | parse_run(c, doc, out) | parse_readers(c, doc, out) |
             parse_freeze(c, doc, out) | parse_sleep(c, doc, out);
    if (!rc)
        rc = scenario_units_parse(c, doc, out);
    if (!rc)
        rc = parse_plugins(c, doc);
    if (!rc)
        rc = parse_script(c, doc, out);
    if (!rc)
        rc = to_ticks(c, out);
    if (rc || c->failed) {
        snprintf(err, err_len, "%s", c->msg);
        json_decref(doc);
        return -1;
    }
    if (scenario_build_hash(doc, &out->world.build_hash) != 0) {
        snprintf(err, err_len, "%s: out of memory while hashing the scenario", shown);
        json_decref(doc);
        return -1;
    }
    out->doc = doc;
    return 0;
}

_Static_assert(SCN_DEFAULT_MAX_BYTES == JR_DEFAULT_MAX_BYTES, "one default scenario size limit");

static size_t max_bytes_of(const scenario_load_opts *opts)
{
    return opts && opts->max_bytes ? opts->max_bytes : SCN_DEFAULT_MAX_BYTES;
}

int scenario_load_ex(const char *file, const scenario_load_opts *opts, scenario *out, char *err,
                     size_t err_len)
{
    if (!file)
        return scenario_load_buffer("<built-in pwr-station.json>", pcs_default_scenario,
                                    strlen(pcs_default_scenario), opts, out, err, err_len);
    defaults(out);
    jr_ctx c;
    json_t *doc = jr_load_file(&c, file, max_bytes_of(opts));
    if (!doc) {
        snprintf(err, err_len, "%s", c.msg);
        return -1;
    }
    return scenario_from_doc(&c, doc, file, out, err, err_len);
}

int scenario_load_buffer(const char *name, const char *data, size_t len,
                         const scenario_load_opts *opts, scenario *out, char *err, size_t err_len)
{
    defaults(out);
    size_t max = max_bytes_of(opts);
    if (len > max) {
        snprintf(err, err_len,
                 "%s: %zu bytes is more than the scenario size limit of %zu bytes (set with "
                 "--max-scenario-bytes)",
                 name, len, max);
        return -1;
    }
    jr_ctx c;
    json_t *doc = jr_load_buffer(&c, name, data, len);
    if (!doc) {
        snprintf(err, err_len, "%s", c.msg);
        return -1;
    }
    return scenario_from_doc(&c, doc, name, out, err, err_len);
}

int scenario_load(const char *file, scenario *out, char *err, size_t err_len)
{
    return scenario_load_ex(file, NULL, out, err, err_len);
}

void scenario_free(scenario *s)
{
    if (s->doc)
        json_decref(s->doc);
    s->doc = NULL;
}
