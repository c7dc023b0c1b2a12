/**
 * @file rod_control_internal.h
 * @brief The rod controller's private layout, shared by its build
 *        (rod_control.c) and its tick and commands (rod_control_step.c).
 */
#ifndef PCS_PHYSICS_ROD_CONTROL_INTERNAL_H
#define PCS_PHYSICS_ROD_CONTROL_INTERNAL_H

#include "pcsim/command.h"
#include "pcsim/rod_control.h"
#include "physics/control/models/control_common.h"

struct pcs_rod_control {
    pcs_control_base base;   /* first: unit, dt_s, "uN.rodctl.state" */
    pcs_rod_control_def def; /* unit_name points at base.unit */
    uint32_t n_banks;
    uint32_t id_turbine, id_auto, id_pos; /* turbine.sig; the unit's */
};

/* "uN.rodctl" (stage ALARMS). */
pcs_status pcs_rodc_system(pcs_world *w, void *ctx);

/* The command family's handler. */
pcs_status pcs_rodc_on_command(pcs_world *w, const pcs_command_call *call);

#endif
