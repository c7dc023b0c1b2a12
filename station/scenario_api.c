/**
 * @file scenario_api.c
 * @brief pcsim/station.h's scenario calls over the loader (scenario.c),
 *        which reports into a caller's buffer; here the message goes to
 *        pcs_last_error().
 */
#include <stdlib.h>
#include <string.h>

#include "station/journal.h"
#include "station/station_internal.h"

/* Room for the longest message a loader writes (a journal line quoted whole
 * plus its file name). pcs_error_set keeps what its buffer holds. */
#define MSG_MAX (2 * JOURNAL_LINE_MAX + 4096)

typedef int (*load_fn)(const void *arg, scenario *out, char *err, size_t err_len);

static pcs_status load_with(load_fn fn, const void *arg, pcs_scenario **out)
{
    if (!out)
        return pcs_error_set(PCS_E_INVAL, "scenario load: NULL out");
    *out = NULL;
    pcs_scenario *s = calloc(1, sizeof *s);
    if (!s)
        return pcs_error_set(PCS_E_NOMEM, "out of memory for a scenario");
    char *err = malloc(MSG_MAX);
    if (!err) {
        free(s);
        return pcs_error_set(PCS_E_NOMEM, "out of memory for a scenario");
    }
    err[0] = '\0';
    if (fn(arg, &s->s, err, MSG_MAX) != 0) {
        pcs_error_set(PCS_E_INVAL, "%s", err);
        free(err);
        scenario_free(&s->s);
        free(s);
        return PCS_E_INVAL;
    }
    free(err);
    *out = s;
    return PCS_OK;
}

typedef struct file_arg {
    const char *path;
    const pcs_scenario_load_opts *opts;
} file_arg;

typedef struct text_arg {
    const char *name, *text;
    size_t len;
    const pcs_scenario_load_opts *opts;
} text_arg;

static int load_file(const void *arg, scenario *out, char *err, size_t err_len)
{
    const file_arg *a = arg;
    scenario_load_opts o = {.max_bytes = a->opts ? a->opts->max_bytes : 0};
    return scenario_load_ex(a->path, &o, out, err, err_len);
}

static int load_text(const void *arg, scenario *out, char *err, size_t err_len)
{
    const text_arg *a = arg;
    scenario_load_opts o = {.max_bytes = a->opts ? a->opts->max_bytes : 0};
    return scenario_load_buffer(a->name, a->text, a->len, &o, out, err, err_len);
}

pcs_status pcs_scenario_load_file(const char *path, const pcs_scenario_load_opts *opts,
                                  pcs_scenario **out)
{
    if (!path)
        return pcs_error_set(PCS_E_INVAL, "pcs_scenario_load_file: NULL path");
    file_arg a = {path, opts};
    return load_with(load_file, &a, out);
}

pcs_status pcs_scenario_load_string(const char *name, const char *text, size_t len,
                                    const pcs_scenario_load_opts *opts, pcs_scenario **out)
{
    if (!name || (!text && len))
        return pcs_error_set(PCS_E_INVAL, "pcs_scenario_load_string: NULL name or text");
    text_arg a = {name, text ? text : "", len, opts};
    return load_with(load_text, &a, out);
}

pcs_status pcs_scenario_default(pcs_scenario **out)
{
    file_arg a = {NULL, NULL}; /* scenario_load_ex(NULL): the built-in text */
    return load_with(load_file, &a, out);
}

const char *pcs_scenario_default_text(void)
{
    return pcs_default_scenario;
}

void pcs_scenario_destroy(pcs_scenario *s)
{
    if (!s)
        return;
    scenario_free(&s->s);
    free(s);
}

const char *pcs_scenario_name(const pcs_scenario *s)
{
    return s ? s->s.name : "";
}

const char *pcs_scenario_source(const pcs_scenario *s)
{
    return s ? s->s.source : "";
}

pcs_world_def pcs_scenario_world_def(const pcs_scenario *s)
{
    return s ? s->s.world : (pcs_world_def){0};
}

uint64_t pcs_scenario_build_hash(const pcs_scenario *s)
{
    return s ? s->s.world.build_hash : 0;
}

pcs_scenario_run pcs_scenario_run_params(const pcs_scenario *s)
{
    return s ? s->s.run : (pcs_scenario_run){0};
}

const char *pcs_scenario_reader_name(const pcs_scenario *s, uint32_t i)
{
    return s && i < s->s.run.n_reader_names ? s->s.reader_names[i] : NULL;
}

uint32_t pcs_scenario_unit_count(const pcs_scenario *s)
{
    return s ? s->s.n_units : 0;
}

/* "units" or "plugins.NAME" in the migrated document, or NULL. */
static const json_t *section_of(const pcs_scenario *s, const char *section)
{
    static const char prefix[] = "plugins.";
    if (strncmp(section, prefix, sizeof prefix - 1) != 0)
        return json_object_get(s->s.doc, section);
    return json_object_get(json_object_get(s->s.doc, "plugins"), section + sizeof prefix - 1);
}

size_t pcs_scenario_section_json(const pcs_scenario *s, const char *section, char *buf, size_t len)
{
    if (!s || !section || !s->s.doc)
        return 0;
    const json_t *v = section_of(s, section);
    char *text = v ? json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    if (!text)
        return 0;
    size_t n = strlen(text);
    if (buf && len > 0) {
        size_t k = n < len ? n : len - 1;
        memcpy(buf, text, k);
        buf[k] = '\0';
    }
    free(text);
    return n;
}

uint32_t pcs_scenario_action_count(const pcs_scenario *s)
{
    return s ? s->s.n_script : 0;
}

const pcs_scenario_action *pcs_scenario_action_get(const pcs_scenario *s, uint32_t i)
{
    return s && i < s->s.n_script ? &s->s.script[i] : NULL;
}

const char *pcs_scenario_warnings(const pcs_scenario *s)
{
    return s ? s->s.warnings : "";
}

pcs_status pcs_scenario_seconds_to_ticks(double dt_s, double seconds, uint64_t min_ticks,
                                         const char *where, uint64_t *ticks, char *warn,
                                         size_t warn_len)
{
    if (!ticks)
        return pcs_error_set(PCS_E_INVAL, "pcs_scenario_seconds_to_ticks: NULL ticks");
    char none[1] = ""; /* no warning buffer: the warning is dropped */
    if (!warn || warn_len == 0)
        warn = none, warn_len = 0;
    return scenario_seconds_to_ticks(dt_s, seconds, min_ticks, where ? where : "", ticks, warn,
                                     warn_len)
               ? PCS_E_INVAL
               : PCS_OK;
}
