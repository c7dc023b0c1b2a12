/**
 * @file steam_dump_step.c
 * @brief The steam dump controller's programs, tick and commands
 *        (pcsim/steam_dump.h). Nothing here allocates.
 */
#include <math.h>

#include "pcsim/plant_signals.h"
#include "pcsim/system.h"
#include "physics/control/models/control_input.h"
#include "physics/control/models/steam_dump_internal.h"

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

static double trip_level(double e, double half, double all)
{
    return e >= all ? 1.0 : (e >= half ? 0.5 : 0.0);
}

double pcs_steam_dump_tavg_target(const pcs_steam_dump_def *d, double t_avg_k, double load,
                                  int load_rejection, int p4, double *trip_open,
                                  uint32_t *controller, double *error)
{
    double mod = 0.0, e = 0.0, to = 0.0;
    uint32_t c = PCS_STEAM_DUMP_CTL_NONE;
    if (p4) {
        c = PCS_STEAM_DUMP_CTL_PLANT_TRIP;
        e = t_avg_k - d->t_avg_no_load_k;
        mod = clamp(e / d->pt_full_k, 0.0, 1.0);
        to = trip_level(e, d->pt_trip_half_k, d->pt_trip_all_k);
    } else if (load_rejection) {
        c = PCS_STEAM_DUMP_CTL_LOAD_REJECTION;
        double f = clamp(load, 0.0, 1.0);
        e = t_avg_k - (d->t_avg_no_load_k + (d->t_avg_full_k - d->t_avg_no_load_k) * f);
        mod = clamp((e - d->lr_deadband_k) / (d->lr_full_k - d->lr_deadband_k), 0.0, 1.0);
        to = trip_level(e, d->lr_trip_half_k, d->lr_trip_all_k);
    }
    *trip_open = to;
    *controller = c;
    *error = e;
    return fmax(mod, to);
}

/* The pressure mode's PI at header pressure @p p (header): conditional
 * integration within [0, 1] against the output's limits 0 and @p cap. */
static double pressure_target(const pcs_steam_dump *sd, double *s, double p, double cap)
{
    const pcs_steam_dump_def *d = &sd->def;
    double e = p - d->p_setpoint_pa, kp_e = d->p_gain_per_pa * e;
    double i = s[PCS_STEAM_DUMP_ST_P_INTEGRAL];
    double di = sd->base.dt_s / d->p_integral_time_s * kp_e, out = kp_e + i;
    int high = out >= cap && di > 0.0, low = out <= 0.0 && di < 0.0;
    if (!high && !low)
        s[PCS_STEAM_DUMP_ST_P_INTEGRAL] = i = clamp(i + di, 0.0, 1.0);
    s[PCS_STEAM_DUMP_ST_ERROR] = e;
    s[PCS_STEAM_DUMP_ST_CONTROLLER] = PCS_STEAM_DUMP_CTL_PRESSURE;
    return clamp(kp_e + i, 0.0, 1.0);
}

/* The auto or manual target before the cap; *trip_open the trip-open level. */
static double target_now(pcs_world *w, const pcs_steam_dump *sd, double *s, const double *ilk,
                         double cap, double *trip_open)
{
    const pcs_steam_dump_def *d = &sd->def;
    *trip_open = 0.0;
    if (s[PCS_STEAM_DUMP_ST_MANUAL] != 0.0) {
        s[PCS_STEAM_DUMP_ST_CONTROLLER] = PCS_STEAM_DUMP_CTL_MANUAL;
        s[PCS_STEAM_DUMP_ST_ERROR] = 0.0;
        return s[PCS_STEAM_DUMP_ST_MANUAL_DEMAND];
    }
    if (s[PCS_STEAM_DUMP_ST_MODE] != 0.0)
        return pressure_target(sd, s, s[PCS_STEAM_DUMP_ST_P_MEASURED], cap);
    double t = pcs_control_input_read(w, &d->tavg);
    if (t != t) /* invalid Tavg: hold */
        return s[PCS_STEAM_DUMP_ST_DEMAND];
    const double *tsig = pcs_store_data(w, sd->id_turbine);
    /* P-4 (reactor tripped) selects the plant-trip controller; without it a
     * load rejection arms the loss-of-load one: C-7, or C-8 (a turbine trip
     * is the limiting load rejection; it arms even after C-7's reset) */
    int p4 = ilk[PCS_SIG_P4] != 0.0;
    int lr = ilk[PCS_SIG_C7] != 0.0 || ilk[PCS_SIG_C8] != 0.0;
    uint32_t c;
    double e, target = pcs_steam_dump_tavg_target(d, t, tsig[PCS_SIG_TURBINE_LOAD], lr, p4,
                                                  trip_open, &c, &e);
    s[PCS_STEAM_DUMP_ST_CONTROLLER] = c;
    s[PCS_STEAM_DUMP_ST_ERROR] = e;
    return target;
}

pcs_status pcs_sdc_system(pcs_world *w, void *ctx)
{
    pcs_steam_dump *sd = ctx;
    const pcs_steam_dump_def *d = &sd->def;
    double *s = pcs_store_data(w, sd->base.id_state);
    const double *ilk = pcs_store_data(w, sd->id_interlock);
    const double *o = pcs_store_data(w, sd->sec.out);
    s[PCS_STEAM_DUMP_ST_P_MEASURED] = o[PCS_SECONDARY_OUT_HEADER_P];
    double cap = (d->require_c9 && ilk[PCS_SIG_C9] == 0.0) ? 0.0
                 : ilk[PCS_SIG_P12] != 0.0                 ? d->p12_fraction
                                                           : 1.0;
    double trip_open, target = fmin(target_now(w, sd, s, ilk, cap, &trip_open), cap);
    double demand = s[PCS_STEAM_DUMP_ST_DEMAND];
    if (trip_open > demand && target > demand) /* trip-open: fast, up to its level */
        demand = fmin(demand + sd->base.dt_s / d->trip_open_stroke_s, trip_open);
    else {
        double step = sd->base.dt_s / d->modulate_stroke_s;
        demand += clamp(target - demand, -step, step);
    }
    demand = clamp(fmin(demand, cap), 0.0, 1.0); /* an interlock closes at once */
    s[PCS_STEAM_DUMP_ST_DEMAND] = demand;
    *(double *)pcs_store_data(w, sd->sec.dump) = demand;
    return PCS_OK;
}

/* Bumpless entry into the pressure mode's auto: K_p e_p + I = the demand now. */
static void pressure_track(const pcs_steam_dump *sd, double *s)
{
    double e = s[PCS_STEAM_DUMP_ST_P_MEASURED] - sd->def.p_setpoint_pa;
    s[PCS_STEAM_DUMP_ST_P_INTEGRAL] =
        clamp(s[PCS_STEAM_DUMP_ST_DEMAND] - sd->def.p_gain_per_pa * e, 0.0, 1.0);
}

pcs_status pcs_sdc_on_command(pcs_world *w, const pcs_command_call *c)
{
    pcs_steam_dump *sd = c->ctx;
    double *s = pcs_store_data(w, sd->base.id_state);
    switch (c->op) {
    case PCS_STEAM_DUMP_OP_MANUAL: {
        double v = c->cmd->args[0];
        if (!pcs_isfinite(v) || v < 0.0 || v > 1.0)
            return pcs_error_set(PCS_E_INVAL, "%s: steam dump demand %g is outside [0, 1]",
                                 c->target_name, v);
        s[PCS_STEAM_DUMP_ST_MANUAL_DEMAND] = v;
        s[PCS_STEAM_DUMP_ST_MANUAL] = 1.0;
        return PCS_OK;
    }
    case PCS_STEAM_DUMP_OP_AUTO:
        if (s[PCS_STEAM_DUMP_ST_MANUAL] != 0.0 && s[PCS_STEAM_DUMP_ST_MODE] != 0.0)
            pressure_track(sd, s);
        s[PCS_STEAM_DUMP_ST_MANUAL] = 0.0;
        return PCS_OK;
    case PCS_STEAM_DUMP_OP_TAVG_MODE:
        s[PCS_STEAM_DUMP_ST_MODE] = 0.0;
        return PCS_OK;
    case PCS_STEAM_DUMP_OP_PRESSURE_MODE:
        if (s[PCS_STEAM_DUMP_ST_MODE] == 0.0)
            pressure_track(sd, s);
        s[PCS_STEAM_DUMP_ST_MODE] = 1.0;
        return PCS_OK;
    default:
        return pcs_error_set(PCS_E_INVAL, "%s: unknown steam_dump op %u", c->target_name, c->op);
    }
}
