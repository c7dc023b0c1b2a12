/**
 * @file primary_internal.h
 * @brief The primary model's private layout, shared by primary_build.c
 *        (definition, network, stores, commands, channels, load check),
 *        primary_step.c (the tick) and primary_init.c (the steady state).
 */
#ifndef PCS_PHYSICS_PRIMARY_INTERNAL_H
#define PCS_PHYSICS_PRIMARY_INTERNAL_H

#include "pcsim/primary.h"
#include "pcsim/system.h"
#include "pcsim/thnet.h"

/* Elements of the pzr store. */
enum { PZR_M_LIQ, PZR_U_LIQ, PZR_M_VAP, PZR_U_VAP, PZR_P, PZR_H_LIQ, PZR_H_VAP, PZR_PORV, PZR_N };

/* One heat structure (primary_metal.c): nodes node0.. node0 + n - 1 of the
 * metal store, conductances cond0.. in metal_cond; each face's volume
 * (UINT32_MAX: adiabatic) and film (index into films). */
typedef struct primary_wall {
    uint32_t node0, n, cond0;
    uint32_t vol_a, vol_b, film_a, film_b;
    double area_a_m2, area_b_m2;
} primary_wall;

/* A wetted face's film: h = max(c_flow |W_j|^0.8, h_laminar). */
typedef struct primary_film {
    double c_flow, h_laminar;
    uint32_t junction;
} primary_film;

/* What the last tick applied and found: the outputs and the Courant event
 * read it, and a steady copy (pcs_primary_copy_steady) carries it whole. */
typedef struct primary_last {
    double charging_kg_s, letdown_kg_s; /* the CVCS flows */
    double spray_kg_s, heater_w;        /* the pressurizer's spray and heaters */
    double courant_max;                 /* the network step's largest Courant number */
    uint32_t courant_volume;            /* where */
} primary_last;

struct pcs_primary {
    pcs_primary_def def; /* pointer fields cleared except table */
    char unit[16];
    pcs_thnet *net;
    uint32_t nv, nj, nl, nc, ns;
    /* volume indices */
    uint32_t v_dc, v_lp, v_core0, v_up, v_uh, v_pzr;
    uint32_t v_loop0, per_loop; /* loop l: v_loop0 + l * per_loop + offset */
    /* junction indices */
    uint32_t j_core_in;      /* lower plenum -> first core volume */
    uint32_t j_surge;        /* hot leg 1 -> pressurizer (+ = insurge) */
    uint32_t *j_pump;        /* [nl] pump -> cold leg */
    uint32_t *j_tube;        /* [nl * ns] junction feeding tube volume k of loop l */
    uint32_t *j_from, *j_to; /* [nj] each junction's volumes (the settling's energy sweep) */
    /* derived constants */
    double sg_c_flow;       /* h_i = sg_c_flow |W|^0.8 (Dittus-Boelter at the reference) */
    double sg_h_laminar;    /* Nu 4.36 floor */
    double sg_r_fixed;      /* wall + secondary resistance, m2 K/W on the outside area */
    double sg_area_per_vol; /* outside area per tube volume, m2 */
    double pzr_height_m;    /* V / cross-section: the straight-cylinder span */
    double g;
    /* scratch, world memory */
    double *heat_w;    /* [nv] */
    double *pump_dp;   /* [nj] */
    double *sg_q;      /* [nl] */
    double *t_prev;    /* [nv] the settling's previous temperatures */
    double *h_sweep;   /* [nv] the settling's steady enthalpies */
    double *vol_m3;    /* [nv] volumes (the load check's mass bound) */
    double *area_m2;   /* [nj] junction areas (its flow bound) */
    double *src_kg_s;  /* [nv] CVCS sources (+ charging into the cold legs, - letdown) */
    double *src_h;     /* [nv] charging enthalpy */
    double *src_c;     /* [nv] charging boron, ppm */
    primary_last last; /* what the last tick applied and found */
    int sg_live;       /* 1: the tubes see the steam side's stores */
    double pzr_relief_kg, pzr_energy_j; /* the pressurizer's relief out and net heat in, the
                                           last step (the balance's) */
    pcs_primary_balance bal;            /* the last tick's (pcs_primary_last_balance) */
    /* metal (primary_metal.c) */
    primary_wall *walls;   /* [n_walls] */
    primary_film *films;   /* [n_films] */
    double *metal_cap;     /* [n_metal] J/K per node (the tube walls' too) */
    double *metal_cond;    /* the walls' inter-node conductances, W/K */
    double *metal_scratch; /* [2 max nodes of a wall] */
    double *metal_w;       /* [nv] heat from the vessel structures into each volume, the last
                              step, W (the settling's energy balance) */
    uint32_t n_walls, n_films, n_metal, tube0; /* tube walls: metal store tube0 + l ns + k */
    double tube_r_half;  /* half the tube wall's resistance, m2 K/W on the outside area */
    double metal_in_w;   /* the last step's net heat into the metal, W */
    uint32_t cmd_family; /* the "primary" command family's first kind */
    /* stores */
    pcs_primary_stores s;
    pcs_pressurizer_def pzr_def;
};

/* Offsets inside a loop block. */
enum {
    LOOP_HOT = 0,
    LOOP_SGI = 1,
    LOOP_TUBE0 = 2, /* then ns tubes, then: */
};
static inline uint32_t loop_vol(const struct pcs_primary *pr, uint32_t l, uint32_t off)
{
    return pr->v_loop0 + l * pr->per_loop + off;
}
static inline uint32_t loop_sgo(const struct pcs_primary *pr, uint32_t l)
{
    return loop_vol(pr, l, LOOP_TUBE0 + pr->ns);
}
static inline uint32_t loop_xo(const struct pcs_primary *pr, uint32_t l)
{
    return loop_vol(pr, l, LOOP_TUBE0 + pr->ns + 1u);
}
static inline uint32_t loop_pump(const struct pcs_primary *pr, uint32_t l)
{
    return loop_vol(pr, l, LOOP_TUBE0 + pr->ns + 2u);
}
static inline uint32_t loop_cold(const struct pcs_primary *pr, uint32_t l)
{
    return loop_vol(pr, l, LOOP_TUBE0 + pr->ns + 3u);
}

/* Pointers to one world's primary stores for a tick or the settling. */
typedef struct primary_view {
    pcs_thnet_state st;
    double *speed, *pump_on, *pzr, *core_heat, *controls, *out, *boron, *metal;
    const double *tube_t; /* the steam side's (sg_model PCS_PRIMARY_SG_TUBE_STORES), else NULL */
    double *tube_heat;
} primary_view;

/* primary_step.c */
void pcs_primary_view(pcs_world *w, const struct pcs_primary *pr, primary_view *v);
/* One step of dt: pumps, network and (if step_pzr) the pressurizer; outputs. */
pcs_status pcs_primary_advance(struct pcs_primary *pr, primary_view *v, double dt, int step_pzr);
/* The pressurizer boundary from the pzr store. */
pcs_status pcs_primary_pzr_boundary(struct pcs_primary *pr, const primary_view *v);
/* UA of one SG tube volume at tube flow w (Dittus-Boelter inside with the
 * laminar floor, wall and secondary film in series; header), W/K. */
double pcs_primary_sg_ua(const struct pcs_primary *pr, double w_kg_s);
/* The tube-side film's resistance on the outside area, (D_o / D_i) / h_i with
 * Dittus-Boelter's h_i at tube flow @p w_kg_s (laminar floor), m2 K / W. */
double pcs_primary_sg_r_inside(const struct pcs_primary *pr, double w_kg_s);
/* primary_metal.c */
/* Structures, films and node arrays from the def (a build step, before the
 * stores: sets n_metal). */
/* Water at the def's reference state (ref_p_pa, ref_t_k) for Dittus-Boelter:
 * viscosity (Pa s), conductivity (W/(m K)) and Prandtl number (primary_build.c). */
pcs_status pcs_primary_ref_film_props(const pcs_primary_def *d, double *mu, double *k,
                                      double *pr_num);
pcs_status pcs_primary_metal_build(pcs_world *w, struct pcs_primary *pr);
/* Every metal node at @p t_k (construction). */
void pcs_primary_metal_fill(const struct pcs_primary *pr, primary_view *v, double t_k);
/* The vessel structures' step (inv_dt 0: the steady profile at the present
 * water temperatures): their heats go into heat_w and metal_w. */
void pcs_primary_metal_step(struct pcs_primary *pr, primary_view *v, double inv_dt);
/* Tube volume k of loop l: the wall step against secondary temperature
 * t_s (inv_dt 0: steady); *q_p: heat out of the water, *q_s: into the
 * secondary, W. */
void pcs_primary_tube_wall_step(struct pcs_primary *pr, primary_view *v, uint32_t l, uint32_t k,
                                double t_s, double inv_dt, double *q_p, double *q_s);
/* primary_step.c: the metal onto its steady profile at the present water
 * and secondary temperatures. */
pcs_status pcs_primary_metal_to_steady(pcs_world *w, struct pcs_primary *pr);
/* The load check of the metal store. */
pcs_status pcs_primary_metal_check(const pcs_world *w, const struct pcs_primary *pr,
                                   const double *t_k);

/* primary_build.c: pump l's command target "uN.pumpK" and channel
 * "uN.pumpK.speed" (the build's, and a reinstalled pump's). */
pcs_status pcs_primary_pump_target(pcs_world *w, struct pcs_primary *pr, uint32_t l);
pcs_status pcs_primary_pump_channel(pcs_world *w, struct pcs_primary *pr, uint32_t l);
/* primary_pump.c: each pump junction's connection to its pump_on element
 * (removed: disconnected); a no-op unless a load brought another structure. */
pcs_status pcs_primary_pumps_sync(struct pcs_primary *pr, const primary_view *v);

/* Outputs from the state. */
void pcs_primary_outputs(const struct pcs_primary *pr, primary_view *v);
pcs_status pcs_primary_system(pcs_world *w, void *ctx);
/* Pressurizer state <-> store. */
void pcs_primary_pzr_get(const double *s, pcs_pressurizer_state *p);
void pcs_primary_pzr_put(const pcs_pressurizer_state *p, double *s);

#endif
