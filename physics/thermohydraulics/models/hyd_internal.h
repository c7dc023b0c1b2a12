/**
 * @file hyd_internal.h
 * @brief Hydraulics' private layout shared by its build and solve files.
 */
#ifndef PCS_PHYSICS_HYD_INTERNAL_H
#define PCS_PHYSICS_HYD_INTERNAL_H

#include <klu.h>

#include "pcsim/hydraulics.h"
#include "pcsim/system.h"
#include "physics/thermohydraulics/kernels/friction.h"

struct pcs_hydraulics {
    pcs_hydraulics_def cfg;      /* counts and constants; array pointers cleared */
    uint32_t unit;
    pcs_hydraulics_node *nodes;     /* copies in world memory */
    pcs_hydraulics_junction *junctions;
    pcs_hydraulics_pump *pumps;
    double *compliance;      /* per node, kg/Pa */
    /* STATE stores */
    uint32_t s_mass, s_enthalpy, s_pressure, s_flow, s_speed, s_motor, s_valve, s_pzr;
    /* SCRATCH / output stores */
    uint32_t s_temp, s_sg_heat, s_core;
    /* sparse pressure system, CSC pattern fixed at build */
    int n;
    int *ap, *ai;
    double *ax, *rhs;
    int *pos_diag;           /* per node: index of (i, i) in ax */
    int *pos_ft, *pos_tf;    /* per junction: (from, to) and (to, from) */
    double *a, *b;           /* per junction: m' = a + b (p_f' - p_t') */
    double *h_new;           /* per node scratch */
    klu_common common;
    klu_symbolic *symbolic;
    klu_numeric *numeric;
    uint32_t *pzr_nodes, n_pzr;
    uint32_t n_core;         /* CORE nodes, which share the core heat equally */
    double courant_max;      /* largest Courant number the transport accepts (hyd_build.c) */
};

/*
 * Ranges a saved state must lie in (hyd_build.c's load check) and that bound
 * the transport's sub-steps (hyd_solve.c). A node's density mass / V stays
 * within a factor HYD_DENSITY_FACTOR of the configured rho: the compliance
 * model is linear (dM = C dp, dM/M = dp / (rho a^2), 2 % at 15 MPa with the
 * defaults), so a node twice as dense or half as dense is outside it. No flow
 * is faster than sound at that density: |m_j| <= F rho a A_j. The Courant
 * number dt |m_j| / M_donor is then at most F^2 dt a A_j / V_donor, which the
 * build takes over all junctions as courant_max (a geometry-derived cap, at
 * most 0.9 * (HYD_SUBSTEPS_MAX - 1) so the sub-step count fits any integer).
 */
#define HYD_DENSITY_FACTOR 2.0
#define HYD_SUBSTEPS_MAX 65536u
#define HYD_COURANT_PER_SUBSTEP 0.9

/* physics/thermohydraulics/models/pump.c */
double pcs_pump_dp(const pcs_hydraulics_pump *p, double speed, double flow);
double pcs_pump_loss_coeff(const pcs_hydraulics_pump *p);
double pcs_pump_torque_coeff(const pcs_hydraulics_pump *p, double rho);
double pcs_pump_shaft_step(const pcs_hydraulics_pump *p, double c, double speed, double target,
                           double dt);

/* physics/thermohydraulics/models/hyd_solve.c */
pcs_status pcs_hydraulics_solve(pcs_world *w, void *ctx);
pcs_status pcs_hydraulics_momentum_pressure(pcs_world *w, pcs_hydraulics *h, double dt);
void pcs_hydraulics_assemble(pcs_world *w, pcs_hydraulics *h, double dt);
void pcs_hydraulics_outputs(pcs_world *w, pcs_hydraulics *h);

#endif
