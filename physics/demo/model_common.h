/**
 * @file model_common.h
 * @brief What the bounded models share: instance names, the checks of their
 *        defs, their memory as a list of parts, and the lifecycle (create,
 *        destroy, the move of a model's state into a world) driven by one
 *        descriptor per model.
 *
 * Each bounded model (diffusion, life, rayaabb, flocking, particles) runs
 * standalone on memory it owns, or is added to a world, where its state lives
 * in STATE stores named "<instance>.<part>" so pcs_world_state_hash covers it
 * and two instances of one model never collide. Every model struct starts
 * with a pcs_model_base and every model describes itself once in a
 * pcs_model_kind, so pcs_model_create, pcs_model_free and pcs_model_add
 * serve all of them; they are private to physics/demo/.
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

/** Room for a model's function name in messages: "pcs_<name>_create". */
#define PCS_MODEL_FN_MAX 64u

/** Most stores one model registers. */
#define PCS_MODEL_PARTS_MAX 8u

/** Most buffers one model allocates while standalone: one per part. */
#define PCS_MODEL_OWNED_MAX PCS_MODEL_PARTS_MAX

/** The first member of every bounded model. */
typedef struct pcs_model_base {
    char name[PCS_MODEL_NAME_MAX + 1];     /**< instance name; prefixes its stores */
    void *owned[PCS_MODEL_OWNED_MAX];      /**< malloc'd buffers (NULL once added) */
    uint32_t part_id[PCS_MODEL_PARTS_MAX]; /**< store ids of the parts once added */
    int registered;                        /**< added to a world */
} pcs_model_base;

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
 * its parts once (its kind's parts function); creating and adding the
 * model both work from that list.
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
 * A bounded model described once: its name (which names its create and add
 * and so starts their messages), how its def is checked and read, and its
 * state: its parts, the system that steps them and the check of a loaded
 * state. Each model has one, static const, and its pcs_<model>_create and
 * pcs_<model>_add are one call each.
 */
typedef struct pcs_model_kind {
    /** "diffusion": its functions are pcs_diffusion_create and
     *  pcs_diffusion_add, whose names start their messages, and an instance
     *  is named "diffusion" when the def's name is NULL. */
    const char *name;
    const char *what; /**< the model in messages; NULL: "model" */
    struct {
        size_t size;     /**< bytes of the model struct (a pcs_model_base first) */
        size_t def_name; /**< offsetof(<the def>, name): its `const char *name` */
        /** Where the model keeps a copy of its def (offsetof(<the model>,
         *  def)) and the def's bytes; def_size 0: no copy. The copy's name
         *  points at base.name, never at the caller's string. */
        size_t def_at, def_size;
    } layout;
    struct {
        /** Check the def @p cfg; messages start with @p fn. */
        pcs_status (*check)(const char *fn, const void *cfg);
        /** After the def's copy (layout.def_at), the values the model derives
         *  from @p cfg that the parts list reads; NULL: none. */
        void (*init)(void *model, const void *cfg);
        /** After the parts are allocated (NULL: nothing more): fill them from
         *  @p cfg; on failure it frees what it allocated and says why. */
        pcs_status (*start)(const char *fn, void *model, const void *cfg);
    } setup;
    struct {
        pcs_model_parts_fn parts;     /**< the model's memory */
        pcs_system_fn system;         /**< runs one step: fn(w, model) */
        pcs_load_check_fn load_check; /**< checks a loaded state: fn(w, v, model) */
    } state;
} pcs_model_kind;

/**
 * pcs_<model>_create for model kind @p k: @p cfg and @p out given, the def
 * checked, the model allocated and named, its def copied (layout.def_at)
 * and its derived values set (init), a zeroed
 * buffer for each part, then start; only on success the model is stored in
 * @p out (the address of the caller's model pointer).
 * @return PCS_OK; PCS_E_INVAL "pcs_<name>_create: cfg or out is NULL", the
 *         check's or the name's message; PCS_E_NOMEM "pcs_<name>_create: no memory
 *         for the <what>" or "...: no memory for part '<part>' (<count> x
 *         <elem_size> bytes)"; start's error. @p out is untouched on failure.
 */
pcs_status pcs_model_create(const pcs_model_kind *k, const void *cfg, void *out);

/** Free @p model (NULL is fine), its owned buffers included. */
void pcs_model_free(void *model);

/**
 * pcs_<model>_add for model kind @p k: check @p w and @p model (not added
 * yet), register a store for each part, the system "<instance>" that runs
 * k->state.system(w, @p model) at (@p stage, @p priority) and declares it writes
 * all of them, and the load check k->state.load_check(w, v, @p model). Only then
 * move each STATE part's standalone contents into its store, point the
 * model's part pointers at the stores, free the owned buffers and mark the
 * model registered. A failure leaves the model standalone and usable.
 * @return PCS_OK; PCS_E_INVAL "pcs_<name>_add: world or <what> is NULL";
 *         PCS_E_STATE "pcs_<name>_add: <what> '<name>' is already registered"; the
 *         world's errors from registering.
 */
pcs_status pcs_model_add(const pcs_model_kind *k, pcs_world *w, void *model, pcs_stage stage,
                         int32_t priority);

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
