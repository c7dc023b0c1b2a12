/**
 * @file fuel_internal.h
 * @brief The fuel model's private layout, shared by fuel_rod.c (build) and
 *        fuel_solve.c (the tick). See include/pcsim/fuel.h for the physics.
 */
#ifndef PCS_PHYSICS_FUEL_INTERNAL_H
#define PCS_PHYSICS_FUEL_INTERNAL_H

#include <stdint.h>

#include "pcsim/fuel.h"
#include "physics/thermal/models/prop_table.h"

/** Solid radial nodes per rod-node, at most. */
#define PCS_FUEL_MAX_RADIAL (PCS_FUEL_MAX_FUEL_NODES + PCS_FUEL_MAX_CLAD_NODES)

/** Rod-nodes solved side by side in one block of the sweep (fuel_solve.c):
 *  one AVX-512 vector of doubles, two AVX2 or four SSE2 vectors. */
#define PCS_FUEL_LANES 8u

/** Instruction-set variants of the sweep's block passes (fuel_solve.c).
 *  AVX2 and AVX-512 are built on x86-64 with gcc or clang only. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PCS_FUEL_X86_ISA 1
#else
#define PCS_FUEL_X86_ISA 0
#endif
enum {
    PCS_FUEL_ISA_AUTO = -1, /**< the widest variant this CPU runs */
    PCS_FUEL_ISA_BASE = 0,  /**< the build's baseline (SSE2 on x86-64) */
    PCS_FUEL_ISA_AVX2 = 1,
    PCS_FUEL_ISA_AVX512 = 2, /**< AVX-512 F, VL and DQ */
};

struct pcs_fuel_model {
    uint32_t unit_index;
    uint32_t n_ch, n_ax, n_f, n_r; /* n_r = n_fuel + n_clad solid nodes */

    /* Store data. Stores never move after registration, so the pointers are
     * cached at build and the tick does no lookups. */
    double *t_rod;              /* [c][j][r], K */
    double *t_cool;             /* [c][j], K */
    double *t_in;               /* [c], K */
    double *mdot;               /* [c], kg/s per group */
    double *pressure;           /* [1], Pa */
    double *out;                /* PCS_FUEL_OUT_COUNT */
    uint32_t *flags;            /* [1] */
    double *cp, *kw, *mu, *rho; /* coolant properties [c][j] (scratch) */
    double *q_axial;            /* [j], W: heat into the coolant per axial level */
    const double *power;        /* the kinetics model's core power element, W */
    double *steady_prev;        /* [c][j][r + 1]: previous sweep, for the steady solve only */

    /* Sweep scratch (fuel_solve.c), rod-nodes n = c n_ax + j padded to
     * n_blk * PCS_FUEL_LANES: the Thomas coefficients in blocks of lanes,
     * [b][r][lane], and per rod-node values, [n]. */
    uint32_t n_blk;
    int isa; /* PCS_FUEL_ISA_* of the block passes, chosen at build */
    double *blk_e, *blk_d;
    double *nd_flux_dh;  /* mass flux times hydraulic diameter, kg/(m s) */
    double *nd_g_conv;   /* Dittus-Boelter conductance, W/K */
    double *nd_g_below;  /* conductance of the face below the wall node, W/K */
    double *nd_t_wall;   /* old wall temperature, K */
    double *nd_wall_new; /* new wall temperature, K */
    double *nd_fuel;     /* sum of gen[i] T_i over the fuel nodes (volume-weighted mean), K */
    double *nd_fuel_max; /* largest fuel temperature, K */
    double *nd_clad_max; /* largest clad temperature, K */

    /* Per rod-node radial constants (one axial node of one rod). */
    double cap[PCS_FUEL_MAX_RADIAL];  /* heat capacity, J/K */
    double gen[PCS_FUEL_MAX_RADIAL];  /* share of the rod-node's fuel power = volume share */
    double gfac[PCS_FUEL_MAX_RADIAL]; /* face i (between r and r+1): conductance per unit
                                         conductivity, m; the gap face is a conductance, W/K */
    double film_area_m2;              /* 2 pi r_co dz */
    double cool_vol_m3;               /* coolant volume per rod-node, A dz */
    double flow_area_m2;              /* A = p^2 - pi r_co^2 */
    double d_h_m;                     /* 4 A / (2 pi r_co) */
    double nu_laminar;

    /* Boiling (fuel.h): set with the properties, once per sweep, from the
     * pressure. t_sat is +inf when boiling is off or p >= p_c. */
    int boiling;    /* pcs_fuel_boiling */
    double t_sat;   /* K */
    double thom_ka; /* Thom's K(p) times the film area: W/K^2 per rod-node */

    /* Channel groups. */
    double rods[PCS_FUEL_MAX_CHANNELS];     /* rods per group */
    double rod_frac[PCS_FUEL_MAX_CHANNELS]; /* rods / total rods */
    double *q_fuel;   /* [c][j]: fuel power per rod-node per watt of core power */
    double *q_direct; /* [c][j]: direct coolant heating per rod-node per watt */

    pcs_prop_table k_fuel, k_clad; /* conductivity tables, W/(m K) */
    double fuel_t_limit_k, clad_t_limit_k;

    pcs_coolant_props_fn props_fn;
    void *props_ctx;
    pcs_coolant_linear linear; /* own copy when the linear set is used */
};
typedef struct pcs_fuel_model pcs_fuel_model;

/** Heat terms of one sweep, summed over all rods, W. */
typedef struct pcs_fuel_heat {
    double to_coolant; /* convection clad -> coolant plus direct heating */
    double flow;       /* enthalpy rise carried out by the flow */
} pcs_fuel_heat;

/** Refresh the coolant property arrays from the coolant temperatures, and
 *  the saturation temperature and Thom coefficient from the pressure. */
pcs_status pcs_fuel_props_update(pcs_fuel_model *m, uint32_t *n_clamped);

/**
 * One backward-Euler step of every channel with 1/dt = @p inv_dt (0 gives
 * the steady-state equations) at core power @p power_w. Properties must be
 * current. Returns the heat terms and whether a flow was clamped.
 */
void pcs_fuel_sweep(pcs_fuel_model *m, double inv_dt, double power_w, pcs_fuel_heat *heat,
                    uint32_t *reverse_flow_channel);

/** Recompute the temperature outputs (max, means, outlet) from the stores
 *  (the tick takes the per-node figures from the sweep instead). */
void pcs_fuel_summarise(pcs_fuel_model *m);

/**
 * Make models built from now on use block-pass variant @p isa
 * (PCS_FUEL_ISA_*; AUTO restores the CPU's choice). Process-wide, for tests
 * and benchmarks: every variant gives the same bits, so this only moves the
 * speed. PCS_E_INVAL when the variant is not built or the CPU cannot run it.
 * Thread-safety: call on the thread that builds worlds, not while another
 * thread builds one (a plain global, not atomic).
 */
pcs_status pcs_fuel_isa_force(int isa);

/** The variant a model built now gets. */
int pcs_fuel_isa_pick(void);

/** The HEAT-stage system body. */
pcs_status pcs_fuel_heat_system(pcs_world *w, void *ctx);

#endif
