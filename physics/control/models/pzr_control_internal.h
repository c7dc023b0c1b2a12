/**
 * @file pzr_control_internal.h
 * @brief The pressurizer controller's private layout, shared by its build
 *        (pzr_control.c), its tick (pzr_control_step.c) and its commands
 *        (pzr_control_cmd.c).
 */
#ifndef PCS_PHYSICS_PZR_CONTROL_INTERNAL_H
#define PCS_PHYSICS_PZR_CONTROL_INTERNAL_H

#include "pcsim/command.h"
#include "pcsim/pzr_control.h"
#include "physics/control/models/control_common.h"

/* The highest charging boron concentration, ppm (the def's check, the load
 * check and the charging_boron command). */
#define PZRC_BORON_MAX_PPM 10000.0

struct pcs_pzr_control {
    pcs_control_base base;   /* first: unit, dt_s, "uN.pzrctl.state" */
    pcs_pzr_control_def def; /* unit_name points at base.unit */
    uint32_t id_out;
};

/* One input read now: the value, or NaN when it is not finite or its status
 * word (if any) lacks PCS_SENSOR_ST_VALID. Inside the tick (declared reads)
 * or from a command handler (which declares nothing). */
double pcs_pzrc_read(pcs_world *w, const pcs_pzr_control_input *in);

/* The auctioneered-high valid Tavg (NaN if none is valid). */
double pcs_pzrc_tavg(pcs_world *w, const pcs_pzr_control *pc);

/* Level error now at Tavg @p t_avg (NaN if it or the level is invalid) and
 * the program (%). */
double pcs_pzrc_level_error(pcs_world *w, const pcs_pzr_control *pc, double t_avg, double *program);

/* Auto demands from the master output e_c and the latch / level flag. */
double pcs_pzrc_prop_heaters(const pcs_pzr_control_def *d, double e_c);
double pcs_pzrc_spray(const pcs_pzr_control_def *d, double e_c);

/* The tick ("uN.pzrctl", stage ACTUATORS). */
pcs_status pcs_pzrc_system(pcs_world *w, void *ctx);

/* The command family's handler (stage 1). */
pcs_status pcs_pzrc_on_command(pcs_world *w, const pcs_command_call *call);

#endif
