/**
 * @file plant_commands.c
 * @brief The "plant" command family: a unit's operator actions that act on
 *        the inputs of its primary (pcsim/plant.h PCS_PLANT_OP_*), target "uN".
 *
 * The handler writes the primary's controls input store at stage 1; the
 * primary reads it at stage HYDRAULICS of the same tick.
 */
#include <stdio.h>

#include "pcsim/command.h"
#include "pcsim/system.h"
#include "physics/plant/models/plant_internal.h"

#define P_TRIPLE_PA 611.212677 /* IF97 saturation line: pcs_water_tsat's range */
#define P_CRITICAL_PA 22064000.0

static pcs_status set_sg_pressure(double *controls, const pcs_plant_unit *pu,
                                  const pcs_command_call *c)
{
    double p = c->cmd->args[0];
    if (!(p >= P_TRIPLE_PA && p <= P_CRITICAL_PA))
        return pcs_error_set(PCS_E_INVAL,
                             "%s sg_pressure: value %g is outside [%g, %g] (secondary pressure Pa)",
                             c->target_name, p, P_TRIPLE_PA, P_CRITICAL_PA);
    for (uint32_t l = 0; l < pu->n_loops; l++)
        controls[PCS_PRIMARY_CTL_SG_PRESSURE + l] = p;
    return PCS_OK;
}

static pcs_status on_command(pcs_world *w, const pcs_command_call *c)
{
    const pcs_plant_unit *pu = c->ctx;
    if (pu->summary) /* the summary's SG boundary (plant_summary.c) */
        return plant_summary_sg_pressure(w, pu->summary, c);
    if (pu->secondary) /* its tubes see the steam side, not the boundary pressure */
        return pcs_error_set(PCS_E_INVAL,
                             "%s sg_pressure: the unit has the steam side (sg_model steam_side): "
                             "its SG pressure is an outcome; use turbine_load (the load demand) "
                             "or turbine_valve (the valve opening)",
                             c->target_name);
    double *controls = pcs_store_data(w, pcs_primary_store_ids(pu->primary).controls);
    return set_sg_pressure(controls, pu, c);
}

pcs_status plant_commands_register(pcs_world *w, const pcs_plant_unit *pu)
{
    uint32_t family;
    pcs_status st =
        pcs_command_family_share(w, PCS_PLANT_COMMANDS, PCS_PLANT_OP_COUNT, on_command, &family);
    if (st != PCS_OK)
        return st;
    char name[16];
    snprintf(name, sizeof name, "u%u", pu->index);
    pcs_command_target_def d = {.name = name, .family = family, .ctx = (void *)pu, .element = 0};
    return pcs_command_target_register(w, &d, NULL);
}
