/**
 * @file entity.h
 * @brief Entities: a world-level table of things (units, pumps, sensors,
 *        alarms, a host's own) with 64-bit ids that are never reused and
 *        generation-checked handles.
 *
 * Ids and handles. Every entity gets a 64-bit id, 1, 2, 3, ... in creation
 * order, never reused (not after a destroy, not after a table wrap: 2^64
 * creations do not happen). An id is what a journal or a save names. A
 * handle is the entity's slot and the slot's generation: the same scheme and
 * the same type as a command target's id (pcs_target_id, command.h; Box2D's
 * id.h): generation 0 is never issued, so a zeroed handle is the null
 * handle. Every function taking a handle checks it: a null, forged (index
 * outside the table) or stale (its entity destroyed) handle is
 * PCS_E_NOTFOUND with a message naming the handle and the slot's current
 * generation, never another entity's data.
 *
 * Generation wrap. A slot's generation advances on every destroy. A slot
 * whose generation would pass generation_max is retired (never handed out
 * again) instead of wrapping to 1, so a (slot, generation) pair names at
 * most one entity in the table's life and no stale handle can ever match a
 * later entity, however old. The price is capacity: a slot serves at most
 * generation_max entities. With the default (2^32 - 1) a slot retires after
 * 4.3e9 reuses: 71 minutes of nothing but create/destroy on one slot at 1e6
 * pairs per second, and free slots are reused first-in first-out, so with L
 * of C slots live each free slot takes only every (C - L)-th reuse. When
 * every slot is live or retired, pcs_entity_create is PCS_E_OVERFLOW and
 * says how many are retired. A host that wants handles to fit a command's
 * 32-bit target field (pcs_target_id_store) sets generation_max to
 * PCS_TARGET_GENERATION_MAX and capacity <= PCS_TARGET_MAX, and accepts a
 * slot retiring after 4,095 lives.
 *
 * Names. An entity may have a name ("u2.pump2": pcs_name_check's rule,
 * 1..127 chars); live names are unique. A name index (open addressing with
 * backward-shift deletion) finds a name in O(1); lookups return the one live
 * entity of that name, so no hash-table order reaches a result. The table
 * copies the name into a fixed 128-byte slot of its own.
 *
 * Rows. A model that keeps per-entity data in a store records where it is:
 * (store id, row) on the entity (pcs_entity_def.store/.row,
 * pcs_entity_set_row); pcs_entity_get returns them. The table does not
 * interpret them beyond checking that the store exists and the row is one
 * of its rows (row 0 with PCS_ENTITY_NO_STORE).
 *
 * Memory. pcs_entity_table_add allocates everything from the world heap,
 * once, during the build: slots, names and both indexes for `capacity`
 * entities. Create, destroy and every lookup allocate nothing, before or
 * after the seal (a free list).
 *
 * Saves and the state hash. The table is state: entities are created and
 * destroyed while the world runs. pcs_world_state_hash folds in a digest of
 * it after the events: the next id, the counters, the free list's head and
 * tail, and the record of every slot handed out, in slot order (generation,
 * id, name, kind, owner, store, row, retired flag, free-list link); no
 * index order reaches it. pcs_world_save writes it as section "entities"
 * (persist.h); pcs_world_load restores it exactly (ids, names, handles,
 * free-list order, retired slots), so an entity created after the seal
 * survives a save and load, and a handle stale before the save is stale
 * after it. The load first checks every field of the saved table and
 * refuses it naming the slot, field, value and allowed range: capacity and
 * generation_max equal the world's; a live slot's generation is in
 * [1, generation_max], a free one's in [2, generation_max], a retired one's
 * generation_max; live ids are unique, below the next id and after the
 * slot's earlier lives (id >= slot + generation; first-life ids rise with
 * the slot); the next id is 1 + the lives the generations count; names
 * follow pcs_name_check, are zero-padded and unique among live; an owner is
 * 0 or an entity created before (owner < id: destroying an owner does not
 * clear it); (store, row) follows "Rows"; the free list runs through
 * exactly the free slots, once each; free, retired and never-used slots
 * hold nothing else. A world without a table saves no section; a table in
 * only one of the file and the world, or of another capacity, is refused.
 *
 * Structural entities. An entity created while registration is open (the
 * build, before the first tick, or a structural command's apply,
 * structure.h) is structural: the scenario and the structure log make it,
 * so a world built from the same scenario that re-applied the same log has
 * it in the same slot. A load therefore compares every live structural
 * entity of the world (after the replay) with the save's slot: id,
 * generation, kind, owner, store, row and name must be equal, else it is
 * refused naming the slot, the field, the save's value and the world's.
 * Entities a host created after the first tick are checked field by field
 * only (above). Only a structural apply removes a structural entity once
 * the world has ticked (pcs_entity_destroy refuses): a removal the log does
 * not record would make the save disagree with its own structure. Limit:
 * entities a host creates at run time between structural changes shift the
 * slots and ids the later changes take, which a replay without them cannot
 * reproduce; such a save is refused (naming the slot), not loaded wrong.
 * The flag is neither saved nor hashed.
 *
 * Thread-safety: world thread only (the thread that builds and ticks the
 * world), lookups included: create and destroy change the indexes.
 */
#ifndef PCSIM_ENTITY_H
#define PCSIM_ENTITY_H

#include <stdint.h>

#include "pcsim/command.h"
#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An entity's handle: slot and generation (the command target's id type). */
typedef pcs_target_id pcs_entity_handle;

/** Bytes a name takes in the table, its NUL included. */
#define PCS_ENTITY_NAME_MAX 128u
/** Entity slots a table may have: the handle's index range. */
#define PCS_ENTITY_CAPACITY_MAX PCS_TARGET_MAX
/** No store: an entity whose data lives in no store row. */
#define PCS_ENTITY_NO_STORE UINT32_MAX

/** The table's configuration. Start from pcs_entity_table_default(). */
typedef struct pcs_entity_table_def {
    uint32_t capacity;       /**< entity slots; default 4096; [1, PCS_ENTITY_CAPACITY_MAX] */
    uint32_t generation_max; /**< a slot retires after this generation (see "Generation
                                  wrap"); default UINT32_MAX; [1, UINT32_MAX] */
} pcs_entity_table_def;

/** Defaults above. */
PCS_API pcs_entity_table_def pcs_entity_table_default(void);

/**
 * Give @p w its entity table: capacity slots, their names and indexes, from
 * the world heap (about 200 bytes a slot). Build phase only; once per world.
 * @return PCS_E_INVAL (NULL, capacity out of range, naming value and range),
 *         PCS_E_STATE (sealed, or the world already has a table, naming its
 *         capacity), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_entity_table_add(pcs_world *w, const pcs_entity_table_def *def);

/** An entity to create. Start from pcs_entity_default(). */
typedef struct pcs_entity_def {
    const char *name; /**< NULL (default): unnamed; else 1..127 chars, unique among live */
    uint32_t kind;    /**< model-defined kind (station.h: PCS_STATION_ENTITY_*); default 0 */
    uint64_t owner;   /**< id of the owning entity, live at create; default 0 = none */
    uint32_t store;   /**< store holding its row; default PCS_ENTITY_NO_STORE */
    uint32_t row;     /**< its row in that store, below its count; default (and without one) 0 */
} pcs_entity_def;

/** Defaults above. */
PCS_API pcs_entity_def pcs_entity_default(void);

/**
 * Create an entity: the next id, the oldest free slot. Allocates nothing.
 * Build phase or running, world thread only.
 * @param out (optional) its handle.
 * @return PCS_E_INVAL (NULL world or def, bad name, name taken naming the
 *         entity that has it, owner not live, unknown store, row outside the
 *         store or non-zero without one), PCS_E_STATE
 *         (no table: pcs_entity_table_add), PCS_E_OVERFLOW (every slot live or
 *         retired, naming both counts).
 */
PCS_API pcs_status pcs_entity_create(pcs_world *w, const pcs_entity_def *def,
                                     pcs_entity_handle *out);

/**
 * Destroy entity @p h: its name and id resolve no more, its slot's
 * generation advances (or the slot retires), so @p h is refused from now on.
 * Allocates nothing. World thread only.
 * @return PCS_E_NOTFOUND (null, forged or stale handle), PCS_E_INVAL (NULL),
 *         PCS_E_STATE (a structural entity, "Structural entities", after the
 *         first tick and outside a structural apply: the message names it
 *         and points to its structural command).
 */
PCS_API pcs_status pcs_entity_destroy(pcs_world *w, pcs_entity_handle h);

/**
 * PCS_OK when @p h is a live entity's handle; PCS_E_NOTFOUND otherwise, with
 * "entity handle (index I, generation G) is stale: slot I is at generation
 * G' (free|retired|entity N 'name')", "... is null" or "... is outside the
 * table (capacity C)". PCS_E_INVAL for NULL @p w.
 */
PCS_API pcs_status pcs_entity_check(const pcs_world *w, pcs_entity_handle h);

/** What the table holds on one entity. */
typedef struct pcs_entity_info {
    uint64_t id;
    const char *name; /**< NULL when unnamed; valid until the entity is destroyed */
    uint32_t kind;
    uint64_t owner;
    uint32_t store; /**< PCS_ENTITY_NO_STORE when none */
    uint32_t row;
} pcs_entity_info;

/** Entity @p h's fields. @return as pcs_entity_check; PCS_E_INVAL for NULL out. */
PCS_API pcs_status pcs_entity_get(const pcs_world *w, pcs_entity_handle h, pcs_entity_info *out);

/**
 * Record that entity @p h's data is row @p row of store @p store
 * (PCS_ENTITY_NO_STORE: none, with row 0). @return as pcs_entity_check;
 * PCS_E_INVAL for an unknown store (naming it and the store count) or a row
 * outside it (naming the row and the store's count).
 */
PCS_API pcs_status pcs_entity_set_row(pcs_world *w, pcs_entity_handle h, uint32_t store,
                                      uint32_t row);

/**
 * The live entity named @p name. @return PCS_E_NOTFOUND "no entity named
 * 'X'", PCS_E_INVAL for NULL arguments, PCS_E_STATE without a table.
 */
PCS_API pcs_status pcs_entity_find(const pcs_world *w, const char *name, pcs_entity_handle *out);

/**
 * The live entity with id @p id. @return PCS_E_NOTFOUND "no live entity with
 * id N" (never created, or destroyed), PCS_E_INVAL, PCS_E_STATE as above.
 */
PCS_API pcs_status pcs_entity_find_id(const pcs_world *w, uint64_t id, pcs_entity_handle *out);

/** Id of live entity @p h, 0 when @p h is not live (or NULL @p w). */
PCS_API uint64_t pcs_entity_id(const pcs_world *w, pcs_entity_handle h);

/** Live entities; 0 for NULL or without a table. */
PCS_API uint32_t pcs_entity_count(const pcs_world *w);

/** The table's slots; 0 for NULL or without a table. */
PCS_API uint32_t pcs_entity_capacity(const pcs_world *w);

/** Slots retired by the generation rule above; 0 for NULL or without a table. */
PCS_API uint32_t pcs_entity_retired(const pcs_world *w);

#ifdef __cplusplus
}
#endif

#endif
