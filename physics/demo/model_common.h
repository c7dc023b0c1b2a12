/**
 * @file model_common.h
 * @brief What the bounded models share: instance names, the standalone
 *        lifecycle and the move of a model's state into a world.
 *
 * Each bounded model (diffusion, life, rayaabb, flocking, particles) runs
 * standalone on memory it owns, or is added to a world, where its state lives
 * in STATE stores named "<instance>.<part>" so pcs_world_state_hash covers it
 * and two instances of one model never collide. Every model struct starts
 * with a pcs_model_base, so these helpers can create, destroy and add any of
 * them; they are private to physics/demo/.
 */
#ifndef PCS_PHYSICS_MODELS_COMMON_H
#define PCS_PHYSICS_MODELS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/persist.h"
#include "pcsim/status.h"
#include "pcsim/system.h"

/** Longest instance name: leaves room for ".<part>" inside PCS_NAME_MAX. */
#define PCS_MODEL_NAME_MAX 40u

/** Most stores one model registers. */
#define PCS_MODEL_PARTS_MAX 8u

/** Most buffers one model allocates while standalone. */
#define PCS_MODEL_OWNED_MAX 5u

/** The first member of every bounded model. */
typedef struct pcs_model_base {
    char name[PCS_MODEL_NAME_MAX + 1];     /**< instance name; prefixes its stores */
    void *owned[PCS_MODEL_OWNED_MAX];      /**< malloc'd buffers (NULL once added) */
    uint32_t part_id[PCS_MODEL_PARTS_MAX]; /**< store ids of the parts once added */
    int registered;                        /**< added to a world */
} pcs_model_base;

/**
 * Allocate a zeroed model of @p size bytes (a struct whose first member is a
 * pcs_model_base) named @p name, or @p fallback when NULL. @p fn names the
 * caller and @p what the model ("model", "caster") in the messages.
 * @return the model, or NULL with @p st set (PCS_E_NOMEM, PCS_E_INVAL).
 */
void *pcs_model_new(const char *fn, const char *what, size_t size, const char *name,
                    const char *fallback, pcs_status *st);

/** Free @p model (NULL is fine), its owned buffers included. */
void pcs_model_free(void *model);

/**
 * Copy the instance @p name (or @p fallback when NULL) into @p out
 * (PCS_MODEL_NAME_MAX + 1 bytes). @p fn names the caller in the message.
 */
pcs_status pcs_model_name_copy(const char *fn, const char *name, const char *fallback, char *out);

/**
 * What pcs_<model>_add checks first: @p w and @p model given, the model not
 * yet added. @p what names the model ("model", "caster") in the message.
 */
pcs_status pcs_model_add_check(const char *fn, const char *what, const pcs_world *w,
                               const void *model);

/**
 * A whole-number field of a model's def (or a product of two, such as a
 * grid's cells) and its allowed range.
 */
typedef struct pcs_model_count {
    const char *field; /**< as the message names it: "nx", "nx * ny" */
    uint64_t v;        /**< its value */
    uint32_t lo, hi;   /**< allowed range, both ends included */
    const char *unit;  /**< after the value ("cells"); NULL: none */
    const char *note;  /**< after the range ("for this boundary"); NULL: none */
} pcs_model_count;

/**
 * The whole-number checks of a def, in table order: PCS_OK if every
 * f[i].v is in [lo, hi], else PCS_E_INVAL for the first that is not,
 * "<fn>: <field> = <v>[ <unit>]; allowed [<lo>, <hi>][ <note>]".
 */
pcs_status pcs_model_counts_check(const char *fn, const pcs_model_count *f, size_t n);

/**
 * One part of a model's memory: standalone a zeroed buffer the model owns,
 * once added the STATE or SCRATCH store "<instance>.<part>". A model lists
 * its parts once (a pcs_model_parts_fn) and both pcs_model_own_parts and
 * pcs_model_add work from that list.
 */
typedef struct pcs_model_part {
    const char *part;    /**< suffix after "<instance>." */
    size_t elem_size;    /**< bytes per element */
    size_t count;        /**< elements */
    pcs_store_kind kind; /**< STATE: hashed, its contents move into the store; SCRATCH: not */
    void *bind;          /**< where the model points at the part: the address of its T * */
} pcs_model_part;

/**
 * Fill @p parts for @p model; @return how many (at most
 * PCS_MODEL_PARTS_MAX: each model asserts it of its part enum).
 */
typedef uint32_t (*pcs_model_parts_fn)(void *model, pcs_model_part *parts);

/**
 * Give each part of @p model (listed by @p parts) that does not point
 * anywhere yet a zeroed buffer of its own, in base.owned in list order; a
 * part the model already points at (a header inside the struct) is kept.
 * @return PCS_OK, or PCS_E_NOMEM "<fn>: no memory for part '<part>' (<count>
 *         x <elem_size> bytes)", after which the model is only fit to free.
 */
pcs_status pcs_model_own_parts(const char *fn, void *model, pcs_model_parts_fn parts);

/**
 * What every pcs_<model>_add does: check @p w and @p model
 * (pcs_model_add_check; @p what names the model), register a store for
 * each part @p parts lists, the system "<instance>" that runs @p fn(w,
 * @p model) at (@p stage, @p priority) and declares it writes all of them,
 * and the load check @p check(w, v, @p model). Only then move each STATE
 * part's standalone contents into its store, point the model's part
 * pointers at the stores, free the owned buffers and mark the model
 * registered. A failure leaves the model standalone and usable.
 */
pcs_status pcs_model_add(const char *fn, const char *what, pcs_world *w, void *model,
                         pcs_model_parts_fn parts, pcs_system_fn sys, pcs_load_check_fn check,
                         pcs_stage stage, int32_t priority);

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
