/**
 * @file interlock_step.c
 * @brief The interlock logic's tick (block diagram in pcsim/interlock.h):
 *        coincidence over measured channels, the latches, and the flags
 *        written to "<unit>.interlock.sig".
 *
 * Comparisons are written so that a NaN channel counts as in the condition
 * (!(v < sp) for ">= sp"), as the protection's: a channel that cannot show
 * it is on the safe side is not believed to be.
 */
#include <math.h>

#include "pcsim/plant_signals.h"
#include "physics/instrumentation/models/interlock_internal.h"

/* Channels of @p c at or above @p sp (dir > 0) or at or below it (dir < 0). */
static uint32_t count_on(const pcs_interlock *il, const pcs_interlock_channels *c, double sp,
                         int dir)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        double v = il->values[c->sensor[i]];
        n += dir > 0 ? !(v < sp) : !(v > sp);
    }
    return n;
}

/* k-out-of-n of @p c on its side of @p sp; 0 when the input is absent. */
static int coincident(const pcs_interlock *il, const pcs_interlock_channels *c, double sp, int dir)
{
    return c->n > 0 && count_on(il, c, sp, dir) >= c->k;
}

/* Lines (SGs or loops) of the first @p n_lines of @p c[] whose channels are coincident. */
static uint32_t count_lines(const pcs_interlock *il, const pcs_interlock_channels *c,
                            uint32_t n_lines, double sp, int dir)
{
    uint32_t n = 0;
    for (uint32_t l = 0; l < n_lines; l++)
        n += (uint32_t)coincident(il, &c[l], sp, dir);
    return n;
}

/* Steam lines (SGs) whose channels of @p c[] are coincident. */
static uint32_t lines_on(const pcs_interlock *il, const pcs_interlock_channels *c, double sp,
                         int dir)
{
    return count_lines(il, c, il->def.n_sg, sp, dir);
}

/* Auctioneered-high turbine load, fraction of rated (NaN-free: a NaN
 * channel is skipped; none finite gives 0). */
static double turbine_load(const pcs_interlock *il)
{
    double hi = 0.0;
    const pcs_interlock_channels *c = &il->def.turbine_load;
    for (uint32_t i = 0; i < c->n; i++) {
        double v = il->values[c->sensor[i]] / il->rated_load_kg_s;
        if (v > hi)
            hi = v;
    }
    return hi;
}

/* High-steam-flow setpoint, kg/s per SG, at turbine load @p load. */
static double hsf_setpoint(const pcs_interlock_def *d, double load)
{
    double x = (load - d->hsf_load_lo) / (d->hsf_load_hi - d->hsf_load_lo);
    x = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
    return (d->hsf_low_frac + x * (d->hsf_high_frac - d->hsf_low_frac)) * d->rated_steam_kg_s;
}

/* Steam-line dP: channel i of some SG is at least si_dp_pa below the
 * highest channel i of the other SGs, in k of n channels of that SG. */
static int steam_dp(const pcs_interlock *il)
{
    const pcs_interlock_def *d = &il->def;
    for (uint32_t l = 0; l < d->n_sg; l++) {
        const pcs_interlock_channels *c = &d->steam_p[l];
        uint32_t on = 0;
        for (uint32_t i = 0; i < c->n; i++) {
            double v = il->values[c->sensor[i]], top = -INFINITY;
            for (uint32_t m = 0; m < d->n_sg; m++)
                if (m != l && i < d->steam_p[m].n)
                    top = fmax(top, il->values[d->steam_p[m].sensor[i]]);
            on += (uint32_t) !(top - v < d->si_dp_pa);
        }
        if (c->n > 0 && d->n_sg > 1 && on >= c->k)
            return 1;
    }
    return 0;
}

void pcs_interlock_conditions(const pcs_interlock *il, int *si, int *msli)
{
    const pcs_interlock_def *d = &il->def;
    double hsf = hsf_setpoint(d, turbine_load(il));
    int high_flow = lines_on(il, d->steam_flow, hsf, 1) >= d->k_lines;
    int low_p = lines_on(il, d->steam_p, d->low_steam_p_pa, -1) >= d->k_lines;
    int low_low_tavg = coincident(il, &d->tavg, d->p12_tavg_k, -1);
    *msli = high_flow && (low_p || low_low_tavg);
    *si = *msli || steam_dp(il) || coincident(il, &d->pzr_pressure, d->si_pzr_low_pa, -1);
}

/* C-7: the lagged load against the present one; latched. */
static void c7_update(pcs_interlock *il, double load)
{
    double *s = il->state;
    if (s[PCS_INTERLOCK_ST_STARTED] == 0.0) {
        s[PCS_INTERLOCK_ST_LOAD_LAG] = load;
        s[PCS_INTERLOCK_ST_STARTED] = 1.0;
    }
    double lag = s[PCS_INTERLOCK_ST_LOAD_LAG];
    if (lag - load > il->def.c7_step_frac)
        s[PCS_INTERLOCK_ST_C7] = 1.0;
    lag += il->lag_alpha * (load - lag);
    s[PCS_INTERLOCK_ST_LOAD_LAG] = lag < 0.0 ? 0.0 : (lag > 1.5 ? 1.5 : lag);
}

/* P-12 with its hysteresis: set at k/n <= setpoint, reset at k/n above it. */
static void p12_update(pcs_interlock *il)
{
    const pcs_interlock_def *d = &il->def;
    double *s = il->state;
    if (coincident(il, &d->tavg, d->p12_tavg_k, -1))
        s[PCS_INTERLOCK_ST_P12] = 1.0;
    else if (coincident(il, &d->tavg, d->p12_tavg_k + d->p12_hysteresis_k, 1))
        s[PCS_INTERLOCK_ST_P12] = 0.0;
}

/* A power permissive as a plant bistable on @p c: state element @p el sets
 * at k/n >= @p sp, resets at k/n <= @p sp - p_deadband_frac (fractions of
 * @p rated), and holds between. Set wins when both hold (channels split
 * across the band): the permissive arms trips, the safe side. */
static void bistable(pcs_interlock *il, const pcs_interlock_channels *c, double sp, double rated,
                     uint32_t el)
{
    double *s = il->state;
    if (coincident(il, c, sp * rated, 1))
        s[el] = 1.0;
    else if (coincident(il, c, (sp - il->def.p_deadband_frac) * rated, -1))
        s[el] = 0.0;
}

/* P-14 with its reset margin: set when any SG has k/n channels at or above
 * the setpoint, reset only when none has them at or above setpoint -
 * p14_deadband_pct (the level channels' noise would otherwise chatter the
 * feedwater isolation and turbine trip it drives). */
static void p14_update(pcs_interlock *il)
{
    const pcs_interlock_def *d = &il->def;
    double *s = il->state;
    if (lines_on(il, d->nr_level, d->p14_level_pct, 1) > 0)
        s[PCS_INTERLOCK_ST_P14] = 1.0;
    else if (lines_on(il, d->nr_level, d->p14_level_pct - d->p14_deadband_pct, 1) == 0)
        s[PCS_INTERLOCK_ST_P14] = 0.0;
}

/* P-10, P-8, P-9 on the power channels; P-13 on the auctioneered-high load. */
static void power_permissives(pcs_interlock *il, double load)
{
    const pcs_interlock_def *d = &il->def;
    double *s = il->state, p = d->rated_power_w;
    bistable(il, &d->power, d->p7_frac, p, PCS_INTERLOCK_ST_P10);
    bistable(il, &d->power, d->p8_frac, p, PCS_INTERLOCK_ST_P8);
    bistable(il, &d->power, d->p9_frac, p, PCS_INTERLOCK_ST_P9);
    if (load >= d->p13_frac)
        s[PCS_INTERLOCK_ST_P13] = 1.0;
    else if (load <= d->p13_frac - d->p_deadband_frac)
        s[PCS_INTERLOCK_ST_P13] = 0.0;
}

static double flag(int on)
{
    return on ? 1.0 : 0.0;
}

pcs_status pcs_interlock_step(pcs_world *w, void *ctx)
{
    (void)w;
    pcs_interlock *il = ctx;
    const pcs_interlock_def *d = &il->def;
    double *s = il->state, *sig = il->sig, load = turbine_load(il);
    c7_update(il, load);
    p12_update(il);
    power_permissives(il, load);
    int si, msli;
    pcs_interlock_conditions(il, &si, &msli);
    if (si)
        s[PCS_INTERLOCK_ST_SI] = 1.0;
    if (msli)
        s[PCS_INTERLOCK_ST_MSLI] = 1.0;
    int p4 = il->trip[d->trip_index] != 0;
    p14_update(il);
    int p14 = s[PCS_INTERLOCK_ST_P14] != 0.0;
    int low_low = lines_on(il, d->nr_level, d->low_low_level_pct, -1) > 0;
    int si_on = s[PCS_INTERLOCK_ST_SI] != 0.0;
    sig[PCS_SIG_P4] = flag(p4);
    sig[PCS_SIG_P7] = flag(s[PCS_INTERLOCK_ST_P10] != 0.0 || s[PCS_INTERLOCK_ST_P13] != 0.0);
    sig[PCS_SIG_P8] = s[PCS_INTERLOCK_ST_P8];
    sig[PCS_SIG_P9] = s[PCS_INTERLOCK_ST_P9];
    sig[PCS_SIG_P12] = s[PCS_INTERLOCK_ST_P12];
    sig[PCS_SIG_P14] = flag(p14);
    sig[PCS_SIG_C7] = s[PCS_INTERLOCK_ST_C7];
    sig[PCS_SIG_C8] = flag(il->turbine[PCS_SIG_TURBINE_TRIPPED] != 0.0);
    sig[PCS_SIG_C9] = s[PCS_INTERLOCK_ST_C9];
    sig[PCS_SIG_TURBINE_TRIP] = flag(p4 || p14 || si_on);
    sig[PCS_SIG_FW_ISOLATION] =
        flag((p4 && coincident(il, &d->tavg, d->fw_iso_tavg_k, -1)) || p14 || si_on);
    sig[PCS_SIG_AFW_START] = flag(low_low || il->feed[PCS_SIG_FEED_MFP_TRIPPED] != 0.0 || si_on);
    sig[PCS_SIG_SI] = s[PCS_INTERLOCK_ST_SI];
    sig[PCS_SIG_MSLI] = s[PCS_INTERLOCK_ST_MSLI];
    sig[PCS_SIG_TWO_LOOP_LOW] =
        flag(d->n_loops > 0 &&
             count_lines(il, d->loop_flow, d->n_loops, d->loop_low_flow_kg_s, -1) >= d->k_loops);
    return PCS_OK;
}

pcs_status pcs_interlock_arm_step(pcs_world *w, void *ctx)
{
    (void)w;
    pcs_interlock *il = ctx;
    for (uint32_t i = 0; i < PCS_SIG_INTERLOCK_COUNT; i++)
        il->arm[i] = il->sig[i];
    return PCS_OK;
}

void pcs_interlock_start_flags(pcs_interlock *il)
{
    const pcs_interlock_def *d = &il->def;
    double f = d->initial_power_frac, *s = il->state;
    s[PCS_INTERLOCK_ST_P10] = flag(f >= d->p7_frac);
    s[PCS_INTERLOCK_ST_P13] = flag(f >= d->p13_frac); /* the turbine's load is the power */
    s[PCS_INTERLOCK_ST_P8] = il->sig[PCS_SIG_P8] = flag(f >= d->p8_frac);
    s[PCS_INTERLOCK_ST_P9] = il->sig[PCS_SIG_P9] = flag(f >= d->p9_frac);
    il->sig[PCS_SIG_P7] = flag(f >= d->p7_frac || f >= d->p13_frac);
    il->state[PCS_INTERLOCK_ST_C9] = il->sig[PCS_SIG_C9] = flag(d->condenser_available != 0);
    for (uint32_t i = 0; i < PCS_SIG_INTERLOCK_COUNT; i++)
        il->arm[i] = il->sig[i];
}
