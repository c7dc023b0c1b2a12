/**
 * @file channel.c
 * @brief The channel registry: names of published store elements.
 *
 * Names are found through a name index (engine/name_index.h), rebuilt when
 * the channel array grows: registering n channels costs O(n) rather than
 * O(n^2) duplicate checks, and readers resolving names stay cheap. Lookup
 * order never leaks into results. The array has no fixed size: it doubles
 * during the build (up to PCS_WORLD_IDS_MAX); a channel's name and unit are
 * allocations of their own, so pcs_channel_get's strings outlive growth.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "engine/name_index.h"
#include "engine/world_internal.h"
#include "pcsim/structure.h" /* its PCS_API on pcs_channel_retire, _live: exported from the .so */

_Static_assert(offsetof(pcs_channel_rec, name) == 0,
               "the name index reads a record's first member");

/* Ids. A channel's id is its slot, given once: a retired channel keeps its
 * slot (name NULL, info kept for messages), so pcs_channel_count stays the
 * id range and an id a host kept names its channel or fails, never another
 * (structure.h, "Retiring"). Its name leaves the index at once
 * (pcs_name_index_remove), so a later channel may take it with a new id. */

/* Entry of the name index where @p name is or would be inserted. */
static uint32_t index_slot(const pcs_world *w, const char *name)
{
    return pcs_name_index_slot(w->channel_index, w->channels_cap, w->channels, sizeof *w->channels,
                               name);
}

pcs_status pcs_name_check(const char *who, const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n >= 128)
        return pcs_error_set(PCS_E_INVAL, "%s: name must be 1..127 chars", who);
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '.' || c == '-';
        if (!ok || (c == '.' && (i == 0 || i == n - 1 || name[i - 1] == '.')))
            return pcs_error_set(PCS_E_INVAL,
                                 "%s: name '%s' has a bad character or empty segment at "
                                 "position %zu (allowed: [A-Za-z0-9_-] segments joined by '.')",
                                 who, name, i);
    }
    return PCS_OK;
}

static pcs_status grow(pcs_world *w)
{
    if (w->n_channels < w->channels_cap)
        return PCS_OK;
    pcs_status st = pcs_table_limit("pcs_channel_register", "channels", w->n_channels);
    if (st != PCS_OK)
        return st;
    pcs_channel_rec *c = pcs_name_index_grow(&w->mem, w->channels, w->n_channels, sizeof *c,
                                             &w->channels_cap, &w->channel_index);
    if (!c)
        return pcs_error_set(PCS_E_NOMEM, "pcs_channel_register: out of memory");
    w->channels = c;
    return PCS_OK;
}

static pcs_status check_target(const pcs_world *w, const char *name, pcs_channel_kind kind,
                               uint32_t store, uint32_t index)
{
    if (store >= w->n_stores)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_channel_register: '%s' names store id %u, which "
                             "does not exist",
                             name, store);
    const pcs_store_rec *s = &w->stores[store];
    size_t want = kind == PCS_CHANNEL_F64 ? 8 : kind == PCS_CHANNEL_U32 ? 4 : 0;
    if (want == 0 || s->elem_size != want)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_channel_register: '%s' kind %d needs %zu-byte elements; store "
                             "'%s' has %zu",
                             name, (int)kind, want, s->name, s->elem_size);
    if (index >= s->count)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_channel_register: '%s' index %u is outside store '%s' [0, %zu)",
                             name, index, s->name, s->count);
    return PCS_OK;
}

pcs_status pcs_channel_register(pcs_world *w, const char *name, const char *unit,
                                pcs_channel_kind kind, uint32_t store, uint32_t index, uint32_t *id)
{
    pcs_status st = pcs_world_check_build(w, "pcs_channel_register");
    if (st == PCS_OK)
        st = pcs_name_check("pcs_channel_register", name);
    if (st == PCS_OK)
        st = check_target(w, name, kind, store, index);
    uint32_t dup;
    if (st == PCS_OK && pcs_channel_find(w, name, &dup) == PCS_OK)
        st = pcs_error_set(PCS_E_INVAL, "pcs_channel_register: channel '%s' already exists", name);
    if (st == PCS_OK)
        st = grow(w);
    if (st != PCS_OK)
        return st;
    pcs_channel_rec *c = &w->channels[w->n_channels];
    memset(c, 0, sizeof *c);
    c->info.name = pcs_mem_strdup(&w->mem, name);
    c->info.unit = pcs_mem_strdup(&w->mem, unit ? unit : "");
    if (!c->info.name || !c->info.unit)
        return pcs_error_set(PCS_E_NOMEM, "pcs_channel_register: out of memory");
    c->name = c->info.name;
    c->info.kind = kind;
    c->info.store = store;
    c->info.index = index;
    w->channel_index[index_slot(w, c->name)] = w->n_channels + 1;
    if (id)
        *id = w->n_channels;
    w->n_channels++;
    pcs_error_clear();
    return PCS_OK;
}

pcs_status pcs_channel_find(const pcs_world *w, const char *name, uint32_t *id)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_channel_find: NULL argument");
    return pcs_name_index_find("pcs_channel_find", "channel", w->channel_index, w->channels_cap,
                               w->channels, sizeof *w->channels, w->n_channels, name, id);
}

/* The id range: retired channels keep their ids (file comment). */
uint32_t pcs_channel_count(const pcs_world *w)
{
    return w ? w->n_channels : 0;
}

int pcs_channel_live(const pcs_world *w, uint32_t id)
{
    return w && id < w->n_channels && w->channels[id].name != NULL;
}

/* PCS_E_NOTFOUND for retired channel @p id, naming it and its tick. */
static pcs_status retired_error(const pcs_world *w, const char *fn, uint32_t id)
{
    const pcs_channel_rec *c = &w->channels[id];
    return pcs_error_set(PCS_E_NOTFOUND, "%s: channel %u '%s' was retired at tick %llu", fn, id,
                         c->info.name, (unsigned long long)c->retired_at);
}

pcs_status pcs_channel_get(const pcs_world *w, uint32_t id, pcs_channel_info *out)
{
    if (!w || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_channel_get: NULL argument");
    if (id >= w->n_channels)
        return pcs_error_set(PCS_E_NOTFOUND, "pcs_channel_get: id %u >= channel count %u", id,
                             w->n_channels);
    if (!w->channels[id].name)
        return retired_error(w, "pcs_channel_get", id);
    *out = w->channels[id].info;
    return PCS_OK;
}

double pcs_channel_value(const pcs_world *w, uint32_t id)
{
    if (!w || id >= w->n_channels)
        return NAN;
    const pcs_channel_rec *c = &w->channels[id];
    if (!c->name) {
        retired_error(w, "pcs_channel_value", id);
        return NAN;
    }
    const pcs_store_rec *s = &w->stores[c->info.store];
    if (c->info.kind == PCS_CHANNEL_F64)
        return ((const double *)s->data)[c->info.index];
    return (double)((const uint32_t *)s->data)[c->info.index];
}

/* Channel @p id's name when it is retired, else NULL (pcs_retire_check). */
static const char *retired_name(const pcs_world *w, uint32_t id)
{
    return w->channels[id].name ? NULL : w->channels[id].info.name;
}

pcs_status pcs_channel_retire(pcs_world *w, uint32_t id)
{
    pcs_status st = pcs_retire_check(w, "pcs_channel_retire", "channel", id, w ? w->n_channels : 0,
                                     retired_name);
    if (st != PCS_OK)
        return st;
    pcs_name_index_remove(w->channel_index, w->channels_cap, w->channels, sizeof *w->channels, id);
    w->channels[id].name = NULL;
    w->channels[id].retired_at = w->clock.tick;
    w->n_retired_channels++;
    return PCS_OK;
}
