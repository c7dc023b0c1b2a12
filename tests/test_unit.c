/**
 * @file test_unit.c
 * @brief A reactor unit built from the default (PWR-like) configuration:
 *        steady state, rod withdrawal, scram, trip input, commands, limits,
 *        bad configurations, allocations per tick.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/command.h"
#include "pcsim/event.h"
#include "pcsim/system.h"
#include "pcsim/unit.h"
#include "pcsim/world.h"
#include "tests/control_fixture.h"

/* Events of every tick, collected by the host callback. */
#define UT_MAX_EVENTS 4096
typedef struct ut_log {
    pcs_event ev[UT_MAX_EVENTS];
    uint32_t n;
} ut_log;

static void ut_collect(void *ctx, const pcs_event *events, uint32_t count)
{
    ut_log *log = ctx;
    for (uint32_t i = 0; i < count && log->n < UT_MAX_EVENTS; i++)
        log->ev[log->n++] = events[i];
}

static uint32_t ut_count(const ut_log *log, uint32_t kind)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < log->n; i++)
        n += log->ev[i].kind == kind;
    return n;
}

static const pcs_event *ut_find(const ut_log *log, uint32_t kind)
{
    for (uint32_t i = 0; i < log->n; i++)
        if (log->ev[i].kind == kind)
            return &log->ev[i];
    return NULL;
}

/* A world with the default configuration except k_slow (default 72). */
static pcs_world *ut_world_k(ut_log *log, double k_slow)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.check_finite = 1; /* NaN/Inf in a physics store fails the tick */
    wc.workers = 0;
    wc.k_slow = k_slow;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    if (log) {
        memset(log, 0, sizeof *log);
        pcs_world_set_event_callback(w, ut_collect, log);
    }
    return w;
}

static pcs_world *ut_world(ut_log *log)
{
    return ut_world_k(log, 72.0);
}

static pcs_world *ut_unit_world(const pcs_unit_def *cfg, ut_log *log, pcs_unit **u)
{
    pcs_world *w = ut_world(log);
    cr_assert_eq(pcs_unit_add(w, 1, cfg, u), PCS_OK, "%s", pcs_last_error());
    return w;
}

static double ut_ch(const pcs_world *w, const char *name)
{
    uint32_t id;
    cr_assert_eq(pcs_channel_find(w, name, &id), PCS_OK, "no channel %s", name);
    return pcs_channel_value(w, id);
}

static void ut_ticks(pcs_world *w, long n)
{
    for (long i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
}

Test(unit, default_config_builds_a_steady_full_power_core)
{
    pcs_unit_def cfg;
    cr_assert_eq(pcs_unit_default(&cfg), PCS_OK);
    cr_assert_eq(pcs_unit_def_validate(&cfg), PCS_OK, "%s", pcs_last_error());
    pcs_unit *u;
    pcs_world *w = ut_unit_world(&cfg, NULL, &u);
    /* 3411 MWt (tests/refdata/pwr_plant.md). The ANS "infinite" 1e13 s history
     * leaves the longest groups ~3e-5 of power short of saturation. */
    cr_expect_lt(fabs(ut_ch(w, "u1.core.power") / 3.411e9 - 1.0), 1e-4);
    cr_expect_lt(fabs(ut_ch(w, "u1.coolant.t_avg") - 582.05), 1.0, "(565.1 + 599.0)/2 K");
    ut_ticks(w, 2000); /* 100 s */
    /* Decay-heat fraction ~7 %: fission power ~93 % of the total. */
    double p = ut_ch(w, "u1.core.power"), fp = ut_ch(w, "u1.core.fission_power");
    double dh = ut_ch(w, "u1.core.decay_heat");
    cr_expect_lt(fabs(fp + dh - p), 1e-6 * p);
    cr_expect(dh / p > 0.06 && dh / p < 0.08, "decay share %g", dh / p);
    cr_expect_lt(fabs(ut_ch(w, "u1.core.relative_power") - 1.0), 1e-8);
    cr_expect_lt(fabs(ut_ch(w, "u1.core.reactivity")), 1e-10);
    cr_expect_eq(ut_ch(w, "u1.core.period"), PCS_UNIT_PERIOD_INF_S);
    double xe = ut_ch(w, "u1.xenon.reactivity");
    cr_expect(xe < -0.02 && xe > -0.03, "equilibrium xenon %g", xe);
    /* Constant reactivity: one root solve at build, none afterwards. */
    cr_expect_eq(pcs_unit_kinetics_solves(u), 1, "%llu solves",
                 (unsigned long long)pcs_unit_kinetics_solves(u));
    pcs_world_destroy(w);
}

Test(unit, rod_withdrawal_then_scram)
{
    pcs_unit_def cfg;
    pcs_unit_default(&cfg);
    cfg.banks[0].initial_pos = 0.5; /* bank D half in */
    ut_log *log = calloc(1, sizeof *log);
    pcs_unit *u;
    /* Xenon in real time (k_slow = 1): at the default 72x the burnout after
     * the power rise adds ~+700 pcm within these 120 s and the core keeps
     * climbing, as it would over 2.4 h of real operation. */
    pcs_world *w = ut_world_k(log, 1.0);
    cr_assert_eq(pcs_unit_add(w, 1, &cfg, &u), PCS_OK, "%s", pcs_last_error());
    double p0 = ut_ch(w, "u1.core.power"), tf0 = ut_ch(w, "u1.fuel.t_avg");
    /* Withdraw D from 0.5 to 0.7 at 0.02 travel/s (10 s): +277 pcm, since
     * F(0.7) - F(0.5) = 0.2 + sin(0.6 pi)/(2 pi) = 0.3514 of 788 pcm. */
    ctl_unit_command(w, PCS_UNIT_OP_ROD_SPEED, 1, 0, 0.02);
    ctl_unit_command(w, PCS_UNIT_OP_ROD_POSITION, 1, 0, 0.7);
    ut_ticks(w, 100); /* 5 s: rods moving, power rising on a positive period */
    cr_expect(((uint32_t)ut_ch(w, "u1.core.flags") & PCS_UNIT_FLAG_RODS_MOVING) != 0);
    cr_expect_gt(ut_ch(w, "u1.core.power"), p0);
    double period = ut_ch(w, "u1.core.period");
    cr_expect(period > 0.0 && period < 1000.0, "period %g s", period);
    ut_ticks(w, 2300); /* 120 s in all: Doppler and moderator feedback balance the rods */
    double pr = ut_ch(w, "u1.core.relative_power");
    cr_expect_lt(fabs(ut_ch(w, "u1.rods.D.pos") - 0.7), 1e-12);
    /* About -1000 pcm per unit power (Doppler -2.5 pcm/K x ~370 K, MTC x ~17 K):
     * 277 pcm buys roughly +25..35 % power. */
    cr_expect(pr > 1.2 && pr < 1.4, "relative power %g after withdrawal", pr);
    cr_expect_lt(fabs(ut_ch(w, "u1.core.reactivity")), 5e-5, "near critical again (< 1 cent)");
    cr_expect_gt(ut_ch(w, "u1.fuel.t_avg"), tf0 + 50.0);
    cr_expect_gt(ut_ch(w, "u1.fuel.t_max"), ut_ch(w, "u1.fuel.t_avg"));

    /* Manual scram. */
    log->n = 0;
    double p_trip = ut_ch(w, "u1.core.power");
    ctl_unit_command(w, PCS_UNIT_OP_SCRAM, 1, 0, 0);
    ut_ticks(w, 1);
    const pcs_event *e = ut_find(log, PCS_EV_UNIT_SCRAM);
    cr_assert_not_null(e, "no scram event");
    cr_expect_eq(e->subject, 1);
    cr_expect_eq((uint32_t)e->values[0], PCS_UNIT_TRIP_MANUAL);
    cr_expect_lt(fabs(e->values[1] / p_trip - 1.0), 0.01, "power at trip");
    cr_expect(((uint32_t)ut_ch(w, "u1.core.flags") & PCS_UNIT_FLAG_SCRAMMED) != 0);
    cr_expect_eq((uint32_t)ut_ch(w, "u1.scram.cause"), PCS_UNIT_TRIP_MANUAL);
    double n_prev = ut_ch(w, "u1.core.relative_power");
    for (long t = 0; t < 12000; t++) { /* 600 s */
        ut_ticks(w, 1);
        double n = ut_ch(w, "u1.core.relative_power"), p = ut_ch(w, "u1.core.power");
        cr_assert(isfinite(p) && p > 0.0 && n > 0.0, "power %g, n %g at tick %ld", p, n, t);
        if (t > 4)
            cr_assert_leq(n, n_prev * (1.0 + 1e-12), "n rose after the scram at tick %ld", t);
        n_prev = n;
        if (t == 70) { /* 3.5 s: delay 0.15 s + drop 2.93 s done */
            cr_expect_eq(ut_ch(w, "u1.rods.pos"), 0.0, "all rods in");
            cr_expect_eq(ut_count(log, PCS_EV_UNIT_ROD_AT_LIMIT), cfg.n_banks);
        }
        if (t == 200) { /* 10 s after the trip */
            double rel = p / p_trip;
            /* Decay heat ~5 % (ANS-2004 + U/Np at 10 s, decay_heat.md) plus
             * a few % of fission power still decaying. */
            cr_expect(rel > 0.05 && rel < 0.12, "power %.4f of pre-trip at 10 s", rel);
            cr_expect_lt(ut_ch(w, "u1.core.fission_power") / p_trip, 0.05);
        }
    }
    double per = ut_ch(w, "u1.core.period");
    cr_expect(per < -60.0 && per > -120.0, "period %g s long after the scram (~ -80 s)", per);
    cr_expect_lt(ut_ch(w, "u1.core.reactivity"), -0.04);
    pcs_world_destroy(w);
    free(log);
}

Test(unit, trip_input_scrams_next_tick_and_blocks_reset)
{
    pcs_unit_def cfg;
    pcs_unit_default(&cfg);
    ut_log *log = calloc(1, sizeof *log);
    pcs_unit *u;
    pcs_world *w = ut_unit_world(&cfg, log, &u);
    ut_ticks(w, 10);
    uint32_t *trip = pcs_store_data(w, pcs_unit_trip_store(u));
    *trip = 1u << 3; /* as the protection stage of the last tick would */
    ut_ticks(w, 1);
    const pcs_event *e = ut_find(log, PCS_EV_UNIT_SCRAM);
    cr_assert_not_null(e);
    cr_expect_eq((uint32_t)e->values[0], 1u << 3);
    cr_expect_eq(e->tick, 10, "effect at ACTUATORS of the next tick");
    uint32_t flags = (uint32_t)ut_ch(w, "u1.core.flags");
    cr_expect(flags & PCS_UNIT_FLAG_TRIP_REQUEST);
    /* Reset while the trip input is active: rejected. */
    log->n = 0;
    ctl_unit_command(w, PCS_UNIT_OP_RESET, 1, 0, 0);
    ut_ticks(w, 1);
    cr_expect_eq(ut_count(log, PCS_EV_COMMAND_REJECTED), 1);
    cr_expect((uint32_t)ut_ch(w, "u1.core.flags") & PCS_UNIT_FLAG_SCRAMMED);
    /* Rod commands are refused while scrammed. */
    ctl_unit_command(w, PCS_UNIT_OP_ROD_POSITION, 1, 0, 1.0);
    ut_ticks(w, 1);
    cr_expect_eq(ut_count(log, PCS_EV_COMMAND_REJECTED), 2);
    /* Clear the trip, reset, withdraw again. */
    *trip = 0;
    ut_ticks(w, 100);
    log->n = 0;
    ctl_unit_command(w, PCS_UNIT_OP_RESET, 1, 0, 0);
    ut_ticks(w, 1);
    cr_expect_eq(ut_count(log, PCS_EV_UNIT_SCRAM_RESET), 1);
    cr_expect_eq(((uint32_t)ut_ch(w, "u1.core.flags") & PCS_UNIT_FLAG_SCRAMMED), 0);
    cr_expect_eq(ut_ch(w, "u1.rods.pos"), 0.0, "rods stay in after the reset");
    ctl_unit_command(w, PCS_UNIT_OP_ROD_POSITION, 1, 1, 0.1); /* bank C */
    ut_ticks(w, 40);
    cr_expect_gt(ut_ch(w, "u1.rods.C.pos"), 0.0);
    cr_expect_eq(ut_count(log, PCS_EV_COMMAND_REJECTED), 0);
    pcs_world_destroy(w);
    free(log);
}

Test(unit, bad_commands_are_rejected)
{
    pcs_unit_def cfg;
    pcs_unit_default(&cfg);
    ut_log *log = calloc(1, sizeof *log);
    pcs_unit *u;
    pcs_world *w = ut_unit_world(&cfg, log, &u);
    ctl_unit_command(w, PCS_UNIT_OP_ROD_POSITION, 1, 7, 0.5);   /* bank 7 of 7 */
    ctl_unit_command(w, PCS_UNIT_OP_ROD_POSITION, 1, 0.5, 0.5); /* not an index */
    ctl_unit_command(w, PCS_UNIT_OP_ROD_POSITION, 1, 0, 1.5);   /* beyond the top */
    ctl_unit_command(w, PCS_UNIT_OP_ROD_SPEED, 1, 0, 0.0);      /* zero speed */
    ctl_unit_command(w, PCS_UNIT_OP_BORON, 1, -5.0, 0);         /* negative ppm */
    ctl_unit_command(w, PCS_UNIT_OP_SCRAM, 2, 0, 0);            /* no unit 2 */
    ut_ticks(w, 1);
    cr_expect_eq(ut_count(log, PCS_EV_COMMAND_REJECTED), 6);
    cr_expect_eq(ut_count(log, PCS_EV_UNIT_SCRAM), 0);
    ctl_unit_command(w, PCS_UNIT_OP_BORON, 1, 1000.0, 0); /* +25 ppm: -250 pcm */
    ut_ticks(w, 1);
    cr_expect_eq(ut_ch(w, "u1.core.boron"), 1000.0);
    pcs_unit_reactivity r;
    pcs_unit_reactivity_get(u, &r);
    cr_expect_lt(fabs(r.boron + 25.0 * 1e-4), 1e-12);
    pcs_world_destroy(w);
    free(log);
}

Test(unit, power_excursion_is_clamped_flagged_and_reported_once)
{
    pcs_unit_def cfg;
    pcs_unit_default(&cfg);
    cfg.feedback.doppler_coef = 0.0; /* no feedback: nothing stops the rise */
    cfg.feedback.mtc_per_k = 0.0;
    cfg.power_limit_fraction = 1.5;
    cfg.fuel_temp_limit_k = 1100.0;
    cfg.banks[0].initial_pos = 0.5;
    ut_log *log = calloc(1, sizeof *log);
    pcs_unit *u;
    pcs_world *w = ut_unit_world(&cfg, log, &u);
    ctl_unit_command(w, PCS_UNIT_OP_ROD_SPEED, 1, 0, 0.05);
    ctl_unit_command(w, PCS_UNIT_OP_ROD_POSITION, 1, 0, 0.7);
    int seen_kin = 0, seen_heat = 0;
    for (long t = 0; t < 4000; t++) {
        ut_ticks(w, 1);
        uint32_t f = (uint32_t)ut_ch(w, "u1.core.flags");
        seen_kin |= (f & PCS_UNIT_FLAG_KINETICS_RANGE) != 0;
        seen_heat |= (f & PCS_UNIT_FLAG_HEAT_RANGE) != 0;
        const char *names[] = {"u1.core.power", "u1.core.period", "u1.core.reactivity",
                               "u1.fuel.t_max", "u1.fuel.t_avg",  "u1.coolant.t_avg"};
        for (size_t k = 0; k < 6; k++)
            cr_assert(isfinite(ut_ch(w, names[k])), "%s not finite at tick %ld", names[k], t);
        cr_assert_leq(ut_ch(w, "u1.core.relative_power"), 1.5);
        cr_assert_leq(ut_ch(w, "u1.fuel.t_max"), 1100.0);
    }
    cr_expect(seen_kin && seen_heat);
    /* One event per excursion: the clamp holds, so exactly one each. */
    uint32_t power_events = 0, fuel_events = 0;
    for (uint32_t i = 0; i < log->n; i++) {
        if (log->ev[i].kind != PCS_EV_UNIT_OUT_OF_RANGE)
            continue;
        power_events += (int)log->ev[i].values[0] == PCS_UNIT_RANGE_POWER;
        fuel_events += (int)log->ev[i].values[0] == PCS_UNIT_RANGE_FUEL_TEMP;
    }
    cr_expect_eq(power_events, 1);
    cr_expect_eq(fuel_events, 1);
    pcs_world_destroy(w);
    free(log);
}

static void ut_expect_bad(const pcs_unit_def *cfg, const char *needle)
{
    cr_expect_eq(pcs_unit_def_validate(cfg), PCS_E_INVAL, "accepted: %s", needle);
    cr_expect(strstr(pcs_last_error(), needle) != NULL, "message '%s' lacks '%s'", pcs_last_error(),
              needle);
    pcs_world *w = ut_world(NULL);
    cr_expect_eq(pcs_unit_add(w, 1, cfg, NULL), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), needle) != NULL, "%s", pcs_last_error());
    cr_expect_eq(pcs_store_count(w), 0, "a refused build must register nothing");
    pcs_world_destroy(w);
}

Test(unit, bad_configuration_names_the_parameter)
{
    pcs_unit_def c;
    pcs_unit_default(&c);
    c.kinetics.beta[0] = -0.001;
    ut_expect_bad(&c, "beta[0]");
    pcs_unit_default(&c);
    c.kinetics.generation_time_s = 0.0;
    ut_expect_bad(&c, "generation_time_s");
    pcs_unit_default(&c);
    c.banks[2].initial_pos = 1.5;
    ut_expect_bad(&c, "rods[2] ('B').initial_pos");
    pcs_unit_default(&c);
    c.banks[3].initial_pos = -0.1;
    ut_expect_bad(&c, "rods[3] ('A').initial_pos");
    pcs_unit_default(&c);
    strcpy(c.banks[1].name, "D");
    ut_expect_bad(&c, "repeats");
    pcs_unit_default(&c);
    c.n_banks = 0;
    ut_expect_bad(&c, "n_banks");
    pcs_unit_default(&c);
    c.nominal_power_w = -1.0;
    ut_expect_bad(&c, "nominal_power_w");
    pcs_unit_default(&c);
    c.scram_drop_time_s = 0.0;
    ut_expect_bad(&c, "scram_drop_time_s");
    pcs_unit_default(&c);
    c.feedback.t_mod_ref_k = 100.0;
    ut_expect_bad(&c, "t_mod_ref_k");
    pcs_unit_default(&c);
    c.heat.t_inlet_k = 200.0;
    ut_expect_bad(&c, "t_inlet_k");
    pcs_unit_default(&c);
    c.xenon_phase = 20;
    ut_expect_bad(&c, "xenon_phase");
    pcs_unit_default(&c);
    c.initial_power_fraction = 20.0;
    ut_expect_bad(&c, "initial_power_fraction");
}

Test(unit, bad_build_targets)
{
    pcs_unit_def c;
    pcs_unit_default(&c);
    pcs_world *w = ut_world(NULL);
    cr_expect_eq(pcs_unit_add(w, 0, &c, NULL), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "unit_index") != NULL, "%s", pcs_last_error());
    /* No registry to size: any index from 1 up names a unit ("u17"). */
    cr_expect_eq(pcs_unit_add(w, 17, &c, NULL), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_unit_add(w, 17, &c, NULL), PCS_E_INVAL, "u17 is taken");
    cr_expect_eq(pcs_unit_add(w, 1, &c, NULL), PCS_OK);
    cr_expect_eq(pcs_unit_add(w, 1, &c, NULL), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "already built") != NULL, "%s", pcs_last_error());
    cr_expect_eq(pcs_unit_add(NULL, 2, &c, NULL), PCS_E_INVAL);
    ut_ticks(w, 1);
    cr_expect_eq(pcs_unit_add(w, 2, &c, NULL), PCS_E_STATE);
    pcs_world_destroy(w);
}

Test(unit, two_units_take_their_own_commands)
{
    pcs_unit_def c;
    pcs_unit_default(&c);
    pcs_world *w = ut_world(NULL);
    pcs_unit *u1, *u2;
    cr_assert_eq(pcs_unit_add(w, 1, &c, &u1), PCS_OK, "%s", pcs_last_error());
    c.xenon_phase = 10;
    cr_assert_eq(pcs_unit_add(w, 2, &c, &u2), PCS_OK, "%s", pcs_last_error());
    ctl_unit_command(w, PCS_UNIT_OP_SCRAM, 2, 0, 0);
    ut_ticks(w, 400); /* 20 s: u2 is down to decay heat plus a little fission */
    cr_expect_eq((uint32_t)ut_ch(w, "u1.core.flags") & PCS_UNIT_FLAG_SCRAMMED, 0);
    cr_expect((uint32_t)ut_ch(w, "u2.core.flags") & PCS_UNIT_FLAG_SCRAMMED);
    cr_expect_gt(ut_ch(w, "u1.core.power"), 10.0 * ut_ch(w, "u2.core.power"));
    pcs_world_destroy(w);
}

Test(unit, xenon_builds_up_after_the_scram)
{
    /* SLOW runs advance 72 s of xenon time per simulated second (k_slow 72),
     * so 2 h of xenon take 100 s (2000 ticks). */
    pcs_unit_def c;
    pcs_unit_default(&c);
    pcs_unit *u;
    pcs_world *w = ut_unit_world(&c, NULL, &u);
    double xe0 = ut_ch(w, "u1.xenon.reactivity");
    ctl_unit_command(w, PCS_UNIT_OP_SCRAM, 1, 0, 0);
    ut_ticks(w, 2000);
    double xe1 = ut_ch(w, "u1.xenon.reactivity");
    cr_expect_lt(xe1, xe0 - 0.005, "xenon %g -> %g over 2 h of xenon time", xe0, xe1);
    pcs_unit_reactivity r;
    pcs_unit_reactivity_get(u, &r);
    cr_expect_eq(r.xenon, xe1, "the kinetics stage uses the merged xenon worth");
    pcs_world_destroy(w);
}

Test(unit, ticks_allocate_nothing)
{
    pcs_unit_def c;
    pcs_unit_default(&c);
    c.banks[0].initial_pos = 0.5;
    pcs_unit *u;
    pcs_world *w = ut_unit_world(&c, NULL, &u);
    ctl_unit_command(w, PCS_UNIT_OP_ROD_POSITION, 1, 0, 0.6);
    ut_ticks(w, 1); /* seals the world */
    uint64_t before = pcs_world_alloc_count(w);
    ut_ticks(w, 5000);
    ctl_unit_command(w, PCS_UNIT_OP_SCRAM, 1, 0, 0);
    ut_ticks(w, 5000);
    cr_expect_eq(pcs_world_alloc_count(w), before, "%llu allocations in 10,000 ticks",
                 (unsigned long long)(pcs_world_alloc_count(w) - before));
    pcs_world_destroy(w);
}
