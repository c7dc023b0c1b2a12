/**
 * @file sg_control_step.c
 * @brief The feedwater controller's tick (measure at stage 9, act at
 *        stage 2 of the next tick) (pcsim/sg_control.h).
 *        Nothing here allocates.
 */
#include <math.h>

#include "pcsim/system.h"
#include "physics/control/models/sg_control_internal.h"

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

pcs_status pcs_sgc_measure(pcs_world *w, void *ctx)
{
    pcs_sg_control *sc = ctx;
    const double *o = pcs_store_data(w, sc->id_sec_out);
    double *m = pcs_store_data(w, sc->id_meas);
    for (uint32_t l = 0; l < sc->n_sg; l++) {
        const double *b = o + PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l;
        double *ml = m + PCS_SG_CONTROL_MEAS_PER_SG * l;
        ml[PCS_SG_CONTROL_MEAS_NR] = b[PCS_SECONDARY_OUT_NR];
        ml[PCS_SG_CONTROL_MEAS_STEAM] = b[PCS_SECONDARY_OUT_STEAM];
        ml[PCS_SG_CONTROL_MEAS_FEED] = b[PCS_SECONDARY_OUT_FEED];
    }
    return PCS_OK;
}

void pcs_sgc_bumpless(const pcs_sg_control *sc, const double *ml, double *sl)
{
    const pcs_sg_control_def *d = &sc->def;
    sl[PCS_SG_CONTROL_ST_INTEGRAL] =
        sl[PCS_SG_CONTROL_ST_FEED] - ml[PCS_SG_CONTROL_MEAS_STEAM] -
        d->level_gain_kg_s_pct * (d->nr_program - ml[PCS_SG_CONTROL_MEAS_NR]);
}

/* Three-element control of one SG (header): level PI on the program plus
 * the steam flow gives the demand; the flow loop moves the feed command by
 * dt / T_W of the demand's excess over the measured feed. The command's top
 * is the lower of feed_max_kg_s and @p limit (what the pumps and valves can
 * deliver now: pcsim/feedwater.h), so an isolated or pump-less feed holds
 * the level integral instead of winding it up. */
static void feed_loop(const pcs_sg_control *sc, const double *ml, double limit, double *sl)
{
    const pcs_sg_control_def *d = &sc->def;
    double top = clamp(limit, 0.0, d->feed_max_kg_s);
    double e = d->nr_program - ml[PCS_SG_CONTROL_MEAS_NR];
    double di = d->level_gain_kg_s_pct * sc->dt_s / d->level_reset_s * e;
    double w_c = sl[PCS_SG_CONTROL_ST_FEED];
    /* conditional integration: not while the command is held at a limit
       that the step would push it further past */
    int high = w_c >= top && di > 0.0, low = w_c <= 0.0 && di < 0.0;
    if (!high && !low)
        sl[PCS_SG_CONTROL_ST_INTEGRAL] =
            clamp(sl[PCS_SG_CONTROL_ST_INTEGRAL] + di, -d->feed_max_kg_s, d->feed_max_kg_s);
    double demand =
        ml[PCS_SG_CONTROL_MEAS_STEAM] + d->level_gain_kg_s_pct * e + sl[PCS_SG_CONTROL_ST_INTEGRAL];
    w_c += sc->dt_s / d->flow_lag_s * (demand - ml[PCS_SG_CONTROL_MEAS_FEED]);
    sl[PCS_SG_CONTROL_ST_FEED] = clamp(w_c, 0.0, top);
}

pcs_status pcs_sgc_system(pcs_world *w, void *ctx)
{
    pcs_sg_control *sc = ctx;
    const double *m = pcs_store_data(w, sc->id_meas);
    const double *limit = pcs_store_data(w, sc->id_feed_limit);
    double *s = pcs_store_data(w, sc->id_state), *feed = pcs_store_data(w, sc->id_sec_feed);
    for (uint32_t l = 0; l < sc->n_sg; l++) {
        double *sl = s + PCS_SG_CONTROL_ST_SG + PCS_SG_CONTROL_ST_PER_SG * l;
        feed_loop(sc, m + PCS_SG_CONTROL_MEAS_PER_SG * l, limit[l], sl);
        feed[l] = sl[PCS_SG_CONTROL_ST_FEED];
    }
    return PCS_OK;
}
