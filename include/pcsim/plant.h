/**
 * @file plant.h
 * @brief A station of PWR units assembled from the physics models.
 *
 * For each unit N the builder makes: the reactor unit (unit.h: rods,
 * kinetics, decay heat, xenon) in external-heat mode; the fuel-rod model
 * (fuel.h) driven by the unit's power; the two-phase primary system
 * (primary.h: vessel, loops, pumps, steam generators and pressurizer on the
 * compressible network of thnet.h); and the coupling system
 * "uN.plant.couple" at stage MACHINES that hands this tick's primary to the
 * fuel (core inlet temperature, flow split by rod count, pressure), the
 * fuel's heat into the coolant per level (its q_axial, mapped by height
 * onto the primary's core volumes) and the fuel's temperatures to the kinetics feedback of the next
 * tick, and the core's boron (the primary transports it from the CVCS) to
 * the kinetics' boron reactivity (the unit has external_boron set). Data
 * moves forward only:
 *   KINETICS (power) -> HEAT (fuel) -> HYDRAULICS (primary) -> MACHINES
 *   (couple) -> next tick's KINETICS and HYDRAULICS.
 * The core heat therefore reaches the primary one tick (dt) after the fuel
 * released it; every joule arrives once (a stated simplification: 0.05 s
 * against the fuel's ~5 s time constant).
 * At build the primary settles to its steady state at the unit's initial
 * power on the Tavg and level programs (pcs_primary_init_steady: the SG
 * secondary pressure is the outcome), the fuel to its steady state at the
 * settled core inlet, flow and pressure, and the unit's critical bias is
 * recomputed for those temperatures, so a plant starts steady from hot zero
 * power to full power with one geometry.
 * A unit with sg_model PCS_PLANT_SG_STEAM_SIDE also gets its steam side
 * (secondary.h) and its feedwater and turbine control (sg_control.h),
 * settled to the primary's steady state (PCS_PLANT_SG_STEAM_SIDE below);
 * the default, PCS_PLANT_SG_BOUNDARY, builds exactly what it did before.
 * Every unit's primary reads one (p, h) property table: its def's, or one
 * the plant makes for the world (0.4 s; the station hands in its
 * process-wide pcs_station_water_table); every unit's fuel the properties
 * its def brings (fuel.props_fn, props_ctx) or one real-water (p, T) table
 * the plant makes in the world (pcs_coolant_water_add: IAPWS-IF97 density
 * and heat capacity, IAPWS 2008 viscosity and 2011 conductivity; the station
 * hands in its process-wide pcs_station_coolant_table), with nucleate
 * boiling on the clad (fuel.h).
 * Thread-safety: build on the world's thread during the build phase.
 */
#ifndef PCSIM_PLANT_H
#define PCSIM_PLANT_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/feedwater.h"
#include "pcsim/fuel.h"
#include "pcsim/primary.h"
#include "pcsim/interlock.h"
#include "pcsim/secondary.h"
#include "pcsim/sg_control.h"
#include "pcsim/status.h"
#include "pcsim/turbine.h"
#include "pcsim/unit.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Units per station: the one limit on units, the range pcs_plant_add and
 *  the scenario loader ("units") check (issue 16: 64 build and run). Nothing
 *  is sized by it: the plant's per-unit arrays and its instrumentation's
 *  build scratch are allocated for the station's own unit count at build,
 *  and the sensor bank, protection, unit, primary and steam-side models have
 *  no unit limit of their own (their command targets are registered per
 *  unit, by name). */
#define PCS_PLANT_MAX_UNITS 64u
/** Loops per unit (the instrumentation's per-loop arrays). */
#define PCS_PLANT_MAX_LOOPS 4u
/** Rating of one loop of the primary's geometry, W: the W 4-loop plant's
 *  3411 MW over four loops ([W84] Table 2-1). A unit's core.nominal_power_w
 *  is at most n_loops times this. */
#define PCS_PLANT_LOOP_RATING_W (3.411e9 / 4.0)

/** One unit of the station. Start from pcs_plant_unit_default(). */
typedef struct pcs_plant_unit_def {
    pcs_unit_def core;       /**< reactor unit (external_heat and external_boron are forced
                                  to 1; boron_ppm is the coolant's initial boron) */
    pcs_fuel_def fuel;       /**< fuel rods and core coolant channels */
    pcs_primary_def primary; /**< the primary system; the builder sets unit_name,
                                  unit_index, rated_power_w (= core.nominal_power_w) and
                                  table (one for the world when NULL); n_loops in
                                  [1, PCS_PLANT_MAX_LOOPS] */
    uint32_t sg_model;       /**< PCS_PLANT_SG_BOUNDARY (0, default) or PCS_PLANT_SG_STEAM_SIDE */
    uint32_t model;          /**< PCS_PLANT_MODEL_FULL (0, default) or PCS_PLANT_MODEL_SUMMARY */
} pcs_plant_unit_def;

/** pcs_plant_unit_def.model: how much of the unit is modelled. */
enum {
    /** Everything above: kinetics, fuel rods, the two-phase primary, its SG side. */
    PCS_PLANT_MODEL_FULL = 0,
    /** The named reduced summary model (physics/plant/models/plant_summary.c):
     *  the reactor unit (kinetics, decay heat, feedback, rods, xenon) with one
     *  fuel node and ONE primary coolant node giving its heat to an SG sink
     *  (sg_model boundary: a saturated boundary at the sg_pressure command's
     *  pressure; steam_side: the turbine_load demand). Constant flow, pressure
     *  not modelled, no instrumentation (a scram by command only); its error
     *  against the full model over reactor-trip and load-step is stated in
     *  scenarios/README.md and tested (tests/test_summary_unit.c). Its handles:
     *  core and summary; fuel, primary and the steam side's are NULL/zero. */
    PCS_PLANT_MODEL_SUMMARY = 1,
};

/** pcs_plant_unit_def.sg_model: what the SG tubes give their heat to. */
enum {
    /** A saturated boundary per SG at the primary's controls[SG_PRESSURE + l]
     *  (the sg_pressure command moves it): no steam, no level. */
    PCS_PLANT_SG_BOUNDARY = 0,
    /** The steam side (pcsim/secondary.h) built for the unit on the unit's
     *  (p, h) table, with n_sg = n_loops and n_bundle = n_sg_tubes / 2: after
     *  the primary settles on the boundary, the secondary settles at the
     *  primary's SG heat per SG and the NR level program, at the dome
     *  pressure whose tube-side temperatures (U A-weighted over the tubes)
     *  give the primary the same heat as its settled T_sat (a few passes);
     *  then the primary's tubes see the secondary's tube_t and write
     *  tube_heat (pcs_primary_sg_couple); the feedwater and turbine
     *  controller (pcsim/sg_control.h, its defaults) starts from there. */
    PCS_PLANT_SG_STEAM_SIDE = 1,
};

/**
 * Defaults for a Westinghouse 4-loop unit (tests/refdata/pwr_plant.md; see
 * scenarios/README.md for the sources): pcs_unit_default,
 * pcs_fuel_default and pcs_primary_default. PCS_E_INVAL for NULL.
 */
PCS_API pcs_status pcs_plant_unit_default(pcs_plant_unit_def *cfg);

typedef struct pcs_plant pcs_plant;

/** Handles of one built unit, for instrumentation and tests. */
typedef struct pcs_plant_unit {
    pcs_unit *core;
    pcs_fuel fuel;
    pcs_primary *primary;
    uint32_t index;   /**< 1-based unit number (channel prefix uN) */
    uint32_t n_loops;
    pcs_primary_init_report init; /**< the primary's settling at build */
    double rated_loop_flow_kg_s;  /**< loop 1's flow at the build's steady state: 100 % of
                                       the loop-flow instruments (their calibration) */
    pcs_secondary *secondary;     /**< the steam side (sg_model PCS_PLANT_SG_STEAM_SIDE), else NULL */
    pcs_secondary_init_report secondary_init; /**< its last settling pass at build */
    pcs_sg_control *sg_control;   /**< its feedwater control (pcsim/sg_control.h, defaults),
                                       else NULL */
    pcs_turbine *turbine;         /**< its turbine-generator and load control
                                       (pcsim/turbine.h, defaults), else NULL */
    pcs_feedwater *feedwater;     /**< its main and auxiliary feedwater (pcsim/feedwater.h,
                                       defaults), else NULL */
    pcs_msiv *msiv;               /**< its MSIV actuation (pcsim/interlock.h), else NULL */
    struct pcs_plant_summary *summary; /**< model summary: its nodes (opaque), else NULL */
} pcs_plant_unit;

/** Command family of a unit's operator actions on the plant, target "uN".
 *  (Heaters, sprays, charging, letdown and boron are the pressurizer
 *  control's: pcsim/pzr_control.h, built by pcs_plant_instrument.) */
#define PCS_PLANT_COMMANDS "plant"
enum {
    /** args[0]: every steam generator's secondary pressure, Pa, in
     *  [611.213, 2.2064e7] (IF97 saturation line): the SG boundary until the
     *  steam side exists. */
    PCS_PLANT_OP_SG_PRESSURE = 0,
    PCS_PLANT_OP_COUNT = 1,
};

/**
 * Build @p n_units units (numbered 1..n_units) into @p w.
 * @return PCS_E_INVAL naming the unit and field, or any model's build error
 *         (prefixed with the unit); PCS_E_NOMEM; PCS_E_STATE after sealing.
 */
PCS_API pcs_status pcs_plant_add(pcs_world *w, const pcs_plant_unit_def *units,
                                   uint32_t n_units, pcs_plant **out);

/**
 * pcs_plant_add of the first @p n_start of @p n_units units; the others are
 * kept (their definitions copied) for pcs_plant_unit_add, which builds them
 * one at a time, in order, while the world runs. The plant's per-unit arrays
 * are sized for all @p n_units here, so an added unit moves nothing.
 * n_start == n_units is pcs_plant_add exactly.
 * @return as pcs_plant_add; PCS_E_INVAL for n_start outside [1, n_units].
 */
PCS_API pcs_status pcs_plant_add_staged(pcs_world *w, const pcs_plant_unit_def *units,
                                        uint32_t n_units, uint32_t n_start, pcs_plant **out);

/**
 * Build the next kept unit (number pcs_plant_unit_count + 1) from its
 * definition: from a structural command's apply (pcsim/structure.h), or in
 * the build phase. Its steady state is settled at its initial power as at
 * the start (a full settle: never copied from a running twin), so it enters
 * steady; its systems first run at the tick after the apply. When the plant
 * is instrumented (pcs_plant_instrument) the unit gets its own sensors,
 * protection and alarms (stores and systems prefixed "uN.", channels and
 * targets named as a unit built at the start has them) and its controllers.
 * @return PCS_E_STATE when no unit is kept, or the build's errors (prefixed
 *         with the unit); PCS_E_STATE when the world is sealed and not amending.
 */
PCS_API pcs_status pcs_plant_unit_add(pcs_world *w, pcs_plant *p);

/** Units the plant can have: built plus kept (pcs_plant_add_staged). */
PCS_API uint32_t pcs_plant_unit_room(const pcs_plant *p);

/**
 * Standard instrumentation of every unit (plant_instr.c), after Westinghouse
 * practice: four redundant channels per protected quantity, 2-out-of-4 trip
 * logic, and operator alarms. Setpoints are fractions of the unit's rated
 * values or absolute pressures. Sources: low/high pressure trips 1865/2385
 * psig and the PORV setpoint 2335 psig ([HRTD] Table 3.2-2 via
 * tests/refdata/pwr_plant.md). The flux (109 %), flux-rate (5 % in 2 s), low-flow
 * (90 %) setpoints and the alarm thresholds are typical values with no
 * source in refdata: model assumptions.
 */
typedef struct pcs_plant_setpoints {
    double high_flux_frac;       /**< of nominal power; default 1.09 */
    double flux_rate_frac;       /**< power rise, fraction of nominal per rate window; 0.05 */
    uint32_t rate_window_ticks;  /**< default 40 (2 s at 0.05 s) */
    double low_flow_frac;        /**< of rated loop flow; default 0.90 */
    double high_pressure_pa;     /**< default 16.548e6 (2385 psig) */
    double low_pressure_pa;      /**< default 12.960e6 (1865 psig) */
    double alarm_power_frac;     /**< default 1.02 */
    double alarm_flow_frac;      /**< default 0.95 */
    double alarm_pressure_high_pa; /**< default 16.203e6 (PORV, 2335 psig) */
    double alarm_t_hot_k;        /**< default 610 */
    double noise_frac;           /**< sensor noise, fraction of span; default 0.002 */
} pcs_plant_setpoints;

/** Fill @p sp with the defaults above. */
PCS_API pcs_status pcs_plant_setpoints_default(pcs_plant_setpoints *sp);

/**
 * Build sensors (uN.nis.power.A..D, uN.loopL.flow.A..D, uN.pzr.pressure.A..D,
 * uN.loopL.t_hot.S), protection (uN.rps.high_flux, .flux_rate, .low_flow.L,
 * .high_pressure, .low_pressure, each 2oo4, writing each unit's trip input)
 * and alarms (uN.alarm.power_high, .flow_low.L, .pressure_high,
 * .pressure_low, .t_hot_high.L; first-out group per unit) for every unit of
 * @p p. A unit with sg_model PCS_PLANT_SG_STEAM_SIDE also gets the steam
 * side's sensors, the SG low-low and turbine-trip (armed by P-9) trips, its
 * low-pressure trip armed by P-7, the steam-side alarms and its interlock
 * logic (pcsim/interlock.h; scenarios/README.md lists them). Call once, after pcs_plant_add. @p sp may be NULL (defaults).
 * @return the control models' errors, PCS_E_STATE if called twice.
 */
PCS_API pcs_status pcs_plant_instrument(pcs_world *w, pcs_plant *p, const pcs_plant_setpoints *sp);

typedef struct pcs_sensors pcs_sensors;
typedef struct pcs_protection pcs_protection;
typedef struct pcs_alarms pcs_alarms;

/** The instrumentation of @p p (NULL before pcs_plant_instrument). */
PCS_API pcs_sensors *pcs_plant_sensors(const pcs_plant *p);
PCS_API pcs_protection *pcs_plant_protection(const pcs_plant *p);
PCS_API pcs_alarms *pcs_plant_alarms(const pcs_plant *p);

/** The instrumentation of unit @p i (0-based): the plant's banks above for
 *  a unit built at the start, its own for a unit added while running
 *  (pcs_plant_unit_add); NULL out of range or before pcs_plant_instrument. */
PCS_API pcs_sensors *pcs_plant_unit_sensors(const pcs_plant *p, uint32_t i);
PCS_API pcs_protection *pcs_plant_unit_protection(const pcs_plant *p, uint32_t i);
PCS_API pcs_alarms *pcs_plant_unit_alarms(const pcs_plant *p, uint32_t i);

/** The name of trip function or alarm @p id as events carry it (every
 *  bank's ids follow the banks before it: the start's from 0, each added
 *  unit's after), "?" for an id no bank has. */
PCS_API const char *pcs_plant_event_function_name(const pcs_plant *p, uint32_t id);
PCS_API const char *pcs_plant_event_alarm_name(const pcs_plant *p, uint32_t id);

/** Number of units, and unit @p i (0-based) of the plant; NULL out of range. */
PCS_API uint32_t pcs_plant_unit_count(const pcs_plant *p);
PCS_API const pcs_plant_unit *pcs_plant_unit_get(const pcs_plant *p, uint32_t i);

#ifdef __cplusplus
}
#endif

#endif
