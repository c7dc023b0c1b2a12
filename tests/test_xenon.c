/**
 * @file test_xenon.c
 * @brief Xenon/samarium: equilibrium, exact steps against the textbook
 *        shutdown solution, and the post-trip peak through the SLOW job.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/clock.h"
#include "pcsim/job.h"
#include "pcsim/system.h"
#include "pcsim/world.h"
#include "pcsim/xenon.h"

static double xt_rel(double x, double ref)
{
    return fabs(x / ref - 1.0);
}

/* Xenon after a trip from equilibrium at t = 0 (Lamarsh & Baratta, section 7.5):
 * X(t) = X0 e^{-lX t} + lI I0/(lX - lI) (e^{-lI t} - e^{-lX t}). */
static double xt_shutdown_xenon(const pcs_xenon_params *p, const pcs_xenon_state *s0, double t)
{
    return s0->xenon * exp(-p->lambda_xe * t) +
           p->lambda_i * s0->iodine / (p->lambda_xe - p->lambda_i) *
               (exp(-p->lambda_i * t) - exp(-p->lambda_xe * t));
}

/* Its maximum, from dX/dt = 0. */
static double xt_peak_time(const pcs_xenon_params *p, const pcs_xenon_state *s0)
{
    double a = p->lambda_i * s0->iodine / (p->lambda_xe - p->lambda_i);
    return log(a * p->lambda_i / ((a - s0->xenon) * p->lambda_xe)) / (p->lambda_i - p->lambda_xe);
}

Test(xenon, equilibrium_is_steady_and_has_the_textbook_worth)
{
    pcs_xenon_params p;
    pcs_xenon_params_default(&p);
    cr_assert_eq(pcs_xenon_params_validate(&p), PCS_OK);
    pcs_xenon_state s, s0;
    pcs_xenon_equilibrium(&p, 1.0, &s);
    s0 = s;
    for (int k = 0; k < 1000; k++)
        pcs_xenon_step(&p, &s, 1.0, 72.0);
    cr_expect_lt(xt_rel(s.xenon, s0.xenon), 1e-13);
    cr_expect_lt(xt_rel(s.iodine, s0.iodine), 1e-13);
    cr_expect_lt(xt_rel(s.samarium, s0.samarium), 1e-13);
    /* rho_X,eq = -(g_I + g_X)/nu * sF/(l_X + sF), sF = 2.65e-18 * 5e13 = 1.325e-4:
     * -(0.06627/2.43) * 1.325e-4/1.534e-4 = -0.0235560 (hand computed). */
    cr_expect_lt(fabs(s.rho_xe + 0.0235560), 1e-6, "rho_xe %.7f", s.rho_xe);
    /* rho_Sm,eq = -g_Pm/nu = -0.0113/2.43 = -0.00465021 */
    cr_expect_lt(fabs(s.rho_sm + 0.0113 / 2.43), 1e-15, "rho_sm %.8f", s.rho_sm);
}

Test(xenon, step_matches_closed_form_shutdown_solution)
{
    pcs_xenon_params p;
    pcs_xenon_params_default(&p);
    pcs_xenon_state s, s0;
    pcs_xenon_equilibrium(&p, 1.0, &s0);
    s = s0;
    for (int k = 1; k <= 1000; k++) { /* 72 s steps to 20 h */
        pcs_xenon_step(&p, &s, 0.0, 72.0);
        double t = 72.0 * k;
        cr_assert_lt(xt_rel(s.xenon, xt_shutdown_xenon(&p, &s0, t)), 1e-12, "t = %g s", t);
        cr_assert_lt(xt_rel(s.iodine, s0.iodine * exp(-p.lambda_i * t)), 1e-12);
    }
}

Test(xenon, long_and_short_steps_agree)
{
    /* Closed-form steps compose: one 2 h step equals 100 steps of 72 s, for a
     * power change (0.3 -> 0.8) that exercises every term. */
    pcs_xenon_params p;
    pcs_xenon_params_default(&p);
    pcs_xenon_state a, b;
    pcs_xenon_equilibrium(&p, 0.3, &a);
    b = a;
    pcs_xenon_step(&p, &a, 0.8, 7200.0);
    for (int k = 0; k < 100; k++)
        pcs_xenon_step(&p, &b, 0.8, 72.0);
    cr_expect_lt(xt_rel(a.xenon, b.xenon), 1e-12);
    cr_expect_lt(xt_rel(a.iodine, b.iodine), 1e-12);
    cr_expect_lt(xt_rel(a.promethium, b.promethium), 1e-12);
    cr_expect_lt(xt_rel(a.samarium, b.samarium), 1e-12);
}

Test(xenon, samarium_builds_up_after_shutdown_to_its_limit)
{
    /* At zero power all Pm-149 becomes Sm-149: sm -> sm0 + pm0. */
    pcs_xenon_params p;
    pcs_xenon_params_default(&p);
    pcs_xenon_state s, s0;
    pcs_xenon_equilibrium(&p, 1.0, &s0);
    s = s0;
    pcs_xenon_step(&p, &s, 0.0, 1e8);
    cr_expect_lt(xt_rel(s.samarium, s0.samarium + s0.promethium), 1e-12);
    cr_expect_lt(s.rho_sm, s0.rho_sm);
}

/* A world whose only model is the xenon job; the test feeds relative power. */
typedef struct xt_world {
    pcs_world *w;
    uint32_t state, power;
} xt_world;

static void xt_world_make(xt_world *x, const pcs_xenon_params *p, uint32_t phase)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    cr_assert_eq(pcs_world_create(&cfg, &x->w), PCS_OK);
    cr_assert_eq(pcs_store_register(x->w, "u1.xenon.state", sizeof(double), PCS_XENON_STATE_LEN,
                                    PCS_STORE_STATE, &x->state),
                 PCS_OK);
    cr_assert_eq(
        pcs_store_register(x->w, "u1.xenon.power", sizeof(double), 2, PCS_STORE_STATE, &x->power),
        PCS_OK);
    pcs_xenon_equilibrium(p, 1.0, pcs_store_data(x->w, x->state));
    double *pw = pcs_store_data(x->w, x->power);
    pw[0] = 1.0, pw[1] = 1.0;
    cr_assert_eq(pcs_xenon_add(x->w, "u1.xenon", p, x->state, x->power, phase, NULL), PCS_OK);
}

/* One tick, then the power sample the kinetics stage would add during it. */
static void xt_tick(xt_world *x, double p_rel)
{
    cr_assert_eq(pcs_world_tick(x->w), PCS_OK, "%s", pcs_last_error());
    double *pw = pcs_store_data(x->w, x->power);
    pw[0] += p_rel;
    pw[1] += 1.0;
}

/*
 * Trip at tick `phase` from equilibrium (power 0 from that tick's kinetics on); the
 * physical time of the xenon maximum seen through the job. The run submitted
 * at tick 20k + phase covers xenon time [72k, 72(k+1)) s with the power averaged over
 * the SLOW period before its submit tick, so the first run still sees full
 * power: the job's xenon lags the trip by one SLOW step, and the state merged
 * at tick 20m + phase is the closed form at 72 (m - 1) s after the trip.
 */
static double xt_job_peak(const pcs_xenon_params *p, uint32_t phase)
{
    xt_world x;
    xt_world_make(&x, p, phase);
    const pcs_clock *c = pcs_world_clock(x.w);
    double step = pcs_clock_domain_step_s(c, PCS_DOMAIN_SLOW);
    cr_assert_eq(step, 72.0, "default SLOW step: 20 ticks * 0.05 s * k_slow 72");
    double best = 0.0, best_t = 0.0;
    uint32_t merges = 0;
    for (long t = 0; t < 24000; t++) {
        double before = ((const pcs_xenon_state *)pcs_store_data(x.w, x.state))->xenon;
        xt_tick(&x, t < (long)phase ? 1.0 : 0.0);
        double now = ((const pcs_xenon_state *)pcs_store_data(x.w, x.state))->xenon;
        int merge_tick = (t % 20) == (long)phase && t >= 20;
        if (!merge_tick) {
            cr_assert_eq(now, before, "xenon changed outside a merge tick (%ld)", t);
            continue;
        }
        merges++;
        if (now > best) {
            best = now;
            best_t = step * (double)(merges - 1);
        }
    }
    pcs_world_destroy(x.w);
    return best_t;
}

Test(xenon, peak_after_trip_through_the_slow_job)
{
    pcs_xenon_params p;
    pcs_xenon_params_default(&p);
    pcs_xenon_state s0;
    pcs_xenon_equilibrium(&p, 1.0, &s0);
    double t_closed = xt_peak_time(&p, &s0);
    /* Computed: 9.464 h with the default flux 5e13 n/(cm^2 s). */
    cr_expect_lt(fabs(t_closed / 3600.0 - 9.4643), 1e-3, "closed form %.4f h", t_closed / 3600.0);
    double t_job = xt_job_peak(&p, 0);
    /* Sampled every 72 s: within half a SLOW step of the closed form. */
    cr_expect_leq(fabs(t_job - t_closed), 36.0, "job peak %.0f s, closed form %.0f s", t_job,
                  t_closed);
    cr_expect(t_job > 9.0 * 3600.0 && t_job < 11.5 * 3600.0, "peak at %.2f h", t_job / 3600.0);
}

Test(xenon, peak_time_moves_to_ten_hours_at_higher_flux)
{
    /* The often-quoted 10-11 h (e.g. IAEA research-reactor training material)
     * belongs to high-flux cores: at 1e14 n/(cm^2 s) the computed peak is 10.30 h. */
    pcs_xenon_params p;
    pcs_xenon_params_default(&p);
    p.flux_nominal = 1e14;
    pcs_xenon_state s0;
    pcs_xenon_equilibrium(&p, 1.0, &s0);
    double t = xt_peak_time(&p, &s0);
    cr_expect(t > 10.0 * 3600.0 && t < 11.0 * 3600.0, "peak at %.3f h", t / 3600.0);
    cr_expect_lt(fabs(t / 3600.0 - 10.3008), 1e-3);
    cr_expect_leq(fabs(xt_job_peak(&p, 7) - t), 36.0);
}

Test(xenon, bad_parameters_are_rejected_with_their_name)
{
    pcs_xenon_params p;
    pcs_xenon_params_default(&p);
    p.lambda_i = 0.0;
    cr_expect_eq(pcs_xenon_params_validate(&p), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "xenon.lambda_i") != NULL, "%s", pcs_last_error());
    pcs_xenon_params_default(&p);
    p.nu = 0.5;
    cr_expect_eq(pcs_xenon_params_validate(&p), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "xenon.nu") != NULL, "%s", pcs_last_error());
    pcs_xenon_params_default(&p);
    p.flux_nominal = -1.0;
    cr_expect_eq(pcs_xenon_params_validate(&p), PCS_E_INVAL);
}
