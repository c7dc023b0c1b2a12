/**
 * @file snapshot_world.h
 * @brief The world the snapshot benchmarks publish from: n f64 channels, a pool attached.
 */
#ifndef PCS_BENCH_SNAPSHOT_WORLD_H
#define PCS_BENCH_SNAPSHOT_WORLD_H

#include <stdint.h>

#include "pcsim/pcsim.h"

/** A world whose only published state is one store of n doubles. */
typedef struct snapbench_world {
    pcs_world *w;
    pcs_snapshot_pool *pool;
    double *values; /**< the store: channel i publishes values[i] */
    uint32_t n;
} snapbench_world;

/**
 * Build a world with one STATE store of @p n doubles registered as channels
 * "bn.c00000" .. in order (so the publish gather is one contiguous run),
 * attach a snapshot pool with default options and tick once (sealing the
 * world and publishing the first buffer).
 * @return 0, or -1 with the reason in pcs_last_error() (@p s is then freed).
 */
int snapbench_world_create(uint32_t n, snapbench_world *s);

/** Destroy the world (and with it the pool). */
void snapbench_world_destroy(snapbench_world *s);

#endif
