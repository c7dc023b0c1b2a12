/**
 * @file pzr_control_cmd.c
 * @brief The "pzr_control" command family: manual heaters, sprays and
 *        charging, the bumpless returns to auto, letdown and charging
 *        boron (pcsim/pzr_control.h). Handlers run at stage 1.
 */
#include <math.h>

#include "pcsim/math.h"
#include "pcsim/system.h"
#include "physics/control/models/control_common.h"
#include "physics/control/models/pzr_control_internal.h"

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* Master outputs e_c that give the heater demands held in manual:
 * [*lo, *hi]. Proportional bank strictly inside (0, 1): one point; backup
 * bank on: at or below the middle of the backup hysteresis (the latch then
 * holds until the pressure moves half that band); proportional bank full
 * alone: between backup_on and prop_full_on; all off: prop_off and above
 * (the sprays are another station). */
static void heater_interval(const pcs_pzr_control_def *d, const double *s, double *lo, double *hi)
{
    double f = s[PCS_PZR_CONTROL_ST_HEATER_PROP], b = s[PCS_PZR_CONTROL_ST_HEATER_BACKUP];
    *lo = -INFINITY;
    *hi = INFINITY;
    if (b > 0.0) {
        *hi = 0.5 * (d->backup_on_pa + d->backup_off_pa);
    } else if (f >= 1.0) {
        *lo = d->backup_on_pa;
        *hi = d->prop_full_on_pa;
    } else if (f <= 0.0) {
        *lo = d->prop_off_pa;
    } else {
        *lo = *hi = d->prop_off_pa - f * (d->prop_off_pa - d->prop_full_on_pa);
    }
}

static void spray_interval(const pcs_pzr_control_def *d, const double *s, double *lo, double *hi)
{
    double f = s[PCS_PZR_CONTROL_ST_SPRAY];
    *lo = -INFINITY;
    *hi = INFINITY;
    if (f >= 1.0)
        *lo = d->spray_full_pa;
    else if (f <= 0.0)
        *hi = d->spray_start_pa;
    else
        *lo = *hi = d->spray_start_pa + f * (d->spray_full_pa - d->spray_start_pa);
}

/* PRESSURE_AUTO: the integrator that makes e_c, at the pressure measured now,
 * the value closest to K_p e among those reproducing the manual demands
 * (the heaters' if heaters and sprays disagree), within the integrator's
 * range; then both stations back to auto. */
static void pressure_auto(pcs_world *w, pcs_pzr_control *pc, double *s)
{
    const pcs_pzr_control_def *d = &pc->def;
    double lo = -INFINITY, hi = INFINITY, a, b;
    int heaters = s[PCS_PZR_CONTROL_ST_HEATERS_MANUAL] != 0.0;
    int spray = s[PCS_PZR_CONTROL_ST_SPRAY_MANUAL] != 0.0;
    if (heaters)
        heater_interval(d, s, &lo, &hi);
    if (spray) {
        spray_interval(d, s, &a, &b);
        if (!heaters || (a <= hi && b >= lo)) {
            lo = fmax(lo, a);
            hi = fmin(hi, b);
        }
    }
    double e = pcs_pzrc_read(w, &d->pressure) - d->p_setpoint_pa;
    if (e == e && (heaters || spray)) {
        double pe = d->p_gain * e;
        s[PCS_PZR_CONTROL_ST_P_INTEGRAL] =
            clamp(clamp(pe, lo, hi) - pe, d->backup_on_pa, d->spray_full_pa);
    }
    if (heaters)
        s[PCS_PZR_CONTROL_ST_BACKUP_LATCH] = s[PCS_PZR_CONTROL_ST_HEATER_BACKUP] > 0.0 ? 1.0 : 0.0;
    s[PCS_PZR_CONTROL_ST_HEATERS_MANUAL] = 0.0;
    s[PCS_PZR_CONTROL_ST_SPRAY_MANUAL] = 0.0;
}

/* LEVEL_AUTO: I_L so that the auto charging equals the manual one now. */
static void level_auto(pcs_world *w, pcs_pzr_control *pc, double *s)
{
    const pcs_pzr_control_def *d = &pc->def;
    double program, e_l = pcs_pzrc_level_error(w, pc, pcs_pzrc_tavg(w, pc), &program);
    if (e_l != e_l)
        e_l = 0.0;
    double i = d->letdown_kg_s - d->l_gain_kg_s_pct * e_l - s[PCS_PZR_CONTROL_ST_CHARGING];
    s[PCS_PZR_CONTROL_ST_L_INTEGRAL] =
        clamp(i, d->letdown_kg_s - d->charging_max_kg_s, d->letdown_kg_s - d->charging_min_kg_s);
    s[PCS_PZR_CONTROL_ST_LEVEL_MANUAL] = 0.0;
}

static pcs_status heaters_manual(const pcs_command_call *c, const pcs_pzr_control_def *d, double *s)
{
    double watts;
    pcs_status st = pcs_control_arg_in(c, "heater power W", 0.0,
                                       d->heater_proportional_w + d->heater_backup_w, &watts);
    if (st != PCS_OK)
        return st;
    s[PCS_PZR_CONTROL_ST_HEATER_PROP] =
        fmin(watts, d->heater_proportional_w) / d->heater_proportional_w;
    s[PCS_PZR_CONTROL_ST_HEATER_BACKUP] =
        fmax(watts - d->heater_proportional_w, 0.0) / d->heater_backup_w;
    s[PCS_PZR_CONTROL_ST_HEATERS_MANUAL] = 1.0;
    return PCS_OK;
}

static pcs_status set_value(const pcs_command_call *c, const char *what, double lo, double hi,
                            double *s, uint32_t element, uint32_t manual_flag)
{
    double v;
    pcs_status st = pcs_control_arg_in(c, what, lo, hi, &v);
    if (st != PCS_OK)
        return st;
    s[element] = v;
    if (manual_flag < PCS_PZR_CONTROL_ST_COUNT)
        s[manual_flag] = 1.0;
    return PCS_OK;
}

pcs_status pcs_pzrc_on_command(pcs_world *w, const pcs_command_call *c)
{
    pcs_pzr_control *pc = c->ctx;
    const pcs_pzr_control_def *d = &pc->def;
    double *s = pcs_store_data(w, pc->base.id_state);
    switch (c->op) {
    case PCS_PZR_CONTROL_OP_HEATERS:
        return heaters_manual(c, d, s);
    case PCS_PZR_CONTROL_OP_PRESSURE_AUTO:
        pressure_auto(w, pc, s);
        return PCS_OK;
    case PCS_PZR_CONTROL_OP_SPRAY:
        return set_value(c, "spray demand", 0.0, 1.0, s, PCS_PZR_CONTROL_ST_SPRAY,
                         PCS_PZR_CONTROL_ST_SPRAY_MANUAL);
    case PCS_PZR_CONTROL_OP_CHARGING:
        return set_value(c, "charging kg/s", 0.0, d->charging_max_kg_s, s,
                         PCS_PZR_CONTROL_ST_CHARGING, PCS_PZR_CONTROL_ST_LEVEL_MANUAL);
    case PCS_PZR_CONTROL_OP_LEVEL_AUTO:
        level_auto(w, pc, s);
        return PCS_OK;
    case PCS_PZR_CONTROL_OP_CHARGING_BORON:
        return set_value(c, "charging boron ppm", 0.0, PZRC_BORON_MAX_PPM, s,
                         PCS_PZR_CONTROL_ST_CHARGING_BORON, PCS_PZR_CONTROL_ST_COUNT);
    case PCS_PZR_CONTROL_OP_LETDOWN:
        return set_value(c, "letdown kg/s", 0.0, d->letdown_max_kg_s, s, PCS_PZR_CONTROL_ST_LETDOWN,
                         PCS_PZR_CONTROL_ST_COUNT);
    }
    return pcs_error_set(PCS_E_INVAL, "%s: unknown pzr_control op %u", c->target_name, c->op);
}

pcs_status pcs_pzr_control_set_charging_boron(pcs_world *w, pcs_pzr_control *pc, double ppm)
{
    if (!w || !pc)
        return pcs_error_set(PCS_E_INVAL, "pcs_pzr_control_set_charging_boron: NULL argument");
    if (!pcs_isfinite(ppm) || ppm < 0.0 || ppm > PZRC_BORON_MAX_PPM)
        return pcs_error_set(PCS_E_INVAL, "%s.pzrctl: charging boron %g ppm is outside [0, %g]",
                             pc->base.unit, ppm, PZRC_BORON_MAX_PPM);
    double *s = pcs_store_data(w, pc->base.id_state);
    s[PCS_PZR_CONTROL_ST_CHARGING_BORON] = ppm;
    return PCS_OK;
}
