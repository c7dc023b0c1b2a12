/**
 * @file control_common.c
 * @brief Command family, targets and argument check of a unit controller
 *        (control_common.h).
 */
#include <stdio.h>
#include <string.h>

#include "pcsim/math.h"
#include "physics/control/models/control_common.h"

pcs_status pcs_control_register_targets(pcs_world *w, const char *family_name, uint32_t n_ops,
                                        pcs_target_fn fn, void *ctx, const char *unit,
                                        const char *part)
{
    uint32_t family;
    pcs_status st = pcs_command_family_share(w, family_name, n_ops, fn, &family);
    char name[48];
    snprintf(name, sizeof name, "%s.%s", unit, part);
    const char *names[] = {name, unit};
    for (size_t k = 0; st == PCS_OK && k < 2; k++) {
        pcs_command_target_def td = {.name = names[k],
                                     .family = family,
                                     .ctx = ctx,
                                     .element = PCS_TARGET_ELEMENT_ALL,
                                     .ops = 0};
        st = pcs_command_target_register(w, &td, NULL);
    }
    return st;
}

pcs_status pcs_control_arg_in(const pcs_command_call *c, const char *what, double lo, double hi,
                              double *v)
{
    *v = c->cmd->args[0];
    if (!pcs_isfinite(*v) || *v < lo || *v > hi)
        return pcs_error_set(PCS_E_INVAL, "%s: %s %g is outside [%g, %g]", c->target_name, what, *v,
                             lo, hi);
    return PCS_OK;
}

pcs_status pcs_control_unit_name_check(const char *who, const char *unit_name)
{
    size_t n = unit_name ? strlen(unit_name) : 0;
    if (n < 1 || n > 15)
        return pcs_error_set(PCS_E_INVAL, "%s: unit_name must be 1..15 characters", who);
    return PCS_OK;
}
