/**
 * @file persist.h
 * @brief Save and load a whole world's state.
 *
 * File format (version 2, little-endian):
 *   header   magic "PCSIMSV1" (fixed for every version), u32 version (2),
 *            u32 section count, u64 tick, u64 world seed, u64 build hash
 *            (pcs_world_def.build_hash), u32 layout version
 *            (PCS_SAVE_LAYOUT), u32 reserved (0)                      48 bytes
 *   table    per section: char name[64], u64 offset, u64 bytes, u64 elem_size,
 *            u64 count, u64 XXH3-64 of the bytes                104 bytes each
 *   u64      XXH3-64 of header + table
 *   data     the sections' bytes, back to back in table order; nothing after
 * Sections: "store:<name>" for every STATE store (elem_size and count of the
 * store, bytes = elem_size * count) and "job:<name>" for every slow job
 * (elem_size = its input_bytes, count 1; bytes = 16 + input: u32 pending flag,
 * u32 reserved, u64 submit tick, then the input copy), so a world saved
 * between a job's submit and merge resumes with the same result, then, in a
 * world with an entity table only, "entities" (layout 3; entity.h, "Saves
 * and the state hash"): elem_size 176, count = the table's capacity, bytes =
 * 40 + 176 * count: u64 next id, u32 capacity, generation_max, slots used,
 * live, retired, free-list head and tail (slot + 1, 0 = empty), u32
 * reserved (0), then every slot's record (u64 id, owner, name hash; u32
 * generation, kind, store, row, next free; u8 named, retired; u16 reserved;
 * char name[128], zero-padded; a slot never used is zeros), then
 * "events:previous" (layout 2): the last completed tick's event list,
 * which the next tick's systems read (pcs_world_events_previous); elem_size
 * 48 (pcs_event), count = the world's event_capacity, bytes = 16 + 48 *
 * count: u32 events in the list, u32 reserved, u64 their tick (the save
 * tick - 1; 0 when none), then every slot, the list first and zeros after.
 * A world that applied structural changes (structure.h) adds
 * "structure:log" after it: elem_size 64 (pcs_command), count = the log's
 * entries, bytes = 8 + 64 * count: u32 count, u32 reserved (0), then the
 * applied commands in order (a world without changes writes no such
 * section, so its saves are what they were).
 *
 * A save is written to a new temporary file beside @p path (pcs_atomic_file),
 * fsynced, and renamed over @p path with its directory fsynced: a crash, a
 * full disk or a concurrent save never leaves a half-written file, and nothing
 * already at or beside the path is followed or deleted.
 *
 * A load opens without blocking, refuses anything but a regular file, reads
 * at most the size this world's save has (computed from its stores and jobs),
 * and checks everything before it changes any byte of the world: magic,
 * version, layout version, checksums, the seed and build hash against the
 * world's, that every section matches a store or job of the same name, element
 * size and count, that sections lie back to back and no byte follows them,
 * every field of the entity table (entity.h), then the models' load checks
 * (below). A failed load leaves the world as it was, with one exception
 * (next paragraph).
 *
 * Loads that change the structure. A save's sections follow from its
 * structure, so a save whose structure log extends the world's has the
 * entries the world lacks re-applied (pcs_structure_replay) before its
 * stores can be checked, and an applied change cannot be undone. So:
 *  - everything that can be checked first is: the header, the table
 *    checksum, the log section (its checksum, at most structure_log_capacity
 *    entries, every entry a structural kind of this world, reserved, source
 *    and sequence 0, ticks in order and at most the save tick (a failed
 *    attempt at it logs there), then the kind's validate: target and
 *    arguments; this world's log a prefix of it, else refused naming the
 *    first differing entry's index, tick and kind), and every section of
 *    the file (back to back, the last ending at the file's end, each one's
 *    checksum);
 *  - only a fresh world takes such a save: one that has never ticked and
 *    has accepted no load (a loaded world holds that save's state, which a
 *    refusal after the replay would lose). Any other is refused before
 *    anything changes (PCS_E_STATE naming the file and the number of
 *    changes it lacks). Hosts load into a fresh world of the same
 *    scenario and seed and swap it in on success (`pcsim serve`, the Python
 *    Station.load, `pcsim run --load`; docs/protocol.md, "load");
 *  - a fresh world whose load is refused after the replay (a store's load
 *    check, the entity table, a replay that failed part way) has half the
 *    save's structure: it is marked unusable, and pcs_world_tick (so
 *    pcs_world_advance), pcs_world_save and pcs_world_load refuse it with
 *    PCS_E_STATE naming the load that left it so. Destroy it.
 * A save whose log equals the world's replays nothing: its refusal leaves
 * the world as it was, ticked or not.
 *
 * The world to load into must be built the same way as the saved one (same
 * scenario); the commands still queued and the journal are not saved.
 * Thread-safety: world thread only, between ticks.
 */
#ifndef PCSIM_PERSIST_H
#define PCSIM_PERSIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Container format version (header and table); another value is refused. */
#define PCS_SAVE_VERSION 2u
/** How sections encode state (order, job header); changes without the container's.
 *  2: the "events:previous" section was added; 3: the "entities" section. */
#define PCS_SAVE_LAYOUT 3u

/**
 * Write @p w's state to @p path through a pcs_atomic_file. Saves of distinct
 * worlds may run on several threads at once, even to one path (the last
 * rename wins; the file is always one whole save).
 * @return PCS_E_INVAL (NULL), PCS_E_IO with the path and the OS reason (the
 *         previous file at @p path is then unchanged), PCS_E_STATE (a world
 *         a refused load left unusable: nothing is written), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_world_save(const pcs_world *w, const char *path);

/**
 * Replace @p w's state with the one saved in @p path.
 * @return PCS_E_IO (cannot open or read, or not a regular file: the message
 *         names the kind), PCS_E_CORRUPT (truncated, trailing bytes, bad magic
 *         or checksum, another seed or build hash, section/store mismatch, a
 *         failed load check, a structure-log entry or a structural entity
 *         that differs — the message names it, with both values),
 *         PCS_E_VERSION (a file or layout version other than this build's),
 *         PCS_E_STATE (the save's structure log extends this world's and the
 *         world has ticked or took a load; or the world was left unusable by an earlier
 *         load), PCS_E_NOMEM. On any error the world is unchanged, except
 *         after a replay ("Loads that change the structure": it is then
 *         unusable).
 */
PCS_API pcs_status pcs_world_load(pcs_world *w, const char *path);

/*
 * Whole-or-nothing files, for saves and for a host's journals and exports.
 *
 * pcs_atomic_file_create never opens @p path: it creates a new temporary
 * "<path>.tmp-<pid>-<n>" in the same directory with O_CREAT|O_EXCL|O_NOFOLLOW
 * (a name already taken is skipped, never opened). Commit fsyncs it, renames
 * it over @p path (replacing a symlink there, never writing through it) and
 * fsyncs the directory; discard removes it. Until the commit, @p path keeps
 * what it had. A process killed before its commit can leave its temporary.
 * Only nothing, a regular file or a symlink at @p path is replaced: a
 * directory, FIFO, device or socket there is refused (PCS_E_IO naming the
 * path and its kind) by create and again by commit.
 * Thread-safety: one thread per file; distinct files from any threads.
 */
typedef struct pcs_atomic_file pcs_atomic_file;

/**
 * Start writing @p path. @return PCS_E_INVAL (NULL/empty), PCS_E_IO naming the
 * directory, the path and the OS reason, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_atomic_file_create(const char *path, pcs_atomic_file **out);

/** The stream to write to (owned by @p f); NULL for NULL. */
PCS_API FILE *pcs_atomic_file_stream(pcs_atomic_file *f);

/**
 * Flush, fsync, rename over the path, fsync the directory, free @p f.
 * @return PCS_OK, or PCS_E_IO naming the path and the OS reason (a write that
 *         failed earlier on the stream included); the temporary is then
 *         removed and the path keeps what it had.
 */
PCS_API pcs_status pcs_atomic_file_commit(pcs_atomic_file *f);

/** Close and remove the temporary, free @p f; the path is untouched. NULL is allowed. */
PCS_API void pcs_atomic_file_discard(pcs_atomic_file *f);

/*
 * Load checks: what a model says about its own saved state.
 *
 * Checksums prove a file is the one that was written, not that its values are
 * ones the model can run from; anyone can recompute an XXH3. So every model
 * that owns STATE stores (or a job whose input is saved) registers a load
 * check at build. pcs_world_load stages the whole file, runs every check, in
 * registration order, on the staged values, and applies nothing unless all
 * pass: a failed check leaves the world unchanged.
 */

/** The saved state as staged by pcs_world_load, before any byte is applied. */
typedef struct pcs_load_view pcs_load_view;

/**
 * Staged bytes of STATE store @p store_id, aligned for any element type, of
 * pcs_store_bytes() length; NULL if @p store_id is not a STATE store.
 * Thread-safety: inside a load check only.
 */
PCS_API const void *pcs_load_view_store(const pcs_load_view *v, uint32_t store_id);

/**
 * Staged input copy of job @p job_id (desc.input_bytes, aligned) and its
 * pending flag (0 or 1) in @p pending (may be NULL); NULL for an unknown job.
 */
PCS_API const void *pcs_load_view_job(const pcs_load_view *v, uint32_t job_id, int *pending);

/**
 * A load check: return PCS_OK, or PCS_E_CORRUPT with a message (pcs_error_set)
 * naming the store, element, field, value and allowed range; the loader adds
 * the file's path in front. Must not change @p w.
 */
typedef pcs_status (*pcs_load_check_fn)(const pcs_world *w, const pcs_load_view *v, void *ctx);

/**
 * Register a load check named @p name (1..63 chars, for messages). Build phase
 * only; world thread.
 * @return PCS_E_INVAL (NULL fn or bad name), PCS_E_STATE after sealing,
 *         PCS_E_OVERFLOW past PCS_WORLD_IDS_MAX, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_load_check_register(pcs_world *w, const char *name, pcs_load_check_fn fn,
                                           void *ctx);

/** Interval ends for pcs_load_check_f64: closed unless flagged open. */
enum { PCS_CHECK_LO_OPEN = 1u, PCS_CHECK_HI_OPEN = 2u };

/**
 * Check that @p n doubles, @p stride doubles apart starting at @p x, are
 * finite and inside [lo, hi] (ends opened by @p flags).
 * @param store  the store's name, @param field the quantity and unit
 *               ("mass kg"), both for the message.
 * @return PCS_OK, or PCS_E_CORRUPT: "store 'S' element I (F): value V outside
 *         [lo, hi]". Thread-safe (uses only its arguments).
 */
PCS_API pcs_status pcs_load_check_f64(const char *store, const char *field, const double *x,
                                      size_t n, size_t stride, double lo, double hi,
                                      unsigned flags);

/**
 * The same for elements [@p first, @p first + @p n) of the array at @p x
 * (element i at x[i * stride]); the message names the element's own index.
 * For checks whose bounds differ per element (call with n = 1).
 */
PCS_API pcs_status pcs_load_check_f64_from(const char *store, const char *field, const double *x,
                                           size_t first, size_t n, size_t stride, double lo,
                                           double hi, unsigned flags);

/**
 * Check that @p n uint32 values, @p stride apart, are below @p bound
 * (indices, ring positions, counts): PCS_E_CORRUPT naming store, element,
 * field, value and the bound otherwise.
 */
PCS_API pcs_status pcs_load_check_u32(const char *store, const char *field, const uint32_t *x,
                                      size_t n, size_t stride, uint32_t bound);

#ifdef __cplusplus
}
#endif

#endif
