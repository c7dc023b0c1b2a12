/**
 * @file entity.c
 * @brief The world's entity table (pcsim/entity.h): slots with generations,
 *        a first-in first-out free list, and two open-addressing indexes
 *        (name -> slot, id -> slot) with backward-shift deletion.
 *
 * Layout. Allocated once, at pcs_entity_table_add, from the world heap:
 * `capacity` slot records (each with its 128-byte name), and two indexes of
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
 *
 * Saves and the hash (entity_internal.h). A slot record is saved and hashed
 * as its bytes, so it is kept canonical: no padding, names zero-padded, and
 * destroy clears all but the generation. A load checks the saved records
 * into a staged copy, rebuilding both indexes there (a duplicate id or live
 * name is found as it is inserted), and applies it by copying.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "engine/entity_internal.h"
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
    uint16_t reserved;              /* 0: no padding, the record is saved and hashed as bytes */
    char name[PCS_ENTITY_NAME_MAX]; /* zero-padded; all zeros when unnamed */
} entity_rec;

_Static_assert(sizeof(entity_rec) == PCS_ENTITY_SAVE_REC, "entity_rec is the saved record");

struct pcs_entity_table {
    entity_rec *slots;
    uint32_t *by_name; /* 2 x cap entries: slot + 1, 0 = empty */
    uint32_t *by_id;   /* 2 x cap entries */
    uint32_t cap;      /* index size: a power of two >= capacity */
    /* The configuration and counters, kept as the save section's head so a
     * save, a load's stage and its apply copy them whole: capacity (slots that
     * may be handed out), generation_max (a slot retires after it), used
     * (slots handed out at least once: [0, used)), n_live, n_retired, the
     * free list free_head and free_tail (slot + 1, 0 = empty) and next_id. */
    pcs_entity_save_head h;
    /* capacity flags, not saved or hashed: 1 while the slot's entity is one
     * the build or a structural apply created (the scenario's and its
     * structural changes': a load compares them with the save's). NULL in a
     * staged table. */
    uint8_t *structural;
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
        if (t->slots[s].name_hash == h && strcmp(t->slots[s].name, name) == 0)
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

/* pcs_entity_table_add's refusals: outside the build phase, a NULL def or
 * one outside its ranges, a second table. */
static pcs_status check_table_add(const pcs_world *w, const pcs_entity_table_def *def,
                                  const char *who)
{
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
                             who, w->entities->h.capacity);
    return PCS_OK;
}

pcs_status pcs_entity_table_add(pcs_world *w, const pcs_entity_table_def *def)
{
    static const char who[] = "pcs_entity_table_add";
    pcs_status st = check_table_add(w, def, who);
    if (st != PCS_OK)
        return st;
    /* The index mask needs a power of two; the slots beyond capacity are
     * never handed out, so the capacity stays what was asked. */
    uint32_t icap = pow2_at_least(def->capacity);
    pcs_entity_table *t = pcs_mem_alloc(&w->mem, sizeof *t);
    entity_rec *slots = pcs_mem_array(&w->mem, def->capacity, sizeof *slots);
    uint32_t *by_name = pcs_mem_array(&w->mem, 2 * (size_t)icap, sizeof *by_name);
    uint32_t *by_id = pcs_mem_array(&w->mem, 2 * (size_t)icap, sizeof *by_id);
    uint8_t *structural = pcs_mem_array(&w->mem, def->capacity, 1);
    if (!t || !slots || !by_name || !by_id || !structural)
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory for %u entities", who, def->capacity);
    *t = (pcs_entity_table){
        .slots = slots,
        .by_name = by_name,
        .by_id = by_id,
        .cap = icap,
        .h = {.next_id = 1, .capacity = def->capacity, .generation_max = def->generation_max},
        .structural = structural};
    memset(structural, 0, def->capacity);
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

/* The live record @p h names, or NULL: the one test every handle passes
 * (handle_check adds the message, pcs_entity_id uses it bare). */
static const entity_rec *live_rec(const pcs_entity_table *t, pcs_entity_handle h)
{
    if (h.generation == 0 || h.index >= t->h.capacity)
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
    if (h.index >= t->h.capacity)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "entity handle (index %u, generation %u) is outside the table "
                             "(capacity %u)",
                             h.index, h.generation, t->h.capacity);
    const entity_rec *r = &t->slots[h.index];
    uint32_t gen = h.index < t->h.used ? r->generation : 1;
    if (r->id != 0)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "entity handle (index %u, generation %u) is stale: slot %u is at "
                             "generation %u (entity %llu '%s')",
                             h.index, h.generation, h.index, gen, (unsigned long long)r->id,
                             r->named ? r->name : "");
    return pcs_error_set(PCS_E_NOTFOUND,
                         "entity handle (index %u, generation %u) is stale: slot %u is at "
                         "generation %u (%s)",
                         h.index, h.generation, h.index, gen, r->retired ? "retired" : "free");
}

/* A (store, row) an entity may hold: a registered store and one of its rows,
 * or no store and row 0. The loader holds a saved table to the same rule. */
static pcs_status store_check(const pcs_world *w, const char *who, uint32_t store, uint32_t row)
{
    if (store == PCS_ENTITY_NO_STORE) {
        if (row == 0)
            return PCS_OK;
        return pcs_error_set(PCS_E_INVAL, "%s: row %u without a store (allowed 0)", who, row);
    }
    if (store >= w->n_stores)
        return pcs_error_set(PCS_E_INVAL, "%s: store %u is not registered (%u stores)", who, store,
                             w->n_stores);
    if (row >= w->stores[store].count)
        return pcs_error_set(PCS_E_INVAL, "%s: row %u is outside store %u '%s' (%zu rows)", who,
                             row, store, w->stores[store].name, w->stores[store].count);
    return PCS_OK;
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
    return store_check(w, who, def->store, def->row);
}

/* The oldest free slot, else the next never-used one; UINT32_MAX when none. */
static uint32_t slot_take(pcs_entity_table *t)
{
    if (t->h.free_head) {
        uint32_t s = t->h.free_head - 1;
        t->h.free_head = t->slots[s].next_free;
        if (!t->h.free_head)
            t->h.free_tail = 0;
        return s;
    }
    if (t->h.used < t->h.capacity) {
        t->slots[t->h.used].generation = 1;
        return t->h.used++;
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
                             def->name ? def->name : "(unnamed)", t->h.capacity, t->h.n_live,
                             t->h.n_retired);
    entity_rec *r = &t->slots[s];
    r->id = t->h.next_id++;
    r->owner = def->owner;
    r->kind = def->kind;
    r->store = def->store;
    r->row = def->row;
    r->next_free = 0;
    r->named = def->name != NULL;
    if (r->named) {
        size_t n = strlen(def->name);      /* < PCS_ENTITY_NAME_MAX: pcs_name_check */
        memcpy(r->name, def->name, n + 1); /* the rest is zeros: a free slot's name is */
        r->name_hash = name_hash;
        index_insert(t, t->by_name, s);
    }
    index_insert(t, t->by_id, s);
    t->h.n_live++;
    t->structural[s] = !w->sealed || w->amending; /* registration open: the build's or a change's */
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
    if (t->structural[h.index] && w->sealed && !w->amending)
        return pcs_error_set(PCS_E_STATE,
                             "pcs_entity_destroy: entity %llu '%s' (slot %u) was made by the "
                             "world's build or a structural change: remove it with the structural "
                             "command that takes its device out (structure.h), so a save's "
                             "structure log records it",
                             (unsigned long long)r->id, r->named ? r->name : "(unnamed)", h.index);
    t->structural[h.index] = 0;
    if (r->named)
        index_remove(t, t->by_name, h.index);
    index_remove(t, t->by_id, h.index);
    /* A free slot keeps its generation and nothing else (entity_internal.h:
     * the same table always has the same bytes, for the save and the hash). */
    *r = (entity_rec){.generation = r->generation};
    t->h.n_live--;
    /* Wrap: a slot that has used its last generation retires (entity.h). */
    if (r->generation == t->h.generation_max) {
        r->retired = 1;
        t->h.n_retired++;
        return PCS_OK;
    }
    r->generation++;
    r->next_free = 0;
    if (t->h.free_tail)
        t->slots[t->h.free_tail - 1].next_free = h.index + 1;
    else
        t->h.free_head = h.index + 1;
    t->h.free_tail = h.index + 1;
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
                             .name = r->named ? r->name : NULL,
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
        st = store_check(w, "pcs_entity_set_row", store, row);
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
            (unsigned long long)id, (unsigned long long)(t->h.next_id - 1));
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
    return w && w->entities ? w->entities->h.n_live : 0;
}

uint32_t pcs_entity_capacity(const pcs_world *w)
{
    return w && w->entities ? w->entities->h.capacity : 0;
}

uint32_t pcs_entity_retired(const pcs_world *w)
{
    return w && w->entities ? w->entities->h.n_retired : 0;
}

/* ---- save section and state hash (entity_internal.h) ----------------------- */

const void *pcs_entity_save_view(const pcs_entity_table *t, pcs_entity_save_head *head)
{
    *head = t->h;
    return t->slots;
}

uint64_t pcs_entity_digest(const pcs_entity_table *t)
{
    pcs_entity_save_head head;
    pcs_entity_save_view(t, &head);
    XXH3_state_t h; /* on the stack: XXH3_createState would allocate */
    XXH3_64bits_reset(&h);
    XXH3_64bits_update(&h, &head, sizeof head);
    XXH3_64bits_update(&h, t->slots, (size_t)t->h.used * sizeof *t->slots);
    return XXH3_64bits_digest(&h);
}

struct pcs_entity_stage {
    pcs_entity_table t; /* counters; arrays in the same block */
};

static pcs_status bad(uint32_t slot, const char *field, unsigned long long value,
                      const char *allowed_fmt, ...) __attribute__((format(printf, 4, 5)));

/* "section 'entities' slot S: FIELD VALUE (allowed ALLOWED)"; slot
 * UINT32_MAX is the head. */
static pcs_status bad(uint32_t slot, const char *field, unsigned long long value,
                      const char *allowed_fmt, ...)
{
    char allowed[200], where[32];
    va_list ap;
    va_start(ap, allowed_fmt);
    vsnprintf(allowed, sizeof allowed, allowed_fmt, ap);
    va_end(ap);
    if (slot == UINT32_MAX)
        snprintf(where, sizeof where, "head");
    else
        snprintf(where, sizeof where, "slot %u", slot);
    pcs_error_set(PCS_E_CORRUPT, "section '" PCS_ENTITY_SECTION "' %s: %s %llu (allowed %s)", where,
                  field, value, allowed);
    return PCS_E_CORRUPT;
}

/* The head against the world's table: its configuration and ranges. */
static pcs_status head_check(const pcs_entity_table *t, const pcs_entity_save_head *h)
{
    if (h->capacity != t->h.capacity)
        return bad(UINT32_MAX, "capacity", h->capacity, "%u: this world's", t->h.capacity);
    if (h->generation_max != t->h.generation_max)
        return bad(UINT32_MAX, "generation_max", h->generation_max, "%u: this world's",
                   t->h.generation_max);
    if (h->next_id == 0)
        return bad(UINT32_MAX, "next_id", 0, "1..: ids start at 1");
    if (h->used > t->h.capacity)
        return bad(UINT32_MAX, "used", h->used, "0..%u", t->h.capacity);
    if (h->free_head > h->used)
        return bad(UINT32_MAX, "free_head", h->free_head, "0..%u: slot + 1 of a used slot",
                   h->used);
    if (h->free_tail > h->used)
        return bad(UINT32_MAX, "free_tail", h->free_tail, "0..%u: slot + 1 of a used slot",
                   h->used);
    if (h->reserved != 0)
        return bad(UINT32_MAX, "reserved", h->reserved, "0");
    return PCS_OK;
}

/* Slot @p s's name: NUL-terminated, zero-padded, pcs_name_check's rule and
 * its hash; all zeros and hash 0 when unnamed. */
static pcs_status name_field_check(uint32_t s, const entity_rec *r)
{
    size_t n = strnlen(r->name, sizeof r->name);
    if (r->named > 1)
        return bad(s, "named", r->named, "0 or 1");
    if (!r->named && (n != 0 || r->name_hash != 0))
        return bad(s, "name length", n, "0 with name hash 0: the slot is unnamed (name hash %llu)",
                   (unsigned long long)r->name_hash);
    if (r->named) {
        if (n == sizeof r->name)
            return bad(s, "name length", n, "1..%u: no NUL in its %u bytes",
                       PCS_ENTITY_NAME_MAX - 1, PCS_ENTITY_NAME_MAX);
        char who[48];
        snprintf(who, sizeof who, "section '" PCS_ENTITY_SECTION "' slot %u", s);
        if (pcs_name_check(who, r->name) != PCS_OK)
            return PCS_E_CORRUPT;
        uint64_t want = XXH3_64bits(r->name, n);
        if (r->name_hash != want)
            return bad(s, "name hash", r->name_hash, "%llu: XXH3-64 of '%s'",
                       (unsigned long long)want, r->name);
    }
    for (size_t i = n; i < sizeof r->name; i++)
        if (r->name[i] != 0)
            return bad(s, "name byte", (unsigned char)r->name[i],
                       "0 after the name's %zu chars, "
                       "at byte %zu",
                       n, i);
    return PCS_OK;
}

/* Lives slot @p s's generation counts (see the next_id rule in load_stage). */
static uint64_t lives_of(const entity_rec *r)
{
    return r->id != 0 || r->retired ? r->generation : r->generation - 1u;
}

/* Running state of the slot walk: ids of first-life slots increase with the slot. */
typedef struct slot_walk {
    uint64_t lives, last_first_id;
    uint32_t live, retired, free;
} slot_walk;

/* A live slot: id in range and unique, owner older, (store, row) valid; indexed. */
static pcs_status live_check(const pcs_world *w, pcs_entity_table *st, uint32_t s, slot_walk *k,
                             uint64_t next_id)
{
    const entity_rec *r = &st->slots[s];
    uint64_t lo = (uint64_t)s + r->generation;
    if (r->generation == 1 && k->last_first_id + 1 > lo)
        lo = k->last_first_id + 1;
    if (r->id < lo || r->id >= next_id)
        return bad(s, "id", r->id, "%llu..%llu: after the slot's earlier lives and below next_id",
                   (unsigned long long)lo, (unsigned long long)next_id - 1);
    if (r->generation == 1)
        k->last_first_id = r->id;
    uint32_t dup = id_lookup(st, r->id);
    if (dup)
        return bad(s, "id", r->id, "unique: slot %u has it", dup - 1);
    if (r->owner >= r->id)
        return bad(s, "owner", r->owner, "0..%llu: an entity created before it",
                   (unsigned long long)r->id - 1);
    if (r->store != PCS_ENTITY_NO_STORE && r->store >= w->n_stores)
        return bad(s, "store", r->store, "0..%u or %u (none)", w->n_stores - 1,
                   PCS_ENTITY_NO_STORE);
    if (r->store == PCS_ENTITY_NO_STORE && r->row != 0)
        return bad(s, "row", r->row, "0: no store");
    if (r->store != PCS_ENTITY_NO_STORE && r->row >= w->stores[r->store].count)
        return bad(s, "row", r->row, "below %zu: store %u '%s' has %zu rows",
                   w->stores[r->store].count, r->store, w->stores[r->store].name,
                   w->stores[r->store].count);
    if (r->named) {
        uint32_t other = name_lookup_hashed(st, r->name, r->name_hash);
        if (other)
            return pcs_error_set(PCS_E_CORRUPT,
                                 "section '" PCS_ENTITY_SECTION "' slot %u: name '%s' (allowed: "
                                 "unique among live entities: slot %u has it)",
                                 s, r->name, other - 1);
        index_insert(st, st->by_name, s);
    }
    index_insert(st, st->by_id, s);
    return PCS_OK;
}

/* One slot of [0, used): flags, generation, fields of a free or retired slot. */
static pcs_status slot_check(const pcs_world *w, pcs_entity_table *st, uint32_t s, slot_walk *k,
                             uint64_t next_id)
{
    const entity_rec *r = &st->slots[s];
    uint32_t gmax = st->h.generation_max;
    if (r->retired > 1 || (r->retired && r->id != 0))
        return bad(s, "retired", r->retired, "0 or 1; 0 while live (id %llu)",
                   (unsigned long long)r->id);
    if (r->reserved != 0)
        return bad(s, "reserved", r->reserved, "0");
    uint32_t glo = r->id != 0 ? 1u : r->retired ? gmax : 2u;
    if (r->generation < glo || r->generation > gmax)
        return bad(s, "generation", r->generation, "%u..%u for a %s slot", glo, gmax,
                   r->id != 0   ? "live"
                   : r->retired ? "retired"
                                : "free");
    pcs_status rc = name_field_check(s, r);
    if (rc != PCS_OK)
        return rc;
    if (r->id == 0) { /* free or retired: nothing but the generation and the link */
        const struct {
            const char *field;
            uint64_t value;
        } f[] = {{"owner", r->owner},
                 {"kind", r->kind},
                 {"store", r->store},
                 {"row", r->row},
                 {"named", r->named}};
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
            if (f[i].value != 0)
                return bad(s, f[i].field, f[i].value, "0: the slot is %s",
                           r->retired ? "retired" : "free");
    }
    uint32_t link_max = r->id != 0 || r->retired ? 0u : st->h.used;
    if (r->next_free > link_max)
        return bad(s, "next_free", r->next_free, "0..%u: the slot is %s", link_max,
                   r->id != 0   ? "live"
                   : r->retired ? "retired"
                                : "free");
    k->lives += lives_of(r);
    k->live += r->id != 0;
    k->retired += r->retired;
    k->free += r->id == 0 && !r->retired;
    return r->id != 0 ? live_check(w, st, s, k, next_id) : PCS_OK;
}

/* The free list runs through exactly the free slots, each once, head to tail. */
static pcs_status free_list_check(const pcs_entity_table *st, uint32_t n_free)
{
    uint32_t s1 = st->h.free_head, last = 0;
    for (uint32_t i = 0; i < n_free; i++) {
        if (s1 == 0)
            return bad(last ? last - 1 : UINT32_MAX, last ? "next_free" : "free_head", 0,
                       "1..%u: the list has %u of the %u free slots", st->h.used, i, n_free);
        const entity_rec *r = &st->slots[s1 - 1];
        if (r->id != 0 || r->retired)
            return bad(last ? last - 1 : UINT32_MAX, last ? "next_free" : "free_head", s1,
                       "a free slot + 1: slot %u is %s", s1 - 1, r->retired ? "retired" : "live");
        last = s1;
        s1 = r->next_free;
    }
    if (s1 != 0) /* a cycle or a repeat: more links than free slots */
        return bad(last ? last - 1 : UINT32_MAX, last ? "next_free" : "free_head", s1,
                   "0: the list's end after the %u free slots", n_free);
    if (st->h.free_tail != last)
        return bad(UINT32_MAX, "free_tail", st->h.free_tail, "%u: the list's last slot + 1", last);
    return PCS_OK;
}

static pcs_status table_check(const pcs_world *w, pcs_entity_table *st)
{
    slot_walk k = {0};
    for (uint32_t s = 0; s < st->h.used; s++) {
        pcs_status rc = slot_check(w, st, s, &k, st->h.next_id);
        if (rc != PCS_OK)
            return rc;
    }
    for (uint32_t s = st->h.used; s < st->h.capacity; s++) {
        const unsigned char *p = (const unsigned char *)&st->slots[s];
        for (size_t i = 0; i < sizeof(entity_rec); i++)
            if (p[i] != 0)
                return bad(s, "record byte", p[i],
                           "0 at byte %zu: slots from used (%u) on were "
                           "never handed out",
                           i, st->h.used);
    }
    /* Every create took one id, and a slot's generation counts its lives. */
    if (st->h.next_id != k.lives + 1)
        return bad(UINT32_MAX, "next_id", st->h.next_id,
                   "%llu: 1 + the lives the generations count", (unsigned long long)k.lives + 1);
    if (st->h.n_live != k.live)
        return bad(UINT32_MAX, "n_live", st->h.n_live, "%u: the live slots", k.live);
    if (st->h.n_retired != k.retired)
        return bad(UINT32_MAX, "n_retired", st->h.n_retired, "%u: the retired slots", k.retired);
    return free_list_check(st, k.free);
}

/* One field of a structural slot differs: name the slot, the field, the
 * save's value and the world's. */
static pcs_status differs(uint32_t s, const entity_rec *mine, const char *field, const char *saved,
                          const char *built)
{
    pcs_error_set(PCS_E_CORRUPT,
                  "section '" PCS_ENTITY_SECTION "' slot %u: %s %s in the save; the world's build "
                  "and structural changes made entity '%s' there with %s %s (a structural "
                  "entity must be saved as built)",
                  s, field, saved, mine->named ? mine->name : "(unnamed)", field, built);
    return PCS_E_CORRUPT;
}

/* Structural slot @p s of the world against the save's, field by field. */
static pcs_status structural_same(uint32_t s, const entity_rec *mine, const entity_rec *saved)
{
    const struct {
        const char *field;
        uint64_t saved, built;
    } f[] = {
        {"id", saved->id, mine->id},          {"generation", saved->generation, mine->generation},
        {"kind", saved->kind, mine->kind},    {"owner", saved->owner, mine->owner},
        {"store", saved->store, mine->store}, {"row", saved->row, mine->row}};
    char a[32], b[32];
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].saved != f[i].built) {
            snprintf(a, sizeof a, "%llu", (unsigned long long)f[i].saved);
            snprintf(b, sizeof b, "%llu", (unsigned long long)f[i].built);
            return differs(s, mine, f[i].field, a, b);
        }
    if (saved->named != mine->named || memcmp(saved->name, mine->name, sizeof mine->name) != 0) {
        char sa[PCS_ENTITY_NAME_MAX + 2], mi[PCS_ENTITY_NAME_MAX + 2];
        snprintf(sa, sizeof sa, "'%.*s'", (int)strnlen(saved->name, sizeof saved->name),
                 saved->named ? saved->name : "");
        snprintf(mi, sizeof mi, "'%s'", mine->named ? mine->name : "");
        return differs(s, mine, "name", sa, mi);
    }
    return PCS_OK;
}

/* Every entity the world's build and structural applies made, in the save
 * as made; the save's other slots were checked field by field. */
static pcs_status structural_check(const pcs_entity_table *t, const pcs_entity_table *st)
{
    for (uint32_t s = 0; s < t->h.used; s++) {
        if (!t->structural[s])
            continue;
        pcs_status rc = structural_same(s, &t->slots[s], &st->slots[s]);
        if (rc != PCS_OK)
            return rc;
    }
    return PCS_OK;
}

pcs_status pcs_entity_load_stage(const pcs_world *w, const unsigned char *sec, size_t bytes,
                                 pcs_entity_stage **out)
{
    const pcs_entity_table *t = w->entities;
    pcs_entity_save_head h;
    size_t recs = (size_t)t->h.capacity * sizeof(entity_rec);
    if (bytes != sizeof h + recs)
        return bad(UINT32_MAX, "bytes", bytes, "%zu", sizeof h + recs);
    memcpy(&h, sec, sizeof h);
    pcs_status rc = head_check(t, &h);
    if (rc != PCS_OK)
        return rc;
    size_t ix = 2 * (size_t)t->cap * sizeof(uint32_t);
    pcs_entity_stage *stg = calloc(1, sizeof *stg + recs + 2 * ix);
    if (!stg)
        return pcs_error_set(PCS_E_NOMEM, "pcs_world_load: no memory to stage %u entities",
                             t->h.capacity);
    pcs_entity_table *st = &stg->t;
    *st = (pcs_entity_table){.slots = (entity_rec *)(void *)(stg + 1),
                             .cap = t->cap,
                             .h = h}; /* head_check: its capacity and generation_max are t's */
    st->by_name = (uint32_t *)(void *)((unsigned char *)st->slots + recs);
    st->by_id = st->by_name + 2 * (size_t)t->cap;
    memcpy(st->slots, sec + sizeof h, recs);
    rc = table_check(w, st);
    if (rc == PCS_OK)
        rc = structural_check(t, st);
    if (rc == PCS_OK)
        *out = stg;
    else
        free(stg);
    return rc;
}

void pcs_entity_load_apply(pcs_world *w, const pcs_entity_stage *stg)
{
    pcs_entity_table *t = w->entities;
    const pcs_entity_table *st = &stg->t;
    size_t ix = 2 * (size_t)t->cap * sizeof(uint32_t);
    memcpy(t->slots, st->slots, (size_t)t->h.capacity * sizeof *t->slots);
    memcpy(t->by_name, st->by_name, ix);
    memcpy(t->by_id, st->by_id, ix);
    t->h = st->h; /* the configuration too: head_check made it equal */
}
