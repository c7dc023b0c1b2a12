/**
 * @file diffusion.h
 * @brief 2-D scalar diffusion on a regular grid: explicit 4-neighbour scheme.
 *
 * One step (forward-time, centred-space discretisation of du/dt = D lap u;
 * e.g. W. H. Press et al., Numerical Recipes 3rd ed., section 20.1) is
 *
 *     u'[y][x] = u[y][x] + c * sum over the 4 neighbours n of (u[n] - u[y][x])
 *
 * where c = D dt / h^2 is the dimensionless diffusion number. The scheme is
 * stable for c in [0, 0.25] (von Neumann analysis, same reference), and that
 * range is enforced. The boundary is no-flux: a neighbour outside the grid is
 * replaced by the cell itself, so its term is exactly 0 and the pairwise
 * exchanges cancel: the total sum is conserved up to rounding. Every cell of
 * the new field is computed from the previous field only (double buffer).
 *
 * The row loop may run on OpenMP threads with a static schedule. Each cell's
 * arithmetic is the same expression in the same order whatever thread runs
 * it, so results are bit-identical for any thread count.
 *
 * Memory: pcs_diffusion_create allocates everything with malloc (two fields
 * of nx*ny doubles) and pcs_diffusion_destroy frees it; a step allocates
 * nothing. pcs_diffusion_add moves the state into world STATE stores.
 *
 * Thread-safety: one model must not be used by two threads at once; distinct
 * models are independent.
 */
#ifndef PCSIM_DIFFUSION_H
#define PCSIM_DIFFUSION_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/system.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest grid side, cells. */
#define PCS_DIFFUSION_SIDE_MAX 65536u
/** Largest cell count nx * ny (two buffers of 2^26 doubles = 1 GiB). */
#define PCS_DIFFUSION_CELLS_MAX (1u << 26)
/** Largest OpenMP thread count accepted. */
#define PCS_DIFFUSION_THREADS_MAX 64u

typedef struct pcs_diffusion pcs_diffusion;

/** Diffusion configuration; start from pcs_diffusion_default(). */
typedef struct pcs_diffusion_def {
    uint32_t nx;      /**< cells along x; [1, PCS_DIFFUSION_SIDE_MAX]; default 64 */
    uint32_t ny;      /**< cells along y; [1, PCS_DIFFUSION_SIDE_MAX]; default 64 */
    double coeff;     /**< diffusion number D dt / h^2, dimensionless; [0, 0.25]; default 0.2 */
    uint32_t threads; /**< OpenMP threads for the row loop; 1 = serial; [1, 64]; default 1.
                           Without OpenMP in the build, every value runs serially. */
    const char *name; /**< instance name for stores and the system, 1..40 chars;
                           NULL = "diffusion"; copied at create */
} pcs_diffusion_def;

/** Fill @p cfg with the defaults above. @return PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_diffusion_default(pcs_diffusion_def *cfg);

/**
 * Create a model with a zero field.
 * @return PCS_E_INVAL naming the field, its value and the allowed range (bad
 *         size, coeff outside [0, 0.25] or not finite, bad thread count or
 *         name, NULL pointers); PCS_E_NOMEM. @p out is set only on success.
 */
PCS_API pcs_status pcs_diffusion_create(const pcs_diffusion_def *cfg, pcs_diffusion **out);

/**
 * Free the model's own memory. NULL is allowed. Stores it registered belong
 * to the world and are freed with it.
 */
PCS_API void pcs_diffusion_destroy(pcs_diffusion *m);

/**
 * Advance one step (formula above). Allocates nothing.
 * @return PCS_E_INVAL for NULL.
 */
PCS_API pcs_status pcs_diffusion_step(pcs_diffusion *m);

/**
 * Set cell (@p x, @p y) of the current field to @p value (any unit).
 * @return PCS_E_INVAL for NULL, x >= nx, y >= ny or a non-finite value.
 */
PCS_API pcs_status pcs_diffusion_set(pcs_diffusion *m, uint32_t x, uint32_t y, double value);

/** Value of cell (@p x, @p y); 0 for NULL or out of range. */
PCS_API double pcs_diffusion_get(const pcs_diffusion *m, uint32_t x, uint32_t y);

/**
 * The current field, row-major: ny rows of nx values, cell (x, y) at
 * [y * nx + x]. Valid until the next step (the buffers swap); NULL for NULL.
 */
PCS_API const double *pcs_diffusion_field(const pcs_diffusion *m);

/** Sum of the current field, in row-major order (deterministic); 0 for NULL. */
PCS_API double pcs_diffusion_total(const pcs_diffusion *m);

/** Steps taken since creation; 0 for NULL. */
PCS_API uint64_t pcs_diffusion_steps(const pcs_diffusion *m);

/**
 * Move the model's state into world STATE stores "<name>.hdr", "<name>.u0",
 * "<name>.u1" (so pcs_world_state_hash covers it) and register a system
 * "<name>" that calls pcs_diffusion_step once per FAST tick at (@p stage,
 * @p priority). The current field is copied; the model's malloc'd fields are
 * freed. Build phase only. The model must outlive the world's last tick and
 * must not be used after pcs_world_destroy.
 * @return PCS_E_INVAL (NULL, bad stage, duplicate names), PCS_E_STATE (world
 *         sealed, or model already registered), PCS_E_NOMEM, PCS_E_OVERFLOW.
 *         On failure the model keeps working standalone, but stores already
 *         registered stay in the world: discard that world.
 */
PCS_API pcs_status pcs_diffusion_add(pcs_world *w, pcs_diffusion *m, pcs_stage stage,
                                     int32_t priority);

#ifdef __cplusplus
}
#endif

#endif
