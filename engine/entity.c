/**
 * @file entity.c
 * @brief The world's entity table (pcsim/entity.h): slots with generations,
 *        a first-in first-out free list, and two open-addressing indexes
 *        (name -> slot, id -> slot) with backward-shift deletion.
 *
 * Layout. Allocated once, at pcs_entity_table_add, from the world heap:
 * `capacity` slot records and 128-byte name buffers, and two indexes of
 * 2 x cap entries, cap the power of two >= capacity (so at most half full;
 * an entry is slot + 1, 0 when empty). Nothing grows afterwards, so create
 * and destroy allocate nothing.
 *
 * Deletion. Linear probing with tombstones would slow lookups as entities
 * come and go forever; backward-shift deletion (Knuth vol. 3, 6.4,
 * algorithm R) keeps every probe chain exactly as if the removed key had
 * never been inserted, so lookup cost depends only on the live entities.
 * Each slot caches its name's hash, so a shift rehashes nothing.
 *
 * Determinism. The indexes only answer "which live slot has this key"; keys
 * are unique among live entities, so the answer does not depend on probe
 * order, and nothing iterates an index. Slot choice depends only on the
 * sequence of creates and destroys (the free list's order).
 */
#include <stdio.h>
#include <string.h>

#include <xxhash.h>

#include "engine/world_internal.h"
#include "pcsim/entity.h"

typedef struct entity_rec {
    uint64_t id;         /* 0 while the slot is free or retired */
    uint64_t owner;      /* owning entity's id, 0 = none */
    uint64_t name_hash;  /* XXH3 of the name, when named */
    uint32_t generation; /* 1..generation_max; the live one, or the next */
    uint32_t kind;
    uint32_t store, row;
    uint32_t next_free; /* free list: next slot + 1, 0 = end */
    uint8_t named, retired;
} entity_rec;

struct pcs_entity_table {
    entity_rec *slots;
    char (*names)[PCS_ENTITY_NAME_MAX];
    uint32_t *by_name; /* 2 x cap entries: slot + 1, 0 = empty */
    uint32_t *by_id;   /* 2 x cap entries */
    uint32_t cap;      /* index size: a power of two >= capacity */
    uint32_t capacity; /* slots that may be handed out */
    uint32_t used;     /* slots handed out at least once: [0, used) */
    uint32_t n_live, n_retired;
    uint32_t free_head, free_tail; /* slot + 1, 0 = empty list */
    uint32_t generation_max;       /* a slot retires after this generation */
    uint64_t next_id;
};

pcs_entity_table_def pcs_entity_table_default(void)
{
    return (pcs_entity_table_def){.capacity = 4096, .generation_max = UINT32_MAX};
}

pcs_entity_def pcs_entity_default(void)
{
    return (pcs_entity_def){.store = PCS_ENTITY_NO_STORE};
}

/* ---- indexes --------------------------------------------------------------- */

static uint64_t id_hash(uint64_t id)
{
    /* splitmix64's finaliser: ids are consecutive, the index wants them spread. */
    id = (id ^ (id >> 30)) * 0xbf58476d1ce4e5b9ull;
    id = (id ^ (id >> 27)) * 0x94d049bb133111ebull;
    return id ^ (id >> 31);
}

static uint64_t slot_hash(const pcs_entity_table *t, const uint32_t *ix, uint32_t slot)
{
    return ix == t->by_name ? t->slots[slot].name_hash : id_hash(t->slots[slot].id);
}

/* Entry of @p ix holding @p slot (which is in it). */
static uint32_t entry_of(const pcs_entity_table *t, const uint32_t *ix, uint32_t slot)
{
    uint32_t mask = 2 * t->cap - 1;
    uint32_t k = (uint32_t)slot_hash(t, ix, slot) & mask;
    while (ix[k] != slot + 1)
        k = (k + 1) & mask;
    return k;
}

static void index_insert(const pcs_entity_table *t, uint32_t *ix, uint32_t slot)
{
    uint32_t mask = 2 * t->cap - 1;
    uint32_t k = (uint32_t)slot_hash(t, ix, slot) & mask;
    while (ix[k] != 0)
        k = (k + 1) & mask;
    ix[k] = slot + 1;
}

/* Backward-shift deletion: move each later entry of the probe run whose home
 * is not cyclically in (hole, entry] into the hole. */
static void index_remove(const pcs_entity_table *t, uint32_t *ix, uint32_t slot)
{
    uint32_t mask = 2 * t->cap - 1;
    uint32_t hole = entry_of(t, ix, slot);
    for (uint32_t j = (hole + 1) & mask; ix[j] != 0; j = (j + 1) & mask) {
        uint32_t home = (uint32_t)slot_hash(t, ix, ix[j] - 1) & mask;
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            ix[hole] = ix[j];
            hole = j;
        }
    }
    ix[hole] = 0;
}

/* Live slot + 1 named @p name (whose XXH3 is @p h), 0 when none. */
static uint32_t name_lookup_hashed(const pcs_entity_table *t, const char *name, uint64_t h)
{
    uint32_t mask = 2 * t->cap - 1;
    for (uint32_t k = (uint32_t)h & mask; t->by_name[k] != 0; k = (k + 1) & mask) {
        uint32_t s = t->by_name[k] - 1;
        if (t->slots[s].name_hash == h && strcmp(t->names[s], name) == 0)
            return s + 1;
    }
    return 0;
}

static uint32_t name_lookup(const pcs_entity_table *t, const char *name)
{
    return name_lookup_hashed(t, name, XXH3_64bits(name, strlen(name)));
}

static uint32_t id_lookup(const pcs_entity_table *t, uint64_t id)
{
    uint32_t mask = 2 * t->cap - 1;
    for (uint32_t k = (uint32_t)id_hash(id) & mask; t->by_id[k] != 0; k = (k + 1) & mask)
        if (t->slots[t->by_id[k] - 1].id == id)
            return t->by_id[k];
    return 0;
}

/* ---- the table ------------------------------------------------------------- */

/* Smallest power of two >= n (n <= 2^20). */
static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

pcs_status pcs_entity_table_add(pcs_world *w, const pcs_entity_table_def *def)
{
    static const char who[] = "pcs_entity_table_add";
    pcs_status st = pcs_world_check_build(w, who);
    if (st != PCS_OK)
        return st;
    if (!def)
        return pcs_error_set(PCS_E_INVAL, "%s: def is NULL", who);
    if (def->capacity < 1 || def->capacity > PCS_ENTITY_CAPACITY_MAX)
        return pcs_error_set(PCS_E_INVAL, "%s: capacity %u is outside [1, %u]", who, def->capacity,
                             PCS_ENTITY_CAPACITY_MAX);
    if (def->generation_max < 1)
        return pcs_error_set(PCS_E_INVAL, "%s: generation_max 0 is outside [1, %u]", who,
                             UINT32_MAX);
    if (w->entities)
        return pcs_error_set(PCS_E_STATE, "%s: the world already has an entity table (capacity %u)",
                             who, w->entities->capacity);
    /* The index mask needs a power of two; the slots beyond capacity are
     * never handed out, so the capacity stays what was asked. */
    uint32_t icap = pow2_at_least(def->capacity);
    pcs_entity_table *t = pcs_mem_alloc(&w->mem, sizeof *t);
    entity_rec *slots = pcs_mem_array(&w->mem, def->capacity, sizeof *slots);
    void *names = pcs_mem_array(&w->mem, def->capacity, PCS_ENTITY_NAME_MAX);
    uint32_t *by_name = pcs_mem_array(&w->mem, 2 * (size_t)icap, sizeof *by_name);
    uint32_t *by_id = pcs_mem_array(&w->mem, 2 * (size_t)icap, sizeof *by_id);
    if (!t || !slots || !names || !by_name || !by_id)
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory for %u entities", who, def->capacity);
    *t = (pcs_entity_table){.slots = slots,
                            .names = names,
                            .by_name = by_name,
                            .by_id = by_id,
                            .cap = icap,
                            .capacity = def->capacity,
                            .generation_max = def->generation_max,
                            .next_id = 1};
    w->entities = t;
    return PCS_OK;
}

static pcs_status table_of(const pcs_world *w, const char *who, const pcs_entity_table **out)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "%s: world is NULL", who);
    if (!w->entities)
        return pcs_error_set(
            PCS_E_STATE, "%s: the world has no entity table (pcs_entity_table_add at build)", who);
    *out = w->entities;
    return PCS_OK;
}

/* PCS_OK when @p h names a live entity of @p t, else the message entity.h promises. */
/* The live record @p h names, or NULL: the one test every handle passes
 * (handle_check adds the message, pcs_entity_id uses it bare). */
static const entity_rec *live_rec(const pcs_entity_table *t, pcs_entity_handle h)
{
    if (h.generation == 0 || h.index >= t->capacity)
        return NULL;
    const entity_rec *r = &t->slots[h.index];
    return r->id != 0 && r->generation == h.generation ? r : NULL;
}

static pcs_status handle_check(const pcs_entity_table *t, pcs_entity_handle h)
{
    if (live_rec(t, h))
        return PCS_OK;
    if (h.generation == 0)
        return pcs_error_set(PCS_E_NOTFOUND, "entity handle (index %u, generation 0) is null",
                             h.index);
    if (h.index >= t->capacity)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "entity handle (index %u, generation %u) is outside the table "
                             "(capacity %u)",
                             h.index, h.generation, t->capacity);
    const entity_rec *r = &t->slots[h.index];
    uint32_t gen = h.index < t->used ? r->generation : 1;
    if (r->id != 0)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "entity handle (index %u, generation %u) is stale: slot %u is at "
                             "generation %u (entity %llu '%s')",
                             h.index, h.generation, h.index, gen, (unsigned long long)r->id,
                             r->named ? t->names[h.index] : "");
    return pcs_error_set(PCS_E_NOTFOUND,
                         "entity handle (index %u, generation %u) is stale: slot %u is at "
                         "generation %u (%s)",
                         h.index, h.generation, h.index, gen, r->retired ? "retired" : "free");
}

static pcs_status store_check(const pcs_world *w, const char *who, uint32_t store)
{
    if (store == PCS_ENTITY_NO_STORE || store < w->n_stores)
        return PCS_OK;
    return pcs_error_set(PCS_E_INVAL, "%s: store %u is not registered (%u stores)", who, store,
                         w->n_stores);
}

/* @p name_hash: set to the name's XXH3 when named (create reuses it). */
static pcs_status def_check(const pcs_world *w, const pcs_entity_table *t,
                            const pcs_entity_def *def, uint64_t *name_hash)
{
    static const char who[] = "pcs_entity_create";
    if (!def)
        return pcs_error_set(PCS_E_INVAL, "%s: def is NULL", who);
    if (def->name) {
        pcs_status st = pcs_name_check(who, def->name);
        if (st != PCS_OK)
            return st;
        *name_hash = XXH3_64bits(def->name, strlen(def->name));
        uint32_t s = name_lookup_hashed(t, def->name, *name_hash);
        if (s)
            return pcs_error_set(PCS_E_INVAL,
                                 "%s: name '%s' is taken by entity %llu (index %u, generation %u)",
                                 who, def->name, (unsigned long long)t->slots[s - 1].id, s - 1,
                                 t->slots[s - 1].generation);
    }
    if (def->owner != 0 && !id_lookup(t, def->owner))
        return pcs_error_set(PCS_E_INVAL, "%s: '%s': owner %llu is not a live entity", who,
                             def->name ? def->name : "(unnamed)", (unsigned long long)def->owner);
    return store_check(w, who, def->store);
}

/* The oldest free slot, else the next never-used one; UINT32_MAX when none. */
static uint32_t slot_take(pcs_entity_table *t)
{
    if (t->free_head) {
        uint32_t s = t->free_head - 1;
        t->free_head = t->slots[s].next_free;
        if (!t->free_head)
            t->free_tail = 0;
        return s;
    }
    if (t->used < t->capacity) {
        t->slots[t->used].generation = 1;
        return t->used++;
    }
    return UINT32_MAX;
}

pcs_status pcs_entity_create(pcs_world *w, const pcs_entity_def *def, pcs_entity_handle *out)
{
    uint64_t name_hash = 0;
    const pcs_entity_table *ct = NULL;
    pcs_status st = table_of(w, "pcs_entity_create", &ct);
    if (st == PCS_OK)
        st = def_check(w, ct, def, &name_hash);
    if (st != PCS_OK)
        return st;
    pcs_entity_table *t = w->entities;
    uint32_t s = slot_take(t);
    if (s == UINT32_MAX)
        return pcs_error_set(PCS_E_OVERFLOW,
                             "pcs_entity_create: '%s': the entity table is full (%u slots: %u "
                             "live, %u retired by generation wrap)",
                             def->name ? def->name : "(unnamed)", t->capacity, t->n_live,
                             t->n_retired);
    entity_rec *r = &t->slots[s];
    r->id = t->next_id++;
    r->owner = def->owner;
    r->kind = def->kind;
    r->store = def->store;
    r->row = def->row;
    r->next_free = 0;
    r->named = def->name != NULL;
    if (r->named) {
        size_t n = strlen(def->name); /* < PCS_ENTITY_NAME_MAX: pcs_name_check */
        memcpy(t->names[s], def->name, n + 1);
        r->name_hash = name_hash;
        index_insert(t, t->by_name, s);
    }
    index_insert(t, t->by_id, s);
    t->n_live++;
    if (out)
        *out = (pcs_entity_handle){s, r->generation};
    return PCS_OK;
}

pcs_status pcs_entity_destroy(pcs_world *w, pcs_entity_handle h)
{
    const pcs_entity_table *ct = NULL;
    pcs_status st = table_of(w, "pcs_entity_destroy", &ct);
    if (st == PCS_OK)
        st = handle_check(ct, h);
    if (st != PCS_OK)
        return st;
    pcs_entity_table *t = w->entities;
    entity_rec *r = &t->slots[h.index];
    if (r->named)
        index_remove(t, t->by_name, h.index);
    index_remove(t, t->by_id, h.index);
    r->id = 0;
    r->named = 0;
    t->names[h.index][0] = '\0';
    t->n_live--;
    /* Wrap: a slot that has used its last generation retires (entity.h). */
    if (r->generation == t->generation_max) {
        r->retired = 1;
        t->n_retired++;
        return PCS_OK;
    }
    r->generation++;
    r->next_free = 0;
    if (t->free_tail)
        t->slots[t->free_tail - 1].next_free = h.index + 1;
    else
        t->free_head = h.index + 1;
    t->free_tail = h.index + 1;
    return PCS_OK;
}

pcs_status pcs_entity_check(const pcs_world *w, pcs_entity_handle h)
{
    const pcs_entity_table *t = NULL;
    pcs_status st = table_of(w, "pcs_entity_check", &t);
    return st == PCS_OK ? handle_check(t, h) : st;
}

pcs_status pcs_entity_get(const pcs_world *w, pcs_entity_handle h, pcs_entity_info *out)
{
    const pcs_entity_table *t = NULL;
    pcs_status st = table_of(w, "pcs_entity_get", &t);
    if (st == PCS_OK && !out)
        st = pcs_error_set(PCS_E_INVAL, "pcs_entity_get: out is NULL");
    if (st == PCS_OK)
        st = handle_check(t, h);
    if (st != PCS_OK)
        return st;
    const entity_rec *r = &t->slots[h.index];
    *out = (pcs_entity_info){.id = r->id,
                             .name = r->named ? t->names[h.index] : NULL,
                             .kind = r->kind,
                             .owner = r->owner,
                             .store = r->store,
                             .row = r->row};
    return PCS_OK;
}

pcs_status pcs_entity_set_row(pcs_world *w, pcs_entity_handle h, uint32_t store, uint32_t row)
{
    const pcs_entity_table *t = NULL;
    pcs_status st = table_of(w, "pcs_entity_set_row", &t);
    if (st == PCS_OK)
        st = handle_check(t, h);
    if (st == PCS_OK)
        st = store_check(w, "pcs_entity_set_row", store);
    if (st != PCS_OK)
        return st;
    w->entities->slots[h.index].store = store;
    w->entities->slots[h.index].row = row;
    return PCS_OK;
}

pcs_status pcs_entity_find(const pcs_world *w, const char *name, pcs_entity_handle *out)
{
    const pcs_entity_table *t = NULL;
    pcs_status st = table_of(w, "pcs_entity_find", &t);
    if (st == PCS_OK && (!name || !out))
        st = pcs_error_set(PCS_E_INVAL, "pcs_entity_find: NULL argument");
    if (st != PCS_OK)
        return st;
    uint32_t s = name_lookup(t, name);
    if (!s)
        return pcs_error_set(PCS_E_NOTFOUND, "pcs_entity_find: no entity named '%s'", name);
    *out = (pcs_entity_handle){s - 1, t->slots[s - 1].generation};
    return PCS_OK;
}

pcs_status pcs_entity_find_id(const pcs_world *w, uint64_t id, pcs_entity_handle *out)
{
    const pcs_entity_table *t = NULL;
    pcs_status st = table_of(w, "pcs_entity_find_id", &t);
    if (st == PCS_OK && !out)
        st = pcs_error_set(PCS_E_INVAL, "pcs_entity_find_id: out is NULL");
    if (st != PCS_OK)
        return st;
    uint32_t s = id ? id_lookup(t, id) : 0;
    if (!s)
        return pcs_error_set(
            PCS_E_NOTFOUND, "pcs_entity_find_id: no live entity with id %llu (ids issued: 1..%llu)",
            (unsigned long long)id, (unsigned long long)(t->next_id - 1));
    *out = (pcs_entity_handle){s - 1, t->slots[s - 1].generation};
    return PCS_OK;
}

uint64_t pcs_entity_id(const pcs_world *w, pcs_entity_handle h)
{
    const entity_rec *r = w && w->entities ? live_rec(w->entities, h) : NULL;
    return r ? r->id : 0;
}

uint32_t pcs_entity_count(const pcs_world *w)
{
    return w && w->entities ? w->entities->n_live : 0;
}

uint32_t pcs_entity_capacity(const pcs_world *w)
{
    return w && w->entities ? w->entities->capacity : 0;
}

uint32_t pcs_entity_retired(const pcs_world *w)
{
    return w && w->entities ? w->entities->n_retired : 0;
}
