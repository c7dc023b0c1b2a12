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

#endif
