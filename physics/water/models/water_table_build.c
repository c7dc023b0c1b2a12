/**
 * @file water_table_build.c
 * @brief pcs_water_table_add: the water table (physics/water/kernels/
 *        water_table.c) built in a world's build-time heap.
 *
 * Why a file of its own: the table itself is a pure kernel that never touches
 * a world; only this entry point allocates from one, so it lives among the
 * world-bound models and the kernel stays free of world headers.
 */
#include "pcsim/structure.h"
#include "pcsim/world.h"
#include "physics/water/kernels/if97_internal.h"

pcs_status pcs_water_table_add(pcs_world *w, const pcs_water_table_def *cfg, pcs_water_table **out)
{
    static const char fn[] = "pcs_water_table_add";
    pcs_status st = if97_check_out(fn, "out", out);
    if (st == PCS_OK) {
        st = if97_check_out(fn, "w", w);
    }
    if (st == PCS_OK) {
        st = if97_table_check_config(fn, cfg);
    }
    if (st != PCS_OK) {
        return st;
    }
    void *block = pcs_world_alloc(w, (size_t)pcs_water_table_bytes(cfg));
    if (block == NULL) {
        return (pcs_world_sealed(w) && !pcs_world_amending(w))
                   ? pcs_error_set(PCS_E_STATE, "%s: world is sealed", fn)
                   : pcs_error_set(PCS_E_NOMEM, "%s: world heap exhausted", fn);
    }
    return if97_table_build_into(fn, cfg, block, 0, out);
}
