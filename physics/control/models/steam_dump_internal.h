/**
 * @file steam_dump_internal.h
 * @brief The steam dump controller's private layout, shared by its build
 *        (steam_dump.c) and its tick and commands (steam_dump_step.c).
 */
#ifndef PCS_PHYSICS_STEAM_DUMP_INTERNAL_H
#define PCS_PHYSICS_STEAM_DUMP_INTERNAL_H

#include "pcsim/command.h"
#include "pcsim/steam_dump.h"
#include "physics/control/models/control_common.h"

struct pcs_steam_dump {
    pcs_control_base base;             /* first: unit, dt_s, "uN.dumpctl.state" */
    pcs_steam_dump_def def;            /* unit_name points at base.unit */
    uint32_t id_turbine, id_interlock; /* the signal bus */
    pcs_secondary_stores sec;          /* the secondary's store ids */
};

/* "uN.dumpctl" (stage ALARMS). */
pcs_status pcs_sdc_system(pcs_world *w, void *ctx);

/* The command family's handler. */
pcs_status pcs_sdc_on_command(pcs_world *w, const pcs_command_call *call);

#endif
