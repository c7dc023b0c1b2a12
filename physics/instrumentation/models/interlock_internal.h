/**
 * @file interlock_internal.h
 * @brief The interlock logic's and the MSIV actuation's private layouts,
 *        shared by their builds (interlock.c, interlock_msiv.c) and the
 *        interlock tick (interlock_step.c).
 */
#ifndef PCS_PHYSICS_INTERLOCK_INTERNAL_H
#define PCS_PHYSICS_INTERLOCK_INTERNAL_H

#include "pcsim/command.h"
#include "pcsim/interlock.h"
#include "physics/control/models/control_common.h"

struct pcs_interlock {
    pcs_control_base base; /* first: unit, dt_s, "<unit>.interlock.state" */
    pcs_interlock_def def; /* unit_name points at base.unit */
    const double *values;  /* the sensors' measured values, by sensor id */
    const uint32_t *trip;  /* the unit's trip breakers (latched scram cause) */
    const double *turbine; /* "<unit>.turbine.sig" */
    const double *feed;    /* "<unit>.feed.sig" */
    double *sig;           /* "<unit>.interlock.sig" (written) */
    double *state;         /* "<unit>.interlock.state" (written) */
    double *arm;           /* "<unit>.interlock.arm" (written by the copy system) */
    uint32_t id_sig, id_arm, id_turbine, id_feed, id_sensors, id_trip;
    double rated_load_kg_s; /* n_sg x rated steam: 100 % turbine load */
    double lag_alpha;       /* C-7 lag step: 1 - exp(-dt / tau) */
};

/* The tick ("<unit>.interlock", stage PROTECTION). */
pcs_status pcs_interlock_step(pcs_world *w, void *ctx);

/* The flags' copy for the protection ("<unit>.interlock.arm", stage ALARMS). */
pcs_status pcs_interlock_arm_step(pcs_world *w, void *ctx);

/* The SI and MSLI conditions as the last tick's measurements give them
 * (si_reset is refused while either holds). */
void pcs_interlock_conditions(const pcs_interlock *il, int *si, int *msli);

/* The start's flags from initial_power_frac and condenser_available. */
void pcs_interlock_start_flags(pcs_interlock *il);

#endif
