/**
 * @file model_common.h
 * @brief Helpers the bounded models share: instance names and store naming.
 *
 * Each bounded model (diffusion, life, rayaabb, flocking, particles) can be
 * registered into a world, where its state lives in STATE stores named
 * "<instance>.<part>" so pcs_world_state_hash covers it and two instances of
 * one model never collide. These inline helpers keep that naming rule in one
 * place; they are private to physics/demo/.
 */
#ifndef PCS_PHYSICS_MODELS_COMMON_H
#define PCS_PHYSICS_MODELS_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/status.h"
#include "pcsim/system.h"

/** Longest instance name: leaves room for ".<part>" inside PCS_NAME_MAX. */
#define PCS_MODEL_NAME_MAX 40u

/**
 * Copy the instance @p name (or @p fallback when NULL) into @p out
 * (PCS_MODEL_NAME_MAX + 1 bytes). @p fn names the caller in the message.
 */
static inline pcs_status pcs_model_name_copy(const char *fn, const char *name, const char *fallback,
                                             char *out)
{
    const char *src = name ? name : fallback;
    size_t len = strlen(src);
    if (len == 0 || len > PCS_MODEL_NAME_MAX)
        return pcs_error_set(PCS_E_INVAL, "%s: name has %zu chars; allowed [1, %u]", fn, len,
                             PCS_MODEL_NAME_MAX);
    memcpy(out, src, len + 1);
    return PCS_OK;
}

/** Register store "<instance>.<part>" and return its data pointer in @p data. */
static inline pcs_status pcs_model_store(pcs_world *w, const char *instance, const char *part,
                                         size_t elem_size, size_t count, pcs_store_kind kind,
                                         uint32_t *id, void **data)
{
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "%s.%s", instance, part);
    pcs_status st = pcs_store_register(w, name, elem_size, count, kind, id);
    if (st != PCS_OK)
        return st;
    *data = pcs_store_data(w, *id);
    return PCS_OK;
}

/** One store a model asks for at registration; data is filled in. */
typedef struct pcs_model_part {
    const char *part;    /**< suffix after "<instance>." */
    size_t elem_size;    /**< bytes per element */
    size_t count;        /**< elements */
    pcs_store_kind kind; /**< STATE (hashed) or SCRATCH */
    void *data;          /**< out: the store's memory */
    uint32_t id;         /**< out: the store's id (for load checks) */
} pcs_model_part;

/** Most stores one model registers. */
#define PCS_MODEL_PARTS_MAX 8u

/**
 * Register every store in @p parts, then the system "<instance>" that runs
 * @p fn(w, @p ctx) at (@p stage, @p priority) and declares it writes all of
 * them. The caller moves its state into parts[i].data only after PCS_OK, so
 * a failure leaves the model usable standalone.
 */
static inline pcs_status pcs_model_register_parts(pcs_world *w, const char *instance,
                                                  pcs_model_part *parts, uint32_t n_parts,
                                                  pcs_system_fn fn, void *ctx, pcs_stage stage,
                                                  int32_t priority)
{
    uint32_t ids[PCS_MODEL_PARTS_MAX];
    if (n_parts > PCS_MODEL_PARTS_MAX)
        return pcs_error_set(PCS_E_INVAL, "pcs_model_register_parts: %u parts; max %u", n_parts,
                             PCS_MODEL_PARTS_MAX);
    for (uint32_t i = 0; i < n_parts; i++) {
        pcs_status st = pcs_model_store(w, instance, parts[i].part, parts[i].elem_size,
                                        parts[i].count, parts[i].kind, &ids[i], &parts[i].data);
        if (st != PCS_OK)
            return st;
        parts[i].id = ids[i];
    }
    pcs_system_desc desc = {.name = instance,
                            .stage = stage,
                            .priority = priority,
                            .fn = fn,
                            .ctx = ctx,
                            .writes = ids,
                            .n_writes = n_parts};
    uint32_t sys;
    return pcs_system_register(w, &desc, &sys);
}

/** Step counter and double-buffer index, kept in a STATE store when registered. */
typedef struct pcs_model_header {
    uint32_t cur;   /**< index (0 or 1) of the buffer holding the current state */
    uint32_t pad;   /**< always 0: the struct is hashed byte for byte */
    uint64_t steps; /**< steps taken since creation */
} pcs_model_header;

/**
 * Load-check message for element @p i of store "<instance>.<part>": the field,
 * the value and what is allowed. @return PCS_E_CORRUPT.
 */
static inline pcs_status pcs_model_bad(const char *instance, const char *part, size_t i,
                                       const char *field, double v, const char *allowed)
{
    return pcs_error_set(PCS_E_CORRUPT, "store '%s.%s' element %zu (%s): value %.17g; allowed %s",
                         instance, part, i, field, v, allowed);
}

/** A staged pcs_model_header: cur 0 or 1, pad 0 (steps is any count). */
static inline pcs_status pcs_model_header_check(const char *instance, const pcs_model_header *h)
{
    if (h->cur > 1u)
        return pcs_model_bad(instance, "hdr", 0, "cur", h->cur, "0 or 1");
    if (h->pad != 0u)
        return pcs_model_bad(instance, "hdr", 0, "pad", h->pad, "0");
    return PCS_OK;
}

#endif
