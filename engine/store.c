/**
 * @file store.c
 * @brief Named fixed-size state arrays, allocated at build from the world heap.
 *
 * The store table grows by doubling as stores are registered, with a name
 * index rebuilt at each growth (engine/name_index.h), so registering n
 * stores costs O(n) and pcs_store_find is a hash probe. A store's data and
 * name are allocations of their own: the pointers pcs_store_data and
 * pcs_store_name return stay valid while the table moves.
 */
#include <stddef.h>
#include <string.h>

#include "engine/name_index.h"
#include "engine/world_internal.h"

_Static_assert(offsetof(pcs_store_rec, name) == 0, "the name index reads a record's first member");

/* Entry of the name index where @p name is or would be inserted. */
static uint32_t index_slot(const pcs_world *w, const char *name)
{
    return pcs_name_index_slot(w->store_index, w->stores_cap, w->stores, sizeof *w->stores, name);
}

/* Room for one more store (and, at check_access 2, its hash slot). */
static pcs_status reserve(pcs_world *w, const char *fn)
{
    if (w->n_stores == w->stores_cap) {
        pcs_status st = pcs_table_limit(fn, "stores", w->n_stores);
        if (st != PCS_OK)
            return st;
        pcs_store_rec *s = pcs_name_index_grow(&w->mem, w->stores, w->n_stores, sizeof *s,
                                               &w->stores_cap, &w->store_index);
        if (!s)
            return pcs_error_set(PCS_E_NOMEM, "%s: out of memory for the store table", fn);
        w->stores = s;
    }
    if (w->cfg.check_access >= 2 && w->store_hash_cap < w->stores_cap) {
        /* hashed around each system (access_check.c); contents set per stage */
        uint64_t *h = pcs_mem_array(&w->mem, w->stores_cap, sizeof *h);
        if (!h)
            return pcs_error_set(PCS_E_NOMEM, "%s: out of memory for the store hashes", fn);
        w->store_hash = h;
        w->store_hash_cap = w->stores_cap;
    }
    return PCS_OK;
}

/* The F64 flag of a store kind, and the kind without it. */
static int kind_f64(pcs_store_kind kind)
{
    return ((unsigned)kind & (unsigned)PCS_STORE_F64) != 0;
}

static pcs_store_kind kind_base(pcs_store_kind kind)
{
    return (pcs_store_kind)((unsigned)kind & ~(unsigned)PCS_STORE_F64);
}

/* pcs_store_register's checks, the first failure its error: the build
 * phase, the name, id, the size, the kind, a name not yet taken. */
static pcs_status check_args(const pcs_world *w, const char *fn, const char *name, size_t elem_size,
                             size_t count, pcs_store_kind kind, const uint32_t *id)
{
    pcs_status st = pcs_world_check_build(w, fn);
    if (st != PCS_OK)
        return st;
    if (!name || !name[0])
        return pcs_error_set(PCS_E_INVAL, "%s: name is NULL or empty", fn);
    if (strlen(name) >= PCS_NAME_MAX)
        return pcs_error_set(PCS_E_INVAL, "%s: name '%.20s...' is longer than %u chars", fn, name,
                             PCS_NAME_MAX - 1);
    if (!id)
        return pcs_error_set(PCS_E_INVAL, "%s: id is NULL", fn);
    if (elem_size == 0 || count == 0 || count > SIZE_MAX / elem_size)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: store '%s' has size %zu x %zu; both must be >= 1 and the "
                             "product must fit in size_t",
                             fn, name, elem_size, count);
    pcs_store_kind base = kind_base(kind);
    if (base != PCS_STORE_STATE && base != PCS_STORE_SCRATCH)
        return pcs_error_set(PCS_E_INVAL, "%s: store '%s' has unknown kind %d", fn, name,
                             (int)kind);
    if (kind_f64(kind) && elem_size % sizeof(double) != 0)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: store '%s' is declared F64 but elem_size %zu is not a "
                             "multiple of %zu",
                             fn, name, elem_size, sizeof(double));
    uint32_t dup;
    if (pcs_store_find(w, name, &dup) == PCS_OK)
        return pcs_error_set(PCS_E_INVAL, "%s: store '%s' already exists (id %u)", fn, name, dup);
    return PCS_OK;
}

pcs_status pcs_store_register(pcs_world *w, const char *name, size_t elem_size, size_t count,
                              pcs_store_kind kind, uint32_t *id)
{
    static const char fn[] = "pcs_store_register";
    pcs_status st = check_args(w, fn, name, elem_size, count, kind, id);
    if (st == PCS_OK)
        st = reserve(w, fn);
    if (st != PCS_OK)
        return st;
    pcs_store_rec *s = &w->stores[w->n_stores];
    s->data = pcs_mem_array(&w->mem, count, elem_size);
    s->name = pcs_mem_strdup(&w->mem, name);
    if (!s->data || !s->name)
        return pcs_error_set(PCS_E_NOMEM, "%s: no memory for store '%s' (%zu bytes)", fn, name,
                             count * elem_size);
    s->elem_size = elem_size;
    s->count = count;
    s->kind = kind_base(kind);
    s->f64 = kind_f64(kind);
    w->store_index[index_slot(w, s->name)] = w->n_stores + 1;
    *id = w->n_stores++;
    pcs_error_clear(); /* check_args' failed duplicate lookup set a message */
    return PCS_OK;
}

void *pcs_store_data(pcs_world *w, uint32_t id)
{
    if (!w || id >= w->n_stores) {
        pcs_error_set(PCS_E_NOTFOUND, "pcs_store_data: no store with id %u", id);
        return NULL;
    }
    pcs_access_note(w, id); /* check_access: an undeclared access fails the tick */
    return w->stores[id].data;
}

size_t pcs_store_bytes(const pcs_world *w, uint32_t id)
{
    if (!w || id >= w->n_stores)
        return 0;
    return w->stores[id].elem_size * w->stores[id].count;
}

pcs_status pcs_store_find(const pcs_world *w, const char *name, uint32_t *id)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_store_find: NULL argument");
    return pcs_name_index_find("pcs_store_find", "store", w->store_index, w->stores_cap, w->stores,
                               sizeof *w->stores, w->n_stores, name, id);
}

uint32_t pcs_store_count(const pcs_world *w)
{
    return w ? w->n_stores : 0;
}

const char *pcs_store_name(const pcs_world *w, uint32_t id)
{
    return (w && id < w->n_stores) ? w->stores[id].name : NULL;
}

pcs_store_kind pcs_store_kind_of(const pcs_world *w, uint32_t id)
{
    return (w && id < w->n_stores) ? w->stores[id].kind : PCS_STORE_SCRATCH;
}

int pcs_store_is_f64(const pcs_world *w, uint32_t id)
{
    return (w && id < w->n_stores) ? w->stores[id].f64 : 0;
}
