/**
 * @file persist.h
 * @brief Save and load a whole world's state.
 *
 * File format (version 1, little-endian):
 *   header   magic "PCSIMSV1", u32 version, u32 section count, u64 tick, u64 seed
 *   table    per section: char name[64], u64 offset, u64 bytes, u64 XXH3-64 of the bytes
 *   u64      XXH3-64 of header + table
 *   data     the sections' bytes
 * Sections: "store:<name>" for every STATE store and "job:<name>" for every
 * slow job (pending flag, submit tick, input copy), so a world saved between a
 * job's submit and merge resumes with the same result.
 *
 * A save goes to "<path>.tmp" and is renamed over @p path only when complete,
 * so a crash never leaves a half-written file. A load checks everything
 * (magic, version, checksums, that every section matches a store of the same
 * name and size and that every store has a section) before it changes any
 * byte of the world: a failed load leaves the world as it was.
 *
 * The world to load into must be built the same way as the saved one (same
 * scenario); the commands still queued and the journal are not saved.
 * Thread-safety: world thread only, between ticks.
 */
#ifndef PCSIM_PERSIST_H
#define PCSIM_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#define PCS_SAVE_VERSION 1u

/**
 * Write @p w's state to @p path.
 * @return PCS_E_INVAL (NULL), PCS_E_IO with the path and the OS reason.
 */
PCS_API pcs_status pcs_world_save(const pcs_world *w, const char *path);

/**
 * Replace @p w's state with the one saved in @p path.
 * @return PCS_E_IO (cannot read), PCS_E_CORRUPT (truncated, bad magic or
 *         checksum, section/store mismatch — the message names it),
 *         PCS_E_VERSION (a file version other than PCS_SAVE_VERSION),
 *         PCS_E_NOMEM. On any error the world is unchanged.
 */
PCS_API pcs_status pcs_world_load(pcs_world *w, const char *path);

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
 *         PCS_E_OVERFLOW past PCS_MAX_LOAD_CHECKS.
 */
#define PCS_MAX_LOAD_CHECKS 256u
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
 * Check that @p n uint32 values, @p stride apart, are below @p bound
 * (indices, ring positions, counts): PCS_E_CORRUPT naming store, element,
 * field, value and the bound otherwise.
 */
PCS_API pcs_status pcs_load_check_u32(const char *store, const char *field, const uint32_t *x,
                                      size_t n, size_t stride, uint32_t bound);

#endif
