/**
 * @file particles.h
 * @brief Particles with integer positions and velocities on a finite grid,
 *        bouncing off walls and obstacles, with an ASCII render.
 *
 * Grid: width x height cells; x is the column (0 = left), y the row (0 =
 * top, growing down). A cell is empty or an obstacle. Outside the grid is
 * wall. Particles do not interact: any number may share a cell.
 *
 * Motion of one step, per particle (the rule the tests pin down):
 *  1. x axis: |vx| unit moves of sign(vx). A unit move into a wall or an
 *     obstacle reverses vx, and the particle moves one cell the opposite way
 *     instead (a mirror bounce that keeps the distance travelled); if that cell
 *     is blocked too, the particle stays where it is for the rest of this axis.
 *  2. y axis: the same with vy, from the position reached in 1.
 * Splitting the axes makes a diagonal particle bounce off a corner on both
 * axes and keeps every result an integer, with no tie-breaking rules.
 *
 * Render: height lines, top row first, each ending in '\n', then a NUL:
 *   '#' obstacle, 'o' one or more particles, '.' empty.
 * A particle can never be on an obstacle (adding one there, or an obstacle
 * under one, is refused), so the three cases are exclusive.
 *
 * Memory: pcs_particles_create mallocs the cell map and the particle array
 * at full capacity; a step allocates nothing.
 * Thread-safety: one model must not be used by two threads at once.
 */
#ifndef PCSIM_PARTICLES_H
#define PCSIM_PARTICLES_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/system.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest grid side, cells. */
#define PCS_PARTICLES_SIDE_MAX 4096u
/** Most particles in one model. */
#define PCS_PARTICLES_MAX (1u << 20)
/** Largest |vx| or |vy|, cells per step. */
#define PCS_PARTICLES_SPEED_MAX 64

typedef struct pcs_particles pcs_particles;

/** Configuration; start from pcs_particles_default(). */
typedef struct pcs_particles_def {
    uint32_t width;         /**< columns; [1, 4096]; default 32 */
    uint32_t height;        /**< rows; [1, 4096]; default 16 */
    uint32_t max_particles; /**< capacity; [1, 2^20]; default 64 */
    const char *name;       /**< instance name, 1..40 chars; NULL = "particles" */
} pcs_particles_def;

/** Fill @p cfg with the defaults above. @return PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_particles_default(pcs_particles_def *cfg);

/**
 * Create an empty grid without particles.
 * @return PCS_E_INVAL naming the bad field, value and range; PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_particles_create(const pcs_particles_def *cfg, pcs_particles **out);

/** Free the model's own memory; NULL is allowed. */
PCS_API void pcs_particles_destroy(pcs_particles *m);

/**
 * Make cell (@p x, @p y) an obstacle (@p on != 0) or empty.
 * @return PCS_E_INVAL for NULL, a cell outside the grid, or an obstacle on a
 *         cell holding a particle.
 */
PCS_API pcs_status pcs_particles_set_obstacle(pcs_particles *m, uint32_t x, uint32_t y, int on);

/**
 * Set every cell from a map: height lines of width characters, '#' obstacle,
 * '.' empty, separated by '\n' (a final '\n' is optional). Checked whole
 * before any cell changes.
 * @return PCS_E_INVAL for NULL, another character, a wrong line length or
 *         count, or an obstacle under a particle.
 */
PCS_API pcs_status pcs_particles_load_map(pcs_particles *m, const char *map);

/**
 * Add a particle at (@p x, @p y) with velocity (@p vx, @p vy) cells per step;
 * its index goes to @p index (may be NULL).
 * @return PCS_E_INVAL (NULL, outside the grid, on an obstacle, |v| above
 *         PCS_PARTICLES_SPEED_MAX), PCS_E_OVERFLOW when full.
 */
PCS_API pcs_status pcs_particles_spawn(pcs_particles *m, int32_t x, int32_t y, int32_t vx,
                                       int32_t vy, uint32_t *index);

/**
 * Read particle @p i (outputs may be NULL).
 * @return PCS_E_INVAL for NULL or no such particle.
 */
PCS_API pcs_status pcs_particles_get(const pcs_particles *m, uint32_t i, int32_t *x, int32_t *y,
                                     int32_t *vx, int32_t *vy);

/** Move every particle one step (rule above). Allocates nothing. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_particles_step(pcs_particles *m);

/**
 * Render into @p buf (format above); needs (width + 1) * height + 1 bytes.
 * @return PCS_E_INVAL for NULL or @p cap too small (nothing written).
 */
PCS_API pcs_status pcs_particles_render(const pcs_particles *m, char *buf, size_t cap);

/** Particles added so far; 0 for NULL. */
PCS_API uint32_t pcs_particles_count(const pcs_particles *m);

/** Steps taken since creation; 0 for NULL. */
PCS_API uint64_t pcs_particles_steps(const pcs_particles *m);

/**
 * Move the state into world STATE stores "<name>.hdr", "<name>.cells",
 * "<name>.parts" and register system "<name>" stepping once per FAST tick at
 * (@p stage, @p priority). Build phase only; the model must not be used
 * after pcs_world_destroy.
 * @return as pcs_diffusion_add.
 */
PCS_API pcs_status pcs_particles_add(pcs_world *w, pcs_particles *m, pcs_stage stage,
                                     int32_t priority);

#ifdef __cplusplus
}
#endif

#endif
