/**
 * @file test_thnet_connect.c
 * @brief Junctions disconnected and connected again while a network runs
 *        (pcsim/thnet.h, "Connection"): no flow while out, KLU's analysis
 *        re-run exactly when the matrix pattern changed, allocation only on
 *        the change, mass and energy closing through it.
 *
 * The network: four liquid volumes in a ring 0 -> 1 -> 2 -> 3 -> 0, a pump
 * on junction 0 (0 -> 1) and a bypass, junction 4, between the same two
 * volumes. Junction 4 shares its pattern entries with junction 0, so taking
 * it out keeps the pattern; junction 0 then is the last link between 0 and
 * 1, and taking it out too drops two entries.
 *
 * Its checks are static functions, run in groups by the Tests at the end of
 * the file, one process a group (issue 19's test cost); each group's comment
 * lists what it checks.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/thnet.h"
#include "tests/alloc_count.h"

typedef struct ring {
    pcs_thnet *net;
    pcs_thnet_state s;
    void *mem;
    double m0, u0, added; /* start totals, energy the inputs added since */
    int steps;
} ring;

static void ring_make(ring *r)
{
    pcs_thnet_volume_def v[4];
    for (int i = 0; i < 4; i++) {
        pcs_thnet_volume_default(&v[i]);
        v[i].p_pa = 15.5e6, v[i].h_j_kg = 1.3e6;
    }
    const uint32_t from[5] = {0, 1, 2, 3, 0}, to[5] = {1, 2, 3, 0, 1};
    pcs_thnet_junction_def j[5];
    for (int k = 0; k < 5; k++) {
        pcs_thnet_junction_default(&j[k]);
        j[k].from = from[k], j[k].to = to[k], j[k].area_m2 = 0.05, j[k].length_m = 4.0;
        j[k].form_loss = 2.0;
        j[k].flow_kg_s = k == 0 || k == 4 ? 100.0 : 200.0;
    }
    pcs_thnet_def d;
    pcs_thnet_default(&d);
    d.volumes = v, d.n_volumes = 4, d.junctions = j, d.n_junctions = 5, d.gravity_m_s2 = 0.0;
    cr_assert_eq(pcs_thnet_create(&d, &r->net), PCS_OK, "%s", pcs_last_error());
    size_t bytes = pcs_thnet_state_bytes(r->net);
    r->mem = malloc(bytes);
    cr_assert_eq(pcs_thnet_state_bind(r->net, r->mem, bytes, &r->s), PCS_OK);
    cr_assert_eq(pcs_thnet_state_init(r->net, &r->s), PCS_OK, "%s", pcs_last_error());
    pcs_thnet_totals(r->net, &r->s, &r->m0, &r->u0);
    r->added = 0.0;
    r->steps = 0;
}

static void ring_free(ring *r)
{
    pcs_thnet_destroy(r->net);
    free(r->mem);
}

/* n steps of 0.05 s with 0.2 MPa of pump head on junction 0 and 1 MW into
 * volume 2; each step's mass and energy closure to the bounds of
 * tests/test_thnet.c conservation_closed_loop (1e-12 and 1e-9 per step,
 * relative), and no allocation. */
static void ring_steps(ring *r, int n)
{
    double heat[4] = {0, 0, 1e6, 0}, pump[5] = {0.2e6, 0, 0, 0, 0};
    pcs_thnet_inputs in = {.heat_w = heat, .pump_dp_pa = pump};
    for (int i = 0; i < n; i++) {
        pcs_thnet_report rep;
        pcs_test_alloc_begin();
        pcs_status st = pcs_thnet_step(r->net, &r->s, &in, 0.05, &rep);
        uint64_t allocs = pcs_test_alloc_end();
        cr_assert_eq(st, PCS_OK, "step %d: %s", r->steps, pcs_last_error());
        cr_assert_eq(allocs, 0, "step %d allocated %llu times", r->steps,
                     (unsigned long long)allocs);
        r->steps++;
        r->added += rep.heat_in_j + rep.pump_work_j;
        double m, u;
        pcs_thnet_totals(r->net, &r->s, &m, &u);
        double em = fabs(m - r->m0) / r->m0, ee = fabs(u - r->u0 - r->added) / r->u0;
        cr_assert(em <= 1e-12 * r->steps, "step %d: |M - M0|/M0 = %g", r->steps, em);
        cr_assert(ee <= 1e-9 * r->steps, "step %d: energy balance %g", r->steps, ee);
    }
}

static uint64_t analyses(const ring *r)
{
    uint64_t a = 0, f = 0;
    pcs_thnet_klu_counts(r->net, &a, &f);
    cr_assert_eq(a, f, "every analysis is followed by one factorisation: %llu, %llu",
                 (unsigned long long)a, (unsigned long long)f);
    return a;
}

/* connect/disconnect junction j; returns the allocations it made (the
 * spare pattern means none unless KLU re-analyses) */
static uint64_t set(ring *r, uint32_t j, int connected)
{
    pcs_test_alloc_begin();
    pcs_status st = pcs_thnet_junction_connect(r->net, &r->s, j, connected);
    uint64_t n = pcs_test_alloc_end();
    cr_assert_eq(st, PCS_OK, "connect %u %d: %s", j, connected, pcs_last_error());
    cr_assert_eq(pcs_thnet_junction_connected(r->net, j), connected);
    return n;
}

static void pattern_reanalysed_only_when_it_changed(void)
{
    ring r;
    ring_make(&r);
    ring_steps(&r, 20);
    cr_assert_eq(analyses(&r), 1, "create analyses once");

    /* the bypass shares volumes 0 and 1 with the pump junction: same pattern */
    cr_expect_eq(set(&r, 4, 0), 0, "a disconnect that keeps the pattern allocates nothing");
    cr_expect_eq(analyses(&r), 1);
    cr_expect_eq(r.s.flow_kg_s[4], 0.0);
    ring_steps(&r, 20);
    cr_expect_eq(r.s.flow_kg_s[4], 0.0, "a disconnected junction stays at rest");
    cr_expect(r.s.flow_kg_s[1] > 100.0, "the pump still drives the ring: %g", r.s.flow_kg_s[1]);

    /* the pump junction is the last link 0 -> 1: the pattern loses two entries */
    set(&r, 0, 0);
    cr_expect_eq(analyses(&r), 2);
    /* The ring is now an open chain 1 -> 2 -> 3 -> 0 of liquid: what still
       moves compresses the end volume. 200 kg/s into 1 m3 of liquid at
       (d rho/d p) ~ 1.3e-6 kg/(m3 Pa) raises its pressure by ~3 MPa per
       0.02 s, far more than the 4 m x 0.05 m2 column's flow can overcome:
       the column stops within a few steps. 40 steps (2 s) is far past it;
       the bound 1 kg/s is 0.5 % of the flow before. */
    ring_steps(&r, 40);
    for (int k = 0; k < 5; k++)
        cr_expect(fabs(r.s.flow_kg_s[k]) < 1.0, "junction %d flow %g kg/s after 2 s out", k,
                  r.s.flow_kg_s[k]);
    cr_expect_eq(r.s.flow_kg_s[0], 0.0);

    /* back: the first reconnect restores the pattern, the second keeps it */
    set(&r, 0, 1);
    cr_expect_eq(analyses(&r), 3);
    cr_expect_eq(set(&r, 4, 1), 0);
    cr_expect_eq(analyses(&r), 3);
    /* a call that changes nothing is a no-op */
    cr_expect_eq(set(&r, 4, 1), 0);
    cr_expect_eq(analyses(&r), 3);
    ring_steps(&r, 40);
    cr_expect(r.s.flow_kg_s[0] > 10.0 && r.s.flow_kg_s[1] > 10.0,
              "the pump drives the ring again: %g, %g kg/s", r.s.flow_kg_s[0], r.s.flow_kg_s[1]);
    ring_free(&r);
}

static void refusals_name_the_junction(void)
{
    ring r;
    ring_make(&r);
    cr_expect_eq(pcs_thnet_junction_connect(r.net, &r.s, 5, 0), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "junctions[5]") != NULL, "%s", pcs_last_error());
    cr_expect_eq(pcs_thnet_junction_connect(NULL, &r.s, 0, 0), PCS_E_INVAL);
    cr_expect_eq(pcs_thnet_junction_connected(r.net, 5), 0);
    cr_expect_eq(pcs_thnet_junction_connected(NULL, 0), 0);
    cr_expect_eq(analyses(&r), 1);
    ring_free(&r);
}

/* Issue 19's budget: Criterion runs every Test in its own process, and under
 * ASan a process costs ~0.2 s before it checks anything, so the checks above
 * run grouped, one process per behaviour, in the order listed. Each keeps its
 * own assertions and messages; a failure names the check's line. */

/* The pattern is reanalysed only when it changed; refusals name the junction. */
Test(thnet_connect, reanalysis_and_refusals)
{
    pattern_reanalysed_only_when_it_changed();
    refusals_name_the_junction();
}
