/**
 * @file thnet_internal.h
 * @brief The network object shared by thnet_build.c (definition checks, the
 *        CSC pattern, KLU set-up, state helpers) and thnet_step.c (the step).
 */
#ifndef PCS_PHYSICS_THNET_INTERNAL_H
#define PCS_PHYSICS_THNET_INTERNAL_H

#include <klu.h>

#include "pcsim/thnet.h"

struct pcs_thnet {
    uint32_t nv, nj;
    pcs_thnet_volume_def *vol;   /* [nv] copy of the definitions */
    pcs_thnet_junction_def *jun; /* [nj] */
    pcs_thnet_eos eos;
    double g;

    /* Per junction, derived at build. */
    double *zj;   /* junction elevation, m */
    double *diam; /* hydraulic diameter, m */
    /* Per junction, per step: W' = a + bf p_f' - bt p_t'. */
    double *a, *bf, *bt;
    double *hd_pred;          /* donor enthalpy the matrix assumed */
    signed char *dir;         /* donor side the matrix assumed: +1 from, -1 to */
    double *hd_slope;         /* choked: extra energy flux per Pa of p_up' - p_up, J/(s Pa) */
    double *pump_w;           /* pump work S W / rho, W (explicit) */
    pcs_thnet_choke *choke;   /* critical flow at the step start */
    unsigned char *is_choked; /* 1 if W was set to the critical flow */

    /* Per volume, per step. */
    pcs_thnet_props *props; /* at the step start */
    double *props_at;       /* [2 nv] the (p, h) props[i] was evaluated at (NaN: none):
                               the last step's end-of-step props, reused by the next
                               step's start while the state's (p, h) is unchanged */
    double *ca, *cb;        /* dp = ca dM + cb dU */
    double *sc;             /* scalar mass C M during the transport */
    double *bk;             /* [10 nv + nj] start-of-step state for a sub-step retry
                               (8 volume arrays, the scalar, the flows) and the linear
                               solve's pressures */

    /* Connection (pcs_thnet_junction_connect): 1 per disconnected junction,
       which carries no flow and has no entries in the matrix (pos_ft and
       pos_tf -1). */
    unsigned char *off;
    uint32_t n_off;
    /* KLU work done since create: klu_analyze runs (1 at create, +1 per
       connection change that changed the pattern) and the full klu_factor
       runs after one (pcs_thnet_klu_counts). */
    uint64_t n_analyze, n_factor_pattern;

    /* Linear system, CSC (KLU's int32 interface). */
    int n, nnz;
    int *ap, *ai;
    double *ax, *rhs;
    /* A spare pattern (ap, ai) and the entries that sort into it: arrays of
       the all-connected size, so a connection change compares and swaps
       without allocating (KLU's own analysis then allocates). */
    struct thnet_entry *pat_e;
    int *pat_ap, *pat_ai;
    int *pos_diag;        /* [nv] */
    int *pos_ft, *pos_tf; /* [nj] entry (row f, col t) and (row t, col f) */
    klu_common common;
    klu_symbolic *symbolic;
    klu_numeric *numeric;
};

/* Derived arrays from (M, U) (pcs_thnet_state_update); keep: also store
   each volume's props in net->props and net->props_at. thnet_build.c. */
pcs_status pcs_thnet_update(const pcs_thnet *net, pcs_thnet_state *s, int keep);

/* Assemble, factor (refactor, or full factor when rcond is low) and solve.
   thnet_build.c. */
pcs_status pcs_thnet_factor_solve(pcs_thnet *net, double *rcond, uint32_t *full);

#endif
