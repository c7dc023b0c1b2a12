/**
 * @file model_common.h
 * @brief Helpers the bounded models share: instance names and store naming.
 *
 * Each bounded model (diffusion, life, rayaabb, flocking, particles) can be
 * registered into a world, where its state lives in STATE stores named
 * "<instance>.<part>" so pcs_world_state_hash covers it and two instances of
 * one model never collide. These inline helpers keep that naming rule in one
 * place; they are private to physics/models/.
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

/** Step counter and double-buffer index, kept in a STATE store when registered. */
typedef struct pcs_model_header {
    uint32_t cur;   /**< index (0 or 1) of the buffer holding the current state */
    uint32_t pad;   /**< always 0: the struct is hashed byte for byte */
    uint64_t steps; /**< steps taken since creation */
} pcs_model_header;

#endif
