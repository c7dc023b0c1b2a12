/**
 * @file journal.h
 * @brief Reading the command journal `pcsim run --journal` writes (internal to
 *        station/; hosts use pcs_journal_file_* in pcsim/station.h): one bounded line at a time, from a file or from a buffer.
 *
 * The format, one item per line:
 *   # pcsim journal v2
 *   # scenario SOURCE            (the scenario's file, or <built-in ...>)
 *   # start_tick N               (non-zero for a run resumed with --load)
 *   TICK KIND TARGET A0 A1 A2 A3 (every applied command, in tick order)
 *   # end_tick N hash H          (written when the run completed)
 * Other lines starting with '#' and empty lines are ignored.
 *
 * v2: KIND is the kind the engine allocated to the command's family and
 * TARGET the stored target id (pcs_target_id_store), both as the scenario's
 * build assigns them in registration order, so a replay on the same scenario
 * resolves them identically. v1 held fixed kind ranges and model-packed
 * targets (unit numbers, PCS_HYDRAULICS_TARGET): a v1 journal is refused, naming
 * its version.
 *
 * A journal is input like a scenario or a save: every line and count is
 * bounded, and a bad line gets a message naming the file and line number.
 */
#ifndef PCS_STATION_JOURNAL_H
#define PCS_STATION_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/station.h"

/** The journal format version this pcsim writes and reads. */
#define JOURNAL_VERSION PCS_JOURNAL_FILE_VERSION
#define JOURNAL_VERSION_STR "2"

/** Longest line, without its newline. The writer's longest is "# scenario "
 *  and a 255-byte source (scenario.source), 266 bytes; a command line is at
 *  most 142 (20 + 2 x 10 digits, four %.17g numbers of up to 24, spaces). */
#define JOURNAL_LINE_MAX 512u

/** Most command lines. A pcsim run journals only its script (at most
 *  PCS_SCENARIO_ACTIONS_MAX commands); the bound leaves room for edited journals and
 *  keeps the parsed array to 4 MiB. */
#define JOURNAL_MAX_COMMANDS 65536u

/** Most lines of any kind (comments included), so reading is bounded too. */
#define JOURNAL_MAX_LINES 262144u

/** What the journal is checked against (the public pcs_journal_expect). */
typedef pcs_journal_expect journal_expect;

/** A parsed journal. */
typedef struct journal {
    pcs_timed_command *actions; /**< in tick order (owned; hand over by taking the pointer) */
    uint32_t *lines;      /**< journal line of each action, for messages (owned) */
    uint32_t n_actions, cap;
    uint32_t lineno; /**< lines read so far */
    uint64_t end_tick, want_hash;
    int have_end;
} journal;

/**
 * Open x->file (regular files only: a directory, FIFO or device is refused
 * without blocking) and parse it line by line. Returns 0, or the exit status
 * (2 bad input, 1 out of memory) with one message in @p err.
 */
int journal_load(const journal_expect *x, journal *j, char *err, size_t err_len);

/** The same parse over @p len bytes of @p buf (x->file only names it). */
int journal_parse(const journal_expect *x, const char *buf, size_t len, journal *j, char *err,
                  size_t err_len);

/** Free what a load or parse kept (safe on a zeroed or freed journal). */
void journal_free(journal *j);

#endif
