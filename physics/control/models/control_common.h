/**
 * @file control_common.h
 * @brief What every unit controller (pzr_control, rod_control, steam_dump,
 *        sg_control, sg_porv, feedwater, the turbine governor, the
 *        interlocks, the MSIVs) does the same way: its base (unit name, the
 *        world's step, its state store), its allocation and its build as a
 *        table of steps, its command family, once per world, and its
 *        targets, its channels, its def's defaults, name and range check,
 *        a flag's load check and a command's argument check.
 */
#ifndef PCS_PHYSICS_CONTROL_COMMON_H
#define PCS_PHYSICS_CONTROL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/command.h"
#include "pcsim/param_range.h"

struct pcs_th_channel_row;

/**
 * One step of a controller's build (a store, its system, its targets, its
 * channels), given the controller as its context (the way a system gets
 * it). Build phase only.
 */
typedef pcs_status (*pcs_control_step)(pcs_world *w, void *ctl);

/** The most build steps a kind of controller has (its steps are NULL-terminated). */
#define PCS_CONTROL_MAX_STEPS 6

/** A controller's command family and its targets (pcs_control_targets). */
typedef struct pcs_control_commands {
    const char *family;       /**< the family's name (PCS_PZR_CONTROL_COMMANDS) */
    uint32_t n_ops;           /**< its kinds of command */
    pcs_target_fn on_command; /**< its handler */
    const char *part;         /**< the targets "<unit>.<part>" and "<unit>" */
    const char *sg_part;      /**< and "<unit>.<sg_part>K" for SG K = 1..n_sg; NULL: none */
} pcs_control_commands;

/** What names a kind of controller and how one is built. */
typedef struct pcs_control_kind {
    const char *model; /**< "pzr_control": "pcs_<model>_add: out of memory" */
    const char *name;  /**< "pzrctl": its store "<unit>.<name>.state" and channels */
    pcs_control_commands commands;
    pcs_control_step steps[PCS_CONTROL_MAX_STEPS]; /**< its build in registration order */
} pcs_control_kind;

/**
 * The first member of every controller: its kind, its unit's name (the
 * copied def's unit_name points here), the world's step, its state store
 * and the unit's SGs where it has a part per SG. Being first, a pointer to
 * it is a pointer to the controller.
 */
typedef struct pcs_control_base {
    const pcs_control_kind *kind;
    char unit[16];
    double dt_s;
    uint32_t id_state; /**< "<unit>.<name>.state" (pcs_control_state), UINT32_MAX if none */
    uint32_t n_sg;     /**< the unit's SGs (sg_control, sg_porv, feedwater, the MSIVs), else 0 */
} pcs_control_base;

/**
 * When @p *st is PCS_OK (the add's checks passed): a zeroed controller of
 * @p size bytes in world memory whose base is of @p kind, named
 * @p unit_name, with the world's dt_s. NULL when *st was not PCS_OK, or
 * (then *st = PCS_E_NOMEM "pcs_<model>_add: out of memory") when the world's
 * memory is full.
 */
void *pcs_control_new(pcs_world *w, pcs_status *st, const pcs_control_kind *kind, size_t size,
                      const char *unit_name);

/** Run the kind's build steps on the controller @p b in order; stop at the first failure. */
pcs_status pcs_control_build(pcs_world *w, pcs_control_base *b);

/**
 * The end of every add, given @p st, the status of its checks and its
 * binds: when that is PCS_OK, the build (pcs_control_build); when that
 * succeeds, the controller in *out. @p out is the add's `T **out`, T a
 * controller whose first member is @p b: every pointer to a structure has
 * the same representation (C17 6.2.5p28) and a pointer to a structure
 * points at its first member (6.7.2.1p15), so @p b's address stored there
 * is the T pointer. *out is untouched on failure.
 * @return @p st if it failed, else the build's status.
 */
pcs_status pcs_control_finish(pcs_world *w, pcs_status st, pcs_control_base *b, void *out);

/**
 * A def's defaults: *d = *defaults, @p size bytes (the pcs_<model>_default
 * of every controller whose defaults are a static table).
 * @return PCS_E_INVAL "<fn>: def is NULL" when @p d is NULL.
 */
pcs_status pcs_control_default(const char *fn, void *d, const void *defaults, size_t size);

/**
 * Register the controller's state store "<unit>.<name>.state" of @p n
 * doubles (STATE, float64), its id in b->id_state and its zeroed data in
 * *s (for the build to seed).
 * @return as pcs_store_register.
 */
pcs_status pcs_control_state(pcs_world *w, pcs_control_base *b, size_t n, double **s);

/**
 * Channels "<unit>.<name>.<suffix>" of rows[0..count), elements of
 * @p store (pcs_th_channels_register).
 */
pcs_status pcs_control_channels(pcs_world *w, const pcs_control_base *b, uint32_t store,
                                const struct pcs_th_channel_row *rows, size_t count);

/**
 * Channels per SG of the unit: for K = 1..b->n_sg, "<unit>.sg<K>.<suffix>"
 * of rows[0..count), element @p first + (K - 1) * @p per_sg + row index of
 * the state store b->id_state (float64). Stops at the first failure.
 * @return as pcs_channel_register.
 */
pcs_status pcs_control_sg_channels(pcs_world *w, const pcs_control_base *b, uint32_t first,
                                   uint32_t per_sg, const struct pcs_th_channel_row *rows,
                                   size_t count);

/**
 * The build step of the kind's command family and targets: the family
 * (kind->commands, registered once per world by the first unit's
 * controller), the targets "<unit>.<part>" and "<unit>" with the controller
 * as context, then with commands.sg_part a target per SG,
 * "<unit>.<sg_part>1" .. "<unit>.<sg_part><n_sg>" (pcs_th_element_targets: a
 * unit's SG relief valves or MSIVs).
 */
pcs_status pcs_control_targets(pcs_world *w, void *ctl);

/**
 * The command's first argument in *v when it is finite and in [lo, hi];
 * otherwise PCS_E_INVAL "<target>: <what> <value> is outside [lo, hi]".
 */
pcs_status pcs_control_arg_in(const pcs_command_call *c, const char *what, double lo, double hi,
                              double *v);

/** PCS_OK if @p unit_name has 1 to 15 characters; otherwise PCS_E_INVAL
 * "<who>: unit_name must be 1..15 characters". */
pcs_status pcs_control_unit_name_check(const char *who, const char *unit_name);

/**
 * A def's unit name (pcs_control_unit_name_check), then its parameter
 * ranges r[0..n) (pcs_param_ranges_check, messages "<who>: <field> = ...").
 */
pcs_status pcs_control_def_check(const char *who, const char *unit_name, const pcs_param_range *r,
                                 size_t n);

/**
 * Load check of a flag: element @p i of @p x finite and in [0, 1]
 * (pcs_load_check_f64_from's message), then exactly 0 or 1: PCS_E_CORRUPT
 * "store '<store>' element <i> (<field>): value <v> is not 0 or 1", the
 * value with @p digits significant digits (%g's 6, or 17).
 */
pcs_status pcs_control_load_flag(const char *store, const char *field, const double *x, uint32_t i,
                                 int digits);

/**
 * Load check of a flag without the range check first: PCS_OK if x[i] is 0
 * or 1, else PCS_E_CORRUPT "store '<store>' element <i> (<field>): value
 * <v>; allowed 0 or 1".
 */
pcs_status pcs_control_flag_allowed(const char *store, const char *field, const double *x,
                                    uint32_t i);

#endif
