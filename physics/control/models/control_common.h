/**
 * @file control_common.h
 * @brief What every unit controller (pzr_control, sg_control, the turbine
 *        governor) does the same way: registers its command family, once per
 *        world, and its two targets, and checks a command's argument.
 */
#ifndef PCS_PHYSICS_CONTROL_COMMON_H
#define PCS_PHYSICS_CONTROL_COMMON_H

#include "pcsim/command.h"

/**
 * Register family @p family_name (@p n_ops kinds, handler @p fn) unless an
 * earlier unit's controller did, then the targets "<unit>.<part>" and
 * "<unit>" (hosts whose unit commands name the unit), both with context
 * @p ctx and every element. Build phase only.
 * @return as pcs_command_family_register and pcs_command_target_register.
 */
pcs_status pcs_control_register_targets(pcs_world *w, const char *family_name, uint32_t n_ops,
                                        pcs_target_fn fn, void *ctx, const char *unit,
                                        const char *part);

/**
 * The command's first argument in *v when it is finite and in [lo, hi];
 * otherwise PCS_E_INVAL "<target>: <what> <value> is outside [lo, hi]".
 */
pcs_status pcs_control_arg_in(const pcs_command_call *c, const char *what, double lo, double hi,
                              double *v);

/** PCS_OK if @p unit_name has 1 to 15 characters; otherwise PCS_E_INVAL
 * "<who>: unit_name must be 1..15 characters". */
pcs_status pcs_control_unit_name_check(const char *who, const char *unit_name);

#endif
