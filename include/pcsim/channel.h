/**
 * @file channel.h
 * @brief Published channels: named values models expose to readers.
 *
 * A channel names one element of a store (`u1.core.power`, a double, unit
 * "W"). Models register channels at build; the snapshot module copies every
 * channel into a snapshot buffer at stage 12, and readers resolve names to ids
 * once and read by id. Ids are dense, in registration order.
 * Thread-safety: registration on the world's thread during build; the
 * registry is immutable after sealing, so any thread may then query it.
 */
#ifndef PCSIM_CHANNEL_H
#define PCSIM_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Value kinds. */
typedef enum pcs_channel_kind {
    PCS_CHANNEL_F64 = 0, /**< a double (SI unit given by the channel) */
    PCS_CHANNEL_U32 = 1, /**< a status word (flags, states, counts) */
} pcs_channel_kind;

/** What a reader needs to know about a channel. */
typedef struct pcs_channel_info {
    const char *name;      /**< hierarchical, dot-separated */
    const char *unit;      /**< SI unit symbol, "" for dimensionless or u32 */
    pcs_channel_kind kind; /**< value kind */
    uint32_t store;        /**< source store id */
    uint32_t index;        /**< element index in the store */
} pcs_channel_info;

/**
 * Publish element @p index of store @p store as channel @p name.
 * The store's element size must be 8 for F64 and 4 for U32.
 * @return PCS_E_INVAL (NULL, bad or duplicate name, size mismatch, index out of
 *         range), PCS_E_STATE after sealing, PCS_E_OVERFLOW past
 *         PCS_WORLD_IDS_MAX channels, PCS_E_NOMEM. The channel table grows
 *         from the world heap during the build; there is no other limit.
 */
PCS_API pcs_status pcs_channel_register(pcs_world *w, const char *name, const char *unit,
                                        pcs_channel_kind kind, uint32_t store, uint32_t index,
                                        uint32_t *id);

/** Resolve @p name. @return PCS_E_NOTFOUND naming it if absent. */
PCS_API pcs_status pcs_channel_find(const pcs_world *w, const char *name, uint32_t *id);

/** Number of channel ids ever given: the id range [0, count). A channel
 *  retired by a structural change (structure.h) keeps its id, so some ids
 *  in the range may not be live (pcs_channel_live). */
PCS_API uint32_t pcs_channel_count(const pcs_world *w);

/** Describe channel @p id. @return PCS_E_NOTFOUND out of range, or when
 *  retired ("channel N 'name' was retired at tick T"). */
PCS_API pcs_status pcs_channel_get(const pcs_world *w, uint32_t id, pcs_channel_info *out);

/**
 * Read channel @p id's live value as a double (u32 values converted). World
 * thread only (other threads use the snapshot API). NaN if @p id is invalid;
 * NaN with the PCS_E_NOTFOUND message of pcs_channel_get if it was retired.
 */
PCS_API double pcs_channel_value(const pcs_world *w, uint32_t id);

#ifdef __cplusplus
}
#endif

#endif
