/**
 * @file entity_internal.h
 * @brief The entity table's save section and state-hash digest (engine only:
 *        engine/persist.c and engine/hash.c; the table itself is engine/entity.c).
 *
 * Section "entities" (persist.h): a head, then one record per slot, the
 * table's own slot records byte for byte (PCS_ENTITY_SAVE_REC bytes each,
 * capacity of them; slots never handed out are zeros). The records are kept
 * canonical in memory (a free or retired slot keeps only its generation, its
 * free-list link and its retired flag; a name is zero-padded to 128 bytes),
 * so the same table always gives the same bytes, in the save and the hash.
 */
#ifndef PCS_ENGINE_ENTITY_INTERNAL_H
#define PCS_ENGINE_ENTITY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "engine/world_internal.h"
#include "pcsim/entity.h"

#define PCS_ENTITY_SECTION "entities"

/** Bytes of one slot record: u64 id, u64 owner, u64 name hash, u32 generation,
 *  u32 kind, u32 store, u32 row, u32 next free (slot + 1, 0 = end), u8 named,
 *  u8 retired, u16 reserved (0), char name[128]. */
#define PCS_ENTITY_SAVE_REC 176u

/** The section's head. Free list: slot + 1, 0 = empty. */
typedef struct pcs_entity_save_head {
    uint64_t next_id;
    uint32_t capacity, generation_max;
    uint32_t used; /* slots handed out at least once: [0, used) */
    uint32_t n_live, n_retired;
    uint32_t free_head, free_tail;
    uint32_t reserved; /* 0 */
} pcs_entity_save_head;

/** Fill @p head; return the capacity slot records (the section's data). */
const void *pcs_entity_save_view(const pcs_entity_table *t, pcs_entity_save_head *head);

/** XXH3-64 of the head and the records of slots [0, used), for the state hash. */
uint64_t pcs_entity_digest(const pcs_entity_table *t);

/** A saved table checked against the world's and staged; one malloc block (free() it). */
typedef struct pcs_entity_stage pcs_entity_stage;

/**
 * Check section bytes @p sec (@p bytes, unaligned, as in the file) against
 * @p w's table: every field, the free list, unique ids and live names (see
 * entity.h, "Saves and the state hash"). On success *@p out is the staged
 * table. @return PCS_OK, PCS_E_CORRUPT "section 'entities' slot S: field V
 * (allowed R)" (or "head: ..."), PCS_E_NOMEM. Changes nothing of @p w.
 */
pcs_status pcs_entity_load_stage(const pcs_world *w, const unsigned char *sec, size_t bytes,
                                 pcs_entity_stage **out);

/** Replace @p w's table by the staged one (same capacity: checked by the stage). */
void pcs_entity_load_apply(pcs_world *w, const pcs_entity_stage *s);

#endif
