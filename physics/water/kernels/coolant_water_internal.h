/**
 * @file coolant_water_internal.h
 * @brief Layout of the real-water coolant table (coolant.h), shared by the
 *        kernel (coolant_water.c) and its world-heap builder
 *        (physics/water/models/coolant_water_add.c).
 */
#ifndef PCS_PHYSICS_COOLANT_WATER_INTERNAL_H
#define PCS_PHYSICS_COOLANT_WATER_INTERNAL_H

#include "pcsim/coolant.h"

/* Property order inside a table node: one node is 32 contiguous bytes, so a
 * lookup's neighbour pair in T is one 64-byte line. */
enum { CW_CP = 0, CW_K = 1, CW_MU = 2, CW_RHO = 3, CW_NPROP = 4 };

struct pcs_coolant_water {
    pcs_coolant_water_def def;
    double t0, inv_dt; /* rows below the kink: T_top of row 0, 1 / T_top spacing */
    double pk, inv_dp; /* the kink p_sat(623.15 K) and 1 / p spacing above it */
    double xi_scale;   /* n_t - 1 */
    uint32_t n_a;      /* rows up to the kink (or p_max), uniform in T_top */
    uint32_t n_p;      /* all rows: n_a, then those above the kink */
    double *data;      /* [n_p][n_t][CW_NPROP], right after this header */
};

/** Validate @p c; the message names @p fn, the field, its value and range. */
pcs_status cw_check_config(const char *fn, const pcs_coolant_water_def *c);

/** Fill a table into @p block of pcs_coolant_water_bytes(cfg) bytes. */
pcs_status cw_build_into(const char *fn, const pcs_coolant_water_def *cfg, void *block,
                         pcs_coolant_water **out);

#endif
