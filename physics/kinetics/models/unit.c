/**
 * @file unit.c
 * @brief Reactor unit: configuration defaults and validation, and the builder
 *        that registers the unit's stores, initial state, systems, job,
 *        commands and channels into a world.
 *
 * Load check (unit_load_check, on a staged save before it is applied), the
 * ranges the builder, the command handlers and the systems' clamps keep:
 * relative power n in [0, power_limit_fraction] and precursors >= 0, finite;
 * the cached kinetics modes well formed (valid/has_prev 0 or 1, G + 1 modes,
 * |rho| < 1, finite roots and step data); reactivities (previous total, bias)
 * inside (-0.5, 0.5), poison worth in [-1, 0]; decay-heat groups >= 0;
 * rod positions, commands and drop starts in [0, 1], speeds in (0, 1]
 * travel/s, each bank's worth equal to its position's (derived, recomputed
 * here) and the mean in [0, 1]; scram latch and manual request 0 or 1 with a
 * cause exactly when latched; only PCS_UNIT_FLAG_* bits; published powers in
 * [0, 2 power_limit_fraction P_nom], n as above, period within
 * +-PCS_UNIT_PERIOD_INF_S; boron in [0, 10000] ppm; temperatures in [273.15,
 * 1e4] K (1e4 K: twice the largest fuel_temp_limit_k, 5000 K). The xenon
 * stores are checked by the xenon job (xenon.c), which owns their meaning.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "physics/kinetics/models/unit_internal.h"
#include "pcsim/structure.h"
#include "pcsim/channel.h"
#include "pcsim/math.h"
#include "pcsim/param_range.h"
#include "pcsim/persist.h"
#include "pcsim/system.h"

/* ---- configuration ------------------------------------------------------- */

static void unit_bank_default(pcs_reactivity_rod_bank *b, const char *name, double worth_pcm,
                              double pos)
{
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    b->worth = worth_pcm * 1e-5;
    b->curve = PCS_REACTIVITY_ROD_CURVE_SIN2;
    b->speed_per_s = 72.0 / 60.0 / 228.0; /* 72 steps/min, 228-step stroke (assumed) */
    b->initial_pos = pos;
}

pcs_status pcs_unit_default(pcs_unit_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_unit_default: cfg is NULL");
    memset(cfg, 0, sizeof *cfg);
    cfg->nominal_power_w = 3.411e9;
    pcs_kinetics_params_keepin_u235(&cfg->kinetics, 2e-5);
    cfg->kinetics.source_per_s = 1e-6;
    cfg->drho_substep = 1e-5;
    /* BEAVRS cycle 1 HZP measured bank worths, pcm (tests/refdata/pwr_plant.md). */
    static const struct {
        const char *name;
        double pcm, pos;
    } banks[] = {{"D", 788, 0.9},  {"C", 1203, 1.0}, {"B", 1171, 1.0}, {"A", 548, 1.0},
                 {"SE", 461, 1.0}, {"SD", 772, 1.0}, {"SC", 1099, 1.0}};
    cfg->n_banks = sizeof banks / sizeof banks[0];
    for (uint32_t b = 0; b < cfg->n_banks; b++)
        unit_bank_default(&cfg->banks[b], banks[b].name, banks[b].pcm, banks[b].pos);
    cfg->scram_delay_s = 0.15;                     /* [SalemFSAR] */
    cfg->scram_drop_time_s = 2.7 / pcs_sqrt(0.85); /* 85 % of travel in 2.7 s [TS] */
    cfg->feedback.doppler_form = PCS_DOPPLER_SQRT;
    cfg->feedback.doppler_coef = -1.5e-3; /* -2.5 pcm/K at 900 K (assumption) */
    cfg->feedback.t_fuel_ref_k = 900.0;
    /* The HZP coefficient at power too: pwr_plant.md has no at-power MTC, only a
     * bound and Salem's HZP-to-HFP defects (row "moderator coefficient at power"). */
    cfg->feedback.mtc_per_k = -3.15e-5;  /* BEAVRS HZP ITC, cycle 1 ARO */
    cfg->feedback.t_mod_ref_k = 566.5;   /* BEAVRS HZP inlet */
    cfg->feedback.boron_per_ppm = -1e-4; /* -10 pcm/ppm (assumption) */
    cfg->feedback.boron_ref_ppm = 975.0; /* BEAVRS HZP ARO critical boron */
    cfg->boron_ppm = 975.0;
    pcs_decay_heat_params_default(&cfg->decay_heat);
    cfg->operating_time_s = PCS_DECAY_HEAT_T_INFINITE_S;
    pcs_xenon_params_default(&cfg->xenon);
    cfg->xenon_equilibrium = 1;
    cfg->xenon_phase = 0;
    pcs_lumped_heat_params_pwr(&cfg->heat, cfg->nominal_power_w);
    cfg->initial_power_fraction = 1.0;
    cfg->critical_at_build = 1;
    cfg->rho_bias = 0.0;
    cfg->power_limit_fraction = 10.0;
    cfg->fuel_temp_limit_k = 3120.0;
    return PCS_OK;
}

/* Re-raise the current message with the "unit config: " prefix. */
static pcs_status unit_cfg_wrap(pcs_status st)
{
    return pcs_error_set(st, "unit config: %s", pcs_last_error());
}

static pcs_status unit_cfg_banks(const pcs_unit_def *c)
{
    if (c->n_banks < 1 || c->n_banks > PCS_UNIT_MAX_BANKS)
        return pcs_error_set(PCS_E_INVAL, "unit config: n_banks = %u is outside [1, %u]",
                             c->n_banks, PCS_UNIT_MAX_BANKS);
    for (uint32_t b = 0; b < c->n_banks; b++) {
        if (pcs_reactivity_rod_bank_validate(&c->banks[b], b) != PCS_OK)
            return unit_cfg_wrap(PCS_E_INVAL);
        for (uint32_t k = 0; k < b; k++)
            if (strcmp(c->banks[k].name, c->banks[b].name) == 0)
                return pcs_error_set(PCS_E_INVAL,
                                     "unit config: rods[%u].name '%s' repeats rods[%u]'s", b,
                                     c->banks[b].name, k);
    }
    return PCS_OK;
}

static pcs_status unit_cfg_models(const pcs_unit_def *c)
{
    if (pcs_kinetics_params_validate(&c->kinetics) != PCS_OK)
        return unit_cfg_wrap(PCS_E_INVAL);
    if (pcs_reactivity_feedback_validate(&c->feedback) != PCS_OK)
        return unit_cfg_wrap(PCS_E_INVAL);
    if (pcs_decay_heat_params_validate(&c->decay_heat) != PCS_OK)
        return unit_cfg_wrap(PCS_E_INVAL);
    if (pcs_xenon_params_validate(&c->xenon) != PCS_OK)
        return unit_cfg_wrap(PCS_E_INVAL);
    if (pcs_lumped_heat_params_validate(&c->heat) != PCS_OK)
        return unit_cfg_wrap(PCS_E_INVAL);
    return PCS_OK;
}

pcs_status pcs_unit_def_validate(const pcs_unit_def *c)
{
    if (!c)
        return pcs_error_set(PCS_E_INVAL, "unit config: cfg is NULL");
    const pcs_param_range r[] = {
        {"nominal_power_w", c->nominal_power_w, 0.0, 1e11, 1},
        {"drho_substep", c->drho_substep, 0.0, 1e-2, 1},
        {"scram_delay_s", c->scram_delay_s, 0.0, 10.0, 0},
        {"scram_drop_time_s", c->scram_drop_time_s, 0.0, 60.0, 1},
        {"boron_ppm", c->boron_ppm, 0.0, 10000.0, 0},
        {"operating_time_s", c->operating_time_s, 0.0, 1e13, 0},
        {"power_limit_fraction", c->power_limit_fraction, 1.0, 1000.0, 0},
        {"initial_power_fraction", c->initial_power_fraction, 0.0,
         pcs_isfinite(c->power_limit_fraction) ? c->power_limit_fraction : 0.0, 0},
        {"rho_bias", c->rho_bias, -0.5, 0.5, 1},
        {"fuel_temp_limit_k", c->fuel_temp_limit_k, 1000.0, 5000.0, 0},
        {"energy_feedback", c->energy_feedback, 0.0, 1.0, 0},
    };
    pcs_status st = pcs_param_ranges_check("unit config: ", r, sizeof r / sizeof r[0]);
    if (st != PCS_OK)
        return st;
    if (c->xenon_equilibrium > 1 || c->critical_at_build > 1)
        return pcs_error_set(PCS_E_INVAL,
                             "unit config: xenon_equilibrium = %u and critical_at_build = %u must "
                             "be 0 or 1",
                             c->xenon_equilibrium, c->critical_at_build);
    if (c->external_heat > 1 || c->external_boron > 1 || c->auto_rods > 1)
        return pcs_error_set(PCS_E_INVAL,
                             "unit config: external_heat = %u, external_boron = %u and "
                             "auto_rods = %u must be 0 or 1",
                             c->external_heat, c->external_boron, c->auto_rods);
    if (c->xenon_phase >= PCS_SLOW_PERIOD_TICKS)
        return pcs_error_set(PCS_E_INVAL, "unit config: xenon_phase = %u is outside [0, %u)",
                             c->xenon_phase, PCS_SLOW_PERIOD_TICKS);
    st = unit_cfg_banks(c);
    return st != PCS_OK ? st : unit_cfg_models(c);
}

/* ---- stores -------------------------------------------------------------- */

static pcs_status unit_store(pcs_world *w, const pcs_unit *u, const char *suffix, size_t elem,
                             size_t count, uint32_t *id)
{
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "%s.%s", u->prefix, suffix);
    /* Every d-sized row of the table below is a double array (kin.modes and
     * the u32 words are not): those are declared for the finite check. */
    return pcs_store_register(w, name, elem, count,
                              elem == sizeof(double) ? PCS_STORE_STATE_F64 : PCS_STORE_STATE, id);
}

/* Register the unit's stores in the table's order (the state hash follows
 * it) and point u's pointers into them: a store's data never moves, so each
 * row names its store once, with its size and the pointer that reads it. The
 * float64 rows carry their pointer; the five others are typed apart. */
static pcs_status unit_stores_register(pcs_world *w, pcs_unit *u)
{
    size_t G1 = u->cfg.kinetics.n_groups + 1, B = u->cfg.n_banks, d = sizeof(double);
    unit_stores *s = &u->id;
    struct {
        const char *suffix;
        size_t elem, count;
        uint32_t *id;
        double **f64; /* NULL: not a float64 store */
    } t[] = {
        {"kin.y", d, G1, &s->kin_y, &u->y},
        {"kin.modes", sizeof(pcs_kinetics_modes), 1, &s->kin_modes, NULL},
        {"kin.aux", d, UNIT_AUX_LEN, &s->kin_aux, &u->aux},
        {"dh.groups", d, PCS_DECAY_HEAT_GROUPS, &s->dh, &u->dh_groups},
        {"rods.pos", d, B, &s->rods_pos, &u->pos},
        {"rods.cmd", d, B, &s->rods_cmd, &u->cmd},
        {"rods.speed", d, B, &s->rods_speed, &u->speed},
        {"rods.start", d, B, &s->rods_start, &u->start},
        {"rods.rho", d, B, &s->rods_rho, &u->bank_rho},
        {"rods.mean", d, 1, &s->rods_mean, &u->rods_mean},
        {"scram.state", sizeof(uint32_t), UNIT_SCRAM_LEN, &s->scram, NULL},
        {"core.trip", sizeof(uint32_t), 1, &s->trip, NULL},
        {"core.flags", sizeof(uint32_t), 1, &s->flags, NULL},
        {"core.out", d, UNIT_OUT_LEN, &s->out, &u->out},
        {"rho.terms", d, UNIT_RHO_LEN, &s->rho, &u->rho_terms},
        {"core.boron", d, 1, &s->boron, &u->boron},
        {"xenon.state", d, PCS_XENON_STATE_LEN, &s->xe_state, NULL},
        {"xenon.power", d, 2, &s->xe_power, &u->xe_power},
        {"fuel.t_avg", d, 1, &s->fuel_t_avg, &u->t_fuel},
        {"fuel.t_max", d, 1, &s->fuel_t_max, &u->t_max},
        {"coolant.t_avg", d, 1, &s->coolant_t_avg, &u->t_cool},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        pcs_status st = unit_store(w, u, t[i].suffix, t[i].elem, t[i].count, t[i].id);
        if (st != PCS_OK)
            return st;
        if (t[i].f64)
            *t[i].f64 = pcs_store_data(w, *t[i].id);
    }
    u->modes = pcs_store_data(w, s->kin_modes);
    u->scram = pcs_store_data(w, s->scram);
    u->trip = pcs_store_data(w, s->trip);
    u->flags = pcs_store_data(w, s->flags);
    u->xe = pcs_store_data(w, s->xe_state); /* the xenon state's doubles as its struct */
    s->rods_auto = s->kin_energy = UINT32_MAX;
    u->rods_auto = u->energy = NULL;
    pcs_status st = PCS_OK;
    /* Each only when configured: a unit without them saves and hashes as before. */
    if (u->cfg.auto_rods) {
        st = unit_store(w, u, "rods.auto", d, B + 1, &s->rods_auto);
        if (st == PCS_OK)
            u->rods_auto = pcs_store_data(w, s->rods_auto);
    }
    if (st == PCS_OK && u->cfg.energy_feedback > 0.0) {
        st = unit_store(w, u, "kin.energy", d, 1, &s->kin_energy);
        if (st == PCS_OK)
            u->energy = pcs_store_data(w, s->kin_energy);
    }
    return st;
}

/* ---- initial state ------------------------------------------------------- */

/*
 * Steady state at n0: precursors in equilibrium, decay heat after the
 * configured operating history, temperatures at the resulting power, xenon
 * at equilibrium, and (critical_at_build) a bias that makes the total
 * reactivity the steady value -S Lambda / n0 (0 without a source).
 */
static pcs_status unit_initial_state(pcs_world *w, pcs_unit *u)
{
    (void)w; /* a build step (pcs_unit_add): the state is in the stores bound */
    const pcs_unit_def *c = &u->cfg;
    double n0 = c->initial_power_fraction, p_nom = c->nominal_power_w;
    pcs_kinetics_equilibrium(&c->kinetics, n0, u->y);
    pcs_decay_heat_operate(&u->dh, p_nom * n0, c->operating_time_s, u->dh_groups);
    double dh0 = pcs_decay_heat_power(u->dh_groups);
    double p0 = (1.0 - u->f_dh) * p_nom * n0 + dh0;
    double t[2];
    u->out[UNIT_OUT_N] = n0;
    u->out[UNIT_OUT_FISSION] = (1.0 - u->f_dh) * p_nom * n0;
    u->out[UNIT_OUT_DECAY] = dh0;
    u->out[UNIT_OUT_POWER] = p0;
    u->out[UNIT_OUT_POWER_AVG] = p0;
    pcs_lumped_heat_steady(&c->heat, p0, t);
    *u->t_fuel = t[0];
    *u->t_cool = t[1];
    *u->t_max = pcs_fmin(pcs_lumped_heat_t_max(&c->heat, t), c->fuel_temp_limit_k);
    if (c->xenon_equilibrium)
        pcs_xenon_equilibrium(&c->xenon, n0, u->xe);
    u->xe_power[0] = n0;
    u->xe_power[1] = 1.0;
    for (uint32_t b = 0; b < c->n_banks; b++) {
        u->pos[b] = u->cmd[b] = u->start[b] = c->banks[b].initial_pos;
        u->speed[b] = c->banks[b].speed_per_s;
        u->bank_rho[b] = pcs_reactivity_rod_reactivity(&c->banks[b], u->pos[b]);
    }
    *u->rods_mean = pcs_unit_rods_mean(u);
    *u->boron = c->boron_ppm;
    return pcs_unit_balance(u);
}

/* Bias (critical_at_build) and kinetics modes for the current build state. */
pcs_status pcs_unit_balance(pcs_unit *u)
{
    const pcs_unit_def *c = &u->cfg;
    double n0 = c->initial_power_fraction;
    double target = n0 > 0.0 ? -c->kinetics.source_per_s * c->kinetics.generation_time_s / n0 : 0.0;
    u->rho_terms[UNIT_RHO_BIAS] = 0.0;
    double others = pcs_unit_total_reactivity(u);
    u->rho_terms[UNIT_RHO_BIAS] = c->critical_at_build ? target - others : c->rho_bias;
    double rho = pcs_unit_total_reactivity(u);
    if (!(pcs_fabs(rho) < 0.5) || !(pcs_fabs(u->rho_terms[UNIT_RHO_BIAS]) < 0.5))
        return pcs_error_set(PCS_E_INVAL,
                             "unit config: the build state's reactivity %g (bias %g) is outside "
                             "(-0.5, 0.5); check rod positions, worths and feedback references",
                             rho, u->rho_terms[UNIT_RHO_BIAS]);
    u->aux[UNIT_AUX_RHO_PREV] = rho;
    u->aux[UNIT_AUX_POISON_PREV] = u->rho_terms[UNIT_RHO_XENON] + u->rho_terms[UNIT_RHO_SAMARIUM];
    pcs_status st = pcs_kinetics_modes_solve(&c->kinetics, u->modes, rho);
    if (st != PCS_OK)
        return st;
    u->out[UNIT_OUT_RHO] = rho;
    u->out[UNIT_OUT_PERIOD] = PCS_UNIT_PERIOD_INF_S;
    *u->flags = rho < 0.0 ? PCS_UNIT_FLAG_SUBCRITICAL : 0u;
    return PCS_OK;
}

/* ---- channels ------------------------------------------------------------ */

static pcs_status unit_channel(pcs_world *w, const pcs_unit *u, const char *suffix,
                               const char *unit, pcs_channel_kind kind, uint32_t store,
                               uint32_t index)
{
    char name[128];
    snprintf(name, sizeof name, "%s.%s", u->prefix, suffix);
    return pcs_channel_register(w, name, unit, kind, store, index, NULL);
}

static pcs_status unit_channels_register(pcs_world *w, pcs_unit *u)
{
    const unit_stores *s = &u->id;
    const pcs_channel_kind F = PCS_CHANNEL_F64;
    struct {
        const char *suffix, *unit;
        pcs_channel_kind kind;
        uint32_t store, index;
    } c[] = {
        {"core.power", "W", F, s->out, UNIT_OUT_POWER},
        {"core.fission_power", "W", F, s->out, UNIT_OUT_FISSION},
        {"core.decay_heat", "W", F, s->out, UNIT_OUT_DECAY},
        {"core.reactivity", "", F, s->out, UNIT_OUT_RHO},
        {"core.period", "s", F, s->out, UNIT_OUT_PERIOD},
        {"core.relative_power", "", F, s->out, UNIT_OUT_N},
        {"core.boron", "ppm", F, s->boron, 0},
        {"core.flags", "", PCS_CHANNEL_U32, s->flags, 0},
        {"core.trip", "", PCS_CHANNEL_U32, s->trip, 0},
        {"scram.cause", "", PCS_CHANNEL_U32, s->scram, UNIT_SCRAM_CAUSE},
        {"rods.pos", "", F, s->rods_mean, 0},
        {"xenon.reactivity", "", F, s->xe_state, 4},
        {"samarium.reactivity", "", F, s->xe_state, 5},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        if (u->cfg.external_boron && c[i].store == s->boron)
            continue; /* the coolant model publishes the boron it carries */
        pcs_status st =
            unit_channel(w, u, c[i].suffix, c[i].unit, c[i].kind, c[i].store, c[i].index);
        if (st != PCS_OK)
            return st;
    }
    const struct {
        const char *suffix;
        uint32_t store;
    } heat[] = {{"fuel.t_max", s->fuel_t_max},
                {"fuel.t_avg", s->fuel_t_avg},
                {"coolant.t_avg", s->coolant_t_avg}};
    for (size_t i = 0; !u->cfg.external_heat && i < sizeof heat / sizeof heat[0]; i++) {
        pcs_status st = unit_channel(w, u, heat[i].suffix, "K", F, heat[i].store, 0);
        if (st != PCS_OK)
            return st;
    }
    for (uint32_t b = 0; b < u->cfg.n_banks; b++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "rods.%s.pos", u->cfg.banks[b].name);
        pcs_status st = unit_channel(w, u, suffix, "", F, s->rods_pos, b);
        if (st != PCS_OK)
            return st;
    }
    return PCS_OK;
}

/* ---- load check ----------------------------------------------------------- */

#define UNIT_T_MIN_K 273.15
#define UNIT_T_MAX_K 1e4
#define UNIT_FLAGS_ALL                                                                             \
    (PCS_UNIT_FLAG_SCRAMMED | PCS_UNIT_FLAG_RODS_MOVING | PCS_UNIT_FLAG_TRIP_REQUEST |             \
     PCS_UNIT_FLAG_KINETICS_RANGE | PCS_UNIT_FLAG_SUBCRITICAL | PCS_UNIT_FLAG_PROMPT_CRITICAL |    \
     PCS_UNIT_FLAG_HEAT_RANGE)

/* Elements [i0, i0 + n) of store @p id inside [lo, hi] (NaN fails). */
static pcs_status unit_range(const pcs_world *w, uint32_t id, const double *x, uint32_t i0,
                             uint32_t n, const char *field, double lo, double hi, unsigned flags)
{
    return pcs_load_check_f64_from(pcs_store_name(w, id), field, x, i0, n, 1, lo, hi, flags);
}

static pcs_status unit_bad_u32(const pcs_world *w, uint32_t id, uint32_t i, const char *field,
                               uint32_t v, const char *allowed)
{
    return pcs_error_set(PCS_E_CORRUPT, "store '%s' element %u (%s): value %u; allowed %s",
                         pcs_store_name(w, id), i, field, v, allowed);
}

/* The kinetics cache: a wrong one is re-solved only when rho moves, so its
 * shape and numbers must be ones a solve leaves. */
static pcs_status unit_check_modes(const pcs_world *w, const pcs_unit *u,
                                   const pcs_kinetics_modes *m)
{
    uint32_t modes = u->cfg.kinetics.n_groups + 1u, id = u->id.kin_modes;
    if (m->valid > 1u || m->has_prev > 1u || m->reserved != 0u)
        return unit_bad_u32(w, id, 0, "valid / has_prev / reserved",
                            m->valid | m->has_prev << 1 | m->reserved << 2,
                            "valid and has_prev 0 or 1, reserved 0");
    if (m->valid && m->n_modes != modes)
        return unit_bad_u32(w, id, 0, "n_modes", m->n_modes, "G + 1 while valid");
    if (m->n_modes > PCS_KINETICS_MAX_MODES)
        return unit_bad_u32(w, id, 0, "n_modes", m->n_modes, "at most PCS_KINETICS_MAX_MODES");
    int ok = pcs_fabs(m->rho) < 1.0 && pcs_isfinite(m->rho_prev) && m->h_s >= 0.0 &&
             pcs_isfinite(m->h_s);
    for (uint32_t k = 0; ok && k < m->n_modes; k++) {
        double sum = m->omega[k] + m->norm[k] + m->ew[k] + m->p1[k] + m->p2[k] + m->ramp[k] +
                     m->omega_prev[k];
        for (uint32_t i = 0; i < u->cfg.kinetics.n_groups; i++)
            sum += m->g[k][i];
        ok = pcs_isfinite(sum) && m->ew[k] >= 0.0;
    }
    if (!ok)
        return pcs_error_set(PCS_E_CORRUPT,
                             "store '%s' element 0 (kinetics modes): rho %g, step "
                             "%g s or a root's data is not finite; allowed |rho| < 1, finite",
                             pcs_store_name(w, id), m->rho, m->h_s);
    return PCS_OK;
}

static pcs_status unit_check_kinetics(const pcs_world *w, const pcs_unit *u, const pcs_load_view *v)
{
    const unit_stores *s = &u->id;
    const double *y = pcs_load_view_store(v, s->kin_y), *aux = pcs_load_view_store(v, s->kin_aux);
    const double lim = u->cfg.power_limit_fraction;
    pcs_status st = unit_range(w, s->kin_y, y, 0, 1, "relative power n", 0.0, lim, 0);
    if (st == PCS_OK)
        st = unit_range(w, s->kin_y, y, 1, u->cfg.kinetics.n_groups, "precursors", 0.0, DBL_MAX, 0);
    if (st == PCS_OK)
        st = unit_check_modes(w, u, pcs_load_view_store(v, s->kin_modes));
    if (st == PCS_OK)
        st = unit_range(w, s->kin_aux, aux, UNIT_AUX_RHO_PREV, 1, "previous reactivity", -0.5, 0.5,
                        PCS_CHECK_LO_OPEN | PCS_CHECK_HI_OPEN);
    if (st == PCS_OK)
        st = unit_range(w, s->kin_aux, aux, UNIT_AUX_SCRAM_T, 1, "time since scram s", 0.0, DBL_MAX,
                        0);
    if (st == PCS_OK)
        st = unit_range(w, s->kin_aux, aux, UNIT_AUX_POISON_PREV, 1, "poison reactivity", -1.0, 0.0,
                        0);
    if (st == PCS_OK)
        st = unit_range(w, s->dh, pcs_load_view_store(v, s->dh), 0, PCS_DECAY_HEAT_GROUPS,
                        "decay-heat group power W", 0.0, DBL_MAX, 0);
    if (st == PCS_OK && u->energy)
        st = unit_range(w, s->kin_energy, pcs_load_view_store(v, s->kin_energy), 0, 1,
                        "energy int n dt s", 0.0, DBL_MAX, 0);
    return st;
}

/* "uN.rods.auto": speeds within [-1, 1], the mask a whole number of bits. */
static pcs_status unit_check_rods_auto(const pcs_world *w, const pcs_unit *u, const double *a)
{
    uint32_t nb = u->cfg.n_banks;
    pcs_status st =
        unit_range(w, u->id.rods_auto, a, 0, nb, "automatic speed travel/s", -1.0, 1.0, 0);
    double most = (double)((1u << nb) - 1u);
    if (st == PCS_OK)
        st = unit_range(w, u->id.rods_auto, a, nb, 1, "automatic bank mask", 0.0, most, 0);
    if (st == PCS_OK && a[nb] != floor(a[nb]))
        st = pcs_error_set(PCS_E_CORRUPT,
                           "store '%s' element %u (automatic bank mask): value %g; allowed a "
                           "whole number in [0, %g]",
                           pcs_store_name(w, u->id.rods_auto), nb, a[nb], most);
    return st;
}

static pcs_status unit_check_rods(const pcs_world *w, const pcs_unit *u, const pcs_load_view *v)
{
    const unit_stores *s = &u->id;
    uint32_t nb = u->cfg.n_banks;
    const double *pos = pcs_load_view_store(v, s->rods_pos);
    const double *rho = pcs_load_view_store(v, s->rods_rho);
    pcs_status st = unit_range(w, s->rods_pos, pos, 0, nb, "position", 0.0, 1.0, 0);
    if (st == PCS_OK)
        st = unit_range(w, s->rods_cmd, pcs_load_view_store(v, s->rods_cmd), 0, nb,
                        "commanded position", 0.0, 1.0, 0);
    if (st == PCS_OK)
        st = unit_range(w, s->rods_start, pcs_load_view_store(v, s->rods_start), 0, nb,
                        "drop start position", 0.0, 1.0, 0);
    if (st == PCS_OK)
        st = unit_range(w, s->rods_speed, pcs_load_view_store(v, s->rods_speed), 0, nb,
                        "speed travel/s", 0.0, 1.0, PCS_CHECK_LO_OPEN);
    if (st == PCS_OK)
        st = unit_range(w, s->rods_mean, pcs_load_view_store(v, s->rods_mean), 0, 1,
                        "worth-weighted mean position", 0.0, 1.0, 0);
    if (st == PCS_OK && u->cfg.auto_rods)
        st = unit_check_rods_auto(w, u, pcs_load_view_store(v, s->rods_auto));
    for (uint32_t b = 0; st == PCS_OK && b < nb; b++) {
        double want = pcs_reactivity_rod_reactivity(&u->cfg.banks[b], pos[b]);
        st = unit_range(w, s->rods_rho, rho, b, 1, "bank worth at its position", want, want, 0);
    }
    return st;
}

static pcs_status unit_check_words(const pcs_world *w, const pcs_unit *u, const pcs_load_view *v)
{
    const unit_stores *s = &u->id;
    const uint32_t *scram = pcs_load_view_store(v, s->scram);
    const uint32_t *flags = pcs_load_view_store(v, s->flags);
    if (scram[UNIT_SCRAM_LATCHED] > 1u)
        return unit_bad_u32(w, s->scram, UNIT_SCRAM_LATCHED, "latched", scram[UNIT_SCRAM_LATCHED],
                            "0 or 1");
    if ((scram[UNIT_SCRAM_CAUSE] != 0u) != (scram[UNIT_SCRAM_LATCHED] != 0u))
        return unit_bad_u32(w, s->scram, UNIT_SCRAM_CAUSE, "cause", scram[UNIT_SCRAM_CAUSE],
                            "non-zero exactly while latched");
    if (scram[UNIT_SCRAM_MANUAL] > 1u)
        return unit_bad_u32(w, s->scram, UNIT_SCRAM_MANUAL, "manual request",
                            scram[UNIT_SCRAM_MANUAL], "0 or 1");
    if (flags[0] & ~UNIT_FLAGS_ALL)
        return unit_bad_u32(w, s->flags, 0, "flags", flags[0], "PCS_UNIT_FLAG_* bits (0x7f)");
    return PCS_OK;
}

static pcs_status unit_check_outputs(const pcs_world *w, const pcs_unit *u, const pcs_load_view *v)
{
    const unit_stores *s = &u->id;
    const double *out = pcs_load_view_store(v, s->out), *rho = pcs_load_view_store(v, s->rho);
    const double lim = u->cfg.power_limit_fraction, p_max = 2.0 * lim * u->cfg.nominal_power_w;
    pcs_status st = unit_range(w, s->out, out, UNIT_OUT_POWER, 3, "power W", 0.0, p_max, 0);
    if (st == PCS_OK)
        st = unit_range(w, s->out, out, UNIT_OUT_RHO, 1, "reactivity", -0.5, 0.5,
                        PCS_CHECK_LO_OPEN | PCS_CHECK_HI_OPEN);
    if (st == PCS_OK)
        st = unit_range(w, s->out, out, UNIT_OUT_PERIOD, 1, "period s", -PCS_UNIT_PERIOD_INF_S,
                        PCS_UNIT_PERIOD_INF_S, 0);
    if (st == PCS_OK)
        st = unit_range(w, s->out, out, UNIT_OUT_N, 1, "relative power n", 0.0, lim, 0);
    if (st == PCS_OK)
        st = unit_range(w, s->out, out, UNIT_OUT_POWER_AVG, 1, "tick-average power W", 0.0, p_max,
                        0);
    if (st == PCS_OK)
        st = unit_range(w, s->rho, rho, 0, UNIT_RHO_LEN, "reactivity term", -DBL_MAX, DBL_MAX, 0);
    if (st == PCS_OK)
        st = unit_range(w, s->rho, rho, UNIT_RHO_BIAS, 1, "bias", -0.5, 0.5,
                        PCS_CHECK_LO_OPEN | PCS_CHECK_HI_OPEN);
    if (st == PCS_OK)
        st = unit_range(w, s->boron, pcs_load_view_store(v, s->boron), 0, 1, "boron ppm", 0.0,
                        10000.0, 0);
    const uint32_t temps[] = {s->fuel_t_avg, s->fuel_t_max, s->coolant_t_avg};
    for (size_t i = 0; st == PCS_OK && i < sizeof temps / sizeof temps[0]; i++)
        st = unit_range(w, temps[i], pcs_load_view_store(v, temps[i]), 0, 1, "temperature K",
                        UNIT_T_MIN_K, UNIT_T_MAX_K, 0);
    return st;
}

static pcs_status unit_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    /* In store order; the first failure is the one reported. */
    static pcs_status (*const checks[])(const pcs_world *, const pcs_unit *,
                                        const pcs_load_view *) = {
        unit_check_kinetics, unit_check_rods, unit_check_words, unit_check_outputs};
    const pcs_unit *u = ctx;
    pcs_status st = PCS_OK;
    for (size_t i = 0; st == PCS_OK && i < sizeof checks / sizeof checks[0]; i++)
        st = checks[i](w, u, v);
    return st;
}

/* ---- build --------------------------------------------------------------- */

static pcs_status unit_check_target(pcs_world *w, uint32_t index)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_unit_add: world is NULL");
    if (pcs_world_sealed(w) && !pcs_world_amending(w))
        return pcs_error_set(PCS_E_STATE, "pcs_unit_add: the world is sealed (it has ticked)");
    if (index < 1)
        return pcs_error_set(PCS_E_INVAL, "pcs_unit_add: unit_index = 0; units are numbered "
                                          "from 1");
    if (pcs_unit_index_taken(w, index))
        return pcs_error_set(PCS_E_INVAL, "pcs_unit_add: unit %u is already built", index);
    return PCS_OK;
}

static pcs_status unit_models_init(pcs_world *w, pcs_unit *u)
{
    u->dt_s = pcs_world_clock(w)->dt_s;
    u->beta = pcs_kinetics_beta_total(&u->cfg.kinetics);
    pcs_status st = pcs_decay_heat_model_init(&u->cfg.decay_heat, u->dt_s, &u->dh);
    if (st == PCS_OK)
        st = pcs_lumped_heat_model_init(&u->cfg.heat, u->dt_s, &u->heat);
    u->f_dh = u->dh.saturated_fraction;
    return st;
}

/* The build's steps after the unit is allocated, in their order (stores,
 * systems, job, targets and channels register in it). */
typedef pcs_status (*unit_build_step)(pcs_world *w, pcs_unit *u);

/* The xenon SLOW job "uN.xenon" on the unit's xenon stores. */
static pcs_status unit_xenon_add(pcs_world *w, pcs_unit *u)
{
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "%s.xenon", u->prefix);
    return pcs_xenon_add(w, name, &u->cfg.xenon, u->id.xe_state, u->id.xe_power, u->cfg.xenon_phase,
                         &u->xe_job);
}

static pcs_status unit_load_check_add(pcs_world *w, pcs_unit *u)
{
    return pcs_load_check_register(w, u->prefix, unit_load_check, u);
}

pcs_status pcs_unit_add(pcs_world *w, uint32_t unit_index, const pcs_unit_def *cfg, pcs_unit **out)
{
    pcs_status st = unit_check_target(w, unit_index);
    if (st == PCS_OK)
        st = pcs_unit_def_validate(cfg);
    if (st != PCS_OK)
        return st;
    pcs_unit *u = pcs_world_alloc(w, sizeof *u);
    if (!u)
        return pcs_error_set(PCS_E_NOMEM, "pcs_unit_add: out of memory for unit %u", unit_index);
    u->index = unit_index;
    snprintf(u->prefix, sizeof u->prefix, "u%u", unit_index);
    u->cfg = *cfg;
    static const unit_build_step steps[] = {
        unit_models_init,          unit_stores_register, unit_initial_state,
        pcs_unit_systems_register, unit_xenon_add,       pcs_unit_commands_register,
        unit_channels_register,    unit_load_check_add,
    };
    for (size_t i = 0; st == PCS_OK && i < sizeof steps / sizeof steps[0]; i++)
        st = steps[i](w, u);
    if (st == PCS_OK && out)
        *out = u;
    return st;
}

/* ---- queries ------------------------------------------------------------- */

pcs_status pcs_unit_power_ref(const pcs_unit *u, uint32_t *store, uint32_t *index)
{
    if (!u || !store || !index)
        return pcs_error_set(PCS_E_INVAL, "pcs_unit_power_ref: NULL argument");
    *store = u->id.out;
    *index = UNIT_OUT_POWER;
    return PCS_OK;
}

pcs_status pcs_unit_rod_stores(const pcs_unit *u, uint32_t *auto_store, uint32_t *pos)
{
    if (!u || !auto_store || !pos)
        return pcs_error_set(PCS_E_INVAL, "pcs_unit_rod_stores: NULL argument");
    if (!u->cfg.auto_rods)
        return pcs_error_set(PCS_E_STATE,
                             "%s: built with auto_rods = 0: no automatic rod input (set "
                             "auto_rods = 1)",
                             u->prefix);
    *auto_store = u->id.rods_auto;
    *pos = u->id.rods_pos;
    return PCS_OK;
}

pcs_status pcs_unit_boron_store(const pcs_unit *u, uint32_t *store)
{
    if (!u || !store)
        return pcs_error_set(PCS_E_INVAL, "pcs_unit_boron_store: NULL argument");
    *store = u->id.boron;
    return PCS_OK;
}

pcs_status pcs_unit_temperature_stores(const pcs_unit *u, uint32_t *t_fuel, uint32_t *t_coolant,
                                       uint32_t *t_max)
{
    if (!u || !t_fuel || !t_coolant || !t_max)
        return pcs_error_set(PCS_E_INVAL, "pcs_unit_temperature_stores: NULL argument");
    *t_fuel = u->id.fuel_t_avg;
    *t_coolant = u->id.coolant_t_avg;
    *t_max = u->id.fuel_t_max;
    return PCS_OK;
}

pcs_status pcs_unit_set_temperatures(pcs_world *w, pcs_unit *u, double t_fuel_k, double t_coolant_k,
                                     double t_max_k)
{
    if (!w || !u)
        return pcs_error_set(PCS_E_INVAL, "pcs_unit_set_temperatures: NULL argument");
    if (pcs_world_sealed(w) && !pcs_world_amending(w))
        return pcs_error_set(PCS_E_STATE, "pcs_unit_set_temperatures: the world has ticked");
    const double t[3] = {t_fuel_k, t_coolant_k, t_max_k};
    for (int i = 0; i < 3; i++)
        if (!pcs_isfinite(t[i]) || t[i] < 273.15)
            return pcs_error_set(PCS_E_INVAL,
                                 "pcs_unit_set_temperatures: temperature %d = %g K "
                                 "is not a finite value >= 273.15 K",
                                 i, t[i]);
    *u->t_fuel = t_fuel_k;
    *u->t_cool = t_coolant_k;
    *u->t_max = t_max_k;
    return pcs_unit_balance(u);
}

uint32_t pcs_unit_trip_store(const pcs_unit *u)
{
    return u ? u->id.trip : UINT32_MAX;
}

/* uN.rho.terms is a pcs_unit_reactivity as doubles: the UNIT_RHO_* order is
 * the struct's fields' (rods first, total last; unit_internal.h). */
_Static_assert(sizeof(pcs_unit_reactivity) == UNIT_RHO_LEN * sizeof(double),
               "pcs_unit_reactivity is the UNIT_RHO_LEN terms, no padding");
#define RHO_AT(f, k) (offsetof(pcs_unit_reactivity, f) == (k) * sizeof(double))
_Static_assert(RHO_AT(rods, UNIT_RHO_RODS) && RHO_AT(doppler, UNIT_RHO_DOPPLER) &&
                   RHO_AT(moderator, UNIT_RHO_MODERATOR) && RHO_AT(boron, UNIT_RHO_BORON) &&
                   RHO_AT(xenon, UNIT_RHO_XENON) && RHO_AT(samarium, UNIT_RHO_SAMARIUM) &&
                   RHO_AT(bias, UNIT_RHO_BIAS) && RHO_AT(total, UNIT_RHO_TOTAL),
               "pcs_unit_reactivity's fields in the UNIT_RHO_* order");

void pcs_unit_reactivity_get(const pcs_unit *u, pcs_unit_reactivity *r)
{
    memcpy(r, u->rho_terms, sizeof *r);
}

uint64_t pcs_unit_kinetics_solves(const pcs_unit *u)
{
    return u->modes->solves;
}
