/**
 * @file pzr_control_step.c
 * @brief The pressurizer controller's tick at PCS_STAGE_ACTUATORS: level
 *        program and charging PI, the master pressure PI and its heater and
 *        spray demands, the low-level interlock, and the demands written to
 *        the primary's controls store (equations in pcsim/pzr_control.h).
 */
#include <math.h> /* NAN: an input without a valid value */

#include "pcsim/math.h"
#include "pcsim/primary.h"
#include "pcsim/sensor.h"
#include "pcsim/system.h"
#include "physics/control/models/control_input.h"
#include "physics/control/models/pzr_control_internal.h"

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

double pcs_pzrc_read(pcs_world *w, const pcs_pzr_control_input *in)
{
    return pcs_control_input_read(w, in);
}

double pcs_pzrc_tavg(pcs_world *w, const pcs_pzr_control *pc)
{
    double best = NAN;
    for (uint32_t k = 0; k < pc->def.n_tavg; k++) {
        double t = pcs_pzrc_read(w, &pc->def.tavg[k]);
        if (t == t && !(t <= best)) /* valid, and above the best so far (or the first) */
            best = t;
    }
    return best;
}

double pcs_pzr_control_level_program(const pcs_pzr_control_def *d, double t_avg_k)
{
    if (!d)
        return NAN;
    double f = (t_avg_k - d->t_avg_no_load_k) / (d->t_avg_full_k - d->t_avg_no_load_k);
    double l = d->level_no_load_pct + f * (d->level_full_pct - d->level_no_load_pct);
    return clamp(l, d->level_no_load_pct, d->level_full_pct);
}

double pcs_pzrc_level_error(pcs_world *w, const pcs_pzr_control *pc, double t_avg, double *program)
{
    double level = pcs_pzrc_read(w, &pc->def.level);
    *program = t_avg == t_avg ? pcs_pzr_control_level_program(&pc->def, t_avg) : NAN;
    return level - *program; /* NaN if either is */
}

double pcs_pzrc_prop_heaters(const pcs_pzr_control_def *d, double e_c)
{
    return clamp((d->prop_off_pa - e_c) / (d->prop_off_pa - d->prop_full_on_pa), 0.0, 1.0);
}

double pcs_pzrc_spray(const pcs_pzr_control_def *d, double e_c)
{
    return clamp((e_c - d->spray_start_pa) / (d->spray_full_pa - d->spray_start_pa), 0.0, 1.0);
}

/* Charging PI: I_L integrates unless the step would push the output further
 * past a limit (conditional integration keeps I_L in its load-check range). */
static void level_step(const pcs_pzr_control *pc, double *s, double e_l)
{
    const pcs_pzr_control_def *d = &pc->def;
    double k = d->l_gain_kg_s_pct;
    double i_new =
        s[PCS_PZR_CONTROL_ST_L_INTEGRAL] + k * pc->base.dt_s / d->l_integral_time_s * e_l;
    double c_new = d->letdown_kg_s - k * e_l - i_new;
    int wind =
        (e_l > 0.0 && c_new < d->charging_min_kg_s) || (e_l < 0.0 && c_new > d->charging_max_kg_s);
    if (!wind)
        s[PCS_PZR_CONTROL_ST_L_INTEGRAL] = i_new;
    if (s[PCS_PZR_CONTROL_ST_LEVEL_MANUAL] == 0.0)
        s[PCS_PZR_CONTROL_ST_CHARGING] =
            clamp(d->letdown_kg_s - k * e_l - s[PCS_PZR_CONTROL_ST_L_INTEGRAL],
                  d->charging_min_kg_s, d->charging_max_kg_s);
}

/* Master PI and the auto demands; returns e_c. */
static double pressure_step(const pcs_pzr_control *pc, double *s, double e, int level_high)
{
    const pcs_pzr_control_def *d = &pc->def;
    double i_new =
        s[PCS_PZR_CONTROL_ST_P_INTEGRAL] + d->p_gain * pc->base.dt_s / d->p_integral_time_s * e;
    double ec_new = d->p_gain * e + i_new;
    int wind = (e > 0.0 && ec_new > d->spray_full_pa) || (e < 0.0 && ec_new < d->backup_on_pa);
    if (!wind)
        s[PCS_PZR_CONTROL_ST_P_INTEGRAL] = i_new;
    double e_c = d->p_gain * e + s[PCS_PZR_CONTROL_ST_P_INTEGRAL];
    if (e_c <= d->backup_on_pa)
        s[PCS_PZR_CONTROL_ST_BACKUP_LATCH] = 1.0;
    else if (e_c >= d->backup_off_pa)
        s[PCS_PZR_CONTROL_ST_BACKUP_LATCH] = 0.0;
    if (s[PCS_PZR_CONTROL_ST_HEATERS_MANUAL] == 0.0) {
        s[PCS_PZR_CONTROL_ST_HEATER_PROP] = pcs_pzrc_prop_heaters(d, e_c);
        s[PCS_PZR_CONTROL_ST_HEATER_BACKUP] =
            s[PCS_PZR_CONTROL_ST_BACKUP_LATCH] != 0.0 || level_high ? 1.0 : 0.0;
    }
    if (s[PCS_PZR_CONTROL_ST_SPRAY_MANUAL] == 0.0)
        s[PCS_PZR_CONTROL_ST_SPRAY] = pcs_pzrc_spray(d, e_c);
    return e_c;
}

pcs_status pcs_pzrc_system(pcs_world *w, void *ctx)
{
    const pcs_pzr_control *pc = ctx;
    const pcs_pzr_control_def *d = &pc->def;
    double *s = pcs_store_data(w, pc->base.id_state), *o = pcs_store_data(w, pc->id_out);
    double *ctl = pcs_store_data(w, d->controls_store);
    double t_avg = pcs_pzrc_tavg(w, pc), program,
           e_l = pcs_pzrc_level_error(w, pc, t_avg, &program);
    double level = pcs_pzrc_read(w, &d->level), p = pcs_pzrc_read(w, &d->pressure);
    /* An invalid input holds its signals at their last values (0 before the
     * first valid sample): the channels readers see stay finite. */
    if (t_avg == t_avg)
        o[PCS_PZR_CONTROL_OUT_T_AVG] = t_avg;
    if (e_l == e_l) {
        o[PCS_PZR_CONTROL_OUT_LEVEL_PROGRAM] = program;
        o[PCS_PZR_CONTROL_OUT_LEVEL_ERROR] = e_l;
        level_step(pc, s, e_l);
    }
    double e = p - d->p_setpoint_pa;
    if (e == e) {
        o[PCS_PZR_CONTROL_OUT_ERROR] = e;
        o[PCS_PZR_CONTROL_OUT_MASTER] = pressure_step(pc, s, e, e_l > d->backup_level_pct);
    }
    o[PCS_PZR_CONTROL_OUT_HEATER_W] = s[PCS_PZR_CONTROL_ST_HEATER_PROP] * d->heater_proportional_w +
                                      s[PCS_PZR_CONTROL_ST_HEATER_BACKUP] * d->heater_backup_w;
    /* the low-level interlock acts on the outputs, in every mode */
    int low = level < d->low_level_pct;
    ctl[PCS_PRIMARY_CTL_HEATER_PROPORTIONAL] = low ? 0.0 : s[PCS_PZR_CONTROL_ST_HEATER_PROP];
    ctl[PCS_PRIMARY_CTL_HEATER_BACKUP] = low ? 0.0 : s[PCS_PZR_CONTROL_ST_HEATER_BACKUP];
    ctl[PCS_PRIMARY_CTL_SPRAY] = s[PCS_PZR_CONTROL_ST_SPRAY];
    ctl[PCS_PRIMARY_CTL_CHARGING] = s[PCS_PZR_CONTROL_ST_CHARGING];
    ctl[PCS_PRIMARY_CTL_LETDOWN] = low ? 0.0 : s[PCS_PZR_CONTROL_ST_LETDOWN];
    ctl[PCS_PRIMARY_CTL_CHARGING_BORON] = s[PCS_PZR_CONTROL_ST_CHARGING_BORON];
    return PCS_OK;
}
