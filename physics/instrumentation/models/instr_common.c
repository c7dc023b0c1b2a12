/**
 * @file instr_common.c
 * @brief The steps the instrumentation banks share when they are added to a
 *        world, and their error formats (see instr_common.h).
 */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/instrumentation/models/instr_common.h"
#include "pcsim/structure.h"
#include "pcsim/alarm.h"
#include "pcsim/protection.h"
#include "pcsim/sensor.h"
#include "pcsim/system.h"

_Static_assert(PCS_SENSOR_NAME_MAX <= PCS_INSTR_NAME_MAX &&
                   PCS_ALARM_NAME_MAX <= PCS_INSTR_NAME_MAX &&
                   PCS_PROTECTION_TRIP_NAME_MAX <= PCS_INSTR_NAME_MAX &&
                   PCS_PROTECTION_TRIP_UNIT_NAME_MAX <= PCS_INSTR_NAME_MAX,
               "element names fit the channel name buffer");

/* ---- adding a bank ------------------------------------------------------- */

const char *pcs_instr_named(char *buf, size_t len, const char *prefix, const char *name)
{
    if (!prefix || !prefix[0])
        return name;
    snprintf(buf, len, "%s%s", prefix, name);
    return buf;
}

pcs_status pcs_instr_prefix_copy(pcs_world *w, const char *fn, const char *prefix, const char **out)
{
    *out = NULL;
    if (!prefix || !prefix[0])
        return PCS_OK;
    size_t len = strlen(prefix) + 1;
    char *copy = pcs_world_alloc(w, len);
    if (!copy)
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory", fn);
    *out = memcpy(copy, prefix, len);
    return PCS_OK;
}

pcs_status pcs_instr_prefix_check(const char *fn, const char *prefix)
{
    size_t n = prefix ? strlen(prefix) : 0;
    if (n > PCS_INSTR_PREFIX_MAX)
        return pcs_error_set(PCS_E_INVAL, "%s: prefix '%s' is %zu chars, more than %u", fn, prefix,
                             n, PCS_INSTR_PREFIX_MAX);
    return PCS_OK;
}

pcs_status pcs_instr_family(pcs_world *w, const char *prefix, const char *name, uint32_t n_kinds,
                            pcs_target_fn fn, uint32_t *first_kind)
{
    if (prefix && prefix[0])
        return pcs_command_family_share(w, name, n_kinds, fn, first_kind);
    return pcs_command_family_register(w, name, n_kinds, fn, first_kind);
}

pcs_status pcs_instr_add_check(const pcs_world *w, const pcs_instr_bank *b, const char *prefix,
                               int args_ok, uint32_t n)
{
    if (!args_ok)
        return pcs_error_set(PCS_E_INVAL, "%s: NULL argument", b->fn);
    if (b->n_max && (n < 1 || n > b->n_max))
        return pcs_error_set(PCS_E_INVAL, "%s: n = %u is outside [1, %u]", b->fn, n, b->n_max);
    if (pcs_world_sealed(w) && !pcs_world_amending(w))
        return pcs_error_set(PCS_E_STATE, "%s: the world is sealed", b->fn);
    pcs_status pst = pcs_instr_prefix_check(b->fn, prefix);
    if (pst != PCS_OK)
        return pst;
    uint32_t existing;
    char first[PCS_INSTR_PREFIX_MAX + 64];
    if (pcs_store_find(w, pcs_instr_named(first, sizeof first, prefix, b->first_store),
                       &existing) == PCS_OK)
        return pcs_error_set(PCS_E_STATE, "%s: this world already has %s", b->fn, b->one);
    return PCS_OK;
}

pcs_status pcs_instr_add_end(pcs_world *w, pcs_status st, const char *prefix, const char *name,
                             pcs_load_check_fn fn, void *ctx)
{
    char buf[PCS_INSTR_PREFIX_MAX + 64];
    if (st == PCS_OK)
        st = pcs_load_check_register(w, pcs_instr_named(buf, sizeof buf, prefix, name), fn, ctx);
    if (st == PCS_OK)
        pcs_error_clear();
    return st;
}

pcs_status pcs_instr_system(pcs_world *w, const pcs_instr_bank *b, const char *prefix, void *ctx,
                            const uint32_t *reads, uint32_t n_reads, const uint32_t *writes,
                            uint32_t n_writes)
{
    char name[PCS_INSTR_PREFIX_MAX + 64];
    pcs_system_desc d = b->system;
    d.name = pcs_instr_named(name, sizeof name, prefix, b->system.name);
    d.ctx = ctx;
    d.reads = reads;
    d.n_reads = n_reads;
    d.writes = writes;
    d.n_writes = n_writes;
    return pcs_system_register(w, &d, NULL);
}

pcs_status pcs_instr_read_list(pcs_world *w, const pcs_instr_bank *b, const char *what,
                               pcs_instr_u32s ids, uint32_t n, uint32_t none, uint32_t lead,
                               uint32_t tail, uint32_t **reads, uint32_t *count)
{
    uint32_t n_stores = pcs_store_count(w);
    unsigned char *seen = calloc(n_stores ? n_stores : 1, 1);
    *reads = malloc(((size_t)(n < n_stores ? n : n_stores) + lead + tail) * sizeof **reads);
    *count = 0;
    if (!seen || !*reads) {
        free(seen);
        free(*reads);
        *reads = NULL;
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory for %u %s", b->fn, n_stores, what);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = *(const uint32_t *)(const void *)((const char *)ids.first + i * ids.stride);
        if (s != none && !seen[s]) {
            seen[s] = 1;
            (*reads)[lead + (*count)++] = s;
        }
    }
    free(seen);
    return PCS_OK;
}

int pcs_instr_alloc_f64(pcs_world *w, size_t n, double **const *arrays, size_t count)
{
    for (size_t k = 0; k < count; k++)
        if (!(*arrays[k] = pcs_world_alloc(w, n * sizeof **arrays[k])))
            return 0;
    return 1;
}

int pcs_instr_alloc_u32(pcs_world *w, size_t n, uint32_t **const *arrays, size_t count)
{
    for (size_t k = 0; k < count; k++)
        if (!(*arrays[k] = pcs_world_alloc(w, n * sizeof **arrays[k])))
            return 0;
    return 1;
}

pcs_status pcs_instr_prefixed(pcs_status st, const char *fmt, ...)
{
    char prefix[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    return pcs_error_set(st, "%s: %s", prefix, pcs_last_error());
}

int pcs_instr_set_add(uint32_t *ids, uint32_t *n, uint32_t max, uint32_t id)
{
    for (uint32_t j = 0; j < *n; j++)
        if (ids[j] == id)
            return 0;
    if (*n == max)
        return 1;
    ids[(*n)++] = id;
    return 0;
}

pcs_status pcs_instr_ref_check(const pcs_world *w, const pcs_instr_ref *r)
{
    char who[PCS_INSTR_NAME_MAX + 32];
    if (r->name)
        snprintf(who, sizeof who, "%s '%s'", r->who, r->name);
    else
        snprintf(who, sizeof who, "%s", r->who);
    if (r->store >= pcs_store_count(w))
        return pcs_error_set(PCS_E_INVAL, "%s: %s = %u is outside [0, %u) (%s)", who,
                             r->store_field, r->store, pcs_store_count(w), r->store_note);
    size_t bytes = pcs_store_bytes(w, r->store), count = bytes / r->elem;
    if (bytes % r->elem == 0 && r->index < count)
        return PCS_OK;
    char size[32] = "";
    if (r->with_bytes)
        snprintf(size, sizeof size, "%zu bytes; ", bytes);
    return pcs_error_set(PCS_E_INVAL, "%s: %s = %u is outside [0, %zu) of store '%s' (%s%s)", who,
                         r->index_field, r->index, count, pcs_store_name(w, r->store), size,
                         r->array_note);
}

/* ---- state stores --------------------------------------------------------- */

void *pcs_instr_store(pcs_instr_stores *r, const char *name, size_t elem, size_t count,
                      uint32_t *id)
{
    char buf[PCS_INSTR_PREFIX_MAX + 64];
    if (r->st == PCS_OK)
        r->st = pcs_store_register(r->w, pcs_instr_named(buf, sizeof buf, r->prefix, name), elem,
                                   count, PCS_STORE_STATE, id);
    return r->st == PCS_OK ? pcs_store_data(r->w, *id) : NULL;
}

/* ---- element names, channels and command targets ------------------------- */

const char **pcs_instr_names_copy(pcs_world *w, const char *fn, pcs_instr_strings src, uint32_t n)
{
    const char **names = pcs_world_alloc(w, n * sizeof *names);
    for (uint32_t i = 0; names && i < n; i++) {
        const char *s = pcs_instr_string(src, i);
        size_t len = strlen(s) + 1;
        char *copy = pcs_world_alloc(w, len);
        if (!copy)
            names = NULL;
        else
            names[i] = memcpy(copy, s, len);
    }
    if (!names)
        pcs_error_set(PCS_E_NOMEM, "%s: out of memory", fn);
    return names;
}

pcs_status pcs_instr_channels(pcs_world *w, const char *const *names, uint32_t n,
                              const pcs_instr_channel *per, uint32_t n_per)
{
    char name[PCS_INSTR_NAME_MAX + 32];
    pcs_status st = PCS_OK;
    for (uint32_t k = 0; st == PCS_OK && k < n; k++) {
        for (uint32_t j = 0; st == PCS_OK && j < n_per; j++) {
            const pcs_instr_channel *c = &per[j];
            const char *unit = c->units.first ? pcs_instr_string(c->units, k) : "";
            snprintf(name, sizeof name, "%s%s", names[k], c->suffix);
            st = pcs_channel_register(w, name, unit, c->kind, c->store, k, NULL);
        }
    }
    return st;
}

pcs_status pcs_instr_targets(pcs_world *w, const char *const *names, uint32_t n,
                             pcs_command_target_def proto)
{
    pcs_status st = PCS_OK;
    for (uint32_t k = 0; st == PCS_OK && k < n; k++) {
        proto.name = names[k];
        proto.element = k;
        st = pcs_command_target_register(w, &proto, NULL);
    }
    return st;
}

pcs_status pcs_instr_element_ref(const char *fn, const char *what, int args_ok, uint32_t n,
                                 uint32_t id, uint32_t store, uint32_t *out_store,
                                 uint32_t *out_index)
{
    if (!args_ok)
        return pcs_error_set(PCS_E_INVAL, "%s: NULL argument", fn);
    if (id >= n)
        return pcs_error_set(PCS_E_NOTFOUND, "%s: %s %u is outside [0, %u)", fn, what, id, n);
    *out_store = store;
    *out_index = id;
    return PCS_OK;
}

pcs_status pcs_instr_find(const char *fn, const char *what, const char *const *names, uint32_t n,
                          const char *name, uint32_t *id)
{
    if (!names || !name || !id)
        return pcs_error_set(PCS_E_INVAL, "%s: NULL argument", fn);
    for (uint32_t k = 0; k < n; k++) {
        if (strcmp(names[k], name) == 0) {
            *id = k;
            return PCS_OK;
        }
    }
    return pcs_error_set(PCS_E_NOTFOUND, "%s: no %s named '%s'", fn, what, name);
}

/* ---- load checks ----------------------------------------------------------- */

pcs_status pcs_instr_bad_f64(const char *store, uint32_t i, const char *field, double v,
                             const char *allowed)
{
    return pcs_error_set(PCS_E_CORRUPT, "store '%s' element %u (%s): value %.17g; allowed %s",
                         store, i, field, v, allowed);
}

pcs_status pcs_instr_bad_word(const char *store, uint32_t i, const char *field, uint64_t v,
                              const char *allowed)
{
    return pcs_error_set(PCS_E_CORRUPT, "store '%s' element %u (%s): value %llu; allowed %s", store,
                         i, field, (unsigned long long)v, allowed);
}

pcs_status pcs_instr_check_finite(const char *store, const char *field, const double *x, size_t n)
{
    return pcs_load_check_f64(store, field, x, n, 1, -DBL_MAX, DBL_MAX, 0);
}
