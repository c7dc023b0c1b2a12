/**
 * @file decay_heat_gap.c
 * @brief The decay-heat groups across a freeze, in one closed-form update.
 *
 * The FAST step's factors are fixed at build for one step length; a freeze
 * gap has any length and, on the split clock, two lengths, so the factors are
 * computed here per call (25 expm1), which a thaw pays once.
 */
#include "pcsim/decay_heat_gap.h"
#include "pcsim/math.h"

pcs_decay_heat_gap_def pcs_decay_heat_gap_default(void)
{
    pcs_decay_heat_gap_def g = {
        .p_fission_w = 0.0,
        .real_s = 0.0,
        .slow_s = 0.0,
        .clock = PCS_DECAY_HEAT_CLOCK_REAL_TIME,
        .split_mean_life_s = 3600.0,
    };
    return g;
}

static pcs_status gap_bad(const char *field, double v, double lo, double hi)
{
    return pcs_error_set(PCS_E_INVAL, "decay_heat_gap.%s = %g is outside [%g, %g]", field, v, lo,
                         hi);
}

pcs_status pcs_decay_heat_gap_validate(const pcs_decay_heat_gap_def *g)
{
    if (!g)
        return pcs_error_set(PCS_E_INVAL, "decay_heat_gap: def is NULL");
    if (!(g->p_fission_w >= 0.0 && g->p_fission_w <= 1e12))
        return gap_bad("p_fission_w", g->p_fission_w, 0.0, 1e12);
    if (!(g->real_s >= 0.0 && g->real_s <= PCS_DECAY_HEAT_GAP_MAX_S))
        return gap_bad("real_s", g->real_s, 0.0, PCS_DECAY_HEAT_GAP_MAX_S);
    if (!(g->slow_s >= 0.0 && g->slow_s <= PCS_DECAY_HEAT_GAP_MAX_S))
        return gap_bad("slow_s", g->slow_s, 0.0, PCS_DECAY_HEAT_GAP_MAX_S);
    if (g->clock != PCS_DECAY_HEAT_CLOCK_REAL_TIME && g->clock != PCS_DECAY_HEAT_CLOCK_SPLIT)
        return pcs_error_set(PCS_E_INVAL,
                             "decay_heat_gap.clock = %d is not REAL_TIME (0) or SPLIT (1)",
                             (int)g->clock);
    if (!(g->split_mean_life_s > 0.0 && g->split_mean_life_s <= PCS_DECAY_HEAT_GAP_MAX_S))
        return gap_bad("split_mean_life_s", g->split_mean_life_s, 0.0, PCS_DECAY_HEAT_GAP_MAX_S);
    return PCS_OK;
}

double pcs_decay_heat_gap_time(const pcs_decay_heat_model *m, const pcs_decay_heat_gap_def *g,
                               uint32_t group)
{
    if (g->clock != PCS_DECAY_HEAT_CLOCK_SPLIT || group >= PCS_DECAY_HEAT_GROUPS)
        return g->real_s;
    /* The heavy-element chain is coupled: both members take Np-239's clock. */
    uint32_t k = group == PCS_DECAY_HEAT_U239 ? PCS_DECAY_HEAT_NP239 : group;
    return 1.0 / m->lambda[k] <= g->split_mean_life_s ? g->real_s : g->slow_s;
}

/* One group relaxing towards @p target over x = lambda t. Below x = 1 the
 * FAST step's form D + (1 - e^{-x})(target - D) (a saturated group stays
 * exactly saturated); above it D e^{-x} + (1 - e^{-x}) target, because the
 * first form takes e^{-x} as 1 - (1 - e^{-x}) and so keeps only an ulp of
 * D absolutely: a group that decayed by 1e8 would carry a relative error
 * of ~1e-8. With e^{-x} from exp both terms are relative to rounding. */
static double gap_relax(double d, double target, double x)
{
    if (x < 1.0)
        return d + -pcs_expm1(-x) * (target - d);
    return d * pcs_exp(-x) + -pcs_expm1(-x) * target;
}

pcs_status pcs_decay_heat_advance(const pcs_decay_heat_model *m, const pcs_decay_heat_gap_def *g,
                                  double *d)
{
    if (!m || !d)
        return pcs_error_set(PCS_E_INVAL, "pcs_decay_heat_advance: model or state is NULL");
    pcs_status st = pcs_decay_heat_gap_validate(g);
    if (st != PCS_OK)
        return st;
    double p = g->p_fission_w;
    /* Np first: it inherits the U-239 power above saturation at the start. */
    const uint32_t iu = PCS_DECAY_HEAT_U239, in = PCS_DECAY_HEAT_NP239;
    double tc = pcs_decay_heat_gap_time(m, g, in);
    double lu = m->lambda[iu], ln = m->lambda[in];
    double u_excess = d[iu] - m->sat[iu] * p;
    /* E_Np/E_U from the saturations (both scale with R; R = 0 has no chain). */
    double e_ratio = m->sat[iu] > 0.0 ? m->sat[in] / m->sat[iu] : 0.0;
    /* lNp (E_Np/E_U) (e^{-lU t} - e^{-lNp t})/(lNp - lU), the difference from
     * expm1 so a short gap keeps its digits. */
    double np_from_u = ln * e_ratio * (pcs_expm1(-lu * tc) - pcs_expm1(-ln * tc)) / (ln - lu);
    d[in] = gap_relax(d[in], m->sat[in] * p, ln * tc) + np_from_u * u_excess;
    for (uint32_t i = 0; i <= iu; i++)
        d[i] = gap_relax(d[i], m->sat[i] * p, m->lambda[i] * pcs_decay_heat_gap_time(m, g, i));
    return PCS_OK;
}
