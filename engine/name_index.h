/**
 * @file name_index.h
 * @brief A name index over a registry's records (internal): the store and
 *        channel registries and the command targets share it, lookup and
 *        the find-by-name that reports a missing name included.
 *
 * The records live in an array of cap records, each starting with its
 * `const char *name` (NULL for a free record, which is never indexed). The
 * index is an open-addressing table of 2 x cap entries (XXH3 of the name,
 * linear probing, so at most half full); an entry holds the record's number
 * + 1, 0 when empty. Registries grow by doubling during the build and build
 * a new index each time, so registering n names costs O(n).
 */
#ifndef PCS_ENGINE_NAME_INDEX_H
#define PCS_ENGINE_NAME_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "engine/mem.h"
#include "pcsim/status.h"

/**
 * Entry of @p index (for @p cap records of @p stride bytes at @p records)
 * where @p name is, or where it would go.
 */
uint32_t pcs_name_index_slot(const uint32_t *index, uint32_t cap, const void *records,
                             size_t stride, const char *name);

/**
 * The record named @p name among the first @p n (n 0: the index may not
 * exist yet): its number + 1, or 0 when none is.
 */
uint32_t pcs_name_index_lookup(const uint32_t *index, uint32_t cap, const void *records,
                               size_t stride, uint32_t n, const char *name);

/**
 * What a registry's pcs_<thing>_find does after checking its world: the
 * number of the record named @p name in @p *id. @p fn names the caller and
 * @p what the records ("store", "channel") in the messages.
 * @return PCS_OK; PCS_E_INVAL "<fn>: NULL argument" when @p name or @p id is
 *         NULL; PCS_E_NOTFOUND "<fn>: no <what> named '<name>'".
 */
pcs_status pcs_name_index_find(const char *fn, const char *what, const uint32_t *index,
                               uint32_t cap, const void *records, size_t stride, uint32_t n,
                               const char *name, uint32_t *id);

/**
 * Take record @p rec (named, and entered in @p index) out of the index:
 * backward-shift deletion, so no tombstone is left and every other name is
 * still found by linear probing. A no-op when the entry holding @p rec + 1
 * is not found along its name's probe run (another record of that name took
 * the entry). Call it while the record still has its name.
 */
void pcs_name_index_remove(uint32_t *index, uint32_t cap, const void *records, size_t stride,
                           uint32_t rec);

/** Clear @p index and enter every named record among the first @p n. */
void pcs_name_index_build(uint32_t *index, uint32_t cap, const void *records, size_t stride,
                          uint32_t n);

/**
 * Room for more records: a new array of twice @p *cap records (64 at first)
 * holding the first @p n of @p records, and in @p *index a new index over
 * them; @p *cap is updated. NULL (nothing changed) when out of memory.
 */
void *pcs_name_index_grow(pcs_mem *mem, const void *records, uint32_t n, size_t stride,
                          uint32_t *cap, uint32_t **index);

#endif
