/**
 * @file fuel_cg.c
 * @brief Standalone driver for the fuel's instructions per unit-tick
 *        (valgrind --tool=callgrind), thread CPU time per tick, and its
 *        temperatures after a transient, so two builds of the library can be
 *        compared. The world of bench/fuel_bench.c (props=linear): one unit's
 *        reference core, 4 x 24 x (10 + 2), from its full-power steady state,
 *        power swinging +-10 % over 20 s. Not part of pcsim-bench; build it by
 *        hand:
 *
 *   cc -std=c17 -O2 -g -ffp-contract=off -D_GNU_SOURCE -Iinclude -I. \
 *      bench/callgrind/fuel_cg.c build/libpcsim.a -fopenmp -lmimalloc -lck \
 *      -lxxhash -lhwloc -ljansson -lklu -lm -lpthread -o build/fuel_cg
 *
 *   ./build/fuel_cg N [FILE|-] [ISA]
 *                              N ticks: CPU p50, p95, p99 per tick; with FILE,
 *                              every rod and coolant temperature after the
 *                              N ticks (and after the steady solve) as raw
 *                              doubles, for a diff against another build;
 *                              ISA forces the block passes' variant
 *                              (PCS_FUEL_ISA_*: 0 base, 1 AVX2, 2 AVX-512)
 *   valgrind --tool=callgrind --toggle-collect=measured_tick ./build/fuel_cg N
 *
 * and divide the Ir total by N (measured_tick leaves out the build, the
 * steady solve and the first tick, which seals the world).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/callgrind/cg_common.h"
#include "pcsim/pcsim.h"
#include "physics/thermal/models/fuel_internal.h"

#define FC_P_NOM_W 3.411e9 /* tests/refdata/pwr_plant.md, as fuel_bench.c */

/* The ticks callgrind counts (--toggle-collect=measured_tick). */
__attribute__((noinline)) static pcs_status measured_tick(pcs_world *w)
{
    return pcs_world_tick(w);
}

/* Rod then coolant temperatures, raw, appended to f. */
static int dump(FILE *f, pcs_world *w, const pcs_fuel *fu)
{
    size_t nodes = (size_t)fu->n_channels * fu->n_axial, rod = nodes * fu->n_radial;
    size_t nt = fwrite(pcs_store_data(w, fu->store_t_rod), sizeof(double), rod, f);
    size_t nc = fwrite(pcs_store_data(w, fu->store_t_coolant), sizeof(double), nodes, f);
    return nt == rod && nc == nodes ? 0 : -1;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    int dump_file = argc > 2 && argv[2][0] != '-';
    FILE *out = dump_file ? fopen(argv[2], "wb") : NULL;
    if (n < 1 || (dump_file && !out) || (argc > 3 && pcs_fuel_isa_force(atoi(argv[3])) != PCS_OK)) {
        fprintf(stderr, "usage: fuel_cg N [FILE|-] [ISA] (%s)\n", pcs_last_error());
        return 2;
    }
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.workers = 0;
    pcs_world *w = NULL;
    uint32_t power_store;
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    pcs_fuel fu;
    if (pcs_world_create(&wc, &w) != PCS_OK ||
        pcs_store_register(w, "u1.core.power", sizeof(double), 1, PCS_STORE_STATE, &power_store) !=
            PCS_OK) {
        fprintf(stderr, "fuel_cg: %s\n", pcs_last_error());
        return 1;
    }
    double *power = pcs_store_data(w, power_store);
    *power = FC_P_NOM_W;
    if (pcs_fuel_add(w, 0, &cfg, power_store, 0, &fu) != PCS_OK ||
        pcs_fuel_solve_steady(w, &fu, FC_P_NOM_W) != PCS_OK || (out && dump(out, w, &fu) != 0) ||
        pcs_world_tick(w) != PCS_OK) {
        fprintf(stderr, "fuel_cg: %s\n", pcs_last_error());
        return 1;
    }
    double *cpu = malloc((size_t)n * sizeof *cpu);
    if (!cpu)
        return 1;
    for (long i = 0; i < n; i++) {
        /* +-10 % over 400 ticks (20 s at 0.05 s), as fuel_bench.c */
        double phase = (double)(i % 400) * (2.0 * 3.14159265358979 / 400.0);
        *power = FC_P_NOM_W * (1.0 + 0.1 * sin(phase));
        double t0 = cpu_ns();
        if (measured_tick(w) != PCS_OK) {
            fprintf(stderr, "fuel_cg: tick %ld: %s\n", i, pcs_last_error());
            return 1;
        }
        cpu[i] = cpu_ns() - t0;
    }
    if (out && (dump(out, w, &fu) != 0 || fclose(out) != 0)) {
        fprintf(stderr, "fuel_cg: cannot write the temperatures\n");
        return 1;
    }
    qsort(cpu, (size_t)n, sizeof *cpu, cmp_d);
    printf("fuel_cg: isa %d, %ld ticks, thread CPU per tick p50 %.2f us, p95 %.2f us, p99 %.2f "
           "us\n",
           pcs_fuel_isa_pick(), n, cpu[n / 2] / 1e3, cpu[n * 95 / 100] / 1e3,
           cpu[n * 99 / 100] / 1e3);
    free(cpu);
    pcs_world_destroy(w);
    return 0;
}
