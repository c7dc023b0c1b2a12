/**
 * @file turbine_internal.h
 * @brief The turbine-generator's private layout, shared by its build
 *        (turbine.c), its tick (turbine_step.c) and its commands
 *        (turbine_cmd.c).
 */
#ifndef PCS_PHYSICS_TURBINE_INTERNAL_H
#define PCS_PHYSICS_TURBINE_INTERNAL_H

#include "pcsim/command.h"
#include "pcsim/turbine.h"
#include "physics/control/models/control_common.h"
#include "physics/machines/kernels/turbine_expansion.h"

struct pcs_turbine {
    pcs_control_base base; /* first: unit, dt_s (no "uN.turbine.state": gov and gen) */
    pcs_turbine_def def;   /* unit_name points at base.unit */
    uint32_t id_gov, id_gen, id_sig, id_ilk; /* own stores and the bus */
    pcs_secondary_stores sec;                /* the secondary's store ids */
    uint32_t v_header;                       /* header volume index */
    double rated_kg_s;                       /* W_rated: load 1 (the calibration) */
    double throat_kg_s;                      /* n_sg x the secondary's rated steam */
    double ff_opening;                       /* the secondary's turbine_rated_opening ... */
    double rated_p_pa; /* ... passes throat_kg_s at its turbine_rated_p_pa (turbine.h ff) */
    pcs_turbine_exhaust exhaust;
};

/* "uN.turbine.governor" (stage ACTUATORS) and "uN.turbine" (stage ACCIDENTS). */
pcs_status pcs_turbine_governor(pcs_world *w, void *ctx);
pcs_status pcs_turbine_generator(pcs_world *w, void *ctx);

/* Feedforward opening for effective demand @p d at header pressure @p p_pa. */
double pcs_turbine_ff(const pcs_turbine *t, double d, double p_pa);

/* The command family's handler. */
pcs_status pcs_turbine_on_command(pcs_world *w, const pcs_command_call *call);

#endif
