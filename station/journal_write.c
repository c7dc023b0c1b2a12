/**
 * @file journal_write.c
 * @brief The journal writer: the header a replay checks and loads its
 *        scenario from, then the world's applied commands tick by tick
 *        (format: journal.h; API: pcsim/station.h).
 *
 * The file is a pcs_atomic_file, like a save: the path keeps what it had
 * until the host closes the writer, which commits also a journal cut short
 * by a failed tick (it shows how far the run got) and discards one of a run
 * that never started.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/clock.h"
#include "pcsim/persist.h"
#include "station/journal.h"
#include "station/station_internal.h"

struct pcs_journal_writer {
    pcs_atomic_file *file;
    FILE *out;
    const pcs_world *world;
    uint64_t cursor; /**< next entry of the world's command journal */
    uint8_t *named;  /**< bit per target slot: its "# target" line is written */
    char path[];     /**< for messages */
};

/* The source as one line: a control byte in a file name would end the line
 * (or hide the rest of it), so it is written as '?'; the source only names. */
static void put_source(FILE *f, const char *source)
{
    fputs("# scenario ", f);
    for (const char *p = *source ? source : "?"; *p; p++)
        fputc((unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p, f);
    fputc('\n', f);
}

/* The station's command names and their kinds, as this build assigned them;
 * a name whose model the scenario does not build has no kind and no line. */
static void put_kinds(FILE *f, const pcs_station *st)
{
    uint32_t n = 0, kind;
    for (uint32_t i = 0; i < pcs_station_command_name_count(); i++)
        n += pcs_station_command_kind(st, pcs_station_command_name(i), &kind) == PCS_OK;
    fprintf(f, "# kinds %u\n", n);
    for (uint32_t i = 0; i < pcs_station_command_name_count(); i++)
        if (pcs_station_command_kind(st, pcs_station_command_name(i), &kind) == PCS_OK)
            fprintf(f, "# kind %s %u\n", pcs_station_command_name(i), kind);
}

/* The migrated document in the build hash's canonical text (sorted keys,
 * compact: one line, no raw newline or NUL), so a replay that loads it
 * builds the same world. Larger than a scenario may be, it is left out and
 * the replay needs the scenario file. */
static pcs_status put_text(FILE *f, const pcs_scenario *s)
{
    char *text = json_dumps(s->s.doc, JSON_SORT_KEYS | JSON_COMPACT);
    if (!text)
        return pcs_error_set(PCS_E_NOMEM, "journal: out of memory for the scenario text");
    size_t n = strlen(text);
    if (n > PCS_SCENARIO_DEFAULT_MAX_BYTES) {
        fprintf(f, "# scenario text left out: %zu bytes, more than %zu\n", n,
                PCS_SCENARIO_DEFAULT_MAX_BYTES);
    } else if (n > 0) {
        fprintf(f, "# scenario_text %zu\n", n);
        for (size_t at = 0; at < n; at += JOURNAL_TEXT_CHUNK) {
            size_t k = n - at < JOURNAL_TEXT_CHUNK ? n - at : JOURNAL_TEXT_CHUNK;
            fprintf(f, "# text %.*s\n", (int)k, text + at);
        }
    }
    free(text);
    return PCS_OK;
}

static pcs_status io_check(const pcs_journal_writer *jw)
{
    if (ferror(jw->out))
        return pcs_error_set(PCS_E_IO, "journal '%s': a write failed", jw->path);
    return PCS_OK;
}

pcs_status pcs_journal_writer_open(const char *path, const pcs_station *st, const pcs_scenario *s,
                                   pcs_journal_writer **out)
{
    if (!path || !st || !s || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_journal_writer_open: NULL argument");
    *out = NULL;
    const pcs_world_def *cfg = pcs_world_def_get(st->world);
    if (cfg->build_hash != s->s.world.build_hash)
        return pcs_error_set(PCS_E_INVAL,
                             "journal '%s': scenario '%s' (hash %016" PRIx64 ") is not the one "
                             "the station was built from (world build hash %016" PRIx64 ")",
                             path, s->s.source, s->s.world.build_hash, cfg->build_hash);
    size_t len = strlen(path);
    pcs_journal_writer *jw = calloc(1, sizeof *jw + len + 1);
    uint8_t *named = calloc((PCS_TARGET_MAX >> 3) + 1, 1);
    if (!jw || !named) {
        free(jw);
        free(named);
        return pcs_error_set(PCS_E_NOMEM, "journal '%s': out of memory", path);
    }
    memcpy(jw->path, path, len + 1);
    jw->named = named;
    jw->world = st->world;
    jw->cursor = pcs_journal_count(st->world);
    pcs_status rc = pcs_atomic_file_create(path, &jw->file);
    if (rc != PCS_OK) { /* its message names the path and the reason */
        free(named);
        free(jw);
        return rc;
    }
    jw->out = pcs_atomic_file_stream(jw->file);
    fprintf(jw->out, "# pcsim journal v%u\n", PCS_JOURNAL_FILE_VERSION);
    put_source(jw->out, s->s.source);
    fprintf(jw->out,
            "# scenario_hash %016" PRIx64 "\n# seed %" PRIu64 "\n# start_tick %" PRIu64 "\n",
            s->s.world.build_hash, cfg->seed, pcs_world_clock(st->world)->tick);
    put_kinds(jw->out, st);
    rc = put_text(jw->out, s);
    if (rc == PCS_OK)
        rc = io_check(jw);
    if (rc != PCS_OK) {
        pcs_journal_writer_close(jw, 0);
        return rc;
    }
    *out = jw;
    return PCS_OK;
}

/* "# target NAME ID" before the first command on a target, so a replay can
 * check that the id means the same target in its world. A host's own kinds
 * may carry a target no name resolves: those get no line. */
static void name_target(pcs_journal_writer *jw, uint32_t stored)
{
    pcs_target_id id = pcs_target_id_load(stored);
    uint8_t bit = (uint8_t)(1u << (id.index & 7u));
    if (jw->named[id.index >> 3] & bit)
        return;
    const char *name = pcs_command_target_name(jw->world, id);
    if (!name)
        return;
    jw->named[id.index >> 3] |= bit;
    fprintf(jw->out, "# target %s %" PRIu32 "\n", name, stored);
}

pcs_status pcs_journal_writer_drain(pcs_journal_writer *jw)
{
    if (!jw)
        return pcs_error_set(PCS_E_INVAL, "pcs_journal_writer_drain: NULL argument");
    pcs_command buf[64];
    uint32_t n;
    uint64_t missed = 0;
    while ((n = pcs_journal_read(jw->world, &jw->cursor, buf, 64, &missed)) > 0 || missed) {
        if (missed)
            return pcs_error_set(PCS_E_OVERFLOW,
                                 "journal '%s': %" PRIu64 " applied commands were overwritten "
                                 "before they were written (journal_capacity %u): drain after "
                                 "every tick",
                                 jw->path, missed, pcs_world_def_get(jw->world)->journal_capacity);
        for (uint32_t i = 0; i < n; i++) {
            const pcs_command *c = &buf[i];
            name_target(jw, c->target);
            fprintf(jw->out, "%" PRIu64 " %u %u %.17g %.17g %.17g %.17g\n", c->tick, c->kind,
                    c->target, c->args[0], c->args[1], c->args[2], c->args[3]);
        }
    }
    return io_check(jw);
}

pcs_status pcs_journal_writer_end(pcs_journal_writer *jw)
{
    pcs_status rc = pcs_journal_writer_drain(jw);
    if (rc != PCS_OK)
        return rc;
    fprintf(jw->out, "# end_tick %" PRIu64 " hash %016" PRIx64 "\n",
            pcs_world_clock(jw->world)->tick, pcs_world_state_hash(jw->world));
    return io_check(jw);
}

pcs_status pcs_journal_writer_close(pcs_journal_writer *jw, int keep)
{
    if (!jw)
        return PCS_OK;
    pcs_status rc = PCS_OK;
    if (keep)
        rc = pcs_atomic_file_commit(jw->file);
    else
        pcs_atomic_file_discard(jw->file);
    free(jw->named);
    free(jw);
    return rc;
}
