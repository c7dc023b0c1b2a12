/**
 * @file name_index.c
 * @brief The name index the store and channel registries and the command
 *        targets share (name_index.h).
 */
#include <string.h>

#include <xxhash.h>

#include "engine/name_index.h"

/* Record i's name: the record's first member. */
static const char *name_at(const void *records, size_t stride, uint32_t i)
{
    return *(const char *const *)((const char *)records + (size_t)i * stride);
}

uint32_t pcs_name_index_slot(const uint32_t *index, uint32_t cap, const void *records,
                             size_t stride, const char *name)
{
    uint32_t mask = 2 * cap - 1;
    uint32_t k = (uint32_t)XXH3_64bits(name, strlen(name)) & mask;
    while (index[k] != 0 && strcmp(name_at(records, stride, index[k] - 1), name) != 0)
        k = (k + 1) & mask;
    return k;
}

uint32_t pcs_name_index_lookup(const uint32_t *index, uint32_t cap, const void *records,
                               size_t stride, uint32_t n, const char *name)
{
    return n ? index[pcs_name_index_slot(index, cap, records, stride, name)] : 0;
}

pcs_status pcs_name_index_find(const char *fn, const char *what, const uint32_t *index,
                               uint32_t cap, const void *records, size_t stride, uint32_t n,
                               const char *name, uint32_t *id)
{
    if (!name || !id)
        return pcs_error_set(PCS_E_INVAL, "%s: NULL argument", fn);
    uint32_t rec = pcs_name_index_lookup(index, cap, records, stride, n, name);
    if (!rec)
        return pcs_error_set(PCS_E_NOTFOUND, "%s: no %s named '%s'", fn, what, name);
    *id = rec - 1;
    return PCS_OK;
}

/* The entry a name hashes to. */
static uint32_t home_of(const char *name, uint32_t mask)
{
    return (uint32_t)XXH3_64bits(name, strlen(name)) & mask;
}

void pcs_name_index_remove(uint32_t *index, uint32_t cap, const void *records, size_t stride,
                           uint32_t rec)
{
    uint32_t mask = 2 * cap - 1;
    uint32_t i = home_of(name_at(records, stride, rec), mask);
    while (index[i] != 0 && index[i] != rec + 1)
        i = (i + 1) & mask;
    if (index[i] == 0)
        return;
    /* Shift later entries of the run back over the hole when their home is
     * not cyclically in (hole, entry]: probing from their home would
     * otherwise stop at the hole. */
    for (uint32_t j = (i + 1) & mask; index[j] != 0; j = (j + 1) & mask) {
        uint32_t h = home_of(name_at(records, stride, index[j] - 1), mask);
        int reachable = i <= j ? (h > i && h <= j) : (h > i || h <= j);
        if (reachable)
            continue;
        index[i] = index[j];
        i = j;
    }
    index[i] = 0;
}

void pcs_name_index_build(uint32_t *index, uint32_t cap, const void *records, size_t stride,
                          uint32_t n)
{
    memset(index, 0, 2 * (size_t)cap * sizeof *index);
    for (uint32_t i = 0; i < n; i++) {
        const char *name = name_at(records, stride, i);
        if (name)
            index[pcs_name_index_slot(index, cap, records, stride, name)] = i + 1;
    }
}

void *pcs_name_index_grow(pcs_mem *mem, const void *records, uint32_t n, size_t stride,
                          uint32_t *cap, uint32_t **index)
{
    uint32_t grown = *cap ? *cap * 2 : 64;
    void *r = pcs_mem_regrow(mem, records, n, grown, stride);
    uint32_t *x = pcs_mem_array(mem, 2 * (size_t)grown, sizeof *x);
    if (!r || !x)
        return NULL;
    pcs_name_index_build(x, grown, r, stride, n);
    *cap = grown;
    *index = x;
    return r;
}
