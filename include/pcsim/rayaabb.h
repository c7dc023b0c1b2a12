/**
 * @file rayaabb.h
 * @brief 2-D ray / axis-aligned box intersection by the slab method, and a
 *        small ray caster that can run as a world system.
 *
 * Slab method (T. L. Kay, J. T. Kajiya, "Ray tracing complex scenes",
 * SIGGRAPH 1986; A. Williams et al., "An efficient and robust ray-box
 * intersection algorithm", JGT 10(1), 2005): the ray o + t d (t >= 0) lies
 * inside the slab min_x <= x <= max_x for t between (min_x - o_x) / d_x and
 * (max_x - o_x) / d_x; the ray meets the box where the x and y intervals and
 * [0, inf) overlap. A zero component of d makes that axis's interval either
 * all t (o inside the slab) or empty, handled without dividing by zero.
 *
 * Conventions (the answers the tests pin down):
 * - The box is CLOSED: a ray touching only its boundary hits. A ray grazing a
 *   corner hits at that corner; a ray running along an edge hits where it
 *   reaches the edge.
 * - The ray is the closed half-line t >= 0: an origin inside the box or on its
 *   boundary gives t = 0; a box wholly behind the origin is a miss.
 * - t is measured in units of |d|: the hit point is o + t d exactly as given
 *   (d is not normalised).
 * - Degenerate boxes (min == max on an axis: a segment or a point) are valid;
 *   inverted boxes (min > max) are rejected.
 *
 * Input limits: every coordinate must be finite with magnitude at most
 * PCS_RAYAABB_COORD_MAX, so differences never overflow and no NaN can arise
 * in the test; the direction must not be (0, 0). The init functions check
 * this once; pcs_rayaabb_intersect trusts its arguments (hot path).
 *
 * Thread-safety: the free functions are pure; a pcs_rayaabb caster must not
 * be used by two threads at once.
 */
#ifndef PCSIM_RAYAABB_H
#define PCSIM_RAYAABB_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/system.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest coordinate magnitude accepted (keeps every difference finite). */
#define PCS_RAYAABB_COORD_MAX 1e150

/** A ray o + t d, t >= 0. Build with pcs_rayaabb_ray_init. Units: any length. */
typedef struct pcs_rayaabb_ray {
    double ox, oy; /**< origin */
    double dx, dy; /**< direction, not (0, 0); need not be unit length */
} pcs_rayaabb_ray;

/** A closed box [min_x, max_x] x [min_y, max_y]. Build with pcs_rayaabb_box_init. */
typedef struct pcs_rayaabb_box {
    double min_x, min_y; /**< lower corner */
    double max_x, max_y; /**< upper corner, >= lower corner on each axis */
} pcs_rayaabb_box;

/**
 * Make a ray; @p ray is written only on success.
 * @return PCS_E_INVAL for NULL, a non-finite or too large value (naming the
 *         field and value), or a zero direction.
 */
PCS_API pcs_status pcs_rayaabb_ray_init(pcs_rayaabb_ray *ray, double ox, double oy, double dx,
                                        double dy);

/**
 * Make a box; @p box is written only on success.
 * @return PCS_E_INVAL for NULL, a non-finite or too large value, or min > max
 *         on an axis (inverted box).
 */
PCS_API pcs_status pcs_rayaabb_box_init(pcs_rayaabb_box *box, double min_x, double min_y,
                                        double max_x, double max_y);

/** Check a ray filled by hand with pcs_rayaabb_ray_init's rules; PCS_E_INVAL if bad. */
PCS_API pcs_status pcs_rayaabb_ray_check(const pcs_rayaabb_ray *ray);

/** Check a box filled by hand with pcs_rayaabb_box_init's rules; PCS_E_INVAL if bad. */
PCS_API pcs_status pcs_rayaabb_box_check(const pcs_rayaabb_box *box);

/**
 * Slab test. @return 1 on a hit, with the entry parameter (the smallest
 * t >= 0 at which o + t d is in the closed box) in @p t (if not NULL); 0 on a
 * miss, @p t untouched. Arguments must be valid (see above); not checked.
 */
PCS_API int pcs_rayaabb_intersect(const pcs_rayaabb_ray *ray, const pcs_rayaabb_box *box,
                                  double *t);

/* ---- the ray caster: many rays against many boxes, steppable ---------- */

/** Box index reported for a ray that hits nothing. */
#define PCS_RAYAABB_NONE UINT32_MAX
/** Capacity limits of a caster. */
#define PCS_RAYAABB_RAYS_MAX (1u << 20)
#define PCS_RAYAABB_BOXES_MAX (1u << 16)

typedef struct pcs_rayaabb pcs_rayaabb;

/** Caster configuration; start from pcs_rayaabb_default(). */
typedef struct pcs_rayaabb_def {
    uint32_t max_rays;  /**< ray capacity; [1, 2^20]; default 64 */
    uint32_t max_boxes; /**< box capacity; [1, 2^16]; default 64 */
    const char *name;   /**< instance name, 1..40 chars; NULL = "rayaabb" */
} pcs_rayaabb_def;

/** Fill @p cfg with the defaults above. @return PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_rayaabb_default(pcs_rayaabb_def *cfg);

/**
 * Create an empty caster (no rays, no boxes). Memory for all capacity is
 * malloc'd here and freed by pcs_rayaabb_destroy.
 * @return PCS_E_INVAL (bad capacity or name, NULL), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_rayaabb_create(const pcs_rayaabb_def *cfg, pcs_rayaabb **out);

/** Free the caster's own memory; NULL is allowed. */
PCS_API void pcs_rayaabb_destroy(pcs_rayaabb *m);

/**
 * Append a ray / box (checked as by the init functions); its index is
 * written to @p index (may be NULL). Results of a new ray read as a miss
 * until the next step.
 * @return PCS_E_INVAL (NULL or invalid), PCS_E_OVERFLOW when full.
 */
PCS_API pcs_status pcs_rayaabb_add_ray(pcs_rayaabb *m, const pcs_rayaabb_ray *ray, uint32_t *index);
PCS_API pcs_status pcs_rayaabb_add_box(pcs_rayaabb *m, const pcs_rayaabb_box *box, uint32_t *index);

/** Replace ray @p index (checked). @return PCS_E_INVAL (NULL, invalid, no such ray). */
PCS_API pcs_status pcs_rayaabb_set_ray(pcs_rayaabb *m, uint32_t index, const pcs_rayaabb_ray *ray);

/** Replace box @p index (checked). @return PCS_E_INVAL (NULL, invalid, no such box). */
PCS_API pcs_status pcs_rayaabb_set_box(pcs_rayaabb *m, uint32_t index, const pcs_rayaabb_box *box);

/**
 * Cast every ray against every box (cost rays x boxes) and store, per ray,
 * the nearest hit: smallest t, ties to the lowest box index.
 * Allocates nothing. @return PCS_E_INVAL for NULL.
 */
PCS_API pcs_status pcs_rayaabb_step(pcs_rayaabb *m);

/**
 * Result of ray @p index from the last step. @return 1 on a hit (t and box
 * index written where not NULL), 0 on a miss or for a bad index / NULL.
 */
PCS_API int pcs_rayaabb_result(const pcs_rayaabb *m, uint32_t index, double *t, uint32_t *box);

/** Steps taken since creation; 0 for NULL. */
PCS_API uint64_t pcs_rayaabb_steps(const pcs_rayaabb *m);

/**
 * Move rays, boxes and results into world STATE stores "<name>.hdr",
 * "<name>.rays", "<name>.boxes", "<name>.hits" and register system "<name>"
 * that runs pcs_rayaabb_step once per FAST tick at (@p stage, @p priority).
 * Build phase only; the caster must not be used after pcs_world_destroy.
 * @return as pcs_diffusion_add.
 */
PCS_API pcs_status pcs_rayaabb_add(pcs_world *w, pcs_rayaabb *m, pcs_stage stage, int32_t priority);

#ifdef __cplusplus
}
#endif

#endif
