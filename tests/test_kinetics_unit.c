/**
 * @file test_kinetics_unit.c
 * @brief The reactor unit's kinetics with the same-tick energy feedback against
 *        Ganapol (2013) Table 4, and the count of inhour-root solves per tick.
 *
 * Ganapol = B.D. Ganapol, Ann. Nucl. Energy 62 (2013), Table 4 (tests/refdata/
 * point_kinetics.csv, case G13_T4c_adiabatic_peak_1$): data set THERMAL_III
 * (tests/refdata/README.md), Lambda = 5e-5 s, rho(t) = 1 $ - B int_0^t n dt,
 * B = 2.5e-6, from critical equilibrium at n = 1; the peak is n = 807.8681 at
 * t = 0.953477 s. Here the unit itself carries the feedback (pcs_unit_def
 * energy_feedback), inside its kinetics system, at the world's 0.05 s tick.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/channel.h"
#include "pcsim/persist.h"
#include "pcsim/system.h"
#include "pcsim/unit.h"
#include "pcsim/world.h"

static pcs_world *ku_world(void)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.check_finite = 1;
    wc.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    return w;
}

/* THERMAL_III of tests/refdata/README.md. */
static void ku_thermal_3(pcs_kinetics_params *p)
{
    static const double lam[6] = {0.0124, 0.0305, 0.111, 0.301, 1.13, 3.00};
    static const double b[6] = {0.00021, 0.00141, 0.00127, 0.00255, 0.00074, 0.00027};
    memset(p, 0, sizeof *p);
    p->n_groups = 6;
    memcpy(p->lambda, lam, sizeof lam);
    memcpy(p->beta, b, sizeof b);
    p->generation_time_s = 5e-5;
}

/* The default unit with Ganapol's Table 4 core: every other reactivity term
 * is zero (rods out, no temperature, boron or poison feedback), so the total
 * is the 1 $ bias minus B W. */
static void ku_ganapol4_def(pcs_unit_def *c)
{
    cr_assert_eq(pcs_unit_default(c), PCS_OK);
    ku_thermal_3(&c->kinetics);
    for (uint32_t b = 0; b < c->n_banks; b++)
        c->banks[b].initial_pos = 1.0;
    c->feedback.doppler_coef = 0.0;
    c->feedback.mtc_per_k = 0.0;
    c->feedback.boron_per_ppm = 0.0;
    c->xenon_equilibrium = 0;
    memset(&c->xenon, 0, sizeof c->xenon);
    pcs_xenon_params_default(&c->xenon);
    c->critical_at_build = 0;
    c->rho_bias = pcs_kinetics_beta_total(&c->kinetics); /* 1 $ */
    c->initial_power_fraction = 1.0;
    c->power_limit_fraction = 1000.0;
    c->energy_feedback = 2.5e-6;
}

Test(kinetics_unit, ganapol_table4c_peak_through_the_unit)
{
    pcs_unit_def cfg;
    ku_ganapol4_def(&cfg);
    pcs_world *w = ku_world();
    pcs_unit *u = NULL;
    cr_assert_eq(pcs_unit_add(w, 1, &cfg, &u), PCS_OK, "%s", pcs_last_error());
    uint32_t ch;
    cr_assert_eq(pcs_channel_find(w, "u1.core.relative_power", &ch), PCS_OK);
    double dt = 0.05, best_n = 0.0, best_t = 0.0, n_prev = 1.0, w_trap = 0.0;
    uint64_t solves0 = pcs_unit_kinetics_solves(u);
    for (int tick = 1; tick <= 40; tick++) { /* 2 s: past the peak */
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
        double n = pcs_channel_value(w, ch);
        w_trap += 0.5 * dt * (n_prev + n);
        n_prev = n;
        if (n > best_n) {
            best_n = n;
            best_t = tick * dt;
        }
    }
    uint64_t solves = pcs_unit_kinetics_solves(u) - solves0;
    /* Reported, not asserted here: the figure bench/README.md compares. */
    cr_log_info("Ganapol 4c through the unit: n_max %.4f at t = %.2f s (Table 4c 807.8681 at "
                "0.953477 s); %llu root solves in 40 ticks",
                best_n, best_t, (unsigned long long)solves);
    cr_expect_lt(fabs(best_n / 807.87 - 1.0), 0.01, "largest n over ticks %.4f, Table 4c 807.87",
                 best_n);
    /* A solve per sub-step and pass took 800. */
    cr_expect_leq(solves, 200, "%llu root solves in 40 ticks", (unsigned long long)solves);
    cr_expect_lt(fabs(best_t - 0.95), 1e-9,
                 "largest n at t = %.2f s, the tick nearest 0.9535 s "
                 "is 0.95 s",
                 best_t);
    /* The reactivity left is 1 $ - B W, its feedback part reported as Doppler:
     * W against the trapezoid of the ticks' n (a 3 % bound: the 0.2 s wide
     * peak is sampled every 0.05 s). */
    pcs_unit_reactivity r;
    pcs_unit_reactivity_get(u, &r);
    double beta = pcs_kinetics_beta_total(&cfg.kinetics);
    cr_expect_eq(r.bias, beta);
    double sum = r.rods + r.doppler + r.moderator + r.boron + r.xenon + r.samarium + r.bias;
    cr_expect_lt(fabs(r.total - sum), 1e-15, "total %.17g, sum of the terms %.17g", r.total, sum);
    cr_expect_eq(r.rods + r.moderator + r.boron, 0.0);
    cr_expect_lt(fabs(-r.doppler / (2.5e-6 * w_trap) - 1.0), 0.03,
                 "feedback %g, -B x trapezoid W %g", r.doppler, -2.5e-6 * w_trap);
    pcs_world_destroy(w);
}

/*
 * Root solves per tick of the default unit while reactivity moves: bank D
 * withdrawn at its drive speed (0.00526 travel/s, about 4e-7 in reactivity
 * per tick), then a scram (-84 $ of rods in 2.9 s). Each distinct
 * reactivity the integrator sees is a root solve unless it reuses the roots
 * it has; the figures are logged for bench/README.md and bounded here.
 */
Test(kinetics_unit, root_solves_per_tick_with_rods_moving)
{
    pcs_unit_def cfg;
    cr_assert_eq(pcs_unit_default(&cfg), PCS_OK);
    cfg.auto_rods = 1;
    pcs_world *w = ku_world();
    pcs_unit *u = NULL;
    cr_assert_eq(pcs_unit_add(w, 1, &cfg, &u), PCS_OK, "%s", pcs_last_error());
    uint32_t auto_id, pos_id;
    cr_assert_eq(pcs_unit_rod_stores(u, &auto_id, &pos_id), PCS_OK);
    double *a = pcs_store_data(w, auto_id);
    a[0] = cfg.banks[0].speed_per_s; /* withdraw bank D */
    a[cfg.n_banks] = 1.0;            /* the automatic control drives bank D */
    uint64_t s0 = pcs_unit_kinetics_solves(u);
    for (int tick = 0; tick < 200; tick++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    uint64_t moving = pcs_unit_kinetics_solves(u) - s0;
    uint32_t *trip = pcs_store_data(w, pcs_unit_trip_store(u));
    *trip = 2u;
    s0 = pcs_unit_kinetics_solves(u);
    for (int tick = 0; tick < 80; tick++) /* 4 s: delay, drop and after */
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    uint64_t scram = pcs_unit_kinetics_solves(u) - s0;
    cr_log_info("root solves per tick: %.3f with bank D withdrawing (200 ticks), %.2f over the 4 s "
                "of a scram (80 ticks)",
                (double)moving / 200.0, (double)scram / 80.0);
    /* With a solve per distinct sub-step reactivity: 1.000 and 72.44. */
    cr_expect_leq(moving, 10, "%llu root solves in 200 ticks of a creeping bank",
                  (unsigned long long)moving);
    cr_expect_leq(scram, 8 * 80, "%llu root solves in the 80 ticks of a scram",
                  (unsigned long long)scram);
    pcs_world_destroy(w);
}

/* The energy W is state: a save in the middle of the excursion loads and
 * continues bit-identically; a bad B is refused naming the field. */
Test(kinetics_unit, energy_feedback_saves_loads_and_is_validated)
{
    pcs_unit_def cfg;
    ku_ganapol4_def(&cfg);
    pcs_world *a = ku_world(), *b = ku_world();
    cr_assert_eq(pcs_unit_add(a, 1, &cfg, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_unit_add(b, 1, &cfg, NULL), PCS_OK, "%s", pcs_last_error());
    for (int tick = 0; tick < 15; tick++) /* 0.75 s: on the rise to the peak */
        cr_assert_eq(pcs_world_tick(a), PCS_OK, "%s", pcs_last_error());
    char path[64];
    snprintf(path, sizeof path, "/tmp/pcsim-kin-energy-%d.save", (int)getpid());
    cr_assert_eq(pcs_world_save(a, path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_load(b, path), PCS_OK, "%s", pcs_last_error());
    remove(path);
    for (int tick = 0; tick < 10; tick++) {
        cr_assert_eq(pcs_world_tick(a), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_world_tick(b), PCS_OK, "%s", pcs_last_error());
    }
    cr_expect_eq(pcs_world_state_hash(b), pcs_world_state_hash(a));
    pcs_world_destroy(a);
    pcs_world_destroy(b);

    cfg.energy_feedback = -1e-6;
    cr_expect_eq(pcs_unit_def_validate(&cfg), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "energy_feedback") != NULL, "%s", pcs_last_error());
}
