/**
 * @file sg_porv_step.c
 * @brief The SG PORV controller's tick and commands (pcsim/sg_porv.h).
 *        Nothing here allocates.
 */
#include <math.h>

#include "pcsim/system.h"
#include "physics/control/models/control_common.h"
#include "physics/control/models/control_input.h"
#include "physics/control/models/sg_porv_internal.h"

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* The PI's target for one valve at measured pressure @p p, its integral
 * moved unless the output sits at full open and the step pushes further
 * (conditional integration); below the setpoint it runs down to its clamp
 * at 0, so a shut valve keeps no stale opening. */
static double auto_target(const pcs_sg_porv *pv, double *s, double p)
{
    const pcs_sg_porv_def *d = &pv->def;
    double e = p - d->p_setpoint_pa, kp_e = e / d->p_band_pa;
    double i = s[PCS_SG_PORV_ST_INTEGRAL];
    double di = pv->base.dt_s / d->integral_time_s * kp_e, out = kp_e + i;
    if (!(out >= 1.0 && di > 0.0))
        s[PCS_SG_PORV_ST_INTEGRAL] = i = clamp(i + di, 0.0, 1.0);
    s[PCS_SG_PORV_ST_ERROR] = e;
    return clamp(kp_e + i, 0.0, 1.0);
}

pcs_status pcs_porv_system(pcs_world *w, void *ctx)
{
    pcs_sg_porv *pv = ctx;
    double *state = pcs_store_data(w, pv->base.id_state);
    double *porv = pcs_store_data(w, pv->sec.porv);
    double step = pv->base.dt_s / pv->def.stroke_s;
    for (uint32_t l = 0; l < pv->base.n_sg; l++) {
        double *s = state + (size_t)l * PCS_SG_PORV_ST_COUNT;
        double p = pcs_control_input_read(w, &pv->def.pressure[l]);
        double opening = s[PCS_SG_PORV_ST_OPENING], target = opening;
        if (p == p) { /* valid: NaN otherwise (hold) */
            s[PCS_SG_PORV_ST_P_MEASURED] = p;
            s[PCS_SG_PORV_ST_ERROR] = p - pv->def.p_setpoint_pa; /* in manual too */
        }
        if (s[PCS_SG_PORV_ST_MANUAL] != 0.0)
            target = s[PCS_SG_PORV_ST_MANUAL_OPENING];
        else if (p == p)
            target = auto_target(pv, s, p);
        opening = clamp(opening + clamp(target - opening, -step, step), 0.0, 1.0);
        s[PCS_SG_PORV_ST_OPENING] = opening;
        porv[l] = opening;
    }
    return PCS_OK;
}

/* Bumpless entry into auto: K_p e + I = the opening now, at the last
 * measured pressure. */
static void track(const pcs_sg_porv *pv, double *s)
{
    double e = s[PCS_SG_PORV_ST_P_MEASURED] - pv->def.p_setpoint_pa;
    s[PCS_SG_PORV_ST_INTEGRAL] = clamp(s[PCS_SG_PORV_ST_OPENING] - e / pv->def.p_band_pa, 0.0, 1.0);
}

pcs_status pcs_porv_on_command(pcs_world *w, const pcs_command_call *c)
{
    pcs_sg_porv *pv = c->ctx;
    double *state = pcs_store_data(w, pv->base.id_state), v = 0.0;
    if (c->op == PCS_SG_PORV_OP_MANUAL) {
        pcs_status st = pcs_control_arg_in(c, "SG PORV opening", 0.0, 1.0, &v);
        if (st != PCS_OK)
            return st;
    } else if (c->op != PCS_SG_PORV_OP_AUTO)
        return pcs_error_set(PCS_E_INVAL, "%s: unknown sg_porv op %u", c->target_name, c->op);
    int all = c->element == PCS_TARGET_ELEMENT_ALL;
    if (!all && c->element >= pv->base.n_sg)
        return pcs_error_set(PCS_E_INVAL, "%s: SG %u outside [1, %u]", c->target_name,
                             c->element + 1, pv->base.n_sg);
    uint32_t lo = all ? 0 : c->element, hi = all ? pv->base.n_sg : c->element + 1;
    for (uint32_t l = lo; l < hi; l++) {
        double *s = state + (size_t)l * PCS_SG_PORV_ST_COUNT;
        if (c->op == PCS_SG_PORV_OP_MANUAL) {
            s[PCS_SG_PORV_ST_MANUAL_OPENING] = v;
            s[PCS_SG_PORV_ST_MANUAL] = 1.0;
        } else {
            if (s[PCS_SG_PORV_ST_MANUAL] != 0.0)
                track(pv, s);
            s[PCS_SG_PORV_ST_MANUAL] = 0.0;
        }
    }
    return PCS_OK;
}
