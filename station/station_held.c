/**
 * @file station_held.c
 * @brief Held outputs of gated units (station_held.h): which SCRATCH stores
 *        a unit has, where each sits in the held STATE store, and the copies.
 *
 * The stores are found by name once, at build ("uN." prefixes, as the gates
 * find a unit's systems), in store-id order, so a world built from the same
 * scenario lays the held store out alike and a save of it loads. Units
 * added while running (unit_add) are not covered: the set is fixed at build.
 *
 * The held copy is STATE, so a save carries it and a load must check it: a
 * frozen unit's copy is written back into its SCRATCH outputs at every tick,
 * so a non-finite value a crafted save put there would only surface as a
 * failed tick (the finite check), far from the load that let it in. The
 * load check refuses it at the load, naming the store it came from.
 */
#include <stdio.h>
#include <string.h>

#include "pcsim/math.h"
#include "pcsim/persist.h"
#include "pcsim/system.h"
#include "station/station_held.h"

struct pcs_station_held {
    uint32_t store;   /* the held copy (STATE, bytes) */
    uint32_t n_units; /* units covered */
    uint32_t *first;  /* n_units + 1: unit i's stores are ids[first[i], first[i + 1]) */
    uint32_t *ids;    /* SCRATCH store ids, unit by unit */
    size_t *at;       /* byte offset of each in the held copy */
    uint32_t n_ids;
};

/* 1 if store @p id is a SCRATCH store of the unit named by @p prefix. */
static int unit_scratch(const pcs_world *w, uint32_t id, const char *prefix, size_t len)
{
    return pcs_store_kind_of(w, id) == PCS_STORE_SCRATCH &&
           strncmp(pcs_store_name(w, id), prefix, len) == 0;
}

/* Record unit @p number's SCRATCH stores after those already recorded,
 * their offsets from *@p bytes on. */
static void collect_unit(const pcs_world *w, pcs_station_held *h, uint32_t number, size_t *bytes)
{
    char prefix[16];
    int len = snprintf(prefix, sizeof prefix, "u%u.", number);
    uint32_t ns = pcs_store_count(w);
    for (uint32_t id = 0; id < ns; id++) {
        if (!unit_scratch(w, id, prefix, (size_t)len))
            continue;
        h->ids[h->n_ids] = id;
        h->at[h->n_ids++] = *bytes;
        *bytes += pcs_store_bytes(w, id);
    }
}

/* Load check: every double the staged held copy keeps of a float64 store
 * is finite (no range: a held output may be anything its model computes). */
static pcs_status held_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_station_held *h = ctx;
    const unsigned char *held = pcs_load_view_store(v, h->store);
    for (uint32_t k = 0; held && k < h->n_ids; k++) {
        if (!pcs_store_is_f64(w, h->ids[k]))
            continue;
        size_t n = pcs_store_bytes(w, h->ids[k]) / sizeof(double);
        for (size_t i = 0; i < n; i++) {
            double x; /* memcpy: a copy sits after stores of any size */
            memcpy(&x, held + h->at[k] + i * sizeof x, sizeof x);
            if (!pcs_isfinite(x))
                return pcs_error_set(PCS_E_CORRUPT,
                                     "store '%s' byte %zu (the held copy of '%s' element %zu): "
                                     "value %.17g is not finite",
                                     pcs_store_name(w, h->store), h->at[k] + i * sizeof x,
                                     pcs_store_name(w, h->ids[k]), i, x);
        }
    }
    return PCS_OK;
}

pcs_status pcs_station_held_add(pcs_world *w, const uint32_t *numbers, uint32_t n,
                                const char *store_name, pcs_station_held **out)
{
    uint32_t ns = pcs_store_count(w);
    pcs_station_held *h = pcs_world_alloc(w, sizeof *h);
    if (h) {
        memset(h, 0, sizeof *h);
        h->first = pcs_world_alloc(w, (n + 1) * sizeof *h->first);
        /* A store belongs to one unit at most: ns bounds every unit's together. */
        h->ids = pcs_world_alloc(w, (ns + 1) * sizeof *h->ids);
        h->at = pcs_world_alloc(w, (ns + 1) * sizeof *h->at);
    }
    if (!h || !h->first || !h->ids || !h->at)
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory for the held outputs", store_name);
    size_t bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        h->first[i] = h->n_ids;
        collect_unit(w, h, numbers[i], &bytes);
    }
    h->first[n] = h->n_ids;
    h->n_units = n;
    pcs_status rc =
        pcs_store_register(w, store_name, 1, bytes ? bytes : 1, PCS_STORE_STATE, &h->store);
    if (rc == PCS_OK)
        rc = pcs_load_check_register(w, store_name, held_load_check, h);
    if (rc != PCS_OK)
        return rc;
    *out = h;
    return PCS_OK;
}

void pcs_station_held_copy(pcs_world *w, const pcs_station_held *h, uint32_t i, int to_held)
{
    unsigned char *held = pcs_store_data(w, h->store);
    for (uint32_t k = h->first[i]; k < h->first[i + 1]; k++) {
        unsigned char *data = pcs_store_data(w, h->ids[k]);
        size_t bytes = pcs_store_bytes(w, h->ids[k]);
        if (to_held)
            memcpy(held + h->at[k], data, bytes);
        else
            memcpy(data, held + h->at[k], bytes);
    }
}

uint32_t pcs_station_held_store(const pcs_station_held *h)
{
    return h->store;
}

const uint32_t *pcs_station_held_scratch(const pcs_station_held *h, uint32_t *n)
{
    *n = h->n_ids;
    return h->ids;
}
