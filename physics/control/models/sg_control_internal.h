/**
 * @file sg_control_internal.h
 * @brief The feedwater controller's private layout, shared by
 *        its build (sg_control.c) and its tick and commands
 *        (sg_control_step.c).
 */
#ifndef PCS_PHYSICS_SG_CONTROL_INTERNAL_H
#define PCS_PHYSICS_SG_CONTROL_INTERNAL_H

#include "pcsim/command.h"
#include "pcsim/sg_control.h"
#include "physics/control/models/control_common.h"

struct pcs_sg_control {
    pcs_control_base base;  /* first: unit, dt_s, "uN.sgctl.state", n_sg */
    pcs_sg_control_def def; /* unit_name points at base.unit */
    uint32_t id_meas;
    uint32_t id_feed_limit;   /* "uN.sgctl.feed_limit": the feed the pumps can deliver, per SG */
    pcs_secondary_stores sec; /* the secondary's store ids */
    int has_power;            /* def.power names a store: the program follows it */
    /* the level and flow lags' exact first-order weights per tick,
       1 - exp(-dt / T_F) and 1 - exp(-dt / T_W) (pcsim/sg_control.h) */
    double a_level, a_flow;
};

/* "uN.sgctl.measure" (stage SENSORS) and "uN.sgctl" (stage ACTUATORS). */
pcs_status pcs_sgc_measure(pcs_world *w, void *ctx);
pcs_status pcs_sgc_system(pcs_world *w, void *ctx);

/* The operator's transfers (PCS_SG_CONTROL_COMMANDS). */
pcs_status pcs_sgc_on_command(pcs_world *w, const pcs_command_call *c);

/* Bumpless transfer: I_L of SG block @p sl such that its mode's feed
 * demand, on the measured values @p ml, is its present feed command (on
 * the bypass valves: the command capped at the lower of @p top and the
 * bypass capacity), held within +-feed_max_kg_s. */
void pcs_sgc_bumpless(const pcs_sg_control *sc, const double *ml, double top, double *sl);

#endif
