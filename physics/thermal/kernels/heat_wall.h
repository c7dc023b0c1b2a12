/**
 * @file heat_wall.h
 * @brief One-dimensional conduction through a wall (slab, cylinder or
 *        spherical shell) between two fluids, backward Euler in time
 *        (physics-internal header): the heat structures of a primary system.
 *
 * Mesh (the RELAP5 heat-structure convention): n_int equal intervals from the
 * side-a coordinate x_a to the side-b coordinate x_b (radii for a cylinder or
 * a sphere, x_a < x_b), a node at each of the n_int + 1 mesh points; node i
 * holds the heat capacity rho c of the material between the midpoints of its
 * neighbouring intervals (half an interval at a surface), and neighbours are
 * joined by the exact steady conductance of the interval between them:
 *   slab:     k A / dx,
 *   cylinder: 2 pi k L / ln(r_{i+1} / r_i),
 *   sphere:   4 pi k f / (1/r_i - 1/r_{i+1})   (f: the fraction of a sphere).
 * So a steady profile is exact at the nodes for constant k, whatever n_int.
 *
 * Step: with the surface nodes coupled to fluid temperatures T_a and T_b by
 * conductances G_a = h_a A_a and G_b = h_b A_b (0: adiabatic),
 *   C_i (T_i' - T_i)/dt = sum over neighbours j of G_ij (T_j' - T_i')
 *                         + [i = 0] G_a (T_a - T_0') + [i = n-1] G_b (T_b - T_n-1'),
 * a tridiagonal system solved by the Thomas algorithm (diagonally dominant,
 * so stable for any dt). The heats into the wall, q_a = G_a (T_a - T_0') and
 * q_b = G_b (T_b - T_n-1'), satisfy sum C_i (T_i' - T_i) = dt (q_a + q_b) to
 * round-off: what a fluid gives up the wall stores. inv_dt = 0 gives the
 * steady profile between T_a and T_b (and its heats, q_a = -q_b).
 *
 * Pure: no world, no allocation (the caller passes 2 n doubles of scratch).
 */
#ifndef PCS_PHYSICS_HEAT_WALL_H
#define PCS_PHYSICS_HEAT_WALL_H

#include <stdint.h>

#include "pcsim/status.h"

typedef enum pcs_heat_wall_geom {
    PCS_HEAT_WALL_SLAB = 1,     /**< size: the face area, m2 */
    PCS_HEAT_WALL_CYLINDER = 2, /**< size: the height, m */
    PCS_HEAT_WALL_SPHERE = 3,   /**< size: the fraction of a full sphere, (0, 1] */
} pcs_heat_wall_geom;

/** Nodes of a wall of @p n_int intervals. */
#define PCS_HEAT_WALL_NODES(n_int) ((n_int) + 1u)

/**
 * Mesh one wall (file comment): @p cap_j_k [n_int + 1] node heat capacities,
 * J/K; @p cond_w_k [n_int] conductances between nodes i and i + 1, W/K;
 * @p area_a_m2, @p area_b_m2 the surface areas at x_a and x_b. @p k_w_mk
 * conductivity, @p rho_c_j_m3k volumetric heat capacity (constant).
 * PCS_E_INVAL naming the value for a bad geometry, x_a >= x_b (or x_a < 0
 * for a cylinder or sphere), size <= 0, n_int outside [1, 1000] or
 * non-positive properties.
 */
pcs_status pcs_heat_wall_mesh(pcs_heat_wall_geom geom, double x_a_m, double x_b_m, double size,
                              uint32_t n_int, double k_w_mk, double rho_c_j_m3k, double *cap_j_k,
                              double *cond_w_k, double *area_a_m2, double *area_b_m2);

/**
 * One backward-Euler step of @p n >= 1 nodes (file comment) at 1/dt =
 * @p inv_dt (>= 0; 0: the steady profile). @p t_k [n] is updated in place;
 * @p scratch [2 n]. *q_a_w, *q_b_w: the heats into the wall through sides a
 * and b over the step, W. With inv_dt = 0 and G_a = G_b = 0 (no profile
 * defined) the temperatures are left as they are and both heats are 0.
 */
void pcs_heat_wall_step(uint32_t n, const double *cap_j_k, const double *cond_w_k, double g_a_w_k,
                        double t_a_k, double g_b_w_k, double t_b_k, double inv_dt, double *t_k,
                        double *scratch, double *q_a_w, double *q_b_w);

/** Stored energy sum C_i T_i of @p n nodes, J (from 0 K: only differences count). */
double pcs_heat_wall_energy(uint32_t n, const double *cap_j_k, const double *t_k);

#endif
