/**
 * @file unit_systems.c
 * @brief The reactor unit's per-tick systems: rods (ACTUATORS), reactivity +
 *        kinetics + decay heat (KINETICS), lumped heat (HEAT).
 *
 * Data flow within a tick: ACTUATORS moves rods from the commands and the
 * trip input; KINETICS reads the new rod worths, the temperatures HEAT wrote
 * at the end of the previous tick and the xenon worth of the last merge, and
 * ramps the total reactivity linearly from the previous tick's value over the
 * step (pcs_kinetics_step); HEAT heats fuel and coolant with the tick's mean power.
 * The temperature feedback therefore lags by one tick (explicit coupling of
 * the stages, docs/ARCHITECTURE.md section 2), which at 0.05 s is far shorter than the
 * fuel time constant (~3 s). The one feedback that acts within the tick, the
 * adiabatic energy feedback (cfg.energy_feedback), is solved inside KINETICS
 * with the power that causes it (unit_kinetics_energy), not across stages.
 *
 * Each system rewrites only its own bits of uN.core.flags, and reports an
 * out-of-range condition once, when its bit goes from clear to set.
 */

#include <string.h>

#include "physics/kinetics/models/unit_internal.h"
#include "pcsim/event.h"
#include "pcsim/math.h"
#include "pcsim/system.h"
#include "physics/thermohydraulics/models/th_register.h"

#define UNIT_FLAGS_ACTUATORS                                                                       \
    (PCS_UNIT_FLAG_SCRAMMED | PCS_UNIT_FLAG_RODS_MOVING | PCS_UNIT_FLAG_TRIP_REQUEST)
#define UNIT_FLAGS_KINETICS                                                                        \
    (PCS_UNIT_FLAG_KINETICS_RANGE | PCS_UNIT_FLAG_SUBCRITICAL | PCS_UNIT_FLAG_PROMPT_CRITICAL)
#define UNIT_COOLANT_MIN_K 273.15
#define UNIT_COOLANT_MAX_K 700.0
#define UNIT_RHO_LIMIT 0.5

double pcs_unit_rods_mean(const pcs_unit *u)
{
    double w = 0.0, s = 0.0;
    for (uint32_t b = 0; b < u->cfg.n_banks; b++) {
        w += u->cfg.banks[b].worth;
        s += u->cfg.banks[b].worth * u->pos[b];
    }
    return s / w;
}

/* ---- ACTUATORS ---------------------------------------------------------- */

static void unit_scram_latch(pcs_world *w, pcs_unit *u, uint32_t cause)
{
    u->scram[UNIT_SCRAM_LATCHED] = 1;
    u->scram[UNIT_SCRAM_CAUSE] = cause;
    u->aux[UNIT_AUX_SCRAM_T] = 0.0;
    for (uint32_t b = 0; b < u->cfg.n_banks; b++) {
        u->start[b] = u->pos[b];
        u->cmd[b] = 0.0; /* after a reset the rods stay where they fell */
    }
    pcs_event_emit(w, PCS_EV_UNIT_SCRAM, u->index, (double)cause, u->out[UNIT_OUT_POWER],
                   u->out[UNIT_OUT_RHO], 0.0);
}

/* One tick of bank @p b's drive: toward its commanded position at its
 * speed, or, when the automatic rod control drives it (@p automatic),
 * toward the end its signed speed demand points to (0: hold). */
static double unit_drive(const pcs_unit *u, uint32_t b, uint32_t automatic)
{
    if (!automatic)
        return pcs_reactivity_rod_drive(u->pos[b], u->cmd[b], u->speed[b], u->dt_s);
    double v = u->rods_auto[b];
    if (v == 0.0)
        return u->pos[b];
    return pcs_reactivity_rod_drive(u->pos[b], v > 0.0 ? 1.0 : 0.0, v > 0.0 ? v : -v, u->dt_s);
}

static pcs_status unit_actuators(pcs_world *w, void *ctx)
{
    pcs_unit *u = ctx;
    uint32_t trip = *u->trip;
    uint32_t manual = u->scram[UNIT_SCRAM_MANUAL] ? PCS_UNIT_TRIP_MANUAL : 0u;
    u->scram[UNIT_SCRAM_MANUAL] = 0;
    if (!u->scram[UNIT_SCRAM_LATCHED] && (trip | manual))
        unit_scram_latch(w, u, trip | manual);
    int latched = u->scram[UNIT_SCRAM_LATCHED] != 0;
    if (latched)
        u->aux[UNIT_AUX_SCRAM_T] += u->dt_s;
    double t_fall = u->aux[UNIT_AUX_SCRAM_T] - u->cfg.scram_delay_s;
    int moving = 0;
    uint32_t mask = (u->rods_auto && !latched) ? (uint32_t)u->rods_auto[u->cfg.n_banks] : 0u;
    for (uint32_t b = 0; b < u->cfg.n_banks; b++) {
        double old = u->pos[b];
        double now = latched
                         ? pcs_reactivity_rod_drop(u->start[b], t_fall, u->cfg.scram_drop_time_s)
                         : unit_drive(u, b, mask >> b & 1u);
        if (mask >> b & 1u)
            u->cmd[b] = now; /* released, the bank holds where it is */
        if (now == old)
            continue;
        moving = 1;
        u->pos[b] = now;
        u->bank_rho[b] = pcs_reactivity_rod_reactivity(&u->cfg.banks[b], now);
        if (now == 0.0 || now == 1.0)
            pcs_event_emit(w, PCS_EV_UNIT_ROD_AT_LIMIT, u->index, (double)b, now, 0.0, 0.0);
    }
    *u->rods_mean = pcs_unit_rods_mean(u);
    uint32_t f = *u->flags & ~UNIT_FLAGS_ACTUATORS;
    f |= latched ? PCS_UNIT_FLAG_SCRAMMED : 0u;
    f |= moving ? PCS_UNIT_FLAG_RODS_MOVING : 0u;
    f |= trip ? PCS_UNIT_FLAG_TRIP_REQUEST : 0u;
    *u->flags = f;
    return PCS_OK;
}

/* ---- KINETICS ----------------------------------------------------------- */

/* Report a clamp once per excursion: the event fires when the bit turns on. */
static void unit_range_event(pcs_world *w, const pcs_unit *u, uint32_t was_flagged, int quantity,
                             double raw, double clamped, double limit)
{
    if (!was_flagged)
        pcs_event_emit(w, PCS_EV_UNIT_OUT_OF_RANGE, u->index, (double)quantity, raw, clamped,
                       limit);
}

double pcs_unit_total_reactivity(pcs_unit *u)
{
    double *r = u->rho_terms;
    double rods = 0.0;
    for (uint32_t b = 0; b < u->cfg.n_banks; b++)
        rods += u->bank_rho[b];
    r[UNIT_RHO_RODS] = rods;
    r[UNIT_RHO_DOPPLER] = pcs_reactivity_feedback_doppler(&u->cfg.feedback, *u->t_fuel);
    if (u->energy) /* adiabatic energy feedback: a fuel-temperature rise, reported as Doppler */
        r[UNIT_RHO_DOPPLER] -= u->cfg.energy_feedback * *u->energy;
    r[UNIT_RHO_MODERATOR] = pcs_reactivity_feedback_moderator(&u->cfg.feedback, *u->t_cool);
    r[UNIT_RHO_BORON] = pcs_reactivity_feedback_boron(&u->cfg.feedback, *u->boron);
    r[UNIT_RHO_XENON] = u->xe->rho_xe;
    r[UNIT_RHO_SAMARIUM] = u->xe->rho_sm;
    double total = 0.0;
    for (int k = UNIT_RHO_RODS; k <= UNIT_RHO_BIAS; k++)
        total += r[k];
    r[UNIT_RHO_TOTAL] = total;
    return total;
}

/* Clamp n (and the precursors with it, keeping their ratio) to the power limit. */
static int unit_clamp_power(pcs_world *w, pcs_unit *u, uint32_t was)
{
    double n = u->y[0], lim = u->cfg.power_limit_fraction;
    uint32_t G = u->cfg.kinetics.n_groups;
    int finite = 1;
    for (uint32_t i = 0; i <= G; i++)
        finite &= pcs_isfinite(u->y[i]);
    if (finite && n >= 0.0 && n <= lim)
        return 0;
    if (finite && n > lim) {
        double s = lim / n;
        for (uint32_t i = 1; i <= G; i++)
            u->y[i] *= s;
        u->y[0] = lim; /* exactly: lim/n * n may round above lim */
    } else {           /* non-finite or negative: restart from equilibrium at the limit */
        pcs_kinetics_equilibrium(&u->cfg.kinetics, finite && n < 0.0 ? 0.0 : lim, u->y);
    }
    unit_range_event(w, u, was, PCS_UNIT_RANGE_POWER, n, u->y[0], lim);
    return 1;
}

/* Period a meter would show over the tick: dt / ln(n1/n0), capped. */
static double unit_period(double n0, double n1, double dt)
{
    if (!(n0 > 0.0) || !(n1 > 0.0))
        return PCS_UNIT_PERIOD_INF_S;
    double lr = pcs_log(n1 / n0);
    if (pcs_fabs(lr) * PCS_UNIT_PERIOD_INF_S <= dt)
        return lr < 0.0 ? -PCS_UNIT_PERIOD_INF_S : PCS_UNIT_PERIOD_INF_S;
    return dt / lr;
}

static void unit_publish(pcs_unit *u, double n0, double n_int, double dh0, double dh1)
{
    double p_nom = u->cfg.nominal_power_w, n1 = u->y[0];
    double prompt = 1.0 - u->f_dh;
    u->out[UNIT_OUT_N] = n1;
    u->out[UNIT_OUT_FISSION] = prompt * p_nom * n1;
    u->out[UNIT_OUT_DECAY] = dh1;
    u->out[UNIT_OUT_POWER] = u->out[UNIT_OUT_FISSION] + dh1;
    u->out[UNIT_OUT_POWER_AVG] = prompt * p_nom * n_int / u->dt_s + 0.5 * (dh0 + dh1);
    u->out[UNIT_OUT_PERIOD] = unit_period(n0, n1, u->dt_s);
}

/* Passes of the energy predictor-corrector per sub-step: the first from
 * n(start) h, each next from the energy the pass before deposited. The
 * energy's error falls by about B h n / (beta - rho) per pass (the prompt
 * response to the feedback), below 1e-2 per pass at a sub-step's |drho| <=
 * drho_substep. */
#define UNIT_ENERGY_PASSES 3

/*
 * One tick with the same-tick energy feedback (cfg.energy_feedback = B > 0):
 * rho(t) = the other terms, ramped linearly from @p rho0 to @p rho1 (which
 * both carry -B W of the tick's start), minus B int_0^t n. Sub-steps of at
 * most drho_substep of the predicted change (n at the start held over the
 * tick), each a linear ramp to its end value solved with its own energy by
 * UNIT_ENERGY_PASSES predictor-corrector passes from its start state. Adds
 * the tick's energy to W; @return the reactivity at the tick's end in
 * @p rho_end and int n dt over the tick in @p n_int.
 */
static pcs_status unit_kinetics_energy(pcs_unit *u, double rho0, double rho1, double *rho_end,
                                       double *n_int)
{
    const double B = u->cfg.energy_feedback, dt = u->dt_s;
    const size_t ny = (u->cfg.kinetics.n_groups + 1) * sizeof(double);
    uint32_t ns = pcs_kinetics_substeps(rho0, rho1 - B * u->y[0] * dt, u->cfg.drho_substep);
    double h = dt / (double)ns, ra = rho0, total = 0.0;
    for (uint32_t j = 0; j < ns; j++) {
        double lin = rho0 + (rho1 - rho0) * (double)(j + 1) / (double)ns;
        double ys[PCS_KINETICS_MAX_MODES], part = u->y[0] * h, rb = ra;
        memcpy(ys, u->y, ny);
        for (int pass = 0; pass < UNIT_ENERGY_PASSES; pass++) {
            memcpy(u->y, ys, ny);
            rb = lin - B * (total + part);
            pcs_status st =
                pcs_kinetics_step(&u->cfg.kinetics, u->modes, ra, rb, h, 1, u->y, &part);
            if (st != PCS_OK)
                return st;
        }
        total += part;
        ra = rb; /* the ramp the last pass integrated ends here */
    }
    *u->energy += total;
    *rho_end = ra;
    *n_int = total;
    return PCS_OK;
}

static pcs_status unit_kinetics(pcs_world *w, void *ctx)
{
    pcs_unit *u = ctx;
    uint32_t flags = *u->flags;
    uint32_t was = flags & PCS_UNIT_FLAG_KINETICS_RANGE;
    int clamped = 0;
    double rho = pcs_unit_total_reactivity(u);
    if (!pcs_isfinite(rho) || pcs_fabs(rho) >= UNIT_RHO_LIMIT) {
        double c = pcs_isfinite(rho) ? pcs_clamp(rho, -0.499, 0.499) : u->aux[UNIT_AUX_RHO_PREV];
        unit_range_event(w, u, was, PCS_UNIT_RANGE_REACTIVITY, rho, c, UNIT_RHO_LIMIT);
        rho = c;
        clamped = 1;
    }
    /* A xenon merge changes the poison worth by up to ~1 cent at once (72 s of
     * xenon time): applied as a step at the start of the tick rather than
     * ramped, since the ramp would only resolve an artefact of the SLOW step
     * at the cost of sub-steps. Rods and temperatures ramp as before. */
    double poison = u->rho_terms[UNIT_RHO_XENON] + u->rho_terms[UNIT_RHO_SAMARIUM];
    double rho0 = u->aux[UNIT_AUX_RHO_PREV] + (poison - u->aux[UNIT_AUX_POISON_PREV]);
    u->aux[UNIT_AUX_POISON_PREV] = poison;
    double n0 = u->y[0], n_int = 0.0;
    pcs_status st;
    if (u->energy) {
        double start = rho;
        st = unit_kinetics_energy(u, rho0, start, &rho, &n_int);
        u->rho_terms[UNIT_RHO_DOPPLER] += rho - start; /* -B (energy of this tick) */
        u->rho_terms[UNIT_RHO_TOTAL] = rho;
    } else {
        uint32_t ns = pcs_kinetics_substeps(rho0, rho, u->cfg.drho_substep);
        st = pcs_kinetics_step(&u->cfg.kinetics, u->modes, rho0, rho, u->dt_s, ns, u->y, &n_int);
    }
    if (st != PCS_OK)
        return pcs_error_set(st, "%s.kinetics: %s", u->prefix, pcs_last_error());
    if (unit_clamp_power(w, u, was || clamped)) {
        clamped = 1;
        n_int = pcs_fmin(pcs_fmax(n_int, 0.0), u->cfg.power_limit_fraction * u->dt_s);
    }
    u->aux[UNIT_AUX_RHO_PREV] = rho;
    double dh0 = u->out[UNIT_OUT_DECAY]; /* the groups' sum at the end of the last step */
    double dh1 =
        pcs_decay_heat_step(&u->dh, u->cfg.nominal_power_w * n_int / u->dt_s, u->dh_groups);
    unit_publish(u, n0, n_int, dh0, dh1);
    u->out[UNIT_OUT_RHO] = rho;
    u->xe_power[0] += n_int / u->dt_s; /* the xenon job's power average */
    u->xe_power[1] += 1.0;
    flags &= ~UNIT_FLAGS_KINETICS;
    flags |= clamped ? PCS_UNIT_FLAG_KINETICS_RANGE : 0u;
    flags |= rho < 0.0 ? PCS_UNIT_FLAG_SUBCRITICAL : 0u;
    flags |= rho >= u->beta ? PCS_UNIT_FLAG_PROMPT_CRITICAL : 0u;
    *u->flags = flags;
    return PCS_OK;
}

/* ---- HEAT (lumped placeholder) ----------------------------------------- */

/* Clamp one temperature into [lo, hi] (NaN to hi); report on the first clamp. */
static int unit_clamp_temp(pcs_world *w, const pcs_unit *u, uint32_t was, int quantity, double *t,
                           double lo, double hi)
{
    double raw = *t;
    if (raw >= lo && raw <= hi)
        return 0;
    *t = raw < lo ? lo : hi;
    unit_range_event(w, u, was, quantity, raw, *t, raw < lo ? lo : hi);
    return 1;
}

static pcs_status unit_heat(pcs_world *w, void *ctx)
{
    pcs_unit *u = ctx;
    uint32_t was = *u->flags & PCS_UNIT_FLAG_HEAT_RANGE;
    double t[2] = {*u->t_fuel, *u->t_cool};
    pcs_lumped_heat_step(&u->heat, u->out[UNIT_OUT_POWER_AVG], t);
    int clamped = unit_clamp_temp(w, u, was, PCS_UNIT_RANGE_FUEL_TEMP, &t[0], UNIT_COOLANT_MIN_K,
                                  u->cfg.fuel_temp_limit_k);
    clamped |= unit_clamp_temp(w, u, was || clamped, PCS_UNIT_RANGE_COOLANT_TEMP, &t[1],
                               UNIT_COOLANT_MIN_K, UNIT_COOLANT_MAX_K);
    *u->t_fuel = t[0];
    *u->t_cool = t[1];
    *u->t_max = pcs_fmin(pcs_lumped_heat_t_max(&u->cfg.heat, t), u->cfg.fuel_temp_limit_k);
    uint32_t f = *u->flags & ~PCS_UNIT_FLAG_HEAT_RANGE;
    *u->flags = f | (clamped ? PCS_UNIT_FLAG_HEAT_RANGE : 0u);
    return PCS_OK;
}

/* ---- registration -------------------------------------------------------- */

pcs_status pcs_unit_systems_register(pcs_world *w, pcs_unit *u)
{
    const unit_stores *s = &u->id;
    const uint32_t act_r[] = {s->trip, s->rods_cmd, s->rods_speed, s->out, s->rods_auto};
    const uint32_t act_w[] = {s->rods_pos, s->rods_start, s->rods_rho, s->rods_mean,
                              s->scram,    s->kin_aux,    s->rods_cmd, s->flags};
    /* uN.core.out is read for the scram event's power (written at KINETICS);
     * uN.rods.auto only when the unit has it (auto_rods). */
    pcs_status st = pcs_th_system(w, u->prefix, "rods", PCS_STAGE_ACTUATORS, unit_actuators, u,
                                  act_r, u->rods_auto ? 5 : 4, act_w, 8, NULL);
    const uint32_t kin_r[] = {s->rods_rho, s->fuel_t_avg, s->coolant_t_avg, s->boron, s->xe_state};
    const uint32_t kin_w[] = {s->kin_y, s->kin_modes, s->kin_aux, s->dh,        s->out,
                              s->rho,   s->xe_power,  s->flags,   s->kin_energy};
    /* uN.kin.energy only when the unit has it (energy_feedback). */
    if (st == PCS_OK)
        st = pcs_th_system(w, u->prefix, "kinetics", PCS_STAGE_KINETICS, unit_kinetics, u, kin_r, 5,
                           kin_w, u->energy ? 9 : 8, NULL);
    const uint32_t heat_r[] = {s->out};
    const uint32_t heat_w[] = {s->fuel_t_avg, s->fuel_t_max, s->coolant_t_avg, s->flags};
    if (st == PCS_OK && !u->cfg.external_heat)
        st = pcs_th_system(w, u->prefix, "heat", PCS_STAGE_HEAT, unit_heat, u, heat_r, 1, heat_w, 4,
                           NULL);
    return st;
}
