/**
 * @file journal.h
 * @brief The command journal a run writes and a replay reads (internal to
 *        station/; hosts use pcs_journal_file_*, pcs_journal_writer_* and
 *        pcs_replay in pcsim/station.h): the reader takes one bounded line at
 *        a time, from a file or from a buffer.
 *
 * The format (v3), one item per line:
 *   # pcsim journal v3               (line 1)
 *   # scenario SOURCE                (the scenario's file, or <built-in ...>)
 *   # scenario_hash H                (pcs_scenario_build_hash, 16 hex digits)
 *   # seed N                         (world.seed: the build hash leaves it out)
 *   # start_tick N                   (non-zero for a run resumed from a save)
 *   # kinds N                        (the station's command kind table:)
 *   # kind NAME K                    (N lines: command name and its kind)
 *   # scenario_text BYTES            (optional: the scenario's canonical text,)
 *   # text CHUNK                     (in lines of at most 384 bytes, verbatim)
 *   # target NAME ID                 (a target's id, before its first command)
 *   TICK KIND TARGET A0 A1 A2 A3     (every applied command, in tick order)
 *   # end_tick N hash H              (written when the run completed)
 * The header is every line before the first target, command or end line; it
 * must hold the scenario, scenario_hash, seed, start_tick and kinds items
 * (each once) with all N kind lines, and all BYTES of the scenario text when
 * it has a scenario_text line. Other lines starting with '#' and empty lines
 * are comments.
 *
 * KIND is the kind the engine allocated to the command's family and TARGET
 * the stored target id (pcs_target_id_store), both as the scenario's build
 * assigns them in registration order; the kind and target lines say what
 * they were, so a replay on a build that assigns otherwise is refused by
 * name rather than replayed wrong. v1 held fixed kind ranges and packed
 * targets; v2 had no hash, kind table or text: both are refused, naming
 * their version.
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

/** Scenario text per "# text" line, bytes. */
#define JOURNAL_TEXT_CHUNK 384u

/** Longest line, without its newline. The writer's longest is a text line,
 *  "# text " and 384 bytes (391); then "# scenario " and a 255-byte source
 *  (266), a target line (9 + 127 + 1 + 10 = 147) and a command line (at
 *  most 142: 20 + 2 x 10 digits, four %.17g numbers of up to 24, spaces). */
#define JOURNAL_LINE_MAX 512u

/** Longest line the writer makes, for messages. */
#define JOURNAL_LINE_WRITTEN_MAX 391u

/** Most command lines. A pcsim run journals only its script (at most
 *  PCS_SCENARIO_ACTIONS_MAX commands); the bound leaves room for edited journals and
 *  keeps the parsed array to 4 MiB. */
#define JOURNAL_MAX_COMMANDS 65536u

/** Most target lines: one per target the commands use. */
#define JOURNAL_MAX_TARGETS JOURNAL_MAX_COMMANDS

/** Most lines of any kind (comments included), so reading is bounded too. */
#define JOURNAL_MAX_LINES 262144u

/** Longest command name in the kind table (pcs_scenario_action.command). */
#define JOURNAL_KIND_NAME_MAX 31u

/** Longest target name (pcs_command_target_def.name). */
#define JOURNAL_TARGET_NAME_MAX 127u

/** A kind-table line: a command name and the kind it had. */
typedef struct journal_kind {
    char name[JOURNAL_KIND_NAME_MAX + 1];
    uint32_t kind;
    uint32_t line;
} journal_kind;

/** A target line: a target name and the stored id it had. */
typedef struct journal_target {
    char name[JOURNAL_TARGET_NAME_MAX + 1];
    uint32_t id; /**< pcs_target_id_store form */
    uint32_t line;
} journal_target;

/** Header items, bits of journal.have. */
enum {
    JH_SCENARIO = 1u << 0,
    JH_HASH = 1u << 1,
    JH_SEED = 1u << 2,
    JH_START = 1u << 3,
    JH_KINDS = 1u << 4,
    JH_TEXT = 1u << 5,
    JH_REQUIRED = JH_SCENARIO | JH_HASH | JH_SEED | JH_START | JH_KINDS
};

/** A parsed journal. */
typedef struct journal {
    pcs_timed_command *actions; /**< in tick order (owned) */
    uint32_t *lines;            /**< journal line of each action, for messages (owned) */
    uint32_t n_actions, cap;
    uint32_t lineno; /**< lines read so far */
    uint64_t end_tick, want_hash;
    int have_end;
    uint32_t end_line;
    /* The header. */
    uint32_t have;       /**< JH_* items read */
    uint32_t header_end; /**< line that closed the header; 0 while it is open */
    char scenario[256];  /**< the recorded source */
    uint64_t scenario_hash, seed, start_tick;
    uint32_t item_line[6]; /**< line of each JH_* item, by bit index */
    journal_kind *kinds;   /**< the kind table (owned) */
    uint32_t n_kinds, want_kinds;
    char *text; /**< the scenario text, NUL-terminated (owned); NULL if none */
    size_t text_len, text_want, text_cap;
    uint32_t text_line;
    journal_target *targets; /**< target lines (owned) */
    uint32_t n_targets, targets_cap;
    uint32_t tick_run; /**< commands so far at the last command's tick */
} journal;

/** The public parsed journal: the parse and the name it was read under. */
struct pcs_journal_file {
    journal j;
    char *name; /**< the path or buffer name, for messages (owned) */
};

/** Room for the longest message the reader writes (a path, a line number
 *  and a quoted field or two). */
#define JOURNAL_MSG_MAX (2 * JOURNAL_LINE_MAX + 4096)

/**
 * Open @p file (regular files only: a directory, FIFO or device is refused
 * without blocking) and parse it line by line. Returns 0, or the exit status
 * (2 bad input, 1 out of memory) with one message in @p err.
 */
int journal_load(const char *file, journal *j, char *err, size_t err_len);

/** The same parse over @p len bytes of @p buf (@p file only names it). */
int journal_parse(const char *file, const char *buf, size_t len, journal *j, char *err,
                  size_t err_len);

/**
 * Check the journal's header against a scenario's (or a world's) build hash
 * and seed; @p what names that side in the message (journal_file.c).
 * PCS_E_INVAL naming the journal, the header line and both values.
 */
pcs_status journal_check_build(const pcs_journal_file *j, uint64_t hash, uint64_t seed,
                               const char *what);

/** Free what a load or parse kept (safe on a zeroed or freed journal). */
void journal_free(journal *j);

#endif
