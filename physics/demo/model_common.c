/**
 * @file model_common.c
 * @brief The lifecycle the bounded models share (model_common.h): create,
 *        destroy, and the move of a standalone model into a world.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/demo/model_common.h"

pcs_status pcs_model_name_copy(const char *fn, const char *name, const char *fallback, char *out)
{
    const char *src = name ? name : fallback;
    size_t len = strlen(src);
    if (len == 0 || len > PCS_MODEL_NAME_MAX)
        return pcs_error_set(PCS_E_INVAL, "%s: name has %zu chars; allowed [1, %u]", fn, len,
                             PCS_MODEL_NAME_MAX);
    memcpy(out, src, len + 1);
    return PCS_OK;
}

pcs_status pcs_model_counts_check(const char *fn, const pcs_model_count *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (f[i].v >= f[i].lo && f[i].v <= f[i].hi)
            continue;
        return pcs_error_set(PCS_E_INVAL, "%s: %s = %" PRIu64 "%s%s; allowed [%u, %u]%s%s", fn,
                             f[i].field, f[i].v, f[i].unit ? " " : "", f[i].unit ? f[i].unit : "",
                             f[i].lo, f[i].hi, f[i].note ? " " : "", f[i].note ? f[i].note : "");
    }
    return PCS_OK;
}

void *pcs_model_new(const char *fn, const char *what, size_t size, const char *name,
                    const char *fallback, pcs_status *st)
{
    pcs_model_base *b = calloc(1, size);
    if (!b) {
        *st = pcs_error_set(PCS_E_NOMEM, "%s: no memory for the %s", fn, what);
        return NULL;
    }
    *st = pcs_model_name_copy(fn, name, fallback, b->name);
    if (*st != PCS_OK) {
        free(b);
        return NULL;
    }
    return b;
}

void pcs_model_free(void *model)
{
    pcs_model_base *b = model;
    if (!b)
        return;
    for (uint32_t i = 0; i < PCS_MODEL_OWNED_MAX; i++)
        free(b->owned[i]);
    free(b);
}

pcs_status pcs_model_add_check(const char *fn, const char *what, const pcs_world *w,
                               const void *model)
{
    const pcs_model_base *b = model;
    if (!w || !b)
        return pcs_error_set(PCS_E_INVAL, "%s: world or %s is NULL", fn, what);
    if (b->registered)
        return pcs_error_set(PCS_E_STATE, "%s: %s '%s' is already registered", fn, what, b->name);
    return PCS_OK;
}

/* The part's pointer in the model, read and written as a void * (every
 * object pointer has void *'s size and representation on the platforms
 * pcsim builds for; memcpy keeps the access within the rules). */
static void *part_ptr(const pcs_model_part *p)
{
    void *v;
    memcpy(&v, p->bind, sizeof v);
    return v;
}

static void part_point(const pcs_model_part *p, void *data)
{
    memcpy(p->bind, &data, sizeof data);
}

pcs_status pcs_model_own_parts(const char *fn, void *model, pcs_model_parts_fn parts_fn)
{
    pcs_model_base *b = model;
    pcs_model_part parts[PCS_MODEL_PARTS_MAX];
    uint32_t n = parts_fn(model, parts);
    uint32_t k = 0; /* owned buffers so far (a model owns at most PCS_MODEL_OWNED_MAX) */
    for (uint32_t i = 0; i < n; i++) {
        if (part_ptr(&parts[i]))
            continue;
        void *buf = k < PCS_MODEL_OWNED_MAX ? calloc(parts[i].count, parts[i].elem_size) : NULL;
        if (!buf)
            return pcs_error_set(PCS_E_NOMEM, "%s: no memory for part '%s' (%zu x %zu bytes)", fn,
                                 parts[i].part, parts[i].count, parts[i].elem_size);
        b->owned[k++] = buf;
        part_point(&parts[i], buf);
    }
    return PCS_OK;
}

/* Register store "<instance>.<part>" and return its data pointer in @p data. */
static pcs_status add_store(pcs_world *w, const char *instance, const pcs_model_part *p,
                            uint32_t *id, void **data)
{
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "%s.%s", instance, p->part);
    pcs_status st = pcs_store_register(w, name, p->elem_size, p->count, p->kind, id);
    if (st != PCS_OK)
        return st;
    *data = pcs_store_data(w, *id);
    return PCS_OK;
}

/* The stores (their memory in @p data), then the system that writes them
 * all, then the load check. */
static pcs_status register_parts(pcs_world *w, pcs_model_base *b, const pcs_model_part *parts,
                                 uint32_t n_parts, void **data, pcs_system_fn fn,
                                 pcs_load_check_fn check, pcs_stage stage, int32_t priority)
{
    uint32_t ids[PCS_MODEL_PARTS_MAX];
    for (uint32_t i = 0; i < n_parts; i++) {
        pcs_status st = add_store(w, b->name, &parts[i], &ids[i], &data[i]);
        if (st != PCS_OK)
            return st;
    }
    pcs_system_desc desc = {.name = b->name,
                            .stage = stage,
                            .priority = priority,
                            .fn = fn,
                            .ctx = b,
                            .writes = ids,
                            .n_writes = n_parts};
    uint32_t sys;
    pcs_status st = pcs_system_register(w, &desc, &sys);
    if (st != PCS_OK)
        return st;
    memcpy(b->part_id, ids, n_parts * sizeof ids[0]);
    return pcs_load_check_register(w, b->name, check, b);
}

pcs_status pcs_model_add(const char *fn, const char *what, pcs_world *w, void *model,
                         pcs_model_parts_fn parts_fn, pcs_system_fn sys, pcs_load_check_fn check,
                         pcs_stage stage, int32_t priority)
{
    pcs_status st = pcs_model_add_check(fn, what, w, model);
    if (st != PCS_OK)
        return st;
    pcs_model_base *b = model;
    pcs_model_part parts[PCS_MODEL_PARTS_MAX];
    void *data[PCS_MODEL_PARTS_MAX];
    uint32_t n = parts_fn(model, parts);
    st = register_parts(w, b, parts, n, data, sys, check, stage, priority);
    if (st != PCS_OK)
        return st;
    for (uint32_t i = 0; i < n; i++) {
        if (!(parts[i].kind & PCS_STORE_SCRATCH))
            memcpy(data[i], part_ptr(&parts[i]), parts[i].elem_size * parts[i].count);
        part_point(&parts[i], data[i]);
    }
    for (uint32_t i = 0; i < PCS_MODEL_OWNED_MAX; i++) {
        free(b->owned[i]);
        b->owned[i] = NULL;
    }
    b->registered = 1;
    return PCS_OK;
}
