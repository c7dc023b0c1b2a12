/**
 * @file rod_control_step.c
 * @brief The rod controller's speed program, tick and commands
 *        (pcsim/rod_control.h). Nothing here allocates.
 */
#include <math.h>

#include "pcsim/math.h"
#include "pcsim/plant_signals.h"
#include "pcsim/system.h"
#include "physics/control/models/control_input.h"
#include "physics/control/models/rod_control_internal.h"

double pcs_rod_control_t_ref(const pcs_rod_control_def *d, double load)
{
    double f = load < 0.0 ? 0.0 : (load > 1.0 ? 1.0 : load);
    return d->t_avg_no_load_k + (d->t_avg_full_k - d->t_avg_no_load_k) * f;
}

double pcs_rod_control_speed(const pcs_rod_control_def *d, double e_k, int *moving)
{
    double a = fabs(e_k);
    /* lock-up: start at the deadband, keep moving down to deadband - lockup */
    *moving = *moving ? a >= d->deadband_k - d->lockup_k : a >= d->deadband_k;
    if (!*moving)
        return 0.0;
    double s = d->min_speed_spm;
    if (a >= d->ramp_start_k)
        s += d->ramp_spm_per_k * (a - d->ramp_start_k);
    if (s > d->max_speed_spm)
        s = d->max_speed_spm;
    return e_k > 0.0 ? -s : s; /* Tavg (or power) high: insert */
}

double pcs_rod_control_rate_lag(const pcs_rod_control_def *d, double m, double dt_s, double *lag)
{
    *lag += -pcs_expm1(-dt_s / d->mismatch_tau_s) * (m - *lag);
    return m - *lag;
}

double pcs_rod_control_power_error(const pcs_rod_control_def *d, double y, double power)
{
    double a = fabs(y), b = d->mismatch_break;
    double g =
        a <= b ? d->mismatch_low_k * a : d->mismatch_low_k * b + d->mismatch_high_k * (a - b);
    double v = power > 0.0 ? 1.0 / power : d->variable_gain_max;
    v = v < 1.0 ? 1.0 : (v > d->variable_gain_max ? d->variable_gain_max : v);
    return y < 0.0 ? -v * g : v * g;
}

/* The mismatch channel's e_p this tick (K); 0 without the channel or with
 * an invalid power, which also restarts the lag at the next valid sample. */
static double power_channel(pcs_world *w, const pcs_rod_control *rc, double *s, double load)
{
    const pcs_rod_control_def *d = &rc->def;
    if (d->power.store == UINT32_MAX)
        return 0.0;
    double p = pcs_control_input_read(w, &d->power);
    if (p != p) {
        s[PCS_ROD_CONTROL_ST_LAG_VALID] = 0.0;
        return 0.0;
    }
    double f = p / d->rated_power_w, m = f - load;
    m = m < -2.0 ? -2.0 : (m > 2.0 ? 2.0 : m);
    if (s[PCS_ROD_CONTROL_ST_LAG_VALID] == 0.0) { /* seed: no kick from the start */
        s[PCS_ROD_CONTROL_ST_MISMATCH_LAG] = m;
        s[PCS_ROD_CONTROL_ST_LAG_VALID] = 1.0;
    }
    double y = pcs_rod_control_rate_lag(d, m, rc->base.dt_s, &s[PCS_ROD_CONTROL_ST_MISMATCH_LAG]);
    return pcs_rod_control_power_error(d, y, f);
}

/* The banks' speed demands (travel per s) for signed speed @p v: one bank
 * of bank_mask at a time, in the unit's bank order (header). */
static void sequence(const pcs_rod_control *rc, const double *pos, double v, double *out)
{
    const uint32_t mask = rc->def.bank_mask;
    uint32_t pick = UINT32_MAX;
    for (uint32_t b = 0; b < rc->n_banks; b++) {
        out[b] = 0.0;
        if (!(mask >> b & 1u))
            continue;
        if (v < 0.0 && pick == UINT32_MAX && pos[b] > 0.0)
            pick = b; /* inserting: the first not fully in */
        if (v > 0.0 && pos[b] < 1.0)
            pick = b; /* withdrawing: the last not fully out */
    }
    if (pick != UINT32_MAX)
        out[pick] = v;
}

pcs_status pcs_rodc_system(pcs_world *w, void *ctx)
{
    pcs_rod_control *rc = ctx;
    const pcs_rod_control_def *d = &rc->def;
    double *s = pcs_store_data(w, rc->base.id_state), *a = pcs_store_data(w, rc->id_auto);
    const double *sig = pcs_store_data(w, rc->id_turbine);
    double load = sig[PCS_SIG_TURBINE_LOAD];
    s[PCS_ROD_CONTROL_ST_T_REF] = pcs_rod_control_t_ref(d, load);
    double t = pcs_control_input_read(w, &d->tavg);
    int valid = t == t;
    s[PCS_ROD_CONTROL_ST_ERROR] = valid ? t - s[PCS_ROD_CONTROL_ST_T_REF] : 0.0;
    s[PCS_ROD_CONTROL_ST_POWER_ERROR] = power_channel(w, rc, s, load);
    s[PCS_ROD_CONTROL_ST_TOTAL_ERROR] =
        s[PCS_ROD_CONTROL_ST_ERROR] + s[PCS_ROD_CONTROL_ST_POWER_ERROR];
    int manual = s[PCS_ROD_CONTROL_ST_MANUAL] != 0.0;
    int moving = s[PCS_ROD_CONTROL_ST_MOVING] != 0.0;
    double spm = 0.0;
    int engaged = !manual && valid;
    if (engaged)
        spm = pcs_rod_control_speed(d, s[PCS_ROD_CONTROL_ST_TOTAL_ERROR], &moving);
    else
        moving = 0; /* manual or Tavg invalid: the lock-up starts released */
    if (spm > 0.0 && load < d->auto_min_load) {
        spm = 0.0; /* C-5: automatic withdrawal stops; insertion goes on */
        moving = 0;
    }
    s[PCS_ROD_CONTROL_ST_MOVING] = moving;
    s[PCS_ROD_CONTROL_ST_SPEED] = spm;
    sequence(rc, pcs_store_data(w, rc->id_pos), spm / (60.0 * d->steps_full_stroke), a);
    /* released (manual, Tavg invalid) the banks hold where they are and
     * take the unit's rod commands */
    a[rc->n_banks] = engaged ? (double)d->bank_mask : 0.0;
    return PCS_OK;
}

pcs_status pcs_rodc_on_command(pcs_world *w, const pcs_command_call *c)
{
    pcs_rod_control *rc = c->ctx;
    double *s = pcs_store_data(w, rc->base.id_state);
    if (c->op == PCS_ROD_CONTROL_OP_MANUAL) {
        s[PCS_ROD_CONTROL_ST_MANUAL] = 1.0;
        return PCS_OK;
    }
    if (c->op != PCS_ROD_CONTROL_OP_AUTO)
        return pcs_error_set(PCS_E_INVAL, "%s: unknown rod_control op %u", c->target_name, c->op);
    /* bumpless: no integrator to set; the lock-up starts released, so the
     * banks stay put unless the error is already outside the deadband */
    if (s[PCS_ROD_CONTROL_ST_MANUAL] != 0.0)
        s[PCS_ROD_CONTROL_ST_MOVING] = 0.0;
    s[PCS_ROD_CONTROL_ST_MANUAL] = 0.0;
    return PCS_OK;
}
