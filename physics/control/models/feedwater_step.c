/**
 * @file feedwater_step.c
 * @brief The feedwater plant's tick (pumps, isolation, heater train,
 *        auxiliary feed, signals) and its commands (pcsim/feedwater.h).
 *        Nothing here allocates.
 */
#include <math.h>

#include "pcsim/math.h"
#include "pcsim/plant_signals.h"
#include "pcsim/system.h"
#include "pcsim/water.h"
#include "physics/control/models/feedwater_internal.h"

#define FW_G 9.80665 /* m/s2 */

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

double pcs_feedwater_pump_flow(const pcs_feedwater_def *d, double rho, double speed,
                               double back_p_pa)
{
    if (!d || !(rho > 0.0))
        return 0.0;
    double x = (back_p_pa - d->mfp_suction_p_pa) / (rho * FW_G * d->mfp_shutoff_head_m);
    double r = speed * speed - x;
    return r > 0.0 ? d->mfp_runout_kg_s * sqrt(r) : 0.0;
}

/* The heaters' extraction pressure proportional to the steam flow, the feed
 * leaving at its saturation temperature (header). */
double pcs_feedwater_heater_t(const pcs_feedwater_def *d, double load)
{
    if (!d)
        return 0.0;
    if (load >= 1.0)
        return d->feed_t_rated_k; /* exactly, not through psat and back */
    double p_rated, p_floor, t;
    if (pcs_water_psat(d->feed_t_rated_k, &p_rated) != PCS_OK ||
        pcs_water_psat(d->feed_t_no_load_k, &p_floor) != PCS_OK)
        return d->feed_t_no_load_k;
    double p = fmax(load, 0.0) * p_rated;
    if (p <= p_floor || pcs_water_tsat(p, &t) != PCS_OK)
        return d->feed_t_no_load_k;
    return t;
}

/* A turbine drive runs while it has steam (header): a main feed pump's
 * turbine from the header, the auxiliary feed pump's from the steam lines
 * upstream of the MSIVs (the highest SG dome pressure), as in a plant,
 * so that a steam-line isolation does not starve it. */
static int drive_ok(const pcs_feedwater *fw, uint32_t drive, const double *so, int afw_pump)
{
    if (drive != PCS_FEED_DRIVE_TURBINE)
        return 1;
    double p = so[PCS_SECONDARY_OUT_HEADER_P];
    for (uint32_t l = 0; afw_pump && l < fw->base.n_sg; l++)
        p = fmax(p, so[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l + PCS_SECONDARY_OUT_P]);
    return p >= fw->def.drive_steam_min_pa;
}

/* MFP speeds: run up linearly while running, coast down exponentially when not. */
static void mfp_speeds(const pcs_feedwater *fw, const double *so, double *s)
{
    const pcs_feedwater_def *d = &fw->def;
    int ok = drive_ok(fw, d->mfp_drive, so, 0);
    for (uint32_t i = 0; i < d->n_mfp; i++) {
        double *p = s + PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_PER_PUMP * i;
        double *v = &p[PCS_FEEDWATER_ST_SPEED];
        if (p[PCS_FEEDWATER_ST_RUNNING] != 0.0 && ok)
            *v = fmin(*v + fw->base.dt_s / d->mfp_start_s, 1.0);
        else
            *v *= fw->coast_factor;
    }
}

/* Isolation stroke, then each SG's feed limit: the valves' share of what
 * the pumps deliver against that SG's pressure. Returns the total. */
static double feed_limits(const pcs_feedwater *fw, const double *so, int isolate, double *s,
                          double *limit)
{
    const pcs_feedwater_def *d = &fw->def;
    double step = fw->base.dt_s / d->isolation_close_s, total = 0.0;
    double *v = &s[PCS_FEEDWATER_ST_ISO_VALVE];
    *v = clamp(*v + (isolate ? -step : step), 0.0, 1.0);
    for (uint32_t l = 0; l < fw->base.n_sg; l++) {
        double p = so[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l + PCS_SECONDARY_OUT_P];
        double w = 0.0;
        for (uint32_t i = 0; i < d->n_mfp; i++)
            w += pcs_feedwater_pump_flow(
                d, fw->rho_feed,
                s[PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_PER_PUMP * i + PCS_FEEDWATER_ST_SPEED],
                p);
        double share = *v * w / fw->base.n_sg;
        if (limit)
            limit[l] = fmin(share, 1e5); /* sg_control's load-check range; it clamps further */
        total += share;
    }
    return total;
}

/* Auxiliary feed: start on the signal's rising edge; delay, then ramp.
 * Returns the pumps' total; *t_run the longest a pump has been running. */
static double afw(const pcs_feedwater *fw, const double *so, int start, double *s, double *out,
                  double *t_run)
{
    const pcs_feedwater_def *d = &fw->def;
    int rising = start && s[PCS_FEEDWATER_ST_AFW_SIGNAL] == 0.0;
    s[PCS_FEEDWATER_ST_AFW_SIGNAL] = start ? 1.0 : 0.0;
    double total = 0.0;
    *t_run = 0.0;
    for (uint32_t j = 0; j < d->n_afw; j++) {
        double *p = s + pcs_fw_afw_at(fw, j), w = 0.0;
        if (rising && p[PCS_FEEDWATER_ST_RUNNING] == 0.0) {
            p[PCS_FEEDWATER_ST_RUNNING] = 1.0;
            p[PCS_FEEDWATER_ST_SPEED] = 0.0;
        }
        if (p[PCS_FEEDWATER_ST_RUNNING] != 0.0) {
            double t = p[PCS_FEEDWATER_ST_SPEED];
            *t_run = fmax(*t_run, t);
            if (drive_ok(fw, d->afw_drive[j], so, 1))
                w = fw->afw_rated_kg_s[j] *
                    clamp((t - d->afw_start_delay_s[j]) / d->afw_ramp_s[j], 0.0, 1.0);
            p[PCS_FEEDWATER_ST_SPEED] = fmin(t + fw->base.dt_s, 1e6);
        }
        out[PCS_FEEDWATER_OUT_AFW + j] = w;
        total += w;
    }
    return total;
}

/* Each SG's share of the AFW: equal, or, with the level control on and
 * the pumps running afw_throttle_after_s, throttled linearly from full at
 * afw_level_low_pct NR to shut at afw_level_high_pct (header). Returns
 * what it wrote in total. */
static double afw_shares(const pcs_feedwater *fw, const double *so, double pumps, double t_run,
                         double *aux)
{
    const pcs_feedwater_def *d = &fw->def;
    int throttle = d->afw_level_control && t_run >= d->afw_throttle_after_s;
    double total = 0.0;
    for (uint32_t l = 0; l < fw->base.n_sg; l++) {
        double nr = so[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l + PCS_SECONDARY_OUT_NR];
        double open = throttle ? clamp((d->afw_level_high_pct - nr) /
                                           (d->afw_level_high_pct - d->afw_level_low_pct),
                                       0.0, 1.0)
                               : 1.0;
        aux[l] = open * pumps / fw->base.n_sg;
        total += aux[l];
    }
    return total;
}

/* Heater train: a first-order lag towards the load's steady temperature. */
static void heaters(const pcs_feedwater *fw, const double *so, double *feed_t, double *out)
{
    const pcs_feedwater_def *d = &fw->def;
    double f = clamp(so[PCS_SECONDARY_OUT_TURBINE_FLOW] / d->rated_steam_kg_s, 0.0, 1.0);
    double target = pcs_feedwater_heater_t(d, f);
    out[PCS_FEEDWATER_OUT_T_TARGET] = target;
    *feed_t += fw->lag_alpha * (target - *feed_t);
}

static void signals(const pcs_feedwater *fw, const double *so, const double *s, double *sig)
{
    double all_tripped = 1.0, main = 0.0, aux = 0.0;
    for (uint32_t i = 0; i < fw->def.n_mfp; i++)
        if (s[PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_PER_PUMP * i + PCS_FEEDWATER_ST_RUNNING] !=
            0.0)
            all_tripped = 0.0;
    for (uint32_t l = 0; l < fw->base.n_sg; l++) {
        const double *b = so + PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l;
        main += b[PCS_SECONDARY_OUT_FEED];
        aux += b[PCS_SECONDARY_OUT_AFW];
    }
    sig[PCS_SIG_FEED_MFP_TRIPPED] = all_tripped;
    sig[PCS_SIG_FEED_MAIN_KG_S] = main;
    sig[PCS_SIG_FEED_AFW_KG_S] = aux;
}

pcs_status pcs_fw_system(pcs_world *w, void *ctx)
{
    pcs_feedwater *fw = ctx;
    const double *so = pcs_store_data(w, fw->sec.out);
    const double *ilk = pcs_store_data(w, fw->id_ilk);
    double *s = pcs_store_data(w, fw->base.id_state), *out = pcs_store_data(w, fw->id_out);
    double *limit = fw->id_feed_limit != UINT32_MAX ? pcs_store_data(w, fw->id_feed_limit) : NULL;
    double *aux = pcs_store_data(w, fw->sec.afw);
    mfp_speeds(fw, so, s);
    out[PCS_FEEDWATER_OUT_AVAILABLE] =
        feed_limits(fw, so, ilk[PCS_SIG_FW_ISOLATION] != 0.0, s, limit);
    double t_run, pumps = afw(fw, so, ilk[PCS_SIG_AFW_START] != 0.0, s, out, &t_run);
    out[PCS_FEEDWATER_OUT_AFW_TOTAL] = afw_shares(fw, so, pumps, t_run, aux);
    heaters(fw, so, pcs_store_data(w, fw->sec.feed_t), out);
    signals(fw, so, s, pcs_store_data(w, fw->id_sig));
    return PCS_OK;
}

/* MFP trip/start on pump args[0] (1..n_mfp, 0 = all). */
static pcs_status mfp_command(pcs_feedwater *fw, double *s, const pcs_command_call *c, double run)
{
    double k = c->cmd->args[0];
    uint32_t n = fw->def.n_mfp;
    if (!pcs_isfinite(k) || k < 0.0 || k > (double)n || k != floor(k))
        return pcs_error_set(PCS_E_INVAL, "%s: main feed pump %g is not 0 (all) or 1..%u",
                             c->target_name, k, n);
    for (uint32_t i = 0; i < n; i++)
        if (k == 0.0 || (uint32_t)k == i + 1u)
            s[PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_PER_PUMP * i + PCS_FEEDWATER_ST_RUNNING] =
                run;
    return PCS_OK;
}

pcs_status pcs_fw_on_command(pcs_world *w, const pcs_command_call *c)
{
    pcs_feedwater *fw = c->ctx;
    double *s = pcs_store_data(w, fw->base.id_state);
    switch (c->op) {
    case PCS_FEEDWATER_OP_MFP_TRIP:
        return mfp_command(fw, s, c, 0.0);
    case PCS_FEEDWATER_OP_MFP_START:
        return mfp_command(fw, s, c, 1.0);
    case PCS_FEEDWATER_OP_AFW_START:
    case PCS_FEEDWATER_OP_AFW_STOP:
        for (uint32_t j = 0; j < fw->def.n_afw; j++) {
            double *p = s + pcs_fw_afw_at(fw, j);
            int start = c->op == PCS_FEEDWATER_OP_AFW_START;
            if (start && p[PCS_FEEDWATER_ST_RUNNING] != 0.0)
                continue; /* already running: keep its run-up */
            p[PCS_FEEDWATER_ST_RUNNING] = start ? 1.0 : 0.0;
            p[PCS_FEEDWATER_ST_SPEED] = 0.0;
        }
        return PCS_OK;
    default:
        return pcs_error_set(PCS_E_INVAL, "%s: unknown feedwater op %u", c->target_name, c->op);
    }
}
