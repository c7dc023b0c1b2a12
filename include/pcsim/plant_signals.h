/**
 * @file plant_signals.h
 * @brief The signal bus of one unit's plant control and protection: small
 *        named STATE stores through which the turbine-generator, the
 *        feedwater system, the interlock logic and the controllers
 *        (rod control, steam dumps, feedwater) see each other (issue 15).
 *
 * Why a bus: these models read each other both ways (the interlocks read the
 * turbine's load for C-7 and its trip for C-8; the turbine reads the
 * interlocks' turbine-trip demand), so no build order would let each find
 * the other's store by its own header. Each signal set is one float64 STATE
 * store "<unit>.<set>.sig" (saved and hashed like every STATE store) with
 * exactly one writer system, its producer, named below; any later stage of
 * the same tick, or any stage of the next tick, reads it. The first model
 * built that needs a set registers it (pcs_plant_signals); the others find
 * it. A set nobody produces stays at zero: every element is defined so that
 * 0 is the inactive value (not tripped, not isolated, no demand), which is
 * also what a test that drives a model by hand writes into it.
 *
 * Every flag is 0.0 or 1.0 (a load check on load refuses anything else);
 * values carry the unit given with them.
 *
 * Thread-safety: build on the world's thread; the stores are read and
 * written by systems in the world's tick.
 */
#ifndef PCSIM_PLANT_SIGNALS_H
#define PCSIM_PLANT_SIGNALS_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The signal sets, each one store "<unit>.<name>.sig". */
typedef enum pcs_plant_signal_set {
    PCS_SIGNALS_TURBINE = 0,   /**< "turbine": producer the turbine-generator */
    PCS_SIGNALS_INTERLOCK = 1, /**< "interlock": producer the permissive and interlock logic */
    PCS_SIGNALS_FEED = 2,      /**< "feed": producer the feedwater system (main and auxiliary) */
    PCS_SIGNALS_SET_COUNT = 3,
} pcs_plant_signal_set;

/** "<unit>.turbine.sig": written by the turbine-generator. */
enum {
    PCS_SIG_TURBINE_LOAD = 0,        /**< first-stage (impulse) load: steam flow / rated, [0, 1.5];
                                          the Tref program's and P-13's input */
    PCS_SIG_TURBINE_TRIPPED = 1,     /**< flag: stop valves shut (C-8 input) */
    PCS_SIG_TURBINE_ELECTRIC_W = 2,  /**< generator electrical output, W */
    PCS_SIG_TURBINE_SHAFT_W = 3,     /**< shaft power, W */
    PCS_SIG_TURBINE_SPEED = 4,       /**< shaft speed / synchronous speed, 1 */
    PCS_SIG_TURBINE_LOAD_DEMAND = 5, /**< the load the governor is taking the turbine to, [0, 1.5] */
    PCS_SIG_TURBINE_COUNT = 6,
};

/** "<unit>.interlock.sig": written by the interlock logic at PCS_STAGE_PROTECTION;
 *  [HRTD] 12.2, 12.3 and refdata/pwr_transients.md name each one. */
enum {
    PCS_SIG_P4 = 0,             /**< flag: reactor trip breakers open (the unit is tripped) */
    PCS_SIG_P7 = 1,             /**< flag: at power (P-10 nuclear or P-13 turbine above 10 %) */
    PCS_SIG_P8 = 2,             /**< flag: power above 39 % (single-loop low-flow trip armed) */
    PCS_SIG_P9 = 3,             /**< flag: power above 50 % (turbine trip trips the reactor) */
    PCS_SIG_P12 = 4,            /**< flag: low-low Tavg (553 F): blocks all but 3 dump valves */
    PCS_SIG_P14 = 5,            /**< flag: SG high-high level (69 % NR) in any SG */
    PCS_SIG_C7 = 6,             /**< flag: loss of load (step > 10 % or ramp > 5 %/min), latched
                                     until reset: arms the load-rejection dump controller */
    PCS_SIG_C8 = 7,             /**< flag: turbine tripped: arms the load-rejection dump
                                     controller too (P-4 selects the plant-trip one) */
    PCS_SIG_C9 = 8,             /**< flag: condenser available (dumps may open) */
    PCS_SIG_TURBINE_TRIP = 9,   /**< flag: demand to the turbine to trip (P-4, P-14, SI) */
    PCS_SIG_FW_ISOLATION = 10,  /**< flag: main feedwater isolated (P-4 and low Tavg 564 F,
                                     P-14, SI) */
    PCS_SIG_AFW_START = 11,     /**< flag: auxiliary feedwater start (SG low-low level, both
                                     main feed pumps tripped, SI) */
    PCS_SIG_SI = 12,            /**< flag: safety injection signal */
    PCS_SIG_MSLI = 13,          /**< flag: main steam line isolation (close the MSIVs) */
    PCS_SIG_TWO_LOOP_LOW = 14,  /**< flag: low flow in two loops (the two-loop low-flow trip's
                                     input; that trip is armed by P-7) */
    PCS_SIG_INTERLOCK_COUNT = 15,
};

/** "<unit>.feed.sig": written by the feedwater system. */
enum {
    PCS_SIG_FEED_MFP_TRIPPED = 0, /**< flag: every main feed pump tripped (an AFW start input) */
    PCS_SIG_FEED_MAIN_KG_S = 1,   /**< main feed flow to all SGs, kg/s */
    PCS_SIG_FEED_AFW_KG_S = 2,    /**< auxiliary feed flow to all SGs, kg/s */
    PCS_SIG_FEED_COUNT = 3,
};

/** Number of elements of @p set (0 for an unknown set). */
PCS_API uint32_t pcs_plant_signals_count(pcs_plant_signal_set set);

/** The store name's middle part: "turbine", "interlock", "feed" (NULL if unknown). */
PCS_API const char *pcs_plant_signals_name(pcs_plant_signal_set set);

/**
 * Find, or register if no model has yet, the STATE float64 store
 * "<unit_name>.<set>.sig" of pcs_plant_signals_count(set) elements, all 0.
 * A store of that name with another size or kind is an error (another model
 * owns the name). The first call also registers the store's load check
 * (every flag 0 or 1, every value finite).
 * @param unit_name "u1" (1..15 characters). @param store_id set to the id.
 * @return PCS_E_INVAL (NULL, bad name, unknown set, a same-named store of
 *         another size or kind, naming it), PCS_E_STATE after sealing,
 *         PCS_E_NOMEM.
 * Thread-safety: the world's thread, during the build.
 */
PCS_API pcs_status pcs_plant_signals(pcs_world *w, const char *unit_name,
                                     pcs_plant_signal_set set, uint32_t *store_id);

#ifdef __cplusplus
}
#endif

#endif
