/**
 * @file model_common.c
 * @brief The lifecycle the bounded models share (model_common.h): create,
 *        destroy, and the move of a standalone model into a world, each
 *        driven by the model's pcs_model_kind.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/demo/model_common.h"

/* Copy the instance @p name (or @p fallback when NULL) into @p out
 * (PCS_MODEL_NAME_MAX + 1 bytes); @p fn names the caller in the message. */
static pcs_status name_copy(const char *fn, const char *name, const char *fallback, char *out)
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

/* Where a pointer is kept as the address of a caller's T * (a part's bind,
 * create's out): read and written as a void *, which every object pointer
 * matches in size and representation on the platforms pcsim builds for;
 * memcpy keeps the access within the aliasing rules. */
static void *ptr_at(const void *where)
{
    void *v;
    memcpy(&v, where, sizeof v);
    return v;
}

static void ptr_set(void *where, void *v)
{
    memcpy(where, &v, sizeof v);
}

/* The model in messages: "model" unless the kind says otherwise. */
static const char *kind_what(const pcs_model_kind *k)
{
    return k->what ? k->what : "model";
}

/* A zeroed model of the kind, named from the def; messages start with @p fn. */
static void *model_new(const pcs_model_kind *k, const char *fn, const void *cfg, pcs_status *st)
{
    pcs_model_base *b = calloc(1, k->layout.size);
    if (!b) {
        *st = pcs_error_set(PCS_E_NOMEM, "%s: no memory for the %s", fn, kind_what(k));
        return NULL;
    }
    const char *name = ptr_at((const char *)cfg + k->layout.def_name);
    *st = name_copy(fn, name, k->name, b->name);
    if (*st != PCS_OK) {
        free(b);
        return NULL;
    }
    if (k->layout.def_size) {
        char *def = (char *)b + k->layout.def_at;
        memcpy(def, cfg, k->layout.def_size);
        ptr_set(def + k->layout.def_name, b->name);
    }
    return b;
}

/* A zeroed buffer of its own for each part, in base.owned in list order. */
static pcs_status own_parts(const pcs_model_kind *k, const char *fn, pcs_model_base *b)
{
    pcs_model_part parts[PCS_MODEL_PARTS_MAX];
    uint32_t n = k->state.parts(b, parts);
    for (uint32_t i = 0; i < n; i++) {
        void *buf = calloc(parts[i].count, parts[i].elem_size);
        if (!buf)
            return pcs_error_set(PCS_E_NOMEM, "%s: no memory for part '%s' (%zu x %zu bytes)", fn,
                                 parts[i].part, parts[i].count, parts[i].elem_size);
        b->owned[i] = buf;
        ptr_set(parts[i].bind, buf);
    }
    return PCS_OK;
}

pcs_status pcs_model_create(const pcs_model_kind *k, const void *cfg, void *out)
{
    char fn[PCS_MODEL_FN_MAX];
    snprintf(fn, sizeof fn, "pcs_%s_create", k->name);
    if (!cfg || !out)
        return pcs_error_set(PCS_E_INVAL, "%s: cfg or out is NULL", fn);
    pcs_status st = k->setup.check(fn, cfg);
    if (st != PCS_OK)
        return st;
    pcs_model_base *b = model_new(k, fn, cfg, &st);
    if (!b)
        return st;
    if (k->setup.init)
        k->setup.init(b, cfg);
    st = own_parts(k, fn, b);
    if (st == PCS_OK && k->setup.start)
        st = k->setup.start(fn, b, cfg);
    if (st != PCS_OK) {
        pcs_model_free(b);
        return st;
    }
    ptr_set(out, b);
    return PCS_OK;
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
static pcs_status register_parts(const pcs_model_kind *k, pcs_world *w, pcs_model_base *b,
                                 const pcs_model_part *parts, uint32_t n_parts, void **data,
                                 pcs_stage stage, int32_t priority)
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
                            .fn = k->state.system,
                            .ctx = b,
                            .writes = ids,
                            .n_writes = n_parts};
    uint32_t sys;
    pcs_status st = pcs_system_register(w, &desc, &sys);
    if (st != PCS_OK)
        return st;
    memcpy(b->part_id, ids, n_parts * sizeof ids[0]);
    return pcs_load_check_register(w, b->name, k->state.load_check, b);
}

pcs_status pcs_model_add(const pcs_model_kind *k, pcs_world *w, void *model, pcs_stage stage,
                         int32_t priority)
{
    pcs_model_base *b = model;
    char fn[PCS_MODEL_FN_MAX];
    snprintf(fn, sizeof fn, "pcs_%s_add", k->name);
    if (!w || !b)
        return pcs_error_set(PCS_E_INVAL, "%s: world or %s is NULL", fn, kind_what(k));
    if (b->registered)
        return pcs_error_set(PCS_E_STATE, "%s: %s '%s' is already registered", fn, kind_what(k),
                             b->name);
    pcs_model_part parts[PCS_MODEL_PARTS_MAX];
    void *data[PCS_MODEL_PARTS_MAX];
    uint32_t n = k->state.parts(b, parts);
    pcs_status st = register_parts(k, w, b, parts, n, data, stage, priority);
    if (st != PCS_OK)
        return st;
    for (uint32_t i = 0; i < n; i++) {
        if (!(parts[i].kind & PCS_STORE_SCRATCH))
            memcpy(data[i], ptr_at(parts[i].bind), parts[i].elem_size * parts[i].count);
        ptr_set(parts[i].bind, data[i]);
    }
    for (uint32_t i = 0; i < PCS_MODEL_OWNED_MAX; i++) {
        free(b->owned[i]);
        b->owned[i] = NULL;
    }
    b->registered = 1;
    return PCS_OK;
}
