/**
 * @file unit_freeze.c
 * @brief pcs_unit_gap_apply: a frozen unit's decay heat and poisons over the gap.
 *
 * The unit's stores are written directly, between ticks: the same stores a
 * load overwrites, and nothing caches them except the published decay power,
 * which is refreshed here so the next kinetics step's average starts from it.
 */
#include "physics/kinetics/models/unit_internal.h"
#include "pcsim/job.h"
#include "pcsim/math.h"
#include "pcsim/unit_freeze.h"

pcs_unit_gap_def pcs_unit_gap_default(void)
{
    pcs_unit_gap_def g = {
        .real_s = 0.0,
        .hold = PCS_FREEZE_HOLD_AS_FROZEN,
        .decay_heat_clock = PCS_DECAY_HEAT_CLOCK_REAL_TIME,
        .split_mean_life_s = 3600.0,
    };
    return g;
}

static pcs_status gap_check(pcs_world *w, const pcs_unit *u, const pcs_unit_gap_def *g)
{
    if (!w || !u || !g)
        return pcs_error_set(PCS_E_INVAL, "pcs_unit_gap_apply: NULL argument");
    if (!(g->real_s >= 0.0 && g->real_s <= PCS_DECAY_HEAT_GAP_MAX_S))
        return pcs_error_set(PCS_E_INVAL, "%s freeze gap: real_s = %g s is outside [0, %g]",
                             u->prefix, g->real_s, PCS_DECAY_HEAT_GAP_MAX_S);
    if (g->hold != PCS_FREEZE_HOLD_AS_FROZEN && g->hold != PCS_FREEZE_HOLD_SHUTDOWN)
        return pcs_error_set(PCS_E_INVAL,
                             "%s freeze gap: hold = %d is not AS_FROZEN (0) or SHUTDOWN (1)",
                             u->prefix, (int)g->hold);
    if (pcs_job_pending(w, u->xe_job))
        return pcs_error_set(PCS_E_STATE,
                             "%s freeze gap at tick %llu: the xenon job still has a run in "
                             "flight; keep the unit frozen for one SLOW period (%u ticks) first",
                             u->prefix, (unsigned long long)pcs_world_clock(w)->tick,
                             PCS_SLOW_PERIOD_TICKS);
    return PCS_OK;
}

pcs_status pcs_unit_gap_apply(pcs_world *w, pcs_unit *u, const pcs_unit_gap_def *g,
                              double *p_held_rel)
{
    pcs_status st = gap_check(w, u, g);
    if (st != PCS_OK)
        return st;
    int shut = g->hold == PCS_FREEZE_HOLD_SHUTDOWN || (*u->flags & PCS_UNIT_FLAG_SCRAMMED);
    double p_rel = shut ? 0.0 : pcs_fmax(u->y[0], 0.0);
    const pcs_clock *c = pcs_world_clock(w);
    /* Capped: past 1e15 s every decay-heat group and the poison chains are
     * at their end state, so a longer SLOW gap (real_s x k_slow, k_slow up
     * to 1e9) changes nothing but would be refused by the decay-heat gap. */
    double slow_s = pcs_fmin(g->real_s * c->k_slow, PCS_DECAY_HEAT_GAP_MAX_S);
    pcs_decay_heat_gap_def dg = pcs_decay_heat_gap_default();
    dg.p_fission_w = u->cfg.nominal_power_w * p_rel;
    dg.real_s = g->real_s;
    dg.slow_s = slow_s;
    dg.clock = g->decay_heat_clock;
    dg.split_mean_life_s = g->split_mean_life_s;
    st = pcs_decay_heat_advance(&u->dh, &dg, u->dh_groups);
    if (st != PCS_OK)
        return pcs_error_set(st, "%s freeze gap: %s", u->prefix, pcs_last_error());
    u->out[UNIT_OUT_DECAY] = pcs_decay_heat_power(u->dh_groups);
    pcs_xenon_step(&u->cfg.xenon, u->xe, p_rel, slow_s);
    if (p_held_rel)
        *p_held_rel = p_rel;
    return PCS_OK;
}
