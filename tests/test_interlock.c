/**
 * @file test_interlock.c
 * @brief Permissives, interlocks and the MSIV actuation (pcsim/interlock.h):
 *        each permissive at and either side of its setpoint, C-7 on a step
 *        and a ramp (and not on a 4 %/min ramp), feedwater isolation, AFW
 *        start, SI and steam line isolation, the MSIV stroke, a trip armed
 *        by a permissive, the crafted-save refusal and 0 allocations per
 *        tick, on a bare world whose sensors read values the test writes;
 *        then the new reactor trips with their first-out on a steam-side
 *        station (one build, forked per trip) and the low-pressure trip
 *        blocked below P-7.
 *
 * References (refdata/pwr_transients.md): P-7 10 %, P-8 39 %, P-9 50 %
 * (sections 4 and 6, [HRTD] 12.2); P-12 553 F (section 1, [HRTD] 11.2);
 * P-14 69 % NR and low-low 11.5 % NR 2/3 in any SG (sections 5 and 9);
 * C-7 step 10 % or ramp 5 %/min (section 1); FW isolation on P-4 and Tavg <
 * 564 F (section 3, [HRTD] 12.3); SI and MSLI on high steam flow and (steam
 * pressure < 600 psig or Tavg < 553 F), SI on 100 psi steam-line dP (section
 * 7); MSIV 0.5 s delay + 5 s stroke (section 7, [HRTD] 7.1).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/alloc_count.h"
#include "tests/control_fixture.h"
#include "tests/fork_child.h"

/* plant.x layout: the test's stand-ins for the measured quantities. */
enum { POW = 0, LOAD = 4, TAVG = 7, PZR = 10, SG0 = 14, PER_SG = 9, NX = SG0 + 4 * PER_SG };
enum { LVL = 0, FLOW = 3, PRES = 6 };

#define RATED_W 1000.0
#define RATED_SG 100.0 /* kg/s per SG; 400 kg/s is 100 % turbine load */
#define F_TO_K(f) (((f)-32.0) / 1.8 + 273.15)

typedef struct rig {
    ctl_plant p;
    pcs_sensors *s;
    pcs_interlock_def d;
    pcs_interlock *il;
    pcs_msiv *msiv;
    pcs_protection *prot;
    uint32_t trip_store, msiv_store;
    uint32_t *trip; /* the stand-in for the unit's scram cause (trip breakers) */
    double *sig, *turb, *feed, *msiv_out;
} rig;

static void channels(pcs_interlock_channels *c, uint32_t first, uint32_t n, uint32_t k)
{
    c->n = n;
    c->k = k;
    for (uint32_t i = 0; i < n; i++)
        c->sensor[i] = first + i;
}

/* Normal full-power values. */
static void normal(rig *r)
{
    double *x = r->p.x;
    for (int i = 0; i < 4; i++) {
        x[POW + i] = RATED_W;
        x[PZR + i] = 15.51e6;
    }
    for (int i = 0; i < 3; i++) {
        x[LOAD + i] = 4 * RATED_SG;
        x[TAVG + i] = F_TO_K(584.7);
    }
    for (int l = 0; l < 4; l++)
        for (int i = 0; i < 3; i++) {
            x[SG0 + PER_SG * l + LVL + i] = 44.0;
            x[SG0 + PER_SG * l + FLOW + i] = RATED_SG;
            x[SG0 + PER_SG * l + PRES + i] = 6.9e6;
        }
}

/* The turbine-trip reactor trip over three sensors on turbine.sig
 * TRIPPED, armed by P-9 (as plant_instr.c builds it). */
static void add_turbine_trip(rig *r, uint32_t first_sensor)
{
    pcs_protection_function_def f;
    pcs_protection_function_default(&f);
    f.name = "u1.rps.turbine_trip";
    f.direction = PCS_PROTECTION_TRIP_HIGH;
    f.setpoint = 0.5;
    f.n_inputs = 3;
    f.k = 2;
    for (uint32_t i = 0; i < 3; i++)
        f.inputs[i] = first_sensor + i;
    f.arm = 1;
    f.arm_store = pcs_interlock_arm_store(r->il);
    f.arm_index = PCS_SIG_P9;
    pcs_protection_def pd;
    pcs_protection_default(&pd);
    pd.n_functions = 1;
    pd.functions = &f;
    cr_assert_eq(pcs_protection_add(r->p.w, r->s, &pd, &r->prot), PCS_OK, "%s", pcs_last_error());
}

/* A bare world: NX plant values with one noiseless sensor each, three more
 * on turbine.sig TRIPPED, a u32 stand-in for the unit's scram cause, the
 * interlocks (with @p with_prot, the turbine-trip function armed by P-9)
 * and the MSIVs on a 4-SG MSIV store. */
static void rig_init_noise(rig *r, int with_prot, double power_noise_sd)
{
    memset(r, 0, sizeof *r);
    ctl_plant_init(&r->p, NX, 1);
    pcs_world *w = r->p.w;
    uint32_t tsig, fsig;
    cr_assert_eq(pcs_plant_signals(w, "u1", PCS_SIGNALS_TURBINE, &tsig), PCS_OK);
    cr_assert_eq(pcs_plant_signals(w, "u1", PCS_SIGNALS_FEED, &fsig), PCS_OK);
    pcs_sensor_def c[NX + 3];
    char names[NX + 3][16];
    for (uint32_t i = 0; i < NX + 3; i++) {
        snprintf(names[i], sizeof names[i], "ch%u", i);
        c[i] = ctl_sensor(&r->p, names[i], i < NX ? i : 0);
        c[i].lo = -1e9;
        c[i].hi = 1e9;
        if (i < POW + 4)
            c[i].noise_sd = power_noise_sd;
        if (i >= NX) {
            c[i].store = tsig;
            c[i].index = PCS_SIG_TURBINE_TRIPPED;
        }
    }
    cr_assert_eq(pcs_sensor_add(w, c, NX + 3, &r->s), PCS_OK, "%s", pcs_last_error());
    pcs_interlock_def *d = &r->d;
    pcs_interlock_default(d);
    d->unit_name = "u1";
    d->rated_power_w = RATED_W;
    d->rated_steam_kg_s = RATED_SG;
    cr_assert_eq(
        pcs_store_register(w, "u1.scram", sizeof(uint32_t), 1, PCS_STORE_STATE, &r->trip_store),
        PCS_OK);
    d->trip_store = r->trip_store;
    channels(&d->power, POW, 4, 2);
    channels(&d->turbine_load, LOAD, 3, 2);
    channels(&d->tavg, TAVG, 3, 2);
    channels(&d->pzr_pressure, PZR, 4, 2);
    for (uint32_t l = 0; l < 4; l++) {
        channels(&d->nr_level[l], SG0 + PER_SG * l + LVL, 3, 2);
        channels(&d->steam_flow[l], SG0 + PER_SG * l + FLOW, 3, 2);
        channels(&d->steam_p[l], SG0 + PER_SG * l + PRES, 3, 2);
    }
    cr_assert_eq(pcs_interlock_add(w, r->s, d, &r->il), PCS_OK, "%s", pcs_last_error());
    if (with_prot)
        add_turbine_trip(r, NX);
    cr_assert_eq(pcs_store_register(w, "u1.sec.msiv", sizeof(double), 4, PCS_STORE_STATE_F64,
                                    &r->msiv_store),
                 PCS_OK);
    r->msiv_out = pcs_store_data(w, r->msiv_store);
    for (int l = 0; l < 4; l++)
        r->msiv_out[l] = 1.0;
    cr_assert_eq(pcs_msiv_add(w, d, r->msiv_store, &r->msiv), PCS_OK, "%s", pcs_last_error());
    uint32_t isig;
    cr_assert_eq(pcs_plant_signals(w, "u1", PCS_SIGNALS_INTERLOCK, &isig), PCS_OK);
    r->sig = pcs_store_data(w, isig);
    r->turb = pcs_store_data(w, tsig);
    r->feed = pcs_store_data(w, fsig);
    r->trip = pcs_store_data(w, r->trip_store);
    normal(r);
    ctl_tick(w, 1);
}

static void rig_init(rig *r, int with_prot)
{
    rig_init_noise(r, with_prot, 0.0);
}

static void rig_free(rig *r)
{
    pcs_world_destroy(r->p.w);
}

static double sig(const rig *r, uint32_t k)
{
    return r->sig[k];
}

/* All power channels at @p frac of rated; one tick. */
static void power_at(rig *r, double frac)
{
    for (int i = 0; i < 4; i++)
        r->p.x[POW + i] = frac * RATED_W;
    ctl_tick(r->p.w, 1);
}

Test(interlock, p4_follows_the_trip_breakers)
{
    rig r;
    rig_init(&r, 0);
    cr_expect_eq(sig(&r, PCS_SIG_P4), 0.0);
    cr_expect_eq(sig(&r, PCS_SIG_TURBINE_TRIP), 0.0);
    *r.trip = 1;
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_P4), 1.0);
    cr_expect_eq(sig(&r, PCS_SIG_TURBINE_TRIP), 1.0, "P-4 trips the turbine ([HRTD] 12.2)");
    *r.trip = 0;
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_P4), 0.0);
    rig_free(&r);
}

/* P-7 (10 %), P-8 (39 %), P-9 (50 %): below, at, above; 2 of 4 channels. */
Test(interlock, power_permissives_at_and_either_side_of_their_setpoints)
{
    rig r;
    rig_init(&r, 0);
    for (int i = 0; i < 3; i++)
        r.p.x[LOAD + i] = 0.0; /* P-13 off: P-7 from power alone */
    const struct {
        uint32_t flag;
        double sp;
    } perm[] = {{PCS_SIG_P7, 0.10}, {PCS_SIG_P8, 0.39}, {PCS_SIG_P9, 0.50}};
    for (size_t k = 0; k < 3; k++) {
        power_at(&r, perm[k].sp - 0.01);
        cr_expect_eq(sig(&r, perm[k].flag), 0.0, "flag %u at %g", perm[k].flag, perm[k].sp - 0.01);
        power_at(&r, perm[k].sp);
        cr_expect_eq(sig(&r, perm[k].flag), 1.0, "flag %u at %g", perm[k].flag, perm[k].sp);
        power_at(&r, perm[k].sp + 0.01);
        cr_expect_eq(sig(&r, perm[k].flag), 1.0, "flag %u at %g", perm[k].flag, perm[k].sp + 0.01);
    }
    /* 2 of 4: one channel above P-9 alone does not make it */
    power_at(&r, 0.45);
    r.p.x[POW] = 0.6 * RATED_W;
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_P9), 0.0, "1 of 4 channels");
    r.p.x[POW + 2] = 0.6 * RATED_W;
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_P9), 1.0, "2 of 4 channels");
    rig_free(&r);
}

/* P-7 is also P-13: turbine load >= 10 % with the reactor at zero power. */
Test(interlock, p7_from_turbine_load_p13)
{
    rig r;
    rig_init(&r, 0);
    power_at(&r, 0.0);
    const double loads[] = {0.09, 0.10, 0.11}, want[] = {0.0, 1.0, 1.0};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 3; i++)
            r.p.x[LOAD + i] = loads[k] * 4 * RATED_SG;
        ctl_tick(r.p.w, 1);
        cr_expect_eq(sig(&r, PCS_SIG_P7), want[k], "load %g", loads[k]);
    }
    rig_free(&r);
}

/* P-7 (P-10 and P-13), P-8 and P-9 reset only below setpoint - deadband
 * (p_deadband_frac, 1 % of rated: 5 sd of the plant's 0.2 % NIS
 * channel noise, an assumption), as a plant bistable: set at the setpoint,
 * held between setpoint - deadband and the setpoint, reset below. */
Test(interlock, power_permissives_reset_only_below_their_deadband)
{
    rig r;
    rig_init(&r, 0);
    for (int i = 0; i < 3; i++)
        r.p.x[LOAD + i] = 0.0; /* P-13 off: P-7 from power alone */
    const double db = 0.01;    /* 1 %: 5 sd of the plant's 0.2 % NIS noise */
    cr_expect_eq(r.d.p_deadband_frac, db, "the default");
    power_at(&r, 0.0); /* every flag reset (the rig starts at 100 %) */
    const struct {
        uint32_t flag;
        double sp;
    } perm[] = {{PCS_SIG_P7, 0.10}, {PCS_SIG_P8, 0.39}, {PCS_SIG_P9, 0.50}};
    for (size_t k = 0; k < 3; k++) {
        double sp = perm[k].sp;
        uint32_t f = perm[k].flag;
        power_at(&r, sp - 0.5 * db);
        cr_expect_eq(sig(&r, f), 0.0, "flag %u rising, at %g: below the setpoint", f,
                     sp - 0.5 * db);
        power_at(&r, sp);
        cr_expect_eq(sig(&r, f), 1.0, "flag %u set at its setpoint %g", f, sp);
        power_at(&r, sp - 0.5 * db);
        cr_expect_eq(sig(&r, f), 1.0, "flag %u falling, at %g: inside the deadband", f,
                     sp - 0.5 * db);
        power_at(&r, sp - 0.99 * db);
        cr_expect_eq(sig(&r, f), 1.0, "flag %u falling, at %g: inside the deadband", f,
                     sp - 0.99 * db);
        power_at(&r, sp - 1.01 * db);
        cr_expect_eq(sig(&r, f), 0.0, "flag %u reset below %g", f, sp - db);
        power_at(&r, sp - 0.5 * db);
        cr_expect_eq(sig(&r, f), 0.0, "flag %u stays reset inside the deadband", f);
        power_at(&r, sp);
    }
    /* P-13: the auctioneered-high turbine load, the same deadband */
    power_at(&r, 0.0);
    const double loads[] = {0.095, 0.10, 0.095, 0.0905, 0.0895, 0.095},
                 want[] = {0.0, 1.0, 1.0, 1.0, 0.0, 0.0};
    for (int k = 0; k < 6; k++) {
        for (int i = 0; i < 3; i++)
            r.p.x[LOAD + i] = loads[k] * 4 * RATED_SG;
        ctl_tick(r.p.w, 1);
        cr_expect_eq(sig(&r, PCS_SIG_P7), want[k], "P-13 step %d, load %g", k, loads[k]);
    }
    rig_free(&r);
}

/* The same with the plant's channel noise (sd 0.2 % of rated on each of
 * the four power channels): power held at each setpoint for 60 s, the
 * flag changes once (the set), not tick by tick. */
Test(interlock, power_permissives_at_their_setpoint_with_noise_change_once)
{
    rig r;
    rig_init_noise(&r, 0, 0.002 * RATED_W);
    for (int i = 0; i < 3; i++)
        r.p.x[LOAD + i] = 0.0;
    const struct {
        uint32_t flag;
        double sp;
    } perm[] = {{PCS_SIG_P7, 0.10}, {PCS_SIG_P8, 0.39}, {PCS_SIG_P9, 0.50}};
    for (size_t k = 0; k < 3; k++) {
        uint32_t f = perm[k].flag;
        power_at(&r, perm[k].sp - 0.05);
        cr_expect_eq(sig(&r, f), 0.0, "flag %u 5 %% below its setpoint", f);
        uint32_t edges = 0;
        double last = sig(&r, f);
        for (int t = 0; t < 1200; t++) {
            power_at(&r, perm[k].sp);
            edges += sig(&r, f) != last;
            last = sig(&r, f);
        }
        cr_expect_eq(edges, 1u, "flag %u at its setpoint %g for 60 s with noise: %u edges", f,
                     perm[k].sp, edges);
        cr_expect_eq(last, 1.0, "flag %u", f);
    }
    rig_free(&r);
}

static void tavg_at(rig *r, double k)
{
    for (int i = 0; i < 3; i++)
        r->p.x[TAVG + i] = k;
    ctl_tick(r->p.w, 1);
}

/* P-12 at 553 F, reset 2 F above it (hysteresis: assumption). */
Test(interlock, p12_low_low_tavg_with_its_hysteresis)
{
    rig r;
    rig_init(&r, 0);
    double sp = F_TO_K(553.0), hys = 2.0 / 1.8;
    tavg_at(&r, sp + 0.05);
    cr_expect_eq(sig(&r, PCS_SIG_P12), 0.0, "just above 553 F");
    tavg_at(&r, r.d.p12_tavg_k);
    cr_expect_eq(sig(&r, PCS_SIG_P12), 1.0, "at 553 F");
    tavg_at(&r, sp + 0.5 * hys);
    cr_expect_eq(sig(&r, PCS_SIG_P12), 1.0, "inside the hysteresis it holds");
    tavg_at(&r, sp + 1.05 * hys);
    cr_expect_eq(sig(&r, PCS_SIG_P12), 0.0, "above 555 F it resets");
    tavg_at(&r, sp - 0.05);
    cr_expect_eq(sig(&r, PCS_SIG_P12), 1.0, "just below 553 F");
    rig_free(&r);
}

static void level(rig *r, uint32_t sg, uint32_t n_ch, double v)
{
    for (uint32_t i = 0; i < 3; i++)
        r->p.x[SG0 + PER_SG * sg + LVL + i] = i < n_ch ? v : 44.0;
    ctl_tick(r->p.w, 1);
}

/* P-14: 69 % NR, 2 of 3 channels in any SG: turbine trip, FW isolation. */
Test(interlock, p14_high_high_level_two_of_three_in_one_sg)
{
    rig r;
    rig_init(&r, 0);
    level(&r, 2, 2, 68.9);
    cr_expect_eq(sig(&r, PCS_SIG_P14), 0.0, "68.9 %%");
    level(&r, 2, 1, 69.0);
    cr_expect_eq(sig(&r, PCS_SIG_P14), 0.0, "1 of 3 at 69 %%");
    level(&r, 2, 2, 69.0);
    cr_expect_eq(sig(&r, PCS_SIG_P14), 1.0, "2 of 3 at 69 %%");
    cr_expect_eq(sig(&r, PCS_SIG_TURBINE_TRIP), 1.0);
    cr_expect_eq(sig(&r, PCS_SIG_FW_ISOLATION), 1.0);
    level(&r, 2, 2, 69.1);
    cr_expect_eq(sig(&r, PCS_SIG_P14), 1.0, "69.1 %%");
    rig_free(&r);
}

/* P-14 resets only when no SG has 2 of 3 channels at or above 69 - 1 % NR
 * (p14_deadband_pct): memoryless, it followed the channels' noise across
 * the setpoint (136 edges of feed isolation in the 900 s 45 % turbine trip). */
Test(interlock, p14_resets_only_below_its_deadband)
{
    rig r;
    rig_init(&r, 0);
    cr_expect_eq(r.d.p14_deadband_pct, 1.0, "the default");
    level(&r, 1, 2, 69.0);
    cr_expect_eq(sig(&r, PCS_SIG_P14), 1.0, "set at 69 %%");
    level(&r, 1, 2, 68.5);
    cr_expect_eq(sig(&r, PCS_SIG_P14), 1.0, "held at 68.5 %% (inside the deadband)");
    level(&r, 1, 2, 68.0);
    cr_expect_eq(sig(&r, PCS_SIG_P14), 1.0, "held at 68.0 %% (the reset point, inclusive)");
    level(&r, 1, 2, 67.9);
    cr_expect_eq(sig(&r, PCS_SIG_P14), 0.0, "reset at 67.9 %%");
    cr_expect_eq(sig(&r, PCS_SIG_FW_ISOLATION), 0.0, "the isolation goes with it");
    level(&r, 1, 2, 68.9);
    cr_expect_eq(sig(&r, PCS_SIG_P14), 0.0, "not set again below 69 %%");
    rig_free(&r);
}

static void load_at(rig *r, double frac)
{
    for (int i = 0; i < 3; i++)
        r->p.x[LOAD + i] = frac * 4 * RATED_SG;
}

/* C-7 on a step: > 10 % arms it and it stays latched until c7_reset. */
Test(interlock, c7_step_above_10_percent_latches_until_reset)
{
    rig r;
    rig_init(&r, 0);
    load_at(&r, 0.91); /* a 9 % step */
    ctl_tick(r.p.w, 100);
    cr_expect_eq(sig(&r, PCS_SIG_C7), 0.0, "a 9 %% step");
    rig_free(&r);
    rig_init(&r, 0);
    load_at(&r, 0.90); /* exactly 10 %: the setpoint is "more than 10 %" */
    ctl_tick(r.p.w, 100);
    cr_expect_eq(sig(&r, PCS_SIG_C7), 0.0, "a 10 %% step");
    rig_free(&r);

    rig_init(&r, 0);
    load_at(&r, 0.89); /* an 11 % step */
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_C7), 1.0, "an 11 %% step");
    load_at(&r, 1.0);
    ctl_tick(r.p.w, 20);
    cr_expect_eq(sig(&r, PCS_SIG_C7), 1.0, "latched");
    ctl_command(r.p.w, PCS_INTERLOCK_COMMANDS, PCS_INTERLOCK_OP_C7_RESET, "u1", 0.0);
    ctl_tick(r.p.w, 2);
    cr_expect_eq(sig(&r, PCS_SIG_C7), 0.0, "reset");
    rig_free(&r);
}

/* Ramp fall at @p per_min for @p seconds; the first time C-7 is set (s), or -1. */
static double ramp_until_c7(rig *r, double per_min, double seconds)
{
    double dt = 0.05, load = 1.0;
    for (int k = 1; k * dt <= seconds + 1e-9; k++) {
        load -= per_min / 60.0 * dt;
        load_at(r, load);
        ctl_tick(r->p.w, 1);
        if (sig(r, PCS_SIG_C7) != 0.0)
            return k * dt;
    }
    return -1.0;
}

/* C-7 on a ramp: the rate-lag unit (tau = 10 % / (5 %/min) = 120 s) sees
 * a 10 %/min ramp as 10 % below its lag at 120 ln 2 = 83.2 s; a 4 %/min
 * ramp tends to 8 % and never arms it. */
Test(interlock, c7_ramp_above_5_percent_per_minute_but_not_4)
{
    rig r;
    rig_init(&r, 0);
    double t = ramp_until_c7(&r, 0.10, 200.0);
    cr_log_info("10 %%/min ramp: C-7 at %.2f s", t);
    cr_expect(t > 82.0 && t < 84.5, "10 %%/min arms C-7 at %g s (83.2 s expected)", t);
    rig_free(&r);
    rig_init(&r, 0);
    t = ramp_until_c7(&r, 0.04, 600.0);
    cr_expect_eq(t, -1.0, "4 %%/min never arms C-7 (armed at %g s)", t);
    rig_free(&r);
}

/* C-8 follows the turbine's tripped flag; C-9 the condenser command. */
Test(interlock, c8_turbine_tripped_and_c9_condenser_available)
{
    rig r;
    rig_init(&r, 0);
    cr_expect_eq(sig(&r, PCS_SIG_C8), 0.0);
    cr_expect_eq(sig(&r, PCS_SIG_C9), 1.0, "available by default");
    r.turb[PCS_SIG_TURBINE_TRIPPED] = 1.0;
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_C8), 1.0);
    r.turb[PCS_SIG_TURBINE_TRIPPED] = 0.0;
    ctl_command(r.p.w, PCS_INTERLOCK_COMMANDS, PCS_INTERLOCK_OP_CONDENSER, "u1", 0.0);
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_C8), 0.0);
    cr_expect_eq(sig(&r, PCS_SIG_C9), 0.0, "condenser_available 0");
    ctl_command(r.p.w, PCS_INTERLOCK_COMMANDS, PCS_INTERLOCK_OP_CONDENSER, "u1.interlock", 0.5);
    ctl_tick(r.p.w, 1);
    pcs_command_stats cs;
    cr_assert_eq(pcs_command_stats_get(r.p.w, &cs), PCS_OK);
    cr_expect_eq(cs.rejected, 1, "0.5 is not a C-9 value");
    ctl_command(r.p.w, PCS_INTERLOCK_COMMANDS, PCS_INTERLOCK_OP_CONDENSER, "u1", 1.0);
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_C9), 1.0);
    rig_free(&r);
}

/* FW isolation on P-4 with Tavg below 564 F, not above ([HRTD] 12.3). */
Test(interlock, fw_isolation_on_p4_with_low_tavg_only)
{
    rig r;
    rig_init(&r, 0);
    *r.trip = 1;
    tavg_at(&r, F_TO_K(564.1));
    cr_expect_eq(sig(&r, PCS_SIG_FW_ISOLATION), 0.0, "P-4 at 564.1 F");
    tavg_at(&r, F_TO_K(563.9));
    cr_expect_eq(sig(&r, PCS_SIG_FW_ISOLATION), 1.0, "P-4 at 563.9 F");
    tavg_at(&r, F_TO_K(557.0));
    cr_expect_eq(sig(&r, PCS_SIG_FW_ISOLATION), 1.0, "P-4 at the no-load 557 F");
    *r.trip = 0;
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_FW_ISOLATION), 0.0, "557 F without P-4");
    rig_free(&r);
}

/* AFW start: low-low 11.5 % NR in 2 of 3 channels of one SG, or both
 * main feed pumps tripped ([HRTD] 12.2, 5.7). */
Test(interlock, afw_start_on_two_of_three_low_low_in_one_sg)
{
    rig r;
    rig_init(&r, 0);
    level(&r, 1, 1, 11.0);
    cr_expect_eq(sig(&r, PCS_SIG_AFW_START), 0.0, "1 of 3");
    level(&r, 1, 2, 11.6);
    cr_expect_eq(sig(&r, PCS_SIG_AFW_START), 0.0, "2 of 3 at 11.6 %%");
    level(&r, 1, 2, 11.5);
    cr_expect_eq(sig(&r, PCS_SIG_AFW_START), 1.0, "2 of 3 at 11.5 %%");
    level(&r, 1, 0, 44.0);
    cr_expect_eq(sig(&r, PCS_SIG_AFW_START), 0.0);
    r.feed[PCS_SIG_FEED_MFP_TRIPPED] = 1.0;
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_AFW_START), 1.0, "main feed pumps tripped");
    rig_free(&r);
}

/* Every SG's steam flow and pressure channels at @p flow_frac of rated and @p p. */
static void steam_at(rig *r, double flow_frac, double p)
{
    for (int l = 0; l < 4; l++)
        for (int i = 0; i < 3; i++) {
            r->p.x[SG0 + PER_SG * l + FLOW + i] = flow_frac * RATED_SG;
            r->p.x[SG0 + PER_SG * l + PRES + i] = p;
        }
    ctl_tick(r->p.w, 1);
}

/* SI and MSLI need high steam flow (110 % at full load: assumption) AND
 * low steam pressure (600 psig) or low-low Tavg; neither alone does. */
Test(interlock, si_and_msli_on_high_steam_flow_with_low_pressure_not_either_alone)
{
    rig r;
    rig_init(&r, 0);
    double low_p = 4.0e6; /* 565 psig */
    steam_at(&r, 1.2, 6.9e6);
    cr_expect_eq(sig(&r, PCS_SIG_SI), 0.0, "high steam flow alone");
    steam_at(&r, 1.0, low_p);
    cr_expect_eq(sig(&r, PCS_SIG_SI), 0.0, "low steam pressure alone");
    cr_expect_eq(sig(&r, PCS_SIG_MSLI), 0.0);
    steam_at(&r, 1.09, low_p);
    cr_expect_eq(sig(&r, PCS_SIG_MSLI), 0.0, "109 %% is below the 110 %% full-load setpoint");
    steam_at(&r, 1.2, low_p);
    cr_expect_eq(sig(&r, PCS_SIG_SI), 1.0, "both");
    cr_expect_eq(sig(&r, PCS_SIG_MSLI), 1.0, "both");
    cr_expect_eq(sig(&r, PCS_SIG_TURBINE_TRIP), 1.0, "SI trips the turbine");
    cr_expect_eq(sig(&r, PCS_SIG_FW_ISOLATION), 1.0, "SI isolates feedwater");
    cr_expect_eq(sig(&r, PCS_SIG_AFW_START), 1.0, "SI starts AFW");
    /* latched; si_reset refused while the condition holds, taken after */
    ctl_command(r.p.w, PCS_INTERLOCK_COMMANDS, PCS_INTERLOCK_OP_SI_RESET, "u1", 0.0);
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_SI), 1.0, "reset refused while present");
    steam_at(&r, 1.0, 6.9e6);
    cr_expect_eq(sig(&r, PCS_SIG_SI), 1.0, "latched");
    ctl_command(r.p.w, PCS_INTERLOCK_COMMANDS, PCS_INTERLOCK_OP_SI_RESET, "u1", 0.0);
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_SI), 0.0);
    cr_expect_eq(sig(&r, PCS_SIG_MSLI), 0.0);
    /* high steam flow with low-low Tavg (553 F) */
    tavg_at(&r, F_TO_K(552.0));
    steam_at(&r, 1.2, 6.9e6);
    cr_expect_eq(sig(&r, PCS_SIG_MSLI), 1.0, "high flow with low-low Tavg");
    rig_free(&r);
}

/* SI (without MSLI) on a 100 psi steam-line dP and on low pressurizer pressure. */
Test(interlock, si_on_steam_line_dp_and_low_pressurizer_pressure)
{
    rig r;
    rig_init(&r, 0);
    double psi = 6894.757293168;
    for (int i = 0; i < 3; i++)
        r.p.x[SG0 + PER_SG * 3 + PRES + i] = 6.9e6 - 99.0 * psi;
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_SI), 0.0, "99 psi");
    for (int i = 0; i < 2; i++)
        r.p.x[SG0 + PER_SG * 3 + PRES + i] = 6.9e6 - 101.0 * psi;
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_SI), 1.0, "101 psi in 2 of 3");
    cr_expect_eq(sig(&r, PCS_SIG_MSLI), 0.0, "dP is SI only");
    rig_free(&r);
    rig_init(&r, 0);
    for (int i = 0; i < 2; i++)
        r.p.x[PZR + i] = 12.4e6; /* below 1807 psig = 12.56 MPa */
    ctl_tick(r.p.w, 1);
    cr_expect_eq(sig(&r, PCS_SIG_SI), 1.0, "low pressurizer pressure 2 of 4");
    rig_free(&r);
}

/* MSIVs on MSLI: 0.5 s delay, 5 s stroke ([HRTD] 7.1): open at 0.4 s,
 * half at 3 s, shut at 5.6 s after the signal. */
Test(interlock, msivs_close_half_a_second_plus_five_seconds_after_msli)
{
    rig r;
    rig_init(&r, 0);
    steam_at(&r, 1.2, 4.0e6); /* MSLI set in this tick: t = 0 */
    cr_assert_eq(sig(&r, PCS_SIG_MSLI), 1.0);
    const struct {
        int ticks;
        double want, tol;
    } at[] = {{8, 1.0, 0.0}, {60, 0.5, 1e-9}, {108, 0.02, 1e-9}, {112, 0.0, 0.0}};
    int done = 0;
    for (size_t k = 0; k < 4; k++) {
        ctl_tick(r.p.w, (uint32_t)(at[k].ticks - done));
        done = at[k].ticks;
        cr_log_info("t = %.2f s: MSIV openings %.12g %.12g %.12g %.12g", done * 0.05, r.msiv_out[0],
                    r.msiv_out[1], r.msiv_out[2], r.msiv_out[3]);
        for (int l = 0; l < 4; l++)
            cr_expect(fabs(r.msiv_out[l] - at[k].want) <= at[k].tol, "t = %g s: MSIV %d at %.12g",
                      done * 0.05, l + 1, r.msiv_out[l]);
    }
    /* open is refused while MSLI is latched */
    ctl_command(r.p.w, PCS_MSIV_COMMANDS, PCS_MSIV_OP_OPEN, "u1", 0.0);
    ctl_tick(r.p.w, 10);
    cr_expect_eq(r.msiv_out[0], 0.0, "msiv_open refused under MSLI");
    steam_at(&r, 1.0, 6.9e6);
    ctl_command(r.p.w, PCS_INTERLOCK_COMMANDS, PCS_INTERLOCK_OP_SI_RESET, "u1", 0.0);
    ctl_tick(r.p.w, 1);
    ctl_command(r.p.w, PCS_MSIV_COMMANDS, PCS_MSIV_OP_OPEN, "u1.msiv2", 0.0);
    ctl_tick(r.p.w, 50); /* 2.5 s of the 5 s opening stroke */
    cr_expect(fabs(r.msiv_out[1] - 0.5) < 0.011, "MSIV 2 opening %g", r.msiv_out[1]);
    cr_expect_eq(r.msiv_out[0], 0.0, "MSIV 1 stays shut");
    ctl_command(r.p.w, PCS_MSIV_COMMANDS, PCS_MSIV_OP_CLOSE, "u1.msiv", 0.0);
    ctl_tick(r.p.w, 60);
    cr_expect_eq(r.msiv_out[1], 0.0, "msiv_close on every MSIV");
    rig_free(&r);
}

/* A protection function armed by P-9: the turbine trip trips the reactor
 * above 50 % power only ([HRTD] 12.2, pwr_transients.md section 6). */
Test(interlock, turbine_trip_reactor_trip_is_blocked_below_p9)
{
    rig r;
    rig_init(&r, 1);
    power_at(&r, 0.45);
    ctl_tick(r.p.w, 1); /* the protection reads the P-9 of the tick before */
    r.turb[PCS_SIG_TURBINE_TRIPPED] = 1.0;
    ctl_tick(r.p.w, 5);
    cr_expect_eq(pcs_protection_tripped(r.prot, 0), 0, "45 %%: no reactor trip");
    cr_expect(pcs_protection_function_state(r.prot, 0) & PCS_PROTECTION_TRIP_ST_BLOCKED);
    cr_expect_eq(sig(&r, PCS_SIG_C8), 1.0);
    power_at(&r, 0.55); /* P-9 set; its copy reaches the protection next tick */
    cr_expect_eq(pcs_protection_tripped(r.prot, 0), 0, "P-9's copy is one tick old");
    ctl_tick(r.p.w, 1);
    cr_expect_eq(pcs_protection_tripped(r.prot, 0), 1, "55 %%: reactor trip");
    cr_expect_eq(pcs_protection_first_out(r.prot, 0), 0u);
    rig_free(&r);
}

/* The state stores' load checks refuse a crafted value, naming it. */
Test(interlock, crafted_save_is_refused_naming_store_field_value_and_range)
{
    rig r;
    rig_init(&r, 0);
    char path[] = "/tmp/pcs_interlock_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    double *s = pcs_store_data(r.p.w, pcs_interlock_state_store(r.il));
    s[PCS_INTERLOCK_ST_C7] = 0.5;
    cr_assert_eq(pcs_world_save(r.p.w, path), PCS_OK);
    s[PCS_INTERLOCK_ST_C7] = 0.0;
    cr_assert_eq(pcs_world_load(r.p.w, path), PCS_E_CORRUPT);
    const char *e = pcs_last_error();
    cr_expect(strstr(e, "u1.interlock.state") && strstr(e, "C-7 latch") && strstr(e, "0.5"), "%s",
              e);
    s[PCS_INTERLOCK_ST_LOAD_LAG] = 2.0;
    cr_assert_eq(pcs_world_save(r.p.w, path), PCS_OK);
    s[PCS_INTERLOCK_ST_LOAD_LAG] = 1.0;
    cr_assert_eq(pcs_world_load(r.p.w, path), PCS_E_CORRUPT);
    e = pcs_last_error();
    cr_expect(strstr(e, "lagged turbine load") && strstr(e, "[0, 1.5]"), "%s", e);
    s[PCS_INTERLOCK_ST_P8] = 0.5; /* the power permissives' latches are saved state too */
    cr_assert_eq(pcs_world_save(r.p.w, path), PCS_OK);
    s[PCS_INTERLOCK_ST_P8] = 1.0;
    cr_assert_eq(pcs_world_load(r.p.w, path), PCS_E_CORRUPT);
    e = pcs_last_error();
    cr_expect(strstr(e, "u1.interlock.state") && strstr(e, "P-8 latch") && strstr(e, "0.5"), "%s",
              e);
    double *a = pcs_store_data(r.p.w, pcs_interlock_arm_store(r.il));
    a[PCS_SIG_P9] = 0.5;
    cr_assert_eq(pcs_world_save(r.p.w, path), PCS_OK);
    a[PCS_SIG_P9] = 1.0;
    cr_assert_eq(pcs_world_load(r.p.w, path), PCS_E_CORRUPT);
    e = pcs_last_error();
    cr_expect(strstr(e, "u1.interlock.arm") && strstr(e, "element 3") && strstr(e, "not 0 or 1"),
              "%s", e);
    double *m = pcs_store_data(r.p.w, pcs_msiv_state_store(r.msiv));
    m[3] = 1.5; /* SG 2's opening */
    cr_assert_eq(pcs_world_save(r.p.w, path), PCS_OK);
    m[3] = 1.0;
    cr_assert_eq(pcs_world_load(r.p.w, path), PCS_E_CORRUPT);
    e = pcs_last_error();
    cr_expect(strstr(e, "u1.msiv.state") && strstr(e, "element 3") && strstr(e, "opening") &&
                  strstr(e, "1.5") && strstr(e, "[0, 1]"),
              "%s", e);
    cr_assert_eq(pcs_world_save(r.p.w, path), PCS_OK);
    cr_assert_eq(pcs_world_load(r.p.w, path), PCS_OK, "%s", pcs_last_error());
    unlink(path);
    rig_free(&r);
}

/* A permissive-armed trip function's flag must be a float64 element. */
Test(interlock, protection_arm_fields_are_checked)
{
    rig r;
    rig_init(&r, 0);
    pcs_protection_function_def f;
    pcs_protection_function_default(&f);
    f.name = "u1.rps.x";
    f.n_inputs = 1;
    f.inputs[0] = 0;
    f.arm = 2;
    pcs_protection_def pd;
    pcs_protection_default(&pd);
    pd.n_functions = 1;
    pd.functions = &f;
    cr_expect_eq(pcs_protection_def_validate(r.p.w, r.s, &pd), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "arm = 2 is outside [0, 1]"), "%s", pcs_last_error());
    f.arm = 1;
    f.arm_store = r.trip_store; /* a u32 store */
    cr_expect_eq(pcs_protection_def_validate(r.p.w, r.s, &pd), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "functions[0].arm_") &&
                  strstr(pcs_last_error(), "u1.scram") && strstr(pcs_last_error(), "float64"),
              "%s", pcs_last_error());
    f.arm_store = pcs_interlock_arm_store(r.il);
    f.arm_index = PCS_SIG_INTERLOCK_COUNT;
    cr_expect_eq(pcs_protection_def_validate(r.p.w, r.s, &pd), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "functions[0].arm_index"), "%s", pcs_last_error());
    f.arm_index = PCS_SIG_P9;
    cr_expect_eq(pcs_protection_def_validate(r.p.w, r.s, &pd), PCS_OK, "%s", pcs_last_error());
    rig_free(&r);
}

Test(interlock, bad_definitions_are_refused_naming_the_field)
{
    rig r;
    rig_init(&r, 0);
    pcs_interlock_def d = r.d;
    d.p9_frac = -0.5;
    cr_expect_eq(pcs_interlock_def_validate(r.p.w, r.s, &d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "p9_frac = -0.5"), "%s", pcs_last_error());
    d = r.d;
    d.k_lines = 5;
    cr_expect_eq(pcs_interlock_def_validate(r.p.w, r.s, &d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "k_lines = 5"), "%s", pcs_last_error());
    d = r.d;
    d.nr_level[2].sensor[1] = 999;
    cr_expect_eq(pcs_interlock_def_validate(r.p.w, r.s, &d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "nr_level[2].sensor[1] = 999"), "%s", pcs_last_error());
    d = r.d; /* a deadband as wide as P-7's setpoint would never let it reset */
    d.p_deadband_frac = 0.10;
    cr_expect_eq(pcs_interlock_def_validate(r.p.w, r.s, &d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "p_deadband_frac = 0.1 is outside [0, 0.1)"), "%s",
              pcs_last_error());
    d = r.d; /* nor one as wide as P-8's (review: P-8 and P-9 were not checked; a
                P-8 at 0.5 % with the 1 % deadband latched for good) */
    d.p8_frac = 0.005;
    cr_expect_eq(pcs_interlock_def_validate(r.p.w, r.s, &d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "p_deadband_frac = 0.01 is outside [0, 0.005)"), "%s",
              pcs_last_error());
    d = r.d;
    d.n_loops = 2;
    channels(&d.loop_flow[0], POW, 4, 2);
    channels(&d.loop_flow[1], PZR, 4, 2);
    d.loop_low_flow_kg_s = 0.9 * RATED_W;
    cr_expect_eq(pcs_interlock_def_validate(r.p.w, r.s, &d), PCS_OK, "%s", pcs_last_error());
    d.k_loops = 3;
    cr_expect_eq(pcs_interlock_def_validate(r.p.w, r.s, &d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "k_loops = 3 is outside [1, 2]"), "%s", pcs_last_error());
    d.k_loops = 2;
    d.loop_low_flow_kg_s = 0.0;
    cr_expect_eq(pcs_interlock_def_validate(r.p.w, r.s, &d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "loop_low_flow_kg_s = 0"), "%s", pcs_last_error());
    d.loop_low_flow_kg_s = 0.9 * RATED_W;
    d.loop_flow[1].k = 0;
    cr_expect_eq(pcs_interlock_def_validate(r.p.w, r.s, &d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "loop_flow[1].k = 0"), "%s", pcs_last_error());
    d.n_loops = 9;
    cr_expect_eq(pcs_interlock_def_validate(r.p.w, r.s, &d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "n_loops = 9 is outside [0, 8]"), "%s", pcs_last_error());
    /* the trip breakers' element past the store, including an index whose
       (index + 1) x 4 bytes wraps in 32 bits (it was accepted and read
       about 16 GB past a 4-byte store on the first tick) */
    d = r.d;
    d.trip_index = 1;
    cr_expect_eq(pcs_interlock_def_validate(r.p.w, r.s, &d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "trip_index = 1"), "%s", pcs_last_error());
    d.trip_index = UINT32_MAX;
    cr_expect_eq(pcs_interlock_def_validate(r.p.w, r.s, &d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "trip_index = 4294967295"), "%s", pcs_last_error());
    rig_free(&r);
}

/* 0 bytes allocated per tick while every part moves: C-7's lag, P-12, the
 * SI latch and the MSIV stroke. */
Test(interlock, no_allocation_per_tick)
{
    rig r;
    rig_init(&r, 1);
    load_at(&r, 0.8);
    tavg_at(&r, F_TO_K(550.0));
    pcs_test_alloc_begin();
    for (int k = 0; k < 40; k++) {
        if (k == 5)
            steam_at(&r, 1.2, 4.0e6);
        cr_assert_eq(pcs_world_tick(r.p.w), PCS_OK, "%s", pcs_last_error());
    }
    uint64_t n = pcs_test_alloc_end();
    cr_expect_eq(n, 0u, "%llu allocations in 40 ticks", (unsigned long long)n);
    cr_expect_eq(sig(&r, PCS_SIG_MSLI), 1.0);
    cr_expect_lt(r.msiv_out[0], 1.0);
    rig_free(&r);
}

/* ---- on a steam-side station ------------------------------------------------ */

static const char steam_scn[] = "{\"schema\": 1, \"world\": {\"dt_s\": 0.05, \"workers\": 0}, "
                                "\"units\": [{\"name\": \"u1\", \"sg_model\": \"steam_side\"}]}";

typedef struct station_rig {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
    pcs_protection *prot;
} station_rig;

static double channel(pcs_world *w, const char *name)
{
    uint32_t id;
    cr_assert_eq(pcs_channel_find(w, name, &id), PCS_OK, "no channel %s", name);
    return pcs_channel_value(w, id);
}

/* Command @p op of @p family on @p target, without Criterion (a child calls it). */
static pcs_status submit(pcs_world *w, const char *family, uint32_t op, const char *target)
{
    uint32_t kind = 0;
    pcs_target_id id = {0, 0};
    pcs_status st = pcs_command_kind_find(w, family, op, &kind);
    if (st == PCS_OK)
        st = pcs_command_target_find(w, target, &id);
    pcs_command c = {.kind = kind, .target = pcs_target_id_store(id)};
    return st == PCS_OK ? pcs_command_submit(w, &c) : st;
}

/* Tick until the unit trips (at most @p n ticks); the ticks it took, or 0. */
static uint64_t ticks_to_trip(station_rig *r, uint32_t n, fork_child_out *out)
{
    for (uint32_t k = 1; k <= n; k++) {
        out->st = pcs_world_tick(r->w);
        if (out->st != PCS_OK)
            return 0;
        if (pcs_protection_tripped(r->prot, 0))
            return k;
    }
    return 0;
}

static void first_out_name(station_rig *r, fork_child_out *out, const char *note)
{
    uint32_t f = pcs_protection_first_out(r->prot, 0);
    snprintf(out->msg, sizeof out->msg, "%s|%s",
             f == PCS_PROTECTION_TRIP_NONE ? "none" : pcs_protection_function_name(r->prot, f),
             note);
}

/* The turbine trips (a turbine_trip command: the stop valves shut) at
 * 100 % power, above P-9: the reactor trips, first out the turbine trip. */
static void child_turbine_trip(void *ctx, fork_child_out *out)
{
    station_rig *r = ctx;
    submit(r->w, PCS_TURBINE_COMMANDS, PCS_TURBINE_OP_TRIP, "u1");
    out->hash = ticks_to_trip(r, 20, out);
    for (int k = 0; k < 12 && out->st == PCS_OK; k++) /* the alarm's 10-tick on-delay */
        out->st = pcs_world_tick(r->w);
    uint32_t id = 0, p4 = 0, demand = 0;
    pcs_channel_find(r->w, "u1.alarm.turbine_trip", &id);
    pcs_channel_find(r->w, "u1.interlock.p4", &p4);
    pcs_channel_find(r->w, "u1.interlock.turbine_trip", &demand);
    char note[64];
    snprintf(note, sizeof note, "%s p4=%g demand=%g",
             pcs_channel_value(r->w, id) == PCS_ALARM_UNACK ? "alarm" : "no alarm",
             pcs_channel_value(r->w, p4), pcs_channel_value(r->w, demand));
    first_out_name(r, out, note);
}

/* SG 2's narrow-range channels fail low one then two (2 of 3 at the
 * 11.5 % low-low setpoint): the reactor trips on the second only. */
static void child_sg_low_low(void *ctx, fork_child_out *out)
{
    station_rig *r = ctx;
    submit(r->w, PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_FAIL_LOW, "u1.sg2.nr_level.A");
    uint64_t one = ticks_to_trip(r, 20, out);
    submit(r->w, PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_FAIL_LOW, "u1.sg2.nr_level.C");
    out->hash = ticks_to_trip(r, 20, out);
    first_out_name(r, out, one ? "tripped on one channel" : "one channel: no trip");
}

/* The low-pressure trip is blocked below P-7 ([HRTD] 12.2): with three of
 * four power channels and every turbine load channel failed low (P-10 and
 * P-13 off), two pressurizer pressure channels failed low do not trip the
 * reactor; once the power channels read again, they do. */
static void child_low_pressure_below_p7(void *ctx, fork_child_out *out)
{
    station_rig *r = ctx;
    static const char *const below[] = {"u1.nis.power.A",    "u1.nis.power.B",
                                        "u1.nis.power.C",    "u1.turbine.load.A",
                                        "u1.turbine.load.B", "u1.turbine.load.C"};
    for (size_t k = 0; k < 6; k++)
        submit(r->w, PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_FAIL_LOW, below[k]);
    uint64_t early = ticks_to_trip(r, 3, out);
    uint32_t f = 0;
    pcs_protection_function_find(r->prot, "u1.rps.low_pressure", &f);
    int blocked = (pcs_protection_function_state(r->prot, f) & PCS_PROTECTION_TRIP_ST_BLOCKED) != 0;
    submit(r->w, PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_FAIL_LOW, "u1.pzr.pressure.A");
    submit(r->w, PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_FAIL_LOW, "u1.pzr.pressure.B");
    uint64_t blocked_trip = ticks_to_trip(r, 10, out);
    for (size_t k = 0; k < 3; k++)
        submit(r->w, PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_CLEAR, below[k]);
    out->hash = ticks_to_trip(r, 10, out);
    first_out_name(r, out,
                   early || blocked_trip ? "tripped below P-7"
                                         : (blocked ? "blocked below P-7" : "not blocked"));
}

/* A manual scram (trip breakers open: P-4) from 100 %: feedwater isolates
 * once Tavg falls below 564 F, not before ([HRTD] 12.3, pwr_transients.md
 * section 3); the seconds it took go back in hash, Tavg in the message. */
static void child_scram_fw_isolation(void *ctx, fork_child_out *out)
{
    station_rig *r = ctx;
    uint32_t iso = 0, p4 = 0, tavg = 0;
    pcs_channel_find(r->w, "u1.interlock.fw_isolation", &iso);
    pcs_channel_find(r->w, "u1.interlock.p4", &p4);
    pcs_channel_find(r->w, "u1.rcs.t_avg", &tavg);
    out->st = submit(r->w, PCS_UNIT_COMMANDS, PCS_UNIT_OP_SCRAM, "u1");
    double t_before = 0.0;
    for (uint32_t k = 1; k <= 1200 && out->st == PCS_OK; k++) {
        t_before = pcs_channel_value(r->w, tavg);
        out->st = pcs_world_tick(r->w);
        if (pcs_channel_value(r->w, iso) != 0.0) {
            out->hash = k;
            snprintf(out->msg, sizeof out->msg, "p4=%g tavg_before=%.3f tavg=%.3f",
                     pcs_channel_value(r->w, p4), t_before, pcs_channel_value(r->w, tavg));
            return;
        }
    }
    snprintf(out->msg, sizeof out->msg, "no isolation in 60 s: tavg=%.3f",
             pcs_channel_value(r->w, tavg));
}

/* After a reactor coolant pump trip at 100 % (the default scenario's u2
 * at 120 s): the reactor trips on loop 2's low flow, the turbine trips
 * (P-4), and the power falls through P-9, P-8 and P-7 with the NIS channel
 * noise on. Each flag falls once and the low-flow function trips once
 * (before the deadband, P-7 flickered as the power passed 10 % and the
 * low-flow function it armed was logged "4 channels tripped" three times in
 * 0.25 s). hash: the NIS channel A power fraction at the end, per mille. */
static void child_pump_trip_flags_fall_once(void *ctx, fork_child_out *out)
{
    station_rig *r = ctx;
    pcs_command c;
    out->st = pcs_station_command(r->st, "u1.pump2", "pump_trip", 0.0, &c);
    if (out->st == PCS_OK)
        out->st = pcs_command_submit(r->w, &c);
    uint32_t f = 0, ch[3] = {0, 0, 0}, nis = 0;
    static const char *const flags[3] = {"u1.interlock.p7", "u1.interlock.p8", "u1.interlock.p9"};
    if (out->st == PCS_OK)
        out->st = pcs_protection_function_find(r->prot, "u1.rps.low_flow.2", &f);
    for (int k = 0; out->st == PCS_OK && k < 3; k++)
        out->st = pcs_channel_find(r->w, flags[k], &ch[k]);
    if (out->st == PCS_OK)
        out->st = pcs_channel_find(r->w, "u1.nis.power.A", &nis);
    uint32_t trips = 0, was = 0, edges[3] = {0, 0, 0};
    double last[3];
    for (int k = 0; k < 3; k++)
        last[k] = pcs_channel_value(r->w, ch[k]);
    for (int t = 0; t < 400 && out->st == PCS_OK; t++) { /* 20 s */
        out->st = pcs_world_tick(r->w);
        uint32_t on =
            (pcs_protection_function_state(r->prot, f) & PCS_PROTECTION_TRIP_ST_TRIPPED) != 0;
        trips += on && !was;
        was = on;
        for (int k = 0; k < 3; k++) {
            double v = pcs_channel_value(r->w, ch[k]);
            edges[k] += v != last[k];
            last[k] = v;
        }
    }
    double p = pcs_channel_value(r->w, nis) / 3.411e9;
    out->hash = (uint64_t)(p * 1000.0 + 0.5);
    snprintf(out->msg, sizeof out->msg, "low_flow.2 trips=%u p7 edges=%u p8 edges=%u p9 edges=%u",
             trips, edges[0], edges[1], edges[2]);
}

/* One station at 100 %: the permissives a unit at power has, then (each in
 * a forked copy) the turbine-trip and SG low-low reactor trips with their
 * first-out names ([HRTD] 12.2; pwr_transients.md sections 5 and 6). */
Test(interlock, station_at_power_permissives_and_the_new_reactor_trips_first_out)
{
    station_rig r;
    cr_assert_eq(pcs_scenario_load_string("ss.json", steam_scn, strlen(steam_scn), NULL, &r.scn),
                 PCS_OK, "%s", pcs_last_error());
    pcs_world_def d = pcs_scenario_world_def(r.scn);
    d.check_access = 2; /* every system declares what it reads and writes */
    cr_assert_eq(pcs_world_create(&d, &r.w), PCS_OK);
    cr_assert_eq(pcs_station_add(r.w, r.scn, &r.st), PCS_OK, "%s", pcs_last_error());
    r.prot = pcs_plant_protection(pcs_station_plant(r.st));
    ctl_tick(r.w, 20);
    static const struct {
        const char *flag;
        double want;
    } at_power[] = {{"p4", 0},  {"p7", 1},           {"p8", 1},           {"p9", 1},
                    {"p12", 0}, {"p14", 0},          {"c7", 0},           {"c8", 0},
                    {"c9", 1},  {"turbine_trip", 0}, {"fw_isolation", 0}, {"afw_start", 0},
                    {"si", 0},  {"msli", 0}};
    for (size_t k = 0; k < sizeof at_power / sizeof at_power[0]; k++) {
        char name[48];
        snprintf(name, sizeof name, "u1.interlock.%s", at_power[k].flag);
        cr_expect_eq(channel(r.w, name), at_power[k].want, "%s at 100 %%", name);
    }
    for (int l = 1; l <= 4; l++) {
        char name[32];
        snprintf(name, sizeof name, "u1.sg%d.msiv", l);
        cr_expect_eq(channel(r.w, name), 1.0, "%s open", name);
    }
    cr_expect_eq(pcs_protection_tripped(r.prot, 0), 0);

    fork_child_out t = fork_child_run(child_turbine_trip, &r);
    cr_expect_eq(t.st, PCS_OK, "%s", t.msg);
    cr_expect(t.hash >= 1 && t.hash <= 2, "tripped after %llu ticks", (unsigned long long)t.hash);
    cr_expect(strcmp(t.msg, "u1.rps.turbine_trip|alarm p4=1 demand=1") == 0,
              "first out, alarm, P-4 from the trip breakers: %s", t.msg);
    cr_log_info("turbine trip: reactor trip after %llu ticks, first out %s",
                (unsigned long long)t.hash, t.msg);

    fork_child_out s = fork_child_run(child_sg_low_low, &r);
    cr_expect_eq(s.st, PCS_OK, "%s", s.msg);
    cr_expect(s.hash >= 1 && s.hash <= 2, "tripped after %llu ticks", (unsigned long long)s.hash);
    cr_expect(strcmp(s.msg, "u1.rps.sg_low_low.2|one channel: no trip") == 0, "first out: %s",
              s.msg);
    cr_log_info("SG 2 low-low: reactor trip after %llu ticks, first out %s",
                (unsigned long long)s.hash, s.msg);

    fork_child_out p = fork_child_run(child_low_pressure_below_p7, &r);
    cr_expect_eq(p.st, PCS_OK, "%s", p.msg);
    cr_expect(strcmp(p.msg, "u1.rps.low_pressure|blocked below P-7") == 0, "%s", p.msg);
    cr_expect(p.hash >= 1 && p.hash <= 3, "tripped %llu ticks after P-7 came back",
              (unsigned long long)p.hash);
    cr_log_info("low pressure below P-7: %s, trip %llu ticks after P-7 returned", p.msg,
                (unsigned long long)p.hash);

    fork_child_out f = fork_child_run(child_scram_fw_isolation, &r);
    cr_expect_eq(f.st, PCS_OK, "%s", f.msg);
    cr_log_info("scram: FW isolation after %llu ticks: %s", (unsigned long long)f.hash, f.msg);
    cr_expect(f.hash > 1, "not on P-4 alone at 584.7 F: %s", f.msg);
    double before = 0.0, after = 0.0; /* the plant's Tavg, K, the tick before and at isolation */
    cr_expect_eq(sscanf(f.msg, "p4=1 tavg_before=%lf tavg=%lf", &before, &after), 2, "%s", f.msg);
    /* not before the plant's Tavg is below 564 F (568.706 K); the Tavg
     * channels lag it by their 1 s time constant, about 1.6 K while it falls
     * at 1.6 K/s, so isolation comes within 3 K of the crossing */
    cr_expect(after < F_TO_K(564.0) && after > F_TO_K(564.0) - 3.0, "%s", f.msg);

    fork_child_out c = fork_child_run(child_pump_trip_flags_fall_once, &r);
    cr_expect_eq(c.st, PCS_OK, "%s", c.msg);
    cr_log_info("pump trip: %s, NIS A at %llu per mille after 20 s", c.msg,
                (unsigned long long)c.hash);
    cr_expect_lt(c.hash, 90u, "the power is below P-7's reset (9 %%) after 20 s: %llu per mille",
                 (unsigned long long)c.hash);
    cr_expect(strcmp(c.msg, "low_flow.2 trips=1 p7 edges=1 p8 edges=1 p9 edges=1") == 0,
              "one trip, each permissive falls once: %s", c.msg);
    pcs_station_destroy(r.st);
    pcs_world_destroy(r.w);
    pcs_scenario_destroy(r.scn);
}

/* ---- the low-flow trips below P-8 and P-7 ----------------------------------- */

/* Three units at 25 % (between P-7 and P-8), 45 % (between P-8 and P-9)
 * and 5 % (below P-7, P-13 too: turbine load 5 %). */
static const char low_power_scn[] =
    "{\"schema\": 1, \"world\": {\"dt_s\": 0.05, \"workers\": 0}, \"units\": ["
    "{\"name\": \"u1\", \"sg_model\": \"steam_side\", \"initial_power_fraction\": 0.25},"
    "{\"name\": \"u2\", \"sg_model\": \"steam_side\", \"initial_power_fraction\": 0.45},"
    "{\"name\": \"u3\", \"sg_model\": \"steam_side\", \"initial_power_fraction\": 0.05}]}";

/* Tick until unit @p u trips (at most @p n ticks); the ticks it took, or 0. */
static uint64_t ticks_to_unit_trip(station_rig *r, uint32_t u, uint32_t n, fork_child_out *out)
{
    for (uint32_t k = 1; k <= n; k++) {
        out->st = pcs_world_tick(r->w);
        if (out->st != PCS_OK)
            return 0;
        if (pcs_protection_tripped(r->prot, u))
            return k;
    }
    return 0;
}

/* Channels A and B of unit @p u's loop @p l flow fail low (2 of 4 below
 * the 90 % low-flow setpoint: that loop's low-flow coincidence). */
static void loop_flow_fails_low(station_rig *r, uint32_t u, uint32_t l)
{
    for (char c = 'A'; c <= 'B'; c++) {
        char name[32];
        snprintf(name, sizeof name, "u%u.loop%u.flow.%c", u + 1, l, c);
        submit(r->w, PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_FAIL_LOW, name);
    }
}

/* "<first out>|<note>" of unit @p u. */
static void unit_first_out(station_rig *r, uint32_t u, fork_child_out *out, const char *note)
{
    uint32_t f = pcs_protection_first_out(r->prot, u);
    snprintf(out->msg, sizeof out->msg, "%s|%s",
             f == PCS_PROTECTION_TRIP_NONE ? "none" : pcs_protection_function_name(r->prot, f),
             note);
}

/* u1 at 25 %: loop 2's low flow alone does not trip (below P-8); loops 2
 * and 3 together do, first out the two-loop function (above P-7). */
static void child_low_flow_25(void *ctx, fork_child_out *out)
{
    station_rig *r = ctx;
    loop_flow_fails_low(r, 0, 2);
    uint64_t one = ticks_to_unit_trip(r, 0, 20, out);
    loop_flow_fails_low(r, 0, 3);
    out->hash = ticks_to_unit_trip(r, 0, 20, out);
    unit_first_out(r, 0, out, one ? "one loop tripped" : "one loop: no trip");
}

/* u2 at 45 %: loop 2's low flow alone trips (above P-8). */
static void child_low_flow_45(void *ctx, fork_child_out *out)
{
    station_rig *r = ctx;
    loop_flow_fails_low(r, 1, 2);
    out->hash = ticks_to_unit_trip(r, 1, 20, out);
    unit_first_out(r, 1, out, "one loop");
}

/* u3 at 5 %: loops 2 and 3 low together do not trip (below P-7). */
static void child_low_flow_5(void *ctx, fork_child_out *out)
{
    station_rig *r = ctx;
    loop_flow_fails_low(r, 2, 2);
    loop_flow_fails_low(r, 2, 3);
    out->hash = ticks_to_unit_trip(r, 2, 40, out);
    unit_first_out(r, 2, out, "two loops");
}

/* The low-flow reactor trips follow the permissives of refdata section 4
 * ([HRTD] 12.2): one loop (2 of 4 channels) trips above P-8 (39 %), two
 * loops between P-7 (10 %) and P-8, nothing below P-7. */
Test(interlock, low_flow_trips_one_loop_above_p8_two_loops_above_p7)
{
    station_rig r;
    cr_assert_eq(
        pcs_scenario_load_string("lp.json", low_power_scn, strlen(low_power_scn), NULL, &r.scn),
        PCS_OK, "%s", pcs_last_error());
    pcs_world_def d = pcs_scenario_world_def(r.scn);
    cr_assert_eq(pcs_world_create(&d, &r.w), PCS_OK);
    cr_assert_eq(pcs_station_add(r.w, r.scn, &r.st), PCS_OK, "%s", pcs_last_error());
    r.prot = pcs_plant_protection(pcs_station_plant(r.st));
    ctl_tick(r.w, 4);
    static const struct {
        const char *flag;
        double want;
    } start[] = {{"u1.interlock.p7", 1},
                 {"u1.interlock.p8", 0},
                 {"u2.interlock.p8", 1},
                 {"u2.interlock.p9", 0},
                 {"u3.interlock.p7", 0}};
    for (size_t k = 0; k < sizeof start / sizeof start[0]; k++)
        cr_expect_eq(channel(r.w, start[k].flag), start[k].want, "%s", start[k].flag);
    for (uint32_t u = 0; u < 3; u++)
        cr_expect_eq(pcs_protection_tripped(r.prot, u), 0, "unit %u", u + 1);

    fork_child_out a = fork_child_run(child_low_flow_25, &r);
    cr_expect_eq(a.st, PCS_OK, "%s", a.msg);
    cr_expect(strcmp(a.msg, "u1.rps.low_flow_2loops|one loop: no trip") == 0, "25 %%: %s", a.msg);
    cr_expect(a.hash >= 1 && a.hash <= 4, "two loops: trip after %llu ticks",
              (unsigned long long)a.hash);
    fork_child_out b = fork_child_run(child_low_flow_45, &r);
    cr_expect_eq(b.st, PCS_OK, "%s", b.msg);
    cr_expect(strcmp(b.msg, "u2.rps.low_flow.2|one loop") == 0, "45 %%: %s", b.msg);
    cr_expect(b.hash >= 1 && b.hash <= 2, "one loop: trip after %llu ticks",
              (unsigned long long)b.hash);
    fork_child_out c = fork_child_run(child_low_flow_5, &r);
    cr_expect_eq(c.st, PCS_OK, "%s", c.msg);
    cr_expect(strcmp(c.msg, "none|two loops") == 0, "5 %%: %s", c.msg);
    pcs_station_destroy(r.st);
    pcs_world_destroy(r.w);
    pcs_scenario_destroy(r.scn);
}
