/**
 * @file unit.h
 * @brief A reactor unit: kinetics, reactivity, decay heat, xenon and a core heat
 *        model wired into a world as stores, systems, commands, channels, events.
 *
 * pcs_unit_add registers, for unit N (prefix "uN."):
 *  - ACTUATORS  "uN.rods": rod drive toward commanded positions (with
 *    auto_rods, the banks an automatic rod control drives follow its speed
 *    demand instead, pcs_unit_rod_stores); scram
 *    (latched from the trip input store or a manual command) releases every
 *    bank after scram_delay_s to fall under gravity (reactivity.h);
 *  - KINETICS   "uN.kinetics": total reactivity (rods + Doppler + moderator +
 *    boron + xenon + samarium + bias) ramped linearly over the tick from the
 *    previous tick's value, point kinetics (kinetics.h) with sub-steps of at
 *    most drho_substep, decay heat (decay_heat.h) driven by the tick's mean
 *    fission power, and the published core values;
 *  - HEAT       "uN.heat": the lumped two-node placeholder (lumped_heat.h),
 *    writing the stores the kinetics stage reads next tick: uN.fuel.t_avg
 *    (Doppler), uN.coolant.t_avg (moderator) and uN.fuel.t_max; a fuel-rod
 *    model can replace it by writing the same stores;
 *  - the SLOW job "uN.xenon" (xenon.h), whose reactivity the kinetics stage
 *    reads from the merge tick on.
 *
 * Same-tick feedback: the temperature feedback (Doppler, moderator) reads
 * what HEAT wrote the tick before, so it lags one tick (0.05 s, far below the
 * fuel's ~3 s time constant). A feedback fast enough to matter within a tick
 * lives inside the kinetics system instead: with energy_feedback = B > 0 the
 * reactivity carries -B W, W = int n dt since build (an adiabatic fuel-
 * temperature rise with a linear Doppler coefficient, as in Ganapol's (2013)
 * Table 4 benchmark), and KINETICS solves each sub-step together with its own
 * energy by a predictor-corrector (three passes from the sub-step's start
 * state; physics/kinetics/models/unit_systems.c), so the power and the
 * feedback it causes leave the stage consistent and data still only moves
 * forward through the stages. W is the f64 store "uN.kin.energy" (registered
 * only then); -B W is reported in the doppler component of
 * pcs_unit_reactivity.
 *
 * Power: the fission energy release rate is P_nom n (n the kinetics' relative
 * neutron level). A fraction f_dh (the saturated decay-heat fraction, about
 * 7 %) of it appears later as decay heat, so
 *     fission_power = (1 - f_dh) P_nom n,  decay_heat = sum of the groups,
 *     power = fission_power + decay_heat,
 * which equals P_nom at steady full power.
 *
 * Trip input: the u32 store "uN.core.trip" (see pcs_unit_trip_store) is the
 * protection system's scram request (any non-zero bits = scram, the bits are
 * the cause). Written at stage PROTECTION, it takes effect at ACTUATORS of
 * the next tick. A scram latches until a PCS_UNIT_OP_RESET, which is refused
 * while the trip input is non-zero.
 *
 * Channels (f64 unless noted; "" = dimensionless):
 *   uN.core.power (W), uN.core.fission_power (W), uN.core.decay_heat (W),
 *   uN.core.reactivity (""), uN.core.period (s: dt / ln(n1/n0) over the
 *   last tick, +-PCS_UNIT_PERIOD_INF_S when steady), uN.core.relative_power
 *   (n), uN.core.boron (ppm), uN.core.flags (u32, PCS_UNIT_FLAG_*),
 *   uN.core.trip (u32, the trip input), uN.scram.cause (u32), uN.rods.pos
 *   (worth-weighted mean position, 1 = all out), uN.rods.<bank>.pos,
 *   uN.fuel.t_avg (K), uN.fuel.t_max (K), uN.coolant.t_avg (K),
 *   uN.xenon.reactivity (""), uN.samarium.reactivity ("").
 *
 * Commands (target = unit index N, args in SI units) are applied at stage 1.
 * Events carry subject = N. Out-of-range values (power above
 * power_limit_fraction, reactivity outside (-0.5, 0.5), fuel above
 * fuel_temp_limit_k, coolant outside [273.15, 700] K, anything non-finite)
 * are clamped, flagged in uN.core.flags and reported once per excursion.
 *
 * Thread-safety: build on the world's thread during the build phase.
 */
#ifndef PCSIM_UNIT_H
#define PCSIM_UNIT_H

#include <stdint.h>

#include "pcsim/decay_heat.h"
#include "pcsim/event.h"
#include "pcsim/export.h"
#include "pcsim/kinetics.h"
#include "pcsim/lumped_heat.h"
#include "pcsim/reactivity.h"
#include "pcsim/status.h"
#include "pcsim/world.h"
#include "pcsim/xenon.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most control-rod banks per unit. */
#define PCS_UNIT_MAX_BANKS 8u
/** |period| published for a steady core (no change over the tick), s. */
#define PCS_UNIT_PERIOD_INF_S 1e10

/** Command family of the reactor units (pcs_command_kind_find). */
#define PCS_UNIT_COMMANDS "units"

/**
 * Ops of the "units" family: the kind is the family's first kind + op. Each
 * unit registers the targets "uN" (every op; rod ops move every bank) and
 * "uN.<bank name>" (rod position and speed of that bank).
 */
enum pcs_unit_op {
    /** args[0] = position, [0, 1] (0 = inserted); refused (PCS_E_STATE) while scrammed. */
    PCS_UNIT_OP_ROD_POSITION = 0,
    /** args[0] = drive speed, travel per s, (0, 1]. */
    PCS_UNIT_OP_ROD_SPEED = 1,
    /** Manual scram (cause PCS_UNIT_TRIP_MANUAL); takes effect at ACTUATORS of the same tick. */
    PCS_UNIT_OP_SCRAM = 2,
    /** Reset a latched scram; refused (PCS_E_STATE) while the trip input is non-zero. */
    PCS_UNIT_OP_RESET = 3,
    /** args[0] = boron concentration, ppm, [0, 10000] (until a chemistry model exists). */
    PCS_UNIT_OP_BORON = 4,
    PCS_UNIT_OP_COUNT = 5,
};

/** Event kinds of the unit: PCS_EV_MODEL_BASE + 0..31. subject = unit index. */
enum pcs_unit_event {
    /** v0 = cause bits, v1 = thermal power at the trip (W), v2 = reactivity, v3 = 0. */
    PCS_EV_UNIT_SCRAM = PCS_EV_MODEL_BASE + 0,
    /** v0 = bank index, v1 = limit reached (0 bottom, 1 top). */
    PCS_EV_UNIT_ROD_AT_LIMIT = PCS_EV_MODEL_BASE + 1,
    /** v0 = pcs_unit_range quantity, v1 = raw value, v2 = clamped value, v3 = limit. */
    PCS_EV_UNIT_OUT_OF_RANGE = PCS_EV_MODEL_BASE + 2,
    /** v0 = cause bits of the scram that was reset. */
    PCS_EV_UNIT_SCRAM_RESET = PCS_EV_MODEL_BASE + 3,
    PCS_EV_UNIT_FIRST = PCS_EV_MODEL_BASE + 0,
    PCS_EV_UNIT_LAST = PCS_EV_MODEL_BASE + 31,
};

/** Quantities reported by PCS_EV_UNIT_OUT_OF_RANGE (event value v0). */
enum pcs_unit_range {
    PCS_UNIT_RANGE_POWER = 1,        /**< relative power above power_limit_fraction or not finite */
    PCS_UNIT_RANGE_REACTIVITY = 2,   /**< total reactivity outside (-0.5, 0.5) or not finite */
    PCS_UNIT_RANGE_FUEL_TEMP = 3,    /**< fuel temperature above fuel_temp_limit_k or not finite */
    PCS_UNIT_RANGE_COOLANT_TEMP = 4, /**< coolant temperature outside [273.15, 700] K */
};

/** Scram cause bit of a manual scram; the protection system owns bits 1..31. */
#define PCS_UNIT_TRIP_MANUAL (1u << 0)

/** Bits of the status word uN.core.flags. */
#define PCS_UNIT_FLAG_SCRAMMED (1u << 0)        /**< scram latched */
#define PCS_UNIT_FLAG_RODS_MOVING (1u << 1)     /**< a bank moved this tick */
#define PCS_UNIT_FLAG_TRIP_REQUEST (1u << 2)    /**< trip input non-zero */
#define PCS_UNIT_FLAG_KINETICS_RANGE (1u << 3)  /**< power or reactivity clamped this tick */
#define PCS_UNIT_FLAG_SUBCRITICAL (1u << 4)     /**< reactivity < 0 */
#define PCS_UNIT_FLAG_PROMPT_CRITICAL (1u << 5) /**< reactivity >= beta */
#define PCS_UNIT_FLAG_HEAT_RANGE (1u << 6)      /**< a temperature clamped this tick */
#define PCS_UNIT_FLAG_OUT_OF_RANGE (PCS_UNIT_FLAG_KINETICS_RANGE | PCS_UNIT_FLAG_HEAT_RANGE)

/** Everything that defines a unit. Start from pcs_unit_default(). */
typedef struct pcs_unit_def {
    double nominal_power_w;       /**< thermal power at n = 1, W, (0, 1e11] */
    pcs_kinetics_params kinetics; /**< delayed-neutron data, Lambda, source */
    double drho_substep;          /**< largest reactivity change per kinetics sub-step, (0, 1e-2] */
    uint32_t n_banks;             /**< 1..PCS_UNIT_MAX_BANKS */
    uint32_t auto_rods;           /**< 1: an automatic rod control drives banks through the
                                       STATE store "uN.rods.auto" (pcs_unit_rod_stores);
                                       0 (default): no such store, commands alone */
    pcs_reactivity_rod_bank banks[PCS_UNIT_MAX_BANKS]; /**< control and shutdown banks */
    double scram_delay_s;                    /**< trip to start of rod motion, s, [0, 10] */
    double scram_drop_time_s;                /**< full-stroke gravity drop time, s, (0, 60] */
    pcs_reactivity_feedback_params feedback; /**< Doppler, moderator, boron coefficients */
    double boron_ppm;                        /**< initial boron, ppm, [0, 10000] */
    pcs_decay_heat_params decay_heat;        /**< decay-heat data set */
    double operating_time_s;                 /**< irradiation history before build, s, [0, 1e13] */
    pcs_xenon_params xenon;                  /**< poison constants */
    uint32_t
        xenon_equilibrium; /**< 1: xenon/samarium at equilibrium for the initial power; 0: clean */
    uint32_t xenon_phase;  /**< SLOW phase of the xenon job, [0, 20) */
    pcs_lumped_heat_params heat;   /**< placeholder heat model */
    double initial_power_fraction; /**< n at build, [0, power_limit_fraction] */
    uint32_t critical_at_build; /**< 1: bias chosen so the build state is steady; 0: use rho_bias */
    uint32_t external_heat;     /**< 1: no lumped HEAT system and no fuel/coolant channels:
                                     a fuel-rod model publishes those and the plant writes the
                                     feedback temperatures (pcs_unit_set_temperatures); 0: lumped */
    uint32_t external_boron;    /**< 1: the core's boron comes from a coolant model (the
                                     plant's primary, through pcs_unit_boron_store each tick):
                                     no core.boron channel and no PCS_UNIT_OP_BORON on the
                                     unit's target; 0: PCS_UNIT_OP_BORON sets it */
    double rho_bias;            /**< excess reactivity when critical_at_build = 0, |.| < 0.5 */
    double power_limit_fraction; /**< n clamped above this, [1, 1000] */
    double fuel_temp_limit_k;    /**< fuel temperature clamp, K, [1000, 5000] */
    double energy_feedback;      /**< adiabatic energy feedback B, reactivity per unit of int n dt
                                      (relative power x s), [0, 1]: the core's reactivity gains
                                      -B W, W = int n dt since build, solved inside the kinetics
                                      step (same-tick feedback, see the file comment); 0 (default):
                                      none, and no uN.kin.energy store */
} pcs_unit_def;

/**
 * PWR-like defaults for a 3411 MWt Westinghouse 4-loop unit, values from
 * tests/refdata/pwr_plant.md unless marked as assumptions:
 *  - nominal power 3.411e9 W ([BEAVRS], [W84], [TK]);
 *  - kinetics: Keepin U-235 six groups (tests/refdata/point_kinetics.csv), Lambda =
 *    2e-5 s ("typical LWR" value noted in pwr_plant.md; not authoritative),
 *    source 1e-6 1/s (assumption: shutdown level ~1e-10 of nominal);
 *  - banks: BEAVRS cycle 1 hot-zero-power measured worths D 788, C 1203,
 *    B 1171, A 548, SE 461, SD 772, SC 1099 pcm, sin^2 curves; D at 0.9,
 *    the rest withdrawn; drive 72 steps/min over a 228-step stroke (assumed
 *    Westinghouse values, not in refdata): 0.00526 travel/s;
 *  - scram: 0.15 s release delay, 85 % of travel in 2.7 s ([SalemFSAR],
 *    [TS]), i.e. full-stroke drop time 2.7/sqrt(0.85) = 2.93 s;
 *  - moderator coefficient -3.15 pcm/K (BEAVRS HZP isothermal coefficient,
 *    cycle 1, used for lack of a sourced hot-full-power MTC), ref 566.5 K;
 *  - Doppler -1.5e-3 /sqrt(K) (= -2.5 pcm/K at 900 K; assumption within the
 *    usual -2..-5 pcm/K; pwr_plant.md found no sourced value), ref 900 K;
 *  - boron -10 pcm/ppm (assumption), reference and initial 975 ppm (BEAVRS
 *    HZP critical boron, all rods out);
 *  - decay heat ANS-5.1-2004 with U-239/Np-239 (decay_heat.h), ANS
 *    "infinite" operation before build; xenon.h defaults at equilibrium;
 *  - lumped heat pcs_lumped_heat_params_pwr; full power; critical at build;
 *    power limit 10 x nominal; fuel limit 3120 K (upper end of the UO2
 *    conductivity correlation's range in pwr_plant.md, near melting).
 * @return PCS_E_INVAL for NULL.
 */
PCS_API pcs_status pcs_unit_default(pcs_unit_def *cfg);

/**
 * Check every field. @return PCS_E_INVAL whose message names the field
 * ("unit config: rods[2] ('B').initial_pos = 1.5 is outside [0, 1] ...",
 * "unit config: kinetics: beta[0] = -0.001 must be > 0 ...").
 */
PCS_API pcs_status pcs_unit_def_validate(const pcs_unit_def *cfg);

typedef struct pcs_unit pcs_unit;

/**
 * Build unit @p unit_index (>= 1, named "uN") of @p w from @p cfg (copied):
 * stores, systems, the xenon job, command targets "uN" and "uN.<bank>" (the
 * "units" family is allocated by the world's first unit), channels. The initial state is the steady
 * state at initial_power_fraction (see critical_at_build). @p out (optional) receives the unit,
 * owned by the world.
 * @return PCS_E_INVAL (bad config or index, index already built), PCS_E_STATE
 *         (world sealed), PCS_E_NOMEM, or the engine's registration errors.
 *         Configuration and index errors are found before anything is
 *         registered; a later failure (e.g. a store name clash with another
 *         model) may leave part of the unit registered: destroy the world.
 */
PCS_API pcs_status pcs_unit_add(pcs_world *w, uint32_t unit_index, const pcs_unit_def *cfg,
                                pcs_unit **out);

/** Store id of the u32 trip input "uN.core.trip" (written by protection). */
PCS_API uint32_t pcs_unit_trip_store(const pcs_unit *u);

/** The store of the core's boron concentration (one double, ppm) the reactivity reads; with
 *  external_boron a coupling system writes it. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_unit_boron_store(const pcs_unit *u, uint32_t *store);

/**
 * The rod drive's automatic input, for a unit built with auto_rods = 1: the
 * float64 STATE store "uN.rods.auto" of n_banks + 1 elements, [b] the signed
 * speed demand of bank b (travel per s, |v| <= 1, > 0 withdraws, 0 holds)
 * and [n_banks] the mask of the banks the automatic control drives (bit b,
 * an integer in [0, 2^n_banks - 1]; 0 at build: no bank). A bank in the mask
 * ignores its commanded position and speed (the operator's rod commands
 * wait for the mask to release it) and its commanded position follows its
 * position, so a released bank holds where it is; a scram overrides both.
 * The store's one writer is the rod control (pcsim/rod_control.h); the rods
 * system reads it at ACTUATORS. @p pos receives "uN.rods.pos" (n_banks
 * positions, 1 = withdrawn). PCS_E_INVAL for NULL, PCS_E_STATE when the
 * unit was built with auto_rods = 0.
 */
PCS_API pcs_status pcs_unit_rod_stores(const pcs_unit *u, uint32_t *auto_store, uint32_t *pos);

/** Where the unit publishes its thermal power (W): a double store element, for the heat model. */
PCS_API pcs_status pcs_unit_power_ref(const pcs_unit *u, uint32_t *store, uint32_t *index);

/**
 * Store ids of the feedback temperatures the kinetics stage reads (K, one
 * double each): volume-mean fuel (Doppler), mean coolant (moderator), and the
 * hottest fuel temperature. With external_heat a coupling system writes them.
 */
PCS_API pcs_status pcs_unit_temperature_stores(const pcs_unit *u, uint32_t *t_fuel,
                                               uint32_t *t_coolant, uint32_t *t_max);

/**
 * Replace the build state's feedback temperatures (K) with a heat model's
 * steady state and, when critical_at_build, recompute the bias so the unit
 * still starts steady. Build phase only.
 * @return PCS_E_INVAL (NULL, non-finite or below 273.15 K), PCS_E_STATE after
 *         sealing, or the kinetics' error if the new state is out of range.
 */
PCS_API pcs_status pcs_unit_set_temperatures(pcs_world *w, pcs_unit *u, double t_fuel_k,
                                             double t_coolant_k, double t_max_k);

/** Reactivity components at the last kinetics step, Delta k/k. */
typedef struct pcs_unit_reactivity {
    double rods, doppler, moderator, boron, xenon, samarium, bias, total;
} pcs_unit_reactivity;

/** Read the reactivity components of @p u (world thread). */
PCS_API void pcs_unit_reactivity_get(const pcs_unit *u, pcs_unit_reactivity *out);

/** Root solves the kinetics made so far (tests and benchmarks: cache hit rate). */
PCS_API uint64_t pcs_unit_kinetics_solves(const pcs_unit *u);

#ifdef __cplusplus
}
#endif

#endif
