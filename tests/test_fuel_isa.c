/**
 * @file test_fuel_isa.c
 * @brief The fuel sweep's instruction-set variants (fuel_block.h: baseline,
 *        AVX2, AVX-512) give the same bits: each variant this CPU runs is
 *        forced through pcs_fuel_isa_force, the same transient is run, and
 *        the world state hashes must be equal. Variants the CPU cannot run
 *        must be refused, not silently replaced.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "pcsim/pcsim.h"
#include "physics/thermal/models/fuel_internal.h"

/* A fuel world forced to variant isa, from its steady state at 3411 MWt,
 * 120 ticks of dt 0.05 s with the power swinging +-10 % and the flow of
 * channel 0 stepped down by 60 % at tick 40 (a transient in every pass). n_ch 5 x n_ax 7 = 35
 * rod-nodes: the last block of 8 lanes has 5 padding lanes. Returns the state hash. */
static uint64_t run_forced(int isa, uint32_t n_ch, uint32_t n_ax)
{
    cr_assert_eq(pcs_fuel_isa_force(isa), PCS_OK, "%s", pcs_last_error());
    pcs_world_def wc;
    cr_assert_eq(pcs_world_default(&wc), PCS_OK);
    wc.workers = 0;
    wc.dt_s = 0.05;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK, "%s", pcs_last_error());
    uint32_t ps;
    cr_assert_eq(pcs_store_register(w, "u1.core.power", sizeof(double), 1, PCS_STORE_STATE, &ps),
                 PCS_OK);
    double *power = pcs_store_data(w, ps);
    *power = 3.411e9;
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    cfg.n_channels = n_ch;
    cfg.n_axial = n_ax;
    for (uint32_t c = 0; c < n_ch; c++) {
        cfg.n_rods[c] = 50952u / n_ch;
        cfg.peaking[c] = 1.0 + 0.1 * (double)c;
    }
    pcs_fuel f;
    cr_assert_eq(pcs_fuel_add(w, 0, &cfg, ps, 0, &f), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(((const pcs_fuel_model *)f.model)->isa,
                 isa == PCS_FUEL_ISA_AUTO ? pcs_fuel_isa_pick() : isa,
                 "the model did not take the forced variant %d", isa);
    cr_assert_eq(pcs_fuel_solve_steady(w, &f, *power), PCS_OK, "%s", pcs_last_error());
    double *mdot = pcs_store_data(w, f.store_mass_flow);
    for (int i = 0; i < 120; i++) {
        *power = 3.411e9 * (1.0 + 0.1 * sin(0.05 * (double)i));
        if (i == 40)
            mdot[0] *= 0.4;
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "variant %d tick %d: %s", isa, i, pcs_last_error());
    }
    uint64_t h = pcs_world_state_hash(w);
    pcs_world_destroy(w);
    cr_assert_eq(pcs_fuel_isa_force(PCS_FUEL_ISA_AUTO), PCS_OK);
    return h;
}

static int cpu_runs(int isa)
{
#if PCS_FUEL_X86_ISA
    if (isa == PCS_FUEL_ISA_AVX2)
        return __builtin_cpu_supports("avx2");
    if (isa == PCS_FUEL_ISA_AVX512)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#endif
    return isa == PCS_FUEL_ISA_BASE;
}

Test(fuel_isa, every_variant_this_cpu_runs_gives_the_same_hash)
{
    const int isas[] = {PCS_FUEL_ISA_BASE, PCS_FUEL_ISA_AVX2, PCS_FUEL_ISA_AVX512};
    const uint32_t shapes[][2] = {{4, 24}, {5, 7}};
    int ran = 0;
    for (size_t s = 0; s < 2; s++) {
        uint64_t base = run_forced(PCS_FUEL_ISA_BASE, shapes[s][0], shapes[s][1]);
        for (size_t k = 1; k < 3; k++) {
            if (!cpu_runs(isas[k])) {
                cr_assert_eq(pcs_fuel_isa_force(isas[k]), PCS_E_INVAL,
                             "variant %d accepted on a CPU that cannot run it", isas[k]);
                continue;
            }
            uint64_t h = run_forced(isas[k], shapes[s][0], shapes[s][1]);
            cr_assert_eq(h, base, "%u x %u core: variant %d hash %016llx, baseline %016llx",
                         shapes[s][0], shapes[s][1], isas[k], (unsigned long long)h,
                         (unsigned long long)base);
            ran++;
        }
        /* AUTO picks one of them, so it matches too. */
        cr_assert_eq(run_forced(PCS_FUEL_ISA_AUTO, shapes[s][0], shapes[s][1]), base);
    }
    cr_log_info("fuel_isa: %d forced variants compared against the baseline", ran);
}

Test(fuel_isa, unknown_variants_are_refused)
{
    cr_assert_eq(pcs_fuel_isa_force(7), PCS_E_INVAL);
    cr_assert_eq(pcs_fuel_isa_force(-2), PCS_E_INVAL);
    cr_assert_eq(pcs_fuel_isa_pick() == PCS_FUEL_ISA_BASE || cpu_runs(pcs_fuel_isa_pick()), 1);
}
