/**
 * @file turbine_step.c
 * @brief The turbine-generator's tick (pcsim/turbine.h): the governor at
 *        stage ACTUATORS on the previous tick's load and speed, the
 *        turbine and generator at stage ACCIDENTS on this tick's steam
 *        flow. Nothing here allocates.
 */
#include <math.h>

#include "pcsim/plant_signals.h"
#include "pcsim/system.h"
#include "physics/machines/models/turbine_internal.h"

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* The choked throat passes W_throat at the rated opening and pressure,
 * and flow in proportion to opening x pressure (pcsim/secondary.h), so the
 * opening for load d (flow d W_rated) at header pressure p is about
 * v_r d (W_rated / W_throat) p_r / p (the pressure held at 1 % of rated or
 * more). */
double pcs_turbine_ff(const pcs_turbine *t, double d, double p_pa)
{
    return t->ff_opening * d * (t->rated_kg_s / t->throat_kg_s) * t->rated_p_pa /
           fmax(p_pa, 0.01 * t->rated_p_pa);
}

/* The effective demand: D less the droop's share of the speed error. */
static double demand_eff(const pcs_turbine *t, const double *g, const double *sig)
{
    double d = g[PCS_TURBINE_GOV_DEMAND] - (sig[PCS_SIG_TURBINE_SPEED] - 1.0) / t->def.droop;
    return clamp(d, 0.0, PCS_TURBINE_LOAD_MAX);
}

/* D towards the target at the rate in use (a step was taken by the command). */
static void ramp(const pcs_turbine *t, double *g)
{
    double step = g[PCS_TURBINE_GOV_RATE] * t->base.dt_s;
    g[PCS_TURBINE_GOV_DEMAND] +=
        clamp(g[PCS_TURBINE_GOV_TARGET] - g[PCS_TURBINE_GOV_DEMAND], -step, step);
}

/* Tripped: the stop valves close at 1 / stop_close_s, the control valves
 * follow, the demand and the integrator go to 0. */
static void tripped(const pcs_turbine *t, double *g)
{
    g[PCS_TURBINE_GOV_STOP] =
        fmax(0.0, g[PCS_TURBINE_GOV_STOP] - t->base.dt_s / t->def.stop_close_s);
    g[PCS_TURBINE_GOV_VALVE] = fmin(g[PCS_TURBINE_GOV_VALVE], g[PCS_TURBINE_GOV_STOP]);
    g[PCS_TURBINE_GOV_VALVE_TARGET] = g[PCS_TURBINE_GOV_VALVE];
    g[PCS_TURBINE_GOV_TARGET] = g[PCS_TURBINE_GOV_DEMAND] = 0.0;
    g[PCS_TURBINE_GOV_INTEGRAL] = 0.0;
}

/* Auto: the PI on first-stage load with feedforward; conditional
 * integration against the output clamp and the valve's rate limit. */
static double auto_command(const pcs_turbine *t, double *g, double d_eff, double load, double p)
{
    const pcs_turbine_def *d = &t->def;
    double e = d_eff - load, v = g[PCS_TURBINE_GOV_VALVE],
           step = d->valve_rate_per_s * t->base.dt_s;
    double di = d->gain * t->base.dt_s / d->reset_s * e;
    double u = pcs_turbine_ff(t, d_eff, p) + d->gain * e + g[PCS_TURBINE_GOV_INTEGRAL];
    int high = (u >= 1.0 || u - v > step) && di > 0.0;
    int low = (u <= 0.0 || v - u > step) && di < 0.0;
    if (!high && !low) {
        double i0 = g[PCS_TURBINE_GOV_INTEGRAL];
        g[PCS_TURBINE_GOV_INTEGRAL] = clamp(i0 + di, -1.0, 1.0);
        u += g[PCS_TURBINE_GOV_INTEGRAL] - i0;
    }
    return clamp(u, 0.0, 1.0);
}

/* Manual: the target and demand track the load carried and I tracks what
 * makes the auto output equal the valve (bumpless return). */
static void manual_track(const pcs_turbine *t, double *g, const double *sig, double load, double p)
{
    g[PCS_TURBINE_GOV_TARGET] = g[PCS_TURBINE_GOV_DEMAND] = clamp(load, 0.0, PCS_TURBINE_LOAD_MAX);
    double d_eff = demand_eff(t, g, sig);
    g[PCS_TURBINE_GOV_INTEGRAL] =
        clamp(g[PCS_TURBINE_GOV_VALVE] - pcs_turbine_ff(t, d_eff, p) - t->def.gain * (d_eff - load),
              -1.0, 1.0);
}

pcs_status pcs_turbine_governor(pcs_world *w, void *ctx)
{
    pcs_turbine *t = ctx;
    double *g = pcs_store_data(w, t->id_gov);
    const double *sig = pcs_store_data(w, t->id_sig), *ilk = pcs_store_data(w, t->id_ilk);
    const double *gen = pcs_store_data(w, t->id_gen);
    double load = sig[PCS_SIG_TURBINE_LOAD], p = gen[PCS_TURBINE_GEN_P_HEADER];
    if (ilk[PCS_SIG_TURBINE_TRIP] != 0.0 || gen[PCS_TURBINE_GEN_OVERSPEED] != 0.0)
        g[PCS_TURBINE_GOV_TRIPPED] = 1.0;
    double step = t->def.valve_rate_per_s * t->base.dt_s;
    if (g[PCS_TURBINE_GOV_TRIPPED] != 0.0) {
        tripped(t, g);
    } else {
        g[PCS_TURBINE_GOV_STOP] =
            fmin(1.0, g[PCS_TURBINE_GOV_STOP] + t->base.dt_s / t->def.stop_close_s);
        double u;
        if (g[PCS_TURBINE_GOV_MANUAL] != 0.0) {
            u = g[PCS_TURBINE_GOV_VALVE_TARGET];
        } else {
            ramp(t, g);
            u = auto_command(t, g, demand_eff(t, g, sig), load, p);
        }
        double *v = &g[PCS_TURBINE_GOV_VALVE];
        *v += clamp(u - *v, -step, step);
        if (g[PCS_TURBINE_GOV_MANUAL] != 0.0)
            manual_track(t, g, sig, load, p);
    }
    *(double *)pcs_store_data(w, t->sec.turbine_valve) =
        fmin(g[PCS_TURBINE_GOV_VALVE], g[PCS_TURBINE_GOV_STOP]);
    return PCS_OK;
}

/* Shaft power of this tick's flow (0 without forward flow). */
static pcs_status shaft_power(pcs_turbine *t, pcs_world *w, double *p_w, double *h_out)
{
    const double *o = pcs_store_data(w, t->sec.out);
    const double *h = pcs_store_data(w, t->sec.h);
    double flow = o[PCS_SECONDARY_OUT_TURBINE_FLOW];
    *p_w = *h_out = 0.0;
    if (!(flow > 0.0))
        return PCS_OK;
    pcs_turbine_stage s;
    double h_in = h[t->v_header];
    pcs_status st = pcs_turbine_expand(&t->exhaust, o[PCS_SECONDARY_OUT_HEADER_P], h_in,
                                       t->def.eta_turbine, &s);
    if (st != PCS_OK)
        return pcs_error_set(st, "%s.turbine: expansion from the header: %s", t->base.unit,
                             pcs_last_error());
    *h_out = s.h_out;
    *p_w = fmax(0.0, flow * (h_in - s.h_out));
    return PCS_OK;
}

/* Islanded shaft: one explicit step of J omega_s d(speed)/dt = T_t - T_load;
 * returns the electrical power delivered to the load. */
static double islanded(const pcs_turbine *t, const double *g, double p_shaft, double *speed)
{
    const pcs_turbine_def *d = &t->def;
    double omega = fmax(*speed, 0.1) * d->sync_rad_s;
    double t_load = g[PCS_TURBINE_GOV_LOAD_TORQUE] != 0.0
                        ? g[PCS_TURBINE_GOV_LOAD_VALUE]
                        : g[PCS_TURBINE_GOV_LOAD_VALUE] / (d->eta_generator * omega);
    double p_e = d->eta_generator * t_load * *speed * d->sync_rad_s;
    double acc = (p_shaft / omega - t_load) / (d->inertia_kg_m2 * d->sync_rad_s);
    *speed = fmax(0.0, *speed + t->base.dt_s * acc);
    return p_e;
}

pcs_status pcs_turbine_generator(pcs_world *w, void *ctx)
{
    pcs_turbine *t = ctx;
    const double *g = pcs_store_data(w, t->id_gov);
    double *sig = pcs_store_data(w, t->id_sig), *gen = pcs_store_data(w, t->id_gen);
    const double *o = pcs_store_data(w, t->sec.out);
    double p_shaft, h_out;
    pcs_status st = shaft_power(t, w, &p_shaft, &h_out);
    if (st != PCS_OK)
        return st;
    double speed = sig[PCS_SIG_TURBINE_SPEED], p_e;
    if (g[PCS_TURBINE_GOV_ISLANDED] != 0.0) {
        p_e = islanded(t, g, p_shaft, &speed);
    } else {
        speed = 1.0;
        p_e = t->def.eta_generator * p_shaft;
    }
    double flow = fmax(0.0, o[PCS_SECONDARY_OUT_TURBINE_FLOW]);
    sig[PCS_SIG_TURBINE_LOAD] = fmin(flow / t->rated_kg_s, 1.5);
    sig[PCS_SIG_TURBINE_TRIPPED] = g[PCS_TURBINE_GOV_TRIPPED];
    sig[PCS_SIG_TURBINE_ELECTRIC_W] = p_e;
    sig[PCS_SIG_TURBINE_SHAFT_W] = p_shaft;
    sig[PCS_SIG_TURBINE_SPEED] = fmin(speed, 2.0);
    sig[PCS_SIG_TURBINE_LOAD_DEMAND] = g[PCS_TURBINE_GOV_DEMAND];
    gen[PCS_TURBINE_GEN_MWE] = p_e / 1e6;
    gen[PCS_TURBINE_GEN_H_OUT] = h_out;
    gen[PCS_TURBINE_GEN_OVERSPEED] = speed >= t->def.overspeed_trip ? 1.0 : 0.0;
    gen[PCS_TURBINE_GEN_P_HEADER] = o[PCS_SECONDARY_OUT_HEADER_P];
    return PCS_OK;
}
