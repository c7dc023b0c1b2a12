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
#include "pcsim/command.h"
#include "physics/plant/kernels/summary_node.h"

/* Coupling of one unit: pointers cached at build so the system is plain copies. */
typedef struct plant_couple {
    const double *pri_out;  /* PCS_PRIMARY_OUT_* */
    double *pri_heat;       /* [n_core] W: the primary's core heat input */
    const double *fuel_out; /* PCS_FUEL_OUT_* */
    double *fuel_t_in, *fuel_mdot, *fuel_p;
    double *unit_t_fuel, *unit_t_cool, *unit_t_max;
    double *unit_boron;   /* the kinetics' boron, ppm */
    uint32_t boron_out;   /* element of pri_out with the core's boron */
    const double *fuel_q; /* [n_axial] W: heat into the coolant per fuel level */
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

/* The instrumentation of one unit added while running (pcs_plant_unit_add):
 * its own sensor bank, protection and alarms, prefixed "uN." (plant_instr.c). */
typedef struct plant_instr_set {
    pcs_sensors *sensors;
    pcs_protection *protection;
    pcs_alarms *alarms;
    /* Event numbering: the bank's ids plus these (the first set's 0), so
     * one event id names one element over every bank (plant_event_*). */
    uint32_t sensor_base, function_base, alarm_base;
    uint32_t n_functions, n_alarms;
} plant_instr_set;

/* Per-unit arrays are n_room long (every unit the plant will ever have: the
 * ones built at pcs_plant_add and the ones pcs_plant_unit_add builds later),
 * from the world heap at pcs_plant_add (sized from the station, not
 * PCS_PLANT_MAX_UNITS), so nothing moves when a unit is added. */
struct pcs_plant {
    uint32_t n_units;              /* built so far: units[0, n_units) */
    uint32_t n_start;              /* built at pcs_plant_add */
    uint32_t n_room;               /* n_start + the units kept for pcs_plant_unit_add */
    pcs_coolant_water *water;      /* the fuel's real-water table the plant made for the units that
                                      brought none (NULL if every unit brought its own) */
    const pcs_water_ph_table *ph;  /* the (p, h) table for units that bring none */
    int instrumented;              /* pcs_plant_instrument ran: an added unit gets its own */
    pcs_plant_setpoints setpoints; /* what it ran with */
    plant_instr_set *added;        /* [n_room]: the instrumentation of each added unit */
    plant_instr_set start;         /* the start's banks (also p->sensors, ...) */
    uint32_t next_sensor, next_function, next_alarm; /* the next set's event bases */
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

/* Instrument unit @p u (0-based, u >= p->n_start), built while running,
 * with its own banks (plant_instr.c). */
pcs_status plant_instrument_added(pcs_world *w, pcs_plant *p, uint32_t u);

/* ---- the summary unit (plant_summary.c) ---------------------------------------- */

/* Elements of the STATE store "uN.summary.state". */
enum {
    PCS_SUMMARY_ST_T_FUEL = 0,      /* T_f, K */
    PCS_SUMMARY_ST_T_PRIMARY = 1,   /* T_p (Tavg), K */
    PCS_SUMMARY_ST_Q_CORE = 2,      /* heat into the coolant, W */
    PCS_SUMMARY_ST_Q_SG = 3,        /* heat to the SG, W */
    PCS_SUMMARY_ST_T_SINK = 4,      /* boundary: T_sat of the SG pressure, K */
    PCS_SUMMARY_ST_SG_PRESSURE = 5, /* boundary: the SG pressure, Pa */
    PCS_SUMMARY_ST_LOAD = 6,        /* steam demand: the load demand, fraction of rated */
    PCS_SUMMARY_ST_LOAD_TARGET = 7, /* steam demand: its target */
    PCS_SUMMARY_ST_T_INLET = 8,     /* T_p - Q_core / (2 W c_p), K */
    PCS_SUMMARY_ST_T_OUTLET = 9,    /* T_p + Q_core / (2 W c_p), K */
    PCS_SUMMARY_ST_T_MAX = 10,      /* T_p + k_peak (T_f - T_p), K */
    PCS_SUMMARY_ST_FLOW = 11,       /* W, kg/s (constant) */
    PCS_SUMMARY_ST_LOOP_FLOW = 12,  /* W / n_loops */
    PCS_SUMMARY_ST_SG_HEAT = 13,    /* Q_sg / n_loops */
    PCS_SUMMARY_ST_PRESSURE = 14,   /* the pressurizer setpoint: pressure is not modelled */
    PCS_SUMMARY_ST_COUNT = 15,
};

typedef struct pcs_plant_summary {
    char unit_name[16], prefix[16];
    pcs_summary_node_params np;
    int mode; /* PCS_SUMMARY_SINK_* */
    uint32_t n_loops;
    double p_nom_w, p_rcs_pa, t_avg_build_k, k_peak, flow_kg_s, cp_flow_j_kg_k;
    double ramp_per_s, step_max; /* the turbine governor's load ramp and step */
    uint32_t id_state, power_store, power_index, id_t_fuel, id_t_cool, id_t_max;
    uint32_t id_turbine_sig;       /* steam demand: "uN.turbine.sig" (the load for Tref) */
    pcs_rod_control *rod_control; /* steam demand: the full unit's rod control, else NULL */
} pcs_plant_summary;

/* Build unit @p n as a summary unit (plant.c's build_unit for model summary). */
pcs_status plant_summary_build(pcs_world *w, const pcs_plant_unit_def *cfg, uint32_t n,
                               pcs_plant_unit *pu);

/* The sg_pressure command on a summary unit (plant_commands.c). */
pcs_status plant_summary_sg_pressure(pcs_world *w, const pcs_plant_summary *s,
                                     const pcs_command_call *c);

#endif
