/**
 * @file journal_file.c
 * @brief pcsim/station.h's journal-file calls over the reader (journal.c),
 *        which reports into a caller's buffer; here the message goes to
 *        pcs_last_error(). And the recorded scenario: loaded from the
 *        journal's text, or checked against one the host chose.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "station/journal.h"

typedef int (*journal_fn)(const char *name, const void *arg, journal *j, char *err, size_t err_len);

typedef struct buf_arg {
    const char *buf;
    size_t len;
} buf_arg;

static int journal_from_file(const char *name, const void *arg, journal *j, char *err,
                             size_t err_len)
{
    (void)arg;
    return journal_load(name, j, err, err_len);
}

static int journal_from_buf(const char *name, const void *arg, journal *j, char *err,
                            size_t err_len)
{
    const buf_arg *b = arg;
    return journal_parse(name, b->buf, b->len, j, err, err_len);
}

/* The reader's exit statuses: 1 out of memory, 2 bad input. */
static pcs_status journal_with(journal_fn fn, const char *name, const void *arg,
                               pcs_journal_file **out)
{
    if (!name || !out)
        return pcs_error_set(PCS_E_INVAL, "journal: NULL argument");
    *out = NULL;
    pcs_journal_file *f = calloc(1, sizeof *f);
    char *err = malloc(JOURNAL_MSG_MAX);
    char *copy = strdup(name);
    if (!f || !err || !copy) {
        free(f);
        free(err);
        free(copy);
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory", name);
    }
    f->name = copy;
    err[0] = '\0';
    int rc = fn(name, arg, &f->j, err, JOURNAL_MSG_MAX);
    pcs_status st = PCS_OK;
    if (rc)
        st = pcs_error_set(rc == 1 ? PCS_E_NOMEM : PCS_E_INVAL, "%s", err);
    free(err);
    *out = f;
    return st;
}

pcs_status pcs_journal_file_load(const char *path, pcs_journal_file **out)
{
    return journal_with(journal_from_file, path, NULL, out);
}

pcs_status pcs_journal_file_parse(const char *name, const char *buf, size_t len,
                                  pcs_journal_file **out)
{
    if (!buf && len)
        return pcs_error_set(PCS_E_INVAL, "journal: NULL buffer");
    buf_arg b = {buf ? buf : "", len};
    return journal_with(journal_from_buf, name, &b, out);
}

uint32_t pcs_journal_file_count(const pcs_journal_file *j)
{
    return j ? j->j.n_actions : 0;
}

const pcs_timed_command *pcs_journal_file_commands(const pcs_journal_file *j)
{
    return j ? j->j.actions : NULL;
}

uint64_t pcs_journal_file_start_tick(const pcs_journal_file *j)
{
    return j ? j->j.start_tick : 0;
}

uint64_t pcs_journal_file_end_tick(const pcs_journal_file *j)
{
    return j ? j->j.end_tick : 0;
}

uint64_t pcs_journal_file_hash(const pcs_journal_file *j)
{
    return j ? j->j.want_hash : 0;
}

const char *pcs_journal_file_scenario_source(const pcs_journal_file *j)
{
    return j ? j->j.scenario : "";
}

uint64_t pcs_journal_file_scenario_hash(const pcs_journal_file *j)
{
    return j ? j->j.scenario_hash : 0;
}

uint64_t pcs_journal_file_seed(const pcs_journal_file *j)
{
    return j ? j->j.seed : 0;
}

int pcs_journal_file_has_scenario(const pcs_journal_file *j)
{
    return j && j->j.text != NULL;
}

void pcs_journal_file_destroy(pcs_journal_file *j)
{
    if (!j)
        return;
    journal_free(&j->j);
    free(j->name);
    free(j);
}

/* The header's hash and seed against a scenario's (or a world's): another
 * scenario builds another world, and the final hash would only say that
 * something differs. @p what names the other side. */
pcs_status journal_check_build(const pcs_journal_file *j, uint64_t hash, uint64_t seed,
                               const char *what)
{
    const journal *p = &j->j;
    if (p->scenario_hash != hash)
        return pcs_error_set(PCS_E_INVAL,
                             "%s:%u: scenario hash %016" PRIx64 " differs from the scenario's "
                             "%016" PRIx64 " (%s)",
                             j->name, p->item_line[1], p->scenario_hash, hash, what);
    if (p->seed != seed)
        return pcs_error_set(PCS_E_INVAL,
                             "%s:%u: world seed %" PRIu64 " differs from the scenario's %" PRIu64
                             " (%s)",
                             j->name, p->item_line[2], p->seed, seed, what);
    return PCS_OK;
}

pcs_status pcs_journal_file_check_scenario(const pcs_journal_file *j, const pcs_scenario *s)
{
    if (!j || !s)
        return pcs_error_set(PCS_E_INVAL, "pcs_journal_file_check_scenario: NULL argument");
    return journal_check_build(j, pcs_scenario_build_hash(s), pcs_scenario_world_def(s).seed,
                               pcs_scenario_source(s));
}

/* The built-in scenario, when the journal names it and carries no text. */
static pcs_status builtin_scenario(const pcs_journal_file *j, pcs_scenario **out)
{
    pcs_scenario *s = NULL;
    pcs_status rc = pcs_scenario_default(&s);
    if (rc != PCS_OK)
        return rc;
    if (strcmp(pcs_scenario_source(s), j->j.scenario) != 0) {
        pcs_scenario_destroy(s);
        return pcs_error_set(PCS_E_NOTFOUND,
                             "%s: the journal does not carry its scenario (recorded with '%s')",
                             j->name, j->j.scenario);
    }
    *out = s;
    return PCS_OK;
}

pcs_status pcs_journal_file_scenario(const pcs_journal_file *j, const pcs_scenario_load_opts *opts,
                                     pcs_scenario **out)
{
    if (!j || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_journal_file_scenario: NULL argument");
    *out = NULL;
    pcs_scenario *s = NULL;
    pcs_status rc;
    if (!j->j.text) {
        rc = builtin_scenario(j, &s);
    } else {
        char name[1024]; /* the loader keeps 255 bytes of it, cut on a character */
        snprintf(name, sizeof name, "%s (scenario %s)", j->name, j->j.scenario);
        rc = pcs_scenario_load_string(name, j->j.text, j->j.text_len, opts, &s);
    }
    /* A damaged text may still load: the header's hash says it is the one. */
    if (rc == PCS_OK)
        rc = pcs_journal_file_check_scenario(j, s);
    if (rc != PCS_OK) {
        pcs_scenario_destroy(s);
        return rc;
    }
    *out = s;
    return PCS_OK;
}
