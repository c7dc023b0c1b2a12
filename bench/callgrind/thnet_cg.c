/**
 * @file thnet_cg.c
 * @brief Standalone driver for instruction counts (valgrind --tool=callgrind),
 *        which do not depend on the machine's load, and for per-operation
 *        thread CPU times (CLOCK_THREAD_CPUTIME_ID: preemption is not
 *        counted, cache and sibling contention is). Not part of pcsim-bench
 *        (the Makefile builds only the .c files directly in bench/); build it by hand:
 *
 *   cc -std=c17 -O2 -g -ffp-contract=off -D_GNU_SOURCE -Iinclude -I. \
 *      -I/usr/include/suitesparse bench/callgrind/thnet_cg.c bench/thnet_pwr400.c \
 *      build/libpcsim.a -fopenmp -lmimalloc -lck -lxxhash -lhwloc -ljansson -lklu -lm \
 *      -lpthread -o build/thnet_cg
 *
 * Modes:
 *   thnet_cg step N [settle]         N steps of the 400-volume network
 *                                     (bench/thnet_pwr400.c) after settle (2000)
 *   thnet_cg lookup KIND N [set]     N (p, h) evaluations cycling over the 4096
 *                                     states of bench/water_ph_bench.c's set
 *                                     (pwr or all; hot: the first 16 pwr states,
 *                                     cache-resident); KIND full (pcs_water_ph_table_lookup),
 *                                     lean (pcs_water_ph_table_rho) or exact
 *                                     (pcs_water_ph_exact)
 * Each prints the CPU time per operation (p50, p95, max over batches of 64
 * lookups, or per step) and a checksum. Instructions per operation:
 *
 *   valgrind --tool=callgrind --toggle-collect=measured_step ./build/thnet_cg step 100 2000
 *   valgrind --tool=callgrind --toggle-collect=pcs_water_ph_table_rho \
 *       ./build/thnet_cg lookup lean 100000
 *
 * and divide the Ir total by N (the toggle counts the function and its callees only).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/callgrind/cg_common.h"
#include "bench/thnet_pwr400.h"
#include "pcsim/rng.h"
#include "pcsim/water.h"
#include "pcsim/water_ph.h"

#define N_STATES 4096u

static void percentiles(const char *what, double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_d);
    printf("%s: p50 %.1f, p95 %.1f, min %.1f, max %.1f (%zu samples)\n", what, v[n / 2],
           v[(size_t)(0.95 * (double)(n - 1))], v[0], v[n - 1], n);
}

/* The measured steps only (the settle steps call thb_step directly), so
   that callgrind's --toggle-collect=measured_step counts N steps. */
__attribute__((noinline)) static pcs_status measured_step(thb_net *x)
{
    return thb_step(x);
}

static int run_steps(long n, long settle)
{
    thb_net x;
    if (thb_create(&x, NULL, (uint32_t)settle) != 0) {
        fprintf(stderr, "thnet_cg: %s\n", pcs_last_error());
        return 1;
    }
    double *t = malloc((size_t)n * sizeof *t), c_max = 0.0;
    for (long k = 0; k < n; k++) {
        const double t0 = cpu_ns();
        if (measured_step(&x) != PCS_OK) {
            fprintf(stderr, "thnet_cg: step %ld: %s\n", k, pcs_last_error());
            return 1;
        }
        t[k] = (cpu_ns() - t0) / 1e3;
        c_max = fmax(c_max, x.last.courant_max);
    }
    double w, p, a, tc;
    thb_summary(&x, &w, &p, &a, &tc);
    printf("loop flow %.1f kg/s, pressurizer %.4f MPa void %.3f, core outlet %.2f K, Courant max "
           "%.3f, full factors %u\n",
           w, p / 1e6, a, tc, c_max, x.last.full_factor);
    percentiles("step CPU us", t, (size_t)n);
    free(t);
    thb_destroy(&x);
    return 0;
}

static int states(double *p, double *h, int all)
{
    pcs_rng rng;
    if (pcs_rng_seed(&rng, 14, 97, 1) != PCS_OK)
        return -1;
    for (uint32_t i = 0; i < N_STATES; i++) {
        double lo, hi;
        if (all) {
            p[i] = 1e3 * pow(31e3, pcs_rng_uniform(&rng));
            if (pcs_water_ph_h_range(p[i], &lo, &hi) != PCS_OK)
                return -1;
        } else {
            p[i] = 0.1e6 + pcs_rng_uniform(&rng) * (17e6 - 0.1e6);
            if (pcs_water_h_pt(p[i], 280.0, &lo) != PCS_OK ||
                pcs_water_h_pt(p[i], 650.0, &hi) != PCS_OK)
                return -1;
        }
        h[i] = lo + pcs_rng_uniform(&rng) * (hi - lo);
    }
    return 0;
}

static int run_lookups(const char *kind, long n, int all, uint32_t mask)
{
    static double p[N_STATES], h[N_STATES];
    pcs_water_ph_table *t = NULL;
    pcs_water_ph_table_def c;
    pcs_water_ph_table_default(&c);
    if (states(p, h, all) != 0 || pcs_water_ph_table_create(&c, &t) != PCS_OK) {
        fprintf(stderr, "thnet_cg: %s\n", pcs_last_error());
        return 1;
    }
    const int k = !strcmp(kind, "full") ? 0 : !strcmp(kind, "lean") ? 1 : 2;
    const long batch = k == 2 ? 8 : 64, nb = (n + batch - 1) / batch;
    double *tb = malloc((size_t)nb * sizeof *tb), sum = 0.0;
    uint32_t i = 0;
    for (long b = 0; b < nb; b++) {
        const double t0 = cpu_ns();
        for (long q = 0; q < batch; q++) {
            pcs_water_ph_state s;
            pcs_water_ph_rho r;
            pcs_status st = k == 0   ? pcs_water_ph_table_lookup(t, p[i], h[i], &s)
                            : k == 1 ? pcs_water_ph_table_rho(t, p[i], h[i], &r)
                                     : pcs_water_ph_exact(p[i], h[i], &s);
            sum += st != PCS_OK ? 0.0 : k == 1 ? r.rho_kg_m3 : s.rho_kg_m3;
            i = (i + 1u) & mask;
        }
        tb[b] = (cpu_ns() - t0) / (double)batch;
    }
    printf("%s lookups, set %s (%u states), checksum %.17g\n", kind, all ? "all" : "pwr", mask + 1u,
           sum);
    percentiles("CPU ns per lookup (batch means)", tb, (size_t)nb);
    free(tb);
    pcs_water_ph_table_destroy(t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "step"))
        return run_steps(atol(argv[2]), argc > 3 ? atol(argv[3]) : 2000);
    if (argc >= 4 && !strcmp(argv[1], "lookup"))
        return run_lookups(argv[2], atol(argv[3]), argc > 4 && argv[4][0] == 'a',
                           argc > 4 && argv[4][0] == 'h' ? 15u : N_STATES - 1u);
    fprintf(stderr,
            "usage: thnet_cg step N [settle] | thnet_cg lookup full|lean|exact N [pwr|all]\n");
    return 2;
}
