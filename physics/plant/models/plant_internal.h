/**
 * @file plant_internal.h
 * @brief The plant's private layout, shared by its builder and instrumentation.
 */
#ifndef PCS_PHYSICS_PLANT_INTERNAL_H
#define PCS_PHYSICS_PLANT_INTERNAL_H

#include "pcsim/interlock.h"
#include "pcsim/plant.h"
#include "pcsim/pzr_control.h"
#include "pcsim/rod_control.h"
#include "pcsim/steam_dump.h"

/* Coupling of one unit: pointers cached at build so the system is plain copies. */
typedef struct plant_couple {
    const double *pri_out; /* PCS_PRIMARY_OUT_* */
    double *pri_heat;      /* [n_core] W: the primary's core heat input */
    const double *fuel_out; /* PCS_FUEL_OUT_* */
    double *fuel_t_in, *fuel_mdot, *fuel_p;
    double *unit_t_fuel, *unit_t_cool, *unit_t_max;
    double *unit_boron;     /* the kinetics' boron, ppm */
    uint32_t boron_out;     /* element of pri_out with the core's boron */
    const double *fuel_q;   /* [n_axial] W: heat into the coolant per fuel level */
    double flow_share[PCS_FUEL_MAX_CHANNELS];
    uint32_t n_channels, n_core, n_axial;
} plant_couple;

/* The "plant" command family's targets uN (plant_commands.c). */
pcs_status plant_commands_register(pcs_world *w, const pcs_plant_unit *pu);

/* Hot zero power (plant.c): the steam-pressure setpoint that holds the
 * settled unit @p pu (its header pressure now), and the dump controller
 * @p sd started in its steam-pressure mode at the settled demand. */
double plant_hzp_setpoint(pcs_world *w, const pcs_plant_unit *pu);
void plant_hzp_dumps(pcs_world *w, const pcs_steam_dump *sd);

/* Per-unit arrays are n_units long, from the world heap at pcs_plant_add
 * (sized from the station, not PCS_PLANT_MAX_UNITS). */
struct pcs_plant {
    uint32_t n_units;
    pcs_coolant_water *water; /* the fuel's real-water table the plant made for the units that
                                 brought none (NULL if every unit brought its own) */
    pcs_plant_unit *units;
    pcs_plant_unit_def *cfg;
    plant_couple *couple;
    pcs_sensors *sensors;
    pcs_protection *protection;
    pcs_alarms *alarms;
    pcs_pzr_control **pzr_control;
    pcs_rod_control **rod_control; /* steam-side units, else NULL */
    pcs_steam_dump **steam_dump;   /* steam-side units, else NULL */
    pcs_interlock **interlock;     /* steam-side units' (pcsim/interlock.h) */
};

#endif
