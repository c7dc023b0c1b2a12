/**
 * @file snapshot_world.c
 * @brief The world the snapshot benchmarks publish from (snapshot_world.h).
 */
#include <stdio.h>
#include <string.h>

#include "bench/snapshot_world.h"

static int build(uint32_t n, snapbench_world *s)
{
    pcs_world_def cfg;
    uint32_t store;
    if (pcs_world_default(&cfg) != PCS_OK || pcs_world_create(&cfg, &s->w) != PCS_OK ||
        pcs_store_register(s->w, "bn.values", sizeof(double), n, PCS_STORE_STATE, &store) != PCS_OK)
        return -1;
    s->values = pcs_store_data(s->w, store);
    s->n = n;
    for (uint32_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "bn.c%05u", i);
        if (pcs_channel_register(s->w, name, "W", PCS_CHANNEL_F64, store, i, NULL) != PCS_OK)
            return -1;
        s->values[i] = 1.5 * i;
    }
    if (pcs_snapshot_attach(s->w, NULL, &s->pool) != PCS_OK || pcs_world_tick(s->w) != PCS_OK)
        return -1;
    return 0;
}

int snapbench_world_create(uint32_t n, snapbench_world *s)
{
    memset(s, 0, sizeof *s);
    if (build(n, s) == 0)
        return 0;
    snapbench_world_destroy(s);
    return -1;
}

void snapbench_world_destroy(snapbench_world *s)
{
    pcs_world_destroy(s->w);
    memset(s, 0, sizeof *s);
}
