/**
 * @file life.h
 * @brief Conway's Game of Life on a finite grid, dead or wrapping boundary.
 *
 * Rule B3/S23 (M. Gardner, "Mathematical Games", Scientific American 223(4),
 * 1970): a dead cell with exactly 3 live Moore neighbours (the 8 surrounding
 * cells) is born; a live cell with 2 or 3 survives; every other cell is dead
 * next generation. All cells update synchronously from the previous
 * generation (double buffer).
 *
 * Boundary: PCS_LIFE_DEAD treats cells outside the grid as permanently dead;
 * PCS_LIFE_WRAP joins opposite edges (a torus). A wrapping grid must be at
 * least 3 x 3 so that a cell's 8 neighbours are 8 distinct cells.
 *
 * Coordinates: x is the column (0 = left), y the row (0 = top, growing down).
 * Cells are bytes, 1 = alive, 0 = dead, row-major (cell (x, y) at
 * [y * width + x]).
 *
 * The row loop may run on OpenMP threads (static schedule); results do not
 * depend on the thread count, since each cell is computed from the previous
 * buffer only.
 *
 * Memory: pcs_life_create mallocs two cell buffers and one zero row;
 * pcs_life_destroy frees them; a step allocates nothing.
 * Thread-safety: one model must not be used by two threads at once.
 */
#ifndef PCSIM_LIFE_H
#define PCSIM_LIFE_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/system.h"
#include "pcsim/world.h"

/** Largest grid side, cells. */
#define PCS_LIFE_SIDE_MAX 65536u
/** Largest cell count width * height. */
#define PCS_LIFE_CELLS_MAX (1u << 28)
/** Largest OpenMP thread count accepted. */
#define PCS_LIFE_THREADS_MAX 64u

/** What lies beyond the grid's edges. */
typedef enum pcs_life_boundary {
    PCS_LIFE_DEAD = 0, /**< permanently dead cells */
    PCS_LIFE_WRAP = 1, /**< opposite edges are neighbours (torus) */
} pcs_life_boundary;

typedef struct pcs_life pcs_life;

/** Life configuration; start from pcs_life_default(). */
typedef struct pcs_life_def {
    uint32_t width;             /**< columns; [1, 65536], >= 3 when wrapping; default 64 */
    uint32_t height;            /**< rows; [1, 65536], >= 3 when wrapping; default 64 */
    pcs_life_boundary boundary; /**< default PCS_LIFE_DEAD */
    uint32_t threads;           /**< OpenMP threads for the row loop; [1, 64]; default 1 */
    const char *name;           /**< instance name, 1..40 chars; NULL = "life" */
} pcs_life_def;

/** Fill @p cfg with the defaults above. @return PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_life_default(pcs_life_def *cfg);

/**
 * Create a grid of dead cells.
 * @return PCS_E_INVAL naming the field, value and allowed range; PCS_E_NOMEM.
 *         @p out is set only on success.
 */
PCS_API pcs_status pcs_life_create(const pcs_life_def *cfg, pcs_life **out);

/** Free the model's own memory; NULL is allowed. */
PCS_API void pcs_life_destroy(pcs_life *m);

/** Advance one generation. Allocates nothing. @return PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_life_step(pcs_life *m);

/**
 * Set cell (@p x, @p y) alive (@p alive != 0) or dead.
 * @return PCS_E_INVAL for NULL or a cell outside the grid.
 */
PCS_API pcs_status pcs_life_set(pcs_life *m, uint32_t x, uint32_t y, int alive);

/** 1 if cell (@p x, @p y) is alive, else 0 (also for NULL or outside). */
PCS_API int pcs_life_get(const pcs_life *m, uint32_t x, uint32_t y);

/**
 * Write a pattern with its top-left corner at (@p x0, @p y0). @p pattern is
 * rows separated by '\n'; 'o' or 'O' is alive, '.' is dead (both are
 * written). The whole pattern is checked before any cell changes.
 * @return PCS_E_INVAL for NULL, another character, or a cell outside the grid.
 */
PCS_API pcs_status pcs_life_load(pcs_life *m, uint32_t x0, uint32_t y0, const char *pattern);

/**
 * Render the grid as text: one line per row (top first), 'o' alive, '.'
 * dead, each line ending in '\n', then a terminating NUL; needs
 * (width + 1) * height + 1 bytes.
 * @return PCS_E_INVAL for NULL or @p cap too small (nothing is written then).
 */
PCS_API pcs_status pcs_life_render(const pcs_life *m, char *buf, size_t cap);

/** Live cells in the current generation; 0 for NULL. */
PCS_API uint64_t pcs_life_population(const pcs_life *m);

/** Generations stepped since creation; 0 for NULL. */
PCS_API uint64_t pcs_life_steps(const pcs_life *m);

/** Current cells, row-major bytes (0/1); valid until the next step; NULL for NULL. */
PCS_API const uint8_t *pcs_life_cells(const pcs_life *m);

/**
 * Move the state into world STATE stores "<name>.hdr", "<name>.c0",
 * "<name>.c1" and register system "<name>" stepping one generation per FAST
 * tick at (@p stage, @p priority). Build phase only; the model must outlive
 * the world's ticks and not be used after pcs_world_destroy.
 * @return PCS_E_INVAL (NULL, bad stage, duplicate name), PCS_E_STATE (sealed
 *         world or already registered), PCS_E_NOMEM, PCS_E_OVERFLOW. On
 *         failure the model still works standalone; discard the world.
 */
PCS_API pcs_status pcs_life_add(pcs_world *w, pcs_life *m, pcs_stage stage, int32_t priority);

#endif
