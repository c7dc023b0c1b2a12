/**
 * @file control_common.c
 * @brief A unit controller's allocation, build steps, state store,
 *        channels (also one set per SG), command family and targets, defaults, def check, flag
 *        load checks and argument check (control_common.h).
 */
#include <stdio.h>
#include <string.h>

#include "pcsim/clock.h"
#include "pcsim/math.h"
#include "pcsim/persist.h"
#include "pcsim/system.h"
#include "physics/control/models/control_common.h"
#include "physics/thermohydraulics/models/th_register.h"

void *pcs_control_new(pcs_world *w, pcs_status *st, const pcs_control_kind *kind, size_t size,
                      const char *unit_name)
{
    if (*st != PCS_OK)
        return NULL;
    pcs_control_base *b = pcs_world_alloc(w, size);
    if (!b) {
        *st = pcs_error_set(PCS_E_NOMEM, "pcs_%s_add: out of memory", kind->model);
        return NULL;
    }
    memset(b, 0, size);
    b->kind = kind;
    snprintf(b->unit, sizeof b->unit, "%s", unit_name);
    b->dt_s = pcs_world_clock(w)->dt_s;
    b->id_state = UINT32_MAX;
    return b;
}

pcs_status pcs_control_build(pcs_world *w, pcs_control_base *b)
{
    pcs_status st = PCS_OK;
    const pcs_control_step *step = b->kind->steps;
    for (size_t k = 0; st == PCS_OK && k < PCS_CONTROL_MAX_STEPS && step[k]; k++)
        st = step[k](w, b);
    return st;
}

pcs_status pcs_control_finish(pcs_world *w, pcs_status st, pcs_control_base *b, void *out)
{
    if (st == PCS_OK)
        st = pcs_control_build(w, b);
    if (st == PCS_OK)
        memcpy(out, &b, sizeof b); /* the T * of the add (control_common.h) */
    return st;
}

pcs_status pcs_control_default(const char *fn, void *d, const void *defaults, size_t size)
{
    if (!d)
        return pcs_error_set(PCS_E_INVAL, "%s: def is NULL", fn);
    memcpy(d, defaults, size);
    return PCS_OK;
}

pcs_status pcs_control_state(pcs_world *w, pcs_control_base *b, size_t n, double **s)
{
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "%s.%s.state", b->unit, b->kind->name);
    pcs_status st =
        pcs_store_register(w, name, sizeof(double), n, PCS_STORE_STATE_F64, &b->id_state);
    *s = st == PCS_OK ? pcs_store_data(w, b->id_state) : NULL;
    return st;
}

pcs_status pcs_control_channels(pcs_world *w, const pcs_control_base *b, uint32_t store,
                                const pcs_th_channel_row *rows, size_t count)
{
    char prefix[PCS_NAME_MAX];
    snprintf(prefix, sizeof prefix, "%s.%s", b->unit, b->kind->name);
    return pcs_th_channels_register(w, prefix, store, rows, count);
}

pcs_status pcs_control_sg_channels(pcs_world *w, const pcs_control_base *b, uint32_t first,
                                   uint32_t per_sg, const pcs_th_channel_row *rows, size_t count)
{
    pcs_status st = PCS_OK;
    for (uint32_t l = 0; st == PCS_OK && l < b->n_sg; l++)
        for (size_t i = 0; st == PCS_OK && i < count; i++) {
            char suffix[48];
            snprintf(suffix, sizeof suffix, "sg%u.%s", l + 1, rows[i].suffix);
            st = pcs_th_channel(w, b->unit, suffix, rows[i].unit, b->id_state,
                                first + per_sg * l + rows[i].index);
        }
    return st;
}

/* Register family @p family_name (@p n_ops kinds, handler @p fn) unless an
 * earlier unit's controller did, then the targets "<unit>.<part>" and
 * "<unit>" (hosts whose unit commands name the unit), both with context
 * @p ctx and every element. */
static pcs_status register_targets(pcs_world *w, const char *family_name, uint32_t n_ops,
                                   pcs_target_fn fn, void *ctx, const char *unit, const char *part)
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

pcs_status pcs_control_targets(pcs_world *w, void *ctl)
{
    const pcs_control_base *b = ctl;
    const pcs_control_commands *c = &b->kind->commands;
    pcs_status st = register_targets(w, c->family, c->n_ops, c->on_command, ctl, b->unit, c->part);
    if (st != PCS_OK || !c->sg_part)
        return st;
    uint32_t family = 0;
    st = pcs_command_family_share(w, c->family, c->n_ops, c->on_command, &family);
    return st == PCS_OK ? pcs_th_element_targets(w, family, ctl, b->unit, c->sg_part, b->n_sg) : st;
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

pcs_status pcs_control_def_check(const char *who, const char *unit_name, const pcs_param_range *r,
                                 size_t n)
{
    pcs_status st = pcs_control_unit_name_check(who, unit_name);
    if (st != PCS_OK)
        return st;
    char prefix[48];
    snprintf(prefix, sizeof prefix, "%s: ", who);
    return pcs_param_ranges_check(prefix, r, n);
}

pcs_status pcs_control_load_flag(const char *store, const char *field, const double *x, uint32_t i,
                                 int digits)
{
    pcs_status st = pcs_load_check_f64_from(store, field, x, i, 1, 1, 0.0, 1.0, 0);
    if (st == PCS_OK && x[i] != 0.0 && x[i] != 1.0)
        st = pcs_error_set(PCS_E_CORRUPT, "store '%s' element %u (%s): value %.*g is not 0 or 1",
                           store, i, field, digits, x[i]);
    return st;
}

pcs_status pcs_control_flag_allowed(const char *store, const char *field, const double *x,
                                    uint32_t i)
{
    if (x[i] == 0.0 || x[i] == 1.0)
        return PCS_OK;
    return pcs_error_set(PCS_E_CORRUPT, "store '%s' element %u (%s): value %g; allowed 0 or 1",
                         store, i, field, x[i]);
}
