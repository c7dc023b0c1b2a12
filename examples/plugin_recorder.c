/*
 * A host plugin beside the station's own (pcsim/plugin.h): build the
 * built-in station through the public API, add a recorder plugin that owns
 * the scenario section "plugins.recorder" and, in its after_step, appends
 * one channel's value to a CSV file every N ticks; run 30 simulated seconds,
 * destroy the world (the recorder's shutdown closes the file) and check what
 * the file holds. The exit code says whether it did. `make test` compiles and
 * runs this file against libpcsim.so.
 *
 * Usage: plugin_recorder [FILE.csv]   (default: this program's path + ".csv")
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcsim/pcsim.h>

#define TICKS 600 /* 30 s at the scenario's dt of 0.05 s */

/* The scenario's "plugins" object carries the recorder's section; the loader
 * keeps it for the plugin that owns it and checks only that it is an object. */
static const char recorder_section[] =
    "\"plugins\": {\"recorder\": {\"channel\": \"u2.core.power\", \"every\": 20}}";

typedef struct recorder {
    const char *path;
    FILE *f;
    char buf[4096]; /* the file's stdio buffer: no allocation in after_step */
    uint32_t channel;
    uint32_t every;
    uint64_t rows;
} recorder;

/* The section arrives as compact JSON with sorted keys
 * ({"channel":"u2.core.power","every":20}). A real host reads it with its own
 * JSON library; two fields do not need one. */
static pcs_status recorder_init(pcs_world *w, void *ctx, const char *section_json)
{
    recorder *r = ctx;
    char name[128];
    long every = 0;
    if (!section_json)
        return pcs_error_set(PCS_E_INVAL, "$.plugins.recorder: missing (the recorder needs it)");
    const char *c = strstr(section_json, "\"channel\":\"");
    const char *e = strstr(section_json, "\"every\":");
    if (!c || sscanf(c + 11, "%127[^\"]", name) != 1)
        return pcs_error_set(PCS_E_INVAL, "$.plugins.recorder.channel: missing or not a string");
    if (!e || sscanf(e + 8, "%ld", &every) != 1 || every < 1 || every > 100000)
        return pcs_error_set(PCS_E_INVAL,
                             "$.plugins.recorder.every: %ld is outside [1, 100000] ticks", every);
    r->every = (uint32_t)every;
    pcs_status st = pcs_channel_find(w, name, &r->channel);
    if (st != PCS_OK)
        return pcs_error_set(st, "$.plugins.recorder.channel: %s", pcs_last_error());
    r->f = fopen(r->path, "w");
    if (!r->f)
        return pcs_error_set(PCS_E_IO, "cannot open '%s' for writing", r->path);
    setvbuf(r->f, r->buf, _IOFBF, sizeof r->buf);
    fprintf(r->f, "tick,%s\n", name);
    return PCS_OK;
}

/* After stage 13: the tick is complete, the clock still reads its number. */
static pcs_status recorder_after_step(pcs_world *w, void *ctx)
{
    recorder *r = ctx;
    uint64_t tick = pcs_world_clock(w)->tick;
    if (tick % r->every != 0)
        return PCS_OK;
    if (fprintf(r->f, "%llu,%.17g\n", (unsigned long long)tick, pcs_channel_value(w, r->channel)) <
        0)
        return pcs_error_set(PCS_E_IO, "cannot write to '%s'", r->path);
    r->rows++;
    return PCS_OK;
}

static void recorder_shutdown(pcs_world *w, void *ctx)
{
    (void)w;
    recorder *r = ctx;
    fclose(r->f);
    r->f = NULL;
}

static int fail(const char *what)
{
    fprintf(stderr, "plugin_recorder: %s: %s\n", what, pcs_last_error());
    return 1;
}

/* Read the file back: a header, then one row per `every` ticks, in order,
 * each a power near the unit's 3411 MW. */
static int check_file(const recorder *r)
{
    FILE *f = fopen(r->path, "r");
    if (!f) {
        fprintf(stderr, "plugin_recorder: cannot read back '%s'\n", r->path);
        return 1;
    }
    char line[256];
    int ok = fgets(line, sizeof line, f) && strcmp(line, "tick,u2.core.power\n") == 0;
    unsigned long long tick, rows = 0;
    double v;
    while (ok && fscanf(f, "%llu,%lf\n", &tick, &v) == 2) {
        ok = tick == rows * r->every && isfinite(v) && v > 3.0e9 && v < 3.8e9;
        if (!ok)
            fprintf(stderr, "plugin_recorder: row %llu: tick %llu, value %g\n", rows, tick, v);
        rows++;
    }
    fclose(f);
    unsigned long long want = (TICKS + r->every - 1) / r->every;
    if (!ok || rows != want) {
        fprintf(stderr, "plugin_recorder: '%s' holds %llu rows, expected %llu\n", r->path, rows,
                want);
        return 1;
    }
    printf("recorded %llu rows of u2.core.power to %s\n", rows, r->path);
    return 0;
}

int main(int argc, char **argv)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s", argc > 1 ? argv[1] : argv[0], argc > 1 ? "" : ".csv");
    static recorder rec;
    rec.path = path;

    /* The built-in scenario with the recorder's section added. */
    const char *def = pcs_scenario_default_text();
    size_t len = strlen(def) + sizeof recorder_section + 4;
    char *text = malloc(len);
    if (!text)
        return 1;
    snprintf(text, len, "{%s, %s", recorder_section, strchr(def, '{') + 1);
    pcs_scenario *scn = NULL;
    pcs_status s = pcs_scenario_load_string("pwr-station+recorder", text, strlen(text), NULL, &scn);
    free(text);
    if (s != PCS_OK)
        return fail("scenario");

    pcs_world_def cfg = pcs_scenario_world_def(scn);
    pcs_world *w = NULL;
    pcs_station *st = NULL;
    if (pcs_world_create(&cfg, &w) != PCS_OK)
        return fail("world");
    if (pcs_station_add(w, scn, &st) != PCS_OK) /* adds pcsim.plant, pcsim.instrumentation */
        return fail("station");

    char section[256];
    size_t n = pcs_scenario_section_json(scn, "plugins.recorder", section, sizeof section);
    pcs_plugin_def p;
    pcs_plugin_default(&p);
    p.id = "host.recorder";
    p.priority = 1000; /* after the station's plugins */
    p.section = "plugins.recorder";
    p.section_json = n && n < sizeof section ? section : NULL;
    p.initialize = recorder_init;
    p.after_step = recorder_after_step;
    p.shutdown = recorder_shutdown;
    if (pcs_plugin_add(w, &p, &rec) != PCS_OK)
        return fail("plugin");

    for (uint32_t i = 0; i < TICKS; i++)
        if (pcs_world_tick(w) != PCS_OK)
            return fail("tick");
    printf("state hash %016llx after %d ticks, %llu rows written\n",
           (unsigned long long)pcs_world_state_hash(w), TICKS, (unsigned long long)rec.rows);
    pcs_station_destroy(st);
    pcs_world_destroy(w); /* runs the recorder's shutdown: the file is closed */
    pcs_scenario_destroy(scn);
    return rec.f == NULL ? check_file(&rec) : 1;
}
