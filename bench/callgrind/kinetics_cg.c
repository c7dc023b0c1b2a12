/**
 * @file kinetics_cg.c
 * @brief Standalone driver for the instructions (valgrind --tool=callgrind)
 *        and inhour-root solves per tick of the per-tick kinetics benchmarks
 *        (bench/kinetics_bench.c), so two builds of the kernel can be
 *        compared whatever the machine's load. One tick = one 0.05 s
 *        pcs_kinetics_step with the sub-steps the unit would take:
 *          const    +0.1 $ held (Keepin U-235, Lambda = 2e-5 s);
 *          ramp     0.1 $/s (THERMAL_II), sub-steps of at most 1e-5;
 *          scram5   -10 $ over 2 s (Keepin), sub-steps of at most 1e-5 (163);
 *          scram4   the same with at most 1e-4 (17).
 *        Each restarts from equilibrium at the end of its cycle (1024, 200,
 *        40, 40 ticks), as the benchmarks do. Not part of pcsim-bench; build
 *        it by hand:
 *
 *   cc -std=c17 -O2 -g -ffp-contract=off -D_GNU_SOURCE -Iinclude -I. \
 *      bench/callgrind/kinetics_cg.c build/libpcsim.a -fopenmp -lmimalloc -lck \
 *      -lxxhash -lhwloc -ljansson -lklu -lm -lpthread -o build/kinetics_cg
 *
 *   ./build/kinetics_cg CASE N      N ticks of CASE: root solves per tick,
 *                                   thread CPU ns per tick, final n
 *   valgrind --tool=callgrind --toggle-collect=measured_ticks \
 *       ./build/kinetics_cg CASE N
 *
 * and divide the Ir total by N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/callgrind/cg_common.h"
#include "pcsim/kinetics.h"

#define KC_DT 0.05

typedef struct kc_case {
    pcs_kinetics_params p;
    pcs_kinetics_modes m;
    double y[PCS_KINETICS_MAX_MODES];
    double rho0, rate, drho_max;
    uint32_t cycle, tick;
} kc_case;

/* THERMAL_II of tests/refdata/README.md (Ganapol 2013). */
static void kc_thermal_2(pcs_kinetics_params *p)
{
    static const double lam[6] = {0.0127, 0.0317, 0.115, 0.311, 1.40, 3.87};
    static const double b[6] = {0.000266, 0.001491, 0.001316, 0.002849, 0.000896, 0.000182};
    memset(p, 0, sizeof *p);
    p->n_groups = 6;
    memcpy(p->lambda, lam, sizeof lam);
    memcpy(p->beta, b, sizeof b);
    p->generation_time_s = 2e-5;
}

static int kc_init(kc_case *c, const char *name)
{
    memset(c, 0, sizeof *c);
    double dollars = 0.0, rate = 0.0;
    if (strcmp(name, "ramp") == 0) {
        kc_thermal_2(&c->p);
        rate = 0.1;
        c->cycle = 200;
        c->drho_max = 1e-5;
    } else {
        pcs_kinetics_params_keepin_u235(&c->p, 2e-5);
        if (strcmp(name, "const") == 0) {
            dollars = 0.1;
            c->cycle = 1024;
            c->drho_max = 1e-5;
        } else if (strcmp(name, "scram5") == 0 || strcmp(name, "scram4") == 0) {
            rate = -5.0;
            c->cycle = 40;
            c->drho_max = name[5] == '5' ? 1e-5 : 1e-4;
        } else {
            return -1;
        }
    }
    double beta = pcs_kinetics_beta_total(&c->p);
    c->rho0 = dollars * beta;
    c->rate = rate * beta;
    pcs_kinetics_equilibrium(&c->p, 1.0, c->y);
    return 0;
}

/* The ticks callgrind counts (--toggle-collect=measured_ticks). */
__attribute__((noinline)) static pcs_status measured_ticks(kc_case *c, long n)
{
    for (long i = 0; i < n; i++) {
        if (c->tick == c->cycle) {
            c->tick = 0;
            pcs_kinetics_equilibrium(&c->p, 1.0, c->y);
        }
        double r0 = c->rho0 + c->rate * KC_DT * (double)c->tick;
        double r1 = r0 + c->rate * KC_DT;
        uint32_t ns = pcs_kinetics_substeps(r0, r1, c->drho_max);
        pcs_status st = pcs_kinetics_step(&c->p, &c->m, r0, r1, KC_DT, ns, c->y, NULL);
        if (st != PCS_OK)
            return st;
        c->tick++;
    }
    return PCS_OK;
}

int main(int argc, char **argv)
{
    kc_case c;
    long n = argc > 2 ? atol(argv[2]) : 0;
    if (argc < 3 || n < 1 || kc_init(&c, argv[1]) != 0) {
        fprintf(stderr, "usage: %s const|ramp|scram5|scram4 N\n", argv[0]);
        return 2;
    }
    uint64_t s0 = c.m.solves;
    double t0 = cpu_ns();
    pcs_status st = measured_ticks(&c, n);
    double t1 = cpu_ns();
    if (st != PCS_OK) {
        fprintf(stderr, "kinetics_cg: %s\n", pcs_last_error());
        return 1;
    }
    printf("%s: %ld ticks, %.3f root solves per tick, %.1f ns CPU per tick, n %.17g\n", argv[1], n,
           (double)(c.m.solves - s0) / (double)n, (t1 - t0) / (double)n, c.y[0]);
    return 0;
}
