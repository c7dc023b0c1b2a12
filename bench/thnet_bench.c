/**
 * @file thnet_bench.c
 * @brief The two-phase network (issue 14): one pcs_thnet_step of the
 *        400-volume, 403-junction network of bench/thnet_pwr400.c (a 4-loop
 *        primary with a two-phase pressurizer, gravity, pumps as head
 *        inputs, core heat and SG cooling) on the default (p, h) table;
 *        target <= 150 us per step, 0 bytes allocated per step.
 *
 * One operation is one step of 0.05 s, its inputs (SG cooling from the
 * volumes' temperatures) included. The setup builds the table (~0.3 s CPU)
 * and settles the network for 2000 steps (100 s of plant time), so the
 * measured steps run near a steady state: one linear solve per step, the
 * inversion converging from the predicted pressure. With PCS_BENCH_REPORT=1
 * the setup prints the settled state (loop flow, pressurizer pressure and
 * void, core outlet temperature, largest Courant number).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "bench/thnet_pwr400.h"

static void *tn_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    thb_net *x = malloc(sizeof *x);
    if (!x || thb_create(x, NULL, 2000) != 0) {
        fprintf(stderr, "thnet bench: %s\n", pcs_last_error());
        free(x);
        return NULL;
    }
    const char *e = getenv("PCS_BENCH_REPORT");
    if (e && *e && *e != '0') {
        double w, pz, a, tc;
        thb_summary(x, &w, &pz, &a, &tc);
        fprintf(stderr,
                "thnet.step_400: loop flow %.1f kg/s, pressurizer %.4f MPa void %.3f, core "
                "outlet %.2f K, Courant %.3f\n",
                w, pz / 1e6, a, tc, x->last.courant_max);
    }
    return x;
}

static void tn_teardown(void *ctx)
{
    if (ctx)
        thb_destroy(ctx);
    free(ctx);
}

static void tn_run(void *ctx, uint64_t n)
{
    thb_net *x = ctx;
    for (uint64_t k = 0; k < n; k++) {
        pcs_status st = thb_step(x);
        pcs_bench_consume_u64((uint64_t)st);
        if (st != PCS_OK) { /* never expected: say so rather than time errors */
            fprintf(stderr, "thnet.step_400: step %llu: %s\n", (unsigned long long)x->steps,
                    pcs_last_error());
            abort();
        }
    }
    pcs_bench_consume_f64(x->s.p_pa[0]);
}

static const pcs_bench_def tn_def_step = {
    .group = "thnet",
    .name = "step_400",
    .description = "pcs_thnet_step of a 400-volume two-phase network on the (p, h) tables "
                   "(target <= 150 us)",
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .setup = tn_setup,
    .teardown = tn_teardown,
    .run = tn_run,
};
PCS_BENCH_REGISTER(tn_def_step)
