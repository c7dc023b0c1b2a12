/**
 * @file sg_porv_internal.h
 * @brief The SG PORV controller's private layout, shared by its build
 *        (sg_porv.c) and its tick and commands (sg_porv_step.c).
 */
#ifndef PCS_PHYSICS_SG_PORV_INTERNAL_H
#define PCS_PHYSICS_SG_PORV_INTERNAL_H

#include "pcsim/command.h"
#include "pcsim/sg_porv.h"
#include "physics/control/models/control_common.h"

struct pcs_sg_porv {
    pcs_control_base base;    /* first: unit, dt_s, "uN.porvctl.state", n_sg */
    pcs_sg_porv_def def;      /* unit_name points at base.unit */
    pcs_secondary_stores sec; /* the secondary's store ids */
};

/* "uN.porvctl" (stage ALARMS). */
pcs_status pcs_porv_system(pcs_world *w, void *ctx);

/* The command family's handler. */
pcs_status pcs_porv_on_command(pcs_world *w, const pcs_command_call *call);

#endif
