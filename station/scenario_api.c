/**
 * @file scenario_api.c
 * @brief pcsim/station.h's scenario and journal-file calls over the loader
 *        (scenario.c) and the journal reader (journal.c), which report into a
 *        caller's buffer; here the message goes to pcs_last_error().
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
    return s->s.name;
}

const char *pcs_scenario_source(const pcs_scenario *s)
{
    return s->s.source;
}

pcs_world_def pcs_scenario_world_def(const pcs_scenario *s)
{
    return s->s.world;
}

uint64_t pcs_scenario_build_hash(const pcs_scenario *s)
{
    return s->s.world.build_hash;
}

pcs_scenario_run pcs_scenario_run_params(const pcs_scenario *s)
{
    return s->s.run;
}

const char *pcs_scenario_reader_name(const pcs_scenario *s, uint32_t i)
{
    return i < s->s.run.n_reader_names ? s->s.reader_names[i] : NULL;
}

uint32_t pcs_scenario_unit_count(const pcs_scenario *s)
{
    return s->s.n_units;
}

uint32_t pcs_scenario_action_count(const pcs_scenario *s)
{
    return s->s.n_script;
}

const pcs_scenario_action *pcs_scenario_action_get(const pcs_scenario *s, uint32_t i)
{
    return i < s->s.n_script ? &s->s.script[i] : NULL;
}

const char *pcs_scenario_warnings(const pcs_scenario *s)
{
    return s->s.warnings;
}

pcs_status pcs_scenario_seconds_to_ticks(double dt_s, double seconds, uint64_t min_ticks,
                                         const char *where, uint64_t *ticks, char *warn,
                                         size_t warn_len)
{
    return scenario_seconds_to_ticks(dt_s, seconds, min_ticks, where, ticks, warn, warn_len)
               ? PCS_E_INVAL
               : PCS_OK;
}

/* ---- journal files ---- */

struct pcs_journal_file {
    journal j;
};

typedef int (*journal_fn)(const journal_expect *x, const void *arg, journal *j, char *err,
                          size_t err_len);

typedef struct buf_arg {
    const char *buf;
    size_t len;
} buf_arg;

static int journal_from_file(const journal_expect *x, const void *arg, journal *j, char *err,
                             size_t err_len)
{
    (void)arg;
    return journal_load(x, j, err, err_len);
}

static int journal_from_buf(const journal_expect *x, const void *arg, journal *j, char *err,
                            size_t err_len)
{
    const buf_arg *b = arg;
    return journal_parse(x, b->buf, b->len, j, err, err_len);
}

/* The reader's exit statuses: 1 out of memory, 2 bad input. */
static pcs_status journal_with(journal_fn fn, const journal_expect *x, const void *arg,
                               pcs_journal_file **out)
{
    if (!x || !x->file || !out)
        return pcs_error_set(PCS_E_INVAL, "journal: NULL argument");
    *out = NULL;
    pcs_journal_file *f = calloc(1, sizeof *f);
    char *err = malloc(MSG_MAX);
    if (!f || !err) {
        free(f);
        free(err);
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory", x->file);
    }
    err[0] = '\0';
    int rc = fn(x, arg, &f->j, err, MSG_MAX);
    pcs_status st = PCS_OK;
    if (rc)
        st = pcs_error_set(rc == 1 ? PCS_E_NOMEM : PCS_E_INVAL, "%s", err);
    free(err);
    *out = f;
    return st;
}

pcs_status pcs_journal_file_load(const pcs_journal_expect *x, pcs_journal_file **out)
{
    return journal_with(journal_from_file, x, NULL, out);
}

pcs_status pcs_journal_file_parse(const pcs_journal_expect *x, const char *buf, size_t len,
                                  pcs_journal_file **out)
{
    buf_arg b = {buf, len};
    return journal_with(journal_from_buf, x, &b, out);
}

uint32_t pcs_journal_file_count(const pcs_journal_file *j)
{
    return j ? j->j.n_actions : 0;
}

const pcs_timed_command *pcs_journal_file_commands(const pcs_journal_file *j)
{
    return j ? j->j.actions : NULL;
}

uint64_t pcs_journal_file_end_tick(const pcs_journal_file *j)
{
    return j ? j->j.end_tick : 0;
}

uint64_t pcs_journal_file_hash(const pcs_journal_file *j)
{
    return j ? j->j.want_hash : 0;
}

void pcs_journal_file_destroy(pcs_journal_file *j)
{
    if (!j)
        return;
    journal_free(&j->j);
    free(j);
}
