/**
 * @file flocking.h
 * @brief 2-D flocking (boids): alignment, cohesion and separation on a torus.
 *
 * After C. W. Reynolds, "Flocks, herds, and schools: a distributed behavioral
 * model", SIGGRAPH 1987. Agent i's neighbours N(i) are the other agents
 * closer than radius_m (|d_ij| < r, with d_ij = p_j - p_i the shortest offset
 * on the torus). With n = |N(i)| > 0 the acceleration is
 *
 *     a_i = w_align     * (mean_j v_j - v_i)                 alignment,   1/s
 *         + w_cohesion  * (mean_j d_ij)                      cohesion,    1/s^2
 *         - w_separation * sum_j d_ij / max(|d_ij|^2, e^2)   separation,  m^3/s^2
 *
 * (a_i = 0 when n = 0; coincident agents, |d_ij| = 0, add no separation term;
 * e = 1e-9 radius_m bounds the separation push so it stays finite). Then,
 * semi-implicit Euler with a speed cap:
 *
 *     v' = v + dt a;  if |v'| > max_speed then v' *= max_speed / |v'|
 *     p' = p + dt v', wrapped into the domain
 *
 * Every agent is updated from the previous step's positions and velocities
 * (double buffer), so the update order does not matter.
 *
 * Domain: the torus [-width/2, width/2] x [-height/2, height/2], centred on
 * the origin so that the mirror x -> -x is exact in floating point. A
 * position leaving one side re-enters on the other (one add of the width).
 *
 * Neighbour search: a uniform grid of cells no smaller than the radius is
 * rebuilt every step by a stable counting sort; each agent examines the 3 x 3
 * cells around its own. At fixed agent density the cost per step is linear
 * in the agent count. Candidates are visited in a fixed order (cell, then
 * agent index), so sums are reproducible.
 *
 * Initial state: positions uniform over the domain and velocities uniform in
 * direction with speed uniform in [0, max_speed), drawn from the pcs_rng
 * stream (seed, entity_id, 0); angles through pcs_cos / pcs_sin.
 *
 * Threads: the per-agent loop may run on OpenMP threads (static schedule);
 * each agent's result depends only on the previous buffer, so results are
 * bit-identical for any thread count. The grid build is serial.
 *
 * Memory: pcs_flocking_create mallocs the agent buffers (8 doubles per agent)
 * and the grid (2 + 2 per-cell uint32 per agent/cell); a step allocates
 * nothing. Thread-safety: one model must not be used by two threads at once.
 */
#ifndef PCSIM_FLOCKING_H
#define PCSIM_FLOCKING_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/system.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most agents in one model. */
#define PCS_FLOCKING_AGENTS_MAX (1u << 20)
/** Most grid cells per side (coarser cells are still correct, only slower). */
#define PCS_FLOCKING_GRID_SIDE_MAX 1024u
/** Largest OpenMP thread count accepted. */
#define PCS_FLOCKING_THREADS_MAX 64u

typedef struct pcs_flocking pcs_flocking;

/** Flocking configuration; start from pcs_flocking_default(). */
typedef struct pcs_flocking_def {
    uint32_t agents;      /**< number of agents; [1, 2^20]; default 256 */
    double width_m;       /**< domain width, m; [1e-3, 1e6]; default 100 */
    double height_m;      /**< domain height, m; [1e-3, 1e6]; default 100 */
    double radius_m;      /**< neighbour radius, m; [1e-6, min(width, height) / 2]; default 5 */
    double w_align;       /**< alignment gain, 1/s; [0, 1e3]; default 1 */
    double w_cohesion;    /**< cohesion gain, 1/s^2; [0, 1e3]; default 0.5 */
    double w_separation;  /**< separation gain, m^3/s^2; [0, 1e3]; default 2 */
    double max_speed_m_s; /**< speed cap, m/s; (0, 1e6]; max_speed * dt <= min(w, h) / 2;
                               default 5 */
    double dt_s;          /**< step, s; (0, 10]; default 0.05 */
    uint64_t seed;        /**< rng seed of the initial state; default 1 */
    uint64_t entity_id;   /**< rng entity id of the initial state; default 0 */
    uint32_t threads;     /**< OpenMP threads for the agent loop; [1, 64]; default 1 */
    const char *name;     /**< instance name, 1..40 chars; NULL = "flocking" */
} pcs_flocking_def;

/** Fill @p cfg with the defaults above. @return PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_flocking_default(pcs_flocking_def *cfg);

/**
 * Create a model with the seeded initial state described above.
 * @return PCS_E_INVAL naming the first bad field, its value and range
 *         (non-finite values included); PCS_E_NOMEM. @p out set only on success.
 */
PCS_API pcs_status pcs_flocking_create(const pcs_flocking_def *cfg, pcs_flocking **out);

/** Free the model's own memory; NULL is allowed. */
PCS_API void pcs_flocking_destroy(pcs_flocking *m);

/** Advance one step of dt_s. Allocates nothing. @return PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_flocking_step(pcs_flocking *m);

/**
 * Overwrite agent @p i: position (m) inside the domain, velocity (m/s) with
 * speed <= max_speed_m_s.
 * @return PCS_E_INVAL (NULL, i out of range, non-finite, outside the domain,
 *         too fast), naming the value.
 */
PCS_API pcs_status pcs_flocking_set_agent(pcs_flocking *m, uint32_t i, double x_m, double y_m,
                                          double vx_m_s, double vy_m_s);

/**
 * Read agent @p i (any output pointer may be NULL).
 * @return PCS_E_INVAL for NULL model or i out of range.
 */
PCS_API pcs_status pcs_flocking_get_agent(const pcs_flocking *m, uint32_t i, double *x_m,
                                          double *y_m, double *vx_m_s, double *vy_m_s);

/** Number of agents; 0 for NULL. */
PCS_API uint32_t pcs_flocking_count(const pcs_flocking *m);

/** Steps taken since creation; 0 for NULL. */
PCS_API uint64_t pcs_flocking_steps(const pcs_flocking *m);

/** Grid cells along x and y chosen at create (for benchmarks and tests). */
PCS_API void pcs_flocking_grid_size(const pcs_flocking *m, uint32_t *cells_x, uint32_t *cells_y);

/**
 * Move agents into world STATE stores "<name>.hdr" and "<name>.agents" (both
 * buffers), the grid into SCRATCH stores "<name>.cell", "<name>.order",
 * "<name>.start", "<name>.cursor", and register system "<name>" stepping
 * once per FAST tick at (@p stage, @p priority). dt_s is the model's own
 * step: set it to the world's dt for physical time. Build phase only; the
 * model must not be used after pcs_world_destroy.
 * @return as pcs_diffusion_add.
 */
PCS_API pcs_status pcs_flocking_add(pcs_world *w, pcs_flocking *m, pcs_stage stage,
                                    int32_t priority);

#ifdef __cplusplus
}
#endif

#endif
