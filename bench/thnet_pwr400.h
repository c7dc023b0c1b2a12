/**
 * @file thnet_pwr400.h
 * @brief A 400-volume two-phase network (pcsim/thnet.h) for the benchmarks:
 *        a 4-loop PWR primary with a two-phase pressurizer, gravity, pumps
 *        as head inputs, core heat and steam-generator cooling, on the (p, h)
 *        tables. Shared by bench/thnet_bench.c and the callgrind driver
 *        bench/callgrind/thnet_cg.c.
 */
#ifndef PCS_BENCH_THNET_PWR400_H
#define PCS_BENCH_THNET_PWR400_H

#include <stdint.h>

#include "pcsim/thnet.h"
#include "pcsim/water_ph.h"

/** Volumes and junctions of the network (thnet_pwr400.c explains them). */
#define THB_VOLUMES 400u
#define THB_JUNCTIONS 403u

/** The network, its state and the inputs of a step. */
typedef struct thb_net {
    pcs_water_ph_table *table; /**< owned unless borrowed (thb_create's table) */
    int own_table;
    pcs_thnet *net;
    pcs_thnet_state s;
    void *mem;
    double heat[THB_VOLUMES];
    double pump[THB_JUNCTIONS];
    pcs_thnet_inputs in;
    pcs_thnet_report last;
    uint64_t steps;
} thb_net;

/**
 * Build the network on @p table (NULL: build the default table and own it),
 * initialise it and run @p settle_steps steps of 0.05 s so that it ticks
 * near its steady state.
 * @return 0, or -1 with the reason in pcs_last_error() (nothing is leaked).
 */
int thb_create(thb_net *x, pcs_water_ph_table *table, uint32_t settle_steps);

/** Set the inputs from the state (SG cooling follows T) and step 0.05 s. */
pcs_status thb_step(thb_net *x);

/** Free everything thb_create made. */
void thb_destroy(thb_net *x);

/** Loop flow (kg/s, the hot leg's first junction of loop 0) and the
 *  pressurizer's pressure, void fraction and the core outlet temperature. */
void thb_summary(const thb_net *x, double *loop_flow, double *p_pzr, double *alpha_pzr,
                 double *t_core_out);

#endif
