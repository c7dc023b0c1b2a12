/**
 * @file primary_cg.c
 * @brief Standalone driver for the instructions (valgrind --tool=callgrind)
 *        and thread CPU time per tick of `units` two-phase primaries
 *        (pcsim/primary.h) settled at full power. Not part of pcsim-bench;
 *        build it by hand:
 *
 *   cc -std=c17 -O2 -g -ffp-contract=off -D_GNU_SOURCE -Iinclude -I. \
 *      bench/callgrind/primary_cg.c build/libpcsim.a -fopenmp -lmimalloc -lck \
 *      -lxxhash -lhwloc -ljansson -lklu -lm -lpthread -o build/primary_cg
 *
 *   ./build/primary_cg UNITS N        CPU time per tick: p50, p95, max
 *   valgrind --tool=callgrind --toggle-collect=pcs_world_tick ./build/primary_cg UNITS N
 *
 * and divide the Ir total by N.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/callgrind/cg_common.h"
#include "pcsim/pcsim.h"

int main(int argc, char **argv)
{
    int units = argc > 1 ? atoi(argv[1]) : 1, n = argc > 2 ? atoi(argv[2]) : 1000;
    pcs_water_ph_table_def td;
    pcs_water_ph_table_default(&td);
    pcs_water_ph_table *tab;
    pcs_world_def wd;
    pcs_world_default(&wd);
    pcs_world *w;
    if (units < 1 || n < 1 || pcs_water_ph_table_create(&td, &tab) || pcs_world_create(&wd, &w))
        return 1;
    for (int u = 0; u < units; u++) {
        char name[16];
        snprintf(name, sizeof name, "u%d", u + 1);
        pcs_primary_def d;
        pcs_primary_default(&d);
        d.unit_name = name;
        d.table = tab;
        pcs_primary *pr;
        if (pcs_primary_add(w, &d, &pr) || pcs_primary_init_steady(w, pr, 1.0, NULL)) {
            fprintf(stderr, "%s\n", pcs_last_error());
            return 1;
        }
    }
    double *t = malloc((size_t)n * sizeof *t);
    for (int i = 0; i < n; i++) {
        double t0 = cpu_ns();
        if (pcs_world_tick(w)) {
            fprintf(stderr, "%s\n", pcs_last_error());
            return 1;
        }
        t[i] = cpu_ns() - t0;
    }
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    printf("%d units, %d ticks: CPU per tick p50 %.1f us, p95 %.1f us, max %.1f us; hash %016llx\n",
           units, n, t[n / 2] / 1e3, t[(size_t)(0.95 * n)] / 1e3, t[n - 1] / 1e3,
           (unsigned long long)pcs_world_state_hash(w));
    free(t);
    pcs_world_destroy(w);
    pcs_water_ph_table_destroy(tab);
    return 0;
}
