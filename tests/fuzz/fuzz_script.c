/**
 * @file fuzz_script.c
 * @brief libFuzzer target: the scenario `script` (timed commands) from
 *        validation to the commands the world applies.
 *
 * The input is the value of "script": it is put into the built-in station
 * scenario in place of its own script, and the whole file goes through
 * pcs_scenario_load_file (parse_script validates each {t_s, command, target, value}
 * and converts times to ticks). Each accepted action is then resolved
 * against the station built once per process (pcs_station_script_command: command
 * names, unit/bank/pump/sensor/alarm/trip targets, units of value), and the
 * resolved commands are submitted and applied in one tick, as the run's
 * producer thread would submit them, without running the whole run. The
 * station is then restored from its kept save image, or, when the tick
 * applied a structural change (pump_remove, unit_add, ...), built again: a
 * world refuses a save whose structure log it extends (pcsim/persist.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_common.h"

static fuzz_station station;
static char *prefix; /* the station scenario up to ,"script": */
static size_t prefix_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_build_station(&station);
    fuzz_keep_pristine(&station);
    json_error_t e;
    json_t *doc = json_loads(pcs_scenario_default_text(), 0, &e);
    if (!doc)
        fuzz_fail("built-in scenario: %s", e.text);
    json_object_del(doc, "script");
    char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(doc);
    size_t n = text ? strlen(text) : 0;
    if (n < 2 || text[n - 1] != '}')
        fuzz_fail("cannot print the built-in scenario");
    const char *key = ",\"script\":";
    prefix = malloc(n + strlen(key));
    if (!prefix)
        fuzz_fail("out of memory");
    memcpy(prefix, text, n - 1);
    memcpy(prefix + n - 1, key, strlen(key));
    prefix_len = n - 1 + strlen(key);
    free(text);
    return 0;
}

static void check_message(const char *who, const char *err)
{
    size_t n = strlen(who);
    if (strncmp(err, who, n) != 0 || strlen(err) <= n + 2)
        fuzz_fail("refusal does not name the file: '%s'", err);
}

/* Resolve every action; submit the resolved ones. Returns how many were. */
static uint32_t resolve_and_submit(const pcs_scenario *scn)
{
    const scenario *s = &scn->s;
    uint32_t submitted = 0;
    for (uint32_t i = 0; i < s->n_script; i++) {
        const scn_action *a = &s->script[i];
        if (i && a->tick < s->script[i - 1].tick)
            fuzz_fail("script[%u] at tick %llu is before the previous action", i,
                      (unsigned long long)a->tick);
        pcs_command cmd;
        if (pcs_station_script_command(station.st, scn, i, &cmd) != PCS_OK) {
            check_message(s->source, pcs_last_error());
            continue;
        }
        if (cmd.kind == 0 || cmd.kind >= PCS_COMMAND_KINDS_MAX)
            fuzz_fail("script[%u] '%s' resolved to kind %u", i, a->command, cmd.kind);
        if (pcs_command_submit(station.world, &cmd) == PCS_OK)
            submitted++;
    }
    return submitted;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char doc[1 << 20];
    if (size > sizeof doc - prefix_len - 2)
        return 0;
    memcpy(doc, prefix, prefix_len);
    memcpy(doc + prefix_len, data, size);
    doc[prefix_len + size] = '}';
    char path[FUZZ_PATH_LEN];
    fuzz_file(0, doc, prefix_len + size + 1, path);
    pcs_scenario *s = NULL;
    if (pcs_scenario_load_file(path, NULL, &s) != PCS_OK) {
        check_message(path, pcs_last_error());
        return 0;
    }
    if (pcs_scenario_action_count(s) > SCN_MAX_SCRIPT)
        fuzz_fail("%u script actions accepted", pcs_scenario_action_count(s));
    if (resolve_and_submit(s) > 0) {
        pcs_world_tick(station.world); /* applies them; a refusal is an event */
        if (pcs_structure_log_count(station.world) != 0)
            fuzz_rebuild(&station, NULL);
        else
            fuzz_restore(&station);
    }
    pcs_scenario_destroy(s);
    return 0;
}
