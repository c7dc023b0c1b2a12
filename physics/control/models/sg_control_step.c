/**
 * @file sg_control_step.c
 * @brief The feedwater controller's tick (measure at stage 9, act at
 *        stage 2 of the next tick) and the operator's transfers between
 *        the main and bypass valves (pcsim/sg_control.h).
 *        Nothing here allocates.
 */
#include <math.h>

#include "pcsim/system.h"
#include "physics/control/models/control_common.h"
#include "physics/control/models/control_input.h"
#include "physics/control/models/sg_control_internal.h"

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* The power fraction now, or @p last when the input is not valid. */
static double power_frac(pcs_world *w, const pcs_sg_control *sc, double last)
{
    if (!sc->has_power)
        return 0.0;
    double p = pcs_control_input_read(w, &sc->def.power);
    return isnan(p) ? last : p / sc->def.rated_power_w;
}

pcs_status pcs_sgc_measure(pcs_world *w, void *ctx)
{
    pcs_sg_control *sc = ctx;
    const double *o = pcs_store_data(w, sc->sec.out);
    double *m = pcs_store_data(w, sc->id_meas);
    double p = power_frac(w, sc, m[PCS_SG_CONTROL_MEAS_POWER]);
    for (uint32_t l = 0; l < sc->base.n_sg; l++) {
        const double *b = o + PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l;
        double *ml = m + PCS_SG_CONTROL_MEAS_PER_SG * l;
        ml[PCS_SG_CONTROL_MEAS_NR] = b[PCS_SECONDARY_OUT_NR];
        ml[PCS_SG_CONTROL_MEAS_STEAM] = b[PCS_SECONDARY_OUT_STEAM];
        ml[PCS_SG_CONTROL_MEAS_FEED] = b[PCS_SECONDARY_OUT_FEED];
        ml[PCS_SG_CONTROL_MEAS_POWER] = p;
    }
    return PCS_OK;
}

/* The level program now: on the measured power with a power input. */
static double program(const pcs_sg_control *sc, const double *ml)
{
    return sc->has_power ? pcs_sg_control_program(&sc->def, ml[PCS_SG_CONTROL_MEAS_POWER])
                         : sc->def.nr_program;
}

/* The level PI's gain: K_L on the main valves, K_B on the bypass valves. */
static double gain(const pcs_sg_control *sc, const double *sl)
{
    return sl[PCS_SG_CONTROL_ST_BYPASS] != 0.0 ? sc->def.bypass_gain_kg_s_pct
                                               : sc->def.level_gain_kg_s_pct;
}

/* The level PI's proportional part plus the steam flow on the main valves
 * (three elements), the proportional part alone on the bypass valves
 * (level only): the feed demand is this plus I_L (header). */
static double demand_base(const pcs_sg_control *sc, const double *ml, const double *sl)
{
    double p = gain(sc, sl) * (program(sc, ml) - sl[PCS_SG_CONTROL_ST_LEVEL_LAG]);
    return sl[PCS_SG_CONTROL_ST_BYPASS] != 0.0 ? p : p + ml[PCS_SG_CONTROL_MEAS_STEAM];
}

/* The bypass output starts at what the valve can pass: started at a
 * command above the capacity, I_L would sit above the clamp and the
 * output stay pinned at the capacity until the PI unwound it (at K_B, 10 %
 * NR of level error unwinds 0.14 kg/s per s); the flow lag keeps the
 * command continuous.
 * The clamp is the load check's: what the controller writes must load. */
void pcs_sgc_bumpless(const pcs_sg_control *sc, const double *ml, double top, double *sl)
{
    const pcs_sg_control_def *d = &sc->def;
    double out = sl[PCS_SG_CONTROL_ST_FEED];
    if (sl[PCS_SG_CONTROL_ST_BYPASS] != 0.0)
        out = fmin(out, fmin(top, d->bypass_max_kg_s));
    sl[PCS_SG_CONTROL_ST_INTEGRAL] =
        clamp(out - demand_base(sc, ml, sl), -d->feed_max_kg_s, d->feed_max_kg_s);
}

/* Level control of one SG (header): the lagged level, the level PI and
 * the mode's output. The command's top is the lower of
 * feed_max_kg_s and @p limit (what the pumps and valves can deliver now:
 * pcsim/feedwater.h), so an isolated or pump-less feed holds the level
 * integral instead of winding it up. */
static void feed_loop(const pcs_sg_control *sc, const double *ml, double limit, double *sl)
{
    const pcs_sg_control_def *d = &sc->def;
    double top = clamp(limit, 0.0, d->feed_max_kg_s);
    sl[PCS_SG_CONTROL_ST_LEVEL_LAG] +=
        sc->a_level * (ml[PCS_SG_CONTROL_MEAS_NR] - sl[PCS_SG_CONTROL_ST_LEVEL_LAG]);
    int bypass = sl[PCS_SG_CONTROL_ST_BYPASS] != 0.0;
    double e = program(sc, ml) - sl[PCS_SG_CONTROL_ST_LEVEL_LAG];
    double di = gain(sc, sl) * sc->base.dt_s / d->level_reset_s * e;
    double w_c = sl[PCS_SG_CONTROL_ST_FEED];
    /* conditional integration: not while the output is held at a limit
       that the step would push it further past (main valves: the command;
       bypass valves: the PI output against the valve's capacity) */
    double out = bypass ? demand_base(sc, ml, sl) + sl[PCS_SG_CONTROL_ST_INTEGRAL] : w_c;
    double out_top = bypass ? fmin(top, d->bypass_max_kg_s) : top;
    int high = out >= out_top && di > 0.0, low = out <= 0.0 && di < 0.0;
    if (!high && !low)
        sl[PCS_SG_CONTROL_ST_INTEGRAL] =
            clamp(sl[PCS_SG_CONTROL_ST_INTEGRAL] + di, -d->feed_max_kg_s, d->feed_max_kg_s);
    double demand = demand_base(sc, ml, sl) + sl[PCS_SG_CONTROL_ST_INTEGRAL];
    if (bypass) /* the valve's flow toward its position; the main valve closes onto it */
        w_c += sc->a_flow * (clamp(demand, 0.0, d->bypass_max_kg_s) - w_c);
    else
        w_c += sc->a_flow * (demand - ml[PCS_SG_CONTROL_MEAS_FEED]);
    sl[PCS_SG_CONTROL_ST_FEED] = clamp(w_c, 0.0, top);
}

pcs_status pcs_sgc_system(pcs_world *w, void *ctx)
{
    pcs_sg_control *sc = ctx;
    const double *m = pcs_store_data(w, sc->id_meas);
    const double *limit = pcs_store_data(w, sc->id_feed_limit);
    double *s = pcs_store_data(w, sc->base.id_state), *feed = pcs_store_data(w, sc->sec.feed);
    for (uint32_t l = 0; l < sc->base.n_sg; l++) {
        double *sl = s + PCS_SG_CONTROL_ST_SG + PCS_SG_CONTROL_ST_PER_SG * l;
        feed_loop(sc, m + PCS_SG_CONTROL_MEAS_PER_SG * l, limit[l], sl);
        feed[l] = sl[PCS_SG_CONTROL_ST_FEED];
    }
    return PCS_OK;
}

/* SG @p l to the mode @p bypass, bumpless (header): I_L takes the step so
 * that the new mode's demand is the present command. */
static void transfer(const pcs_sg_control *sc, uint32_t l, int bypass, const double *m,
                     const double *limit, double *s)
{
    double *sl = s + PCS_SG_CONTROL_ST_SG + PCS_SG_CONTROL_ST_PER_SG * l;
    if ((sl[PCS_SG_CONTROL_ST_BYPASS] != 0.0) == bypass)
        return;
    sl[PCS_SG_CONTROL_ST_BYPASS] = bypass;
    pcs_sgc_bumpless(sc, m + PCS_SG_CONTROL_MEAS_PER_SG * l,
                     clamp(limit[l], 0.0, sc->def.feed_max_kg_s), sl);
}

pcs_status pcs_sgc_on_command(pcs_world *w, const pcs_command_call *c)
{
    pcs_sg_control *sc = c->ctx;
    if (c->op != PCS_SG_CONTROL_OP_BYPASS && c->op != PCS_SG_CONTROL_OP_MAIN)
        return pcs_error_set(PCS_E_INVAL, "%s: unknown sg_control op %u", c->target_name, c->op);
    double sg;
    pcs_status st = pcs_control_arg_in(c, "SG number (0: every SG)", 0.0, sc->base.n_sg, &sg);
    if (st == PCS_OK && sg != floor(sg))
        st = pcs_error_set(PCS_E_INVAL, "%s: SG number %g is not a whole number", c->target_name,
                           sg);
    if (st != PCS_OK)
        return st;
    const double *m = pcs_store_data(w, sc->id_meas);
    const double *limit = pcs_store_data(w, sc->id_feed_limit);
    double *s = pcs_store_data(w, sc->base.id_state);
    int bypass = c->op == PCS_SG_CONTROL_OP_BYPASS;
    for (uint32_t l = 0; l < sc->base.n_sg; l++)
        if (sg == 0.0 || l + 1u == (uint32_t)sg)
            transfer(sc, l, bypass, m, limit, s);
    return PCS_OK;
}
