/**
 * @file coolant_water_add.c
 * @brief pcs_coolant_water_add: the real-water coolant table
 *        (physics/water/kernels/coolant_water.c) built in a world's heap.
 *
 * Why a file of its own: the table is a pure kernel; only this entry point
 * allocates from a world, so it lives among the world-bound models (as
 * water_table_build.c does for the liquid table).
 */
#include "pcsim/structure.h"
#include "pcsim/world.h"
#include "physics/water/kernels/coolant_water_internal.h"

pcs_status pcs_coolant_water_add(pcs_world *w, const pcs_coolant_water_def *cfg,
                                 pcs_coolant_water **out)
{
    static const char fn[] = "pcs_coolant_water_add";
    if (!w || !out)
        return pcs_error_set(PCS_E_INVAL, "%s: w or out is NULL", fn);
    pcs_status st = cw_check_config(fn, cfg);
    if (st != PCS_OK)
        return st;
    void *block = pcs_world_alloc(w, (size_t)pcs_coolant_water_bytes(cfg));
    if (!block)
        return (pcs_world_sealed(w) && !pcs_world_amending(w))
                   ? pcs_error_set(PCS_E_STATE, "%s: world is sealed", fn)
                   : pcs_error_set(PCS_E_NOMEM, "%s: world heap exhausted", fn);
    return cw_build_into(fn, cfg, block, out);
}
