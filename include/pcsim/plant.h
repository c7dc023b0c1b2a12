/**
 * @file plant.h
 * @brief A station of PWR units assembled from the physics models.
 *
 * For each unit N the builder makes: the reactor unit (unit.h: rods,
 * kinetics, decay heat, xenon) in external-heat mode; the fuel-rod model
 * (fuel.h) driven by the unit's power; the primary-loop hydraulics
 * (hydraulics.h: a pcs_hydraulics_pwr_network with the fuel's flow heat as its core
 * heat source); and the coupling system "uN.plant.couple" at stage MACHINES
 * that hands this tick's hydraulics to the fuel (core inlet temperature,
 * flow split by rod count, pressure) and the fuel's temperatures to the
 * kinetics feedback of the next tick. Data moves forward only:
 *   KINETICS (power) -> HEAT (fuel) -> HYDRAULICS (loops) -> MACHINES (couple)
 *   -> next tick's KINETICS.
 * At build the hydraulics settle to steady flow, the fuel to its steady
 * state at the settled boundary, and the unit's critical bias is recomputed
 * for those temperatures, so a plant starts steady.
 * Thread-safety: build on the world's thread during the build phase.
 */
#ifndef PCSIM_PLANT_H
#define PCSIM_PLANT_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/fuel.h"
#include "pcsim/hydraulics.h"
#include "pcsim/status.h"
#include "pcsim/unit.h"
#include "pcsim/world.h"

/** Units per station: the one limit on units. The station keeps each unit's
 *  configuration and coupling in fixed arrays (pcs_plant, and the scenario
 *  loader's), and its instrumentation is sized from it; the unit,
 *  hydraulics and protection models have no unit limit of their own (their
 *  command targets are registered per unit, by name). */
#define PCS_PLANT_MAX_UNITS 8u
/** Loops per unit (the PWR template's pump and SG arrays). */
#define PCS_PLANT_MAX_LOOPS 4u
/** Steam generator nodes per loop (the PWR template's node arrays). */
#define PCS_PLANT_MAX_SG_NODES 8u

/** One unit of the station. Start from pcs_plant_unit_default(). */
typedef struct pcs_plant_unit_def {
    pcs_unit_def core;     /**< reactor unit (external_heat is forced to 1) */
    pcs_fuel_def fuel;     /**< fuel rods and core coolant channels */
    uint32_t n_loops;         /**< primary loops, [1, PCS_PLANT_MAX_LOOPS]; default 4 */
    uint32_t n_sg_nodes;      /**< SG tube nodes per loop, [1, 8]; default 4 */
    pcs_hydraulics_pump pump;        /**< each loop's pump */
    double t_hot_k;           /**< full-power hot-leg temperature; default 599.0 K ([W84] 2-1) */
    double t_cold_k;          /**< full-power cold-leg temperature; default 565.1 K ([W84] 2-1) */
    double sg_pressure_pa;    /**< SG secondary pressure; default 6.89e6 Pa ([W84] 3.4-1);
                                   its IF97 saturation temperature is the heat sink */
    double pzr_dp_per_joule;  /**< pressurizer pressure rise per heater joule, Pa/J, >= 0 */
    double settle_s;          /**< hydraulic settling at build, s, [0, 3600]; default 60 */
} pcs_plant_unit_def;

/**
 * Defaults for a Westinghouse 4-loop unit (tests/refdata/pwr_plant.md; see
 * scenarios/README.md for the sources): pcs_unit_default,
 * pcs_fuel_default, 4 loops, and a pump rated at 4360 kg/s per loop
 * ([W84] Table 2-1 total flow / 4) with a rated head of 0.6 MPa, shutoff
 * ratio 1.3, efficiency 0.8 and 2900 kg m2 of inertia (assumptions: a
 * ~10 s half-speed coast-down; no source in refdata). PCS_E_INVAL for NULL.
 */
PCS_API pcs_status pcs_plant_unit_default(pcs_plant_unit_def *cfg);

typedef struct pcs_plant pcs_plant;

/** Handles of one built unit, for instrumentation and tests. */
typedef struct pcs_plant_unit {
    pcs_unit *core;
    pcs_fuel fuel;
    pcs_hydraulics *hyd;
    uint32_t index;   /**< 1-based unit number (channel prefix uN) */
    uint32_t n_loops;
} pcs_plant_unit;

/**
 * Build @p n_units units (numbered 1..n_units) into @p w.
 * @return PCS_E_INVAL naming the unit and field, or any model's build error
 *         (prefixed with the unit); PCS_E_NOMEM; PCS_E_STATE after sealing.
 */
PCS_API pcs_status pcs_plant_add(pcs_world *w, const pcs_plant_unit_def *units,
                                   uint32_t n_units, pcs_plant **out);

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
 * @p p. Call once, after pcs_plant_add. @p sp may be NULL (defaults).
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

/** Number of units, and unit @p i (0-based) of the plant; NULL out of range. */
PCS_API uint32_t pcs_plant_unit_count(const pcs_plant *p);
PCS_API const pcs_plant_unit *pcs_plant_unit_get(const pcs_plant *p, uint32_t i);

#endif
