/**
 * @file protection.h
 * @brief Reactor protection: trip functions with coincidence logic over
 *        redundant sensor channels, bypasses, a latched unit trip with its
 *        first-out reason, and the one-tick delay to the actuators.
 *
 * A world holds at most one protection system; it may protect several units
 * (reactors), each with its own trip output. It reads only measured sensor
 * values (sensor.h), as a real reactor protection system reads only its
 * instrument channels.
 *
 * Trip functions. Function f watches n_inputs redundant sensors (its
 * channels, n <= PCS_PROTECTION_TRIP_MAX_INPUTS) and trips when at least k of them are
 * in the trip condition (k-out-of-n coincidence, e.g. 2oo4), counting only
 * channels not bypassed. A channel's condition, at stage PCS_STAGE_PROTECTION:
 *  - LEVEL, HIGH: value >= setpoint;   LEVEL, LOW: value <= setpoint.
 *  - RATE: r = (value(t) - value(t - W dt)) / (W dt) over a window of
 *    W = rate_window_ticks ticks; HIGH trips at r >= setpoint, LOW at
 *    r <= setpoint (a negative-rate trip uses LOW with a negative setpoint).
 *    A rate channel starts after W samples (the function is WARMING until
 *    then).
 *  A NaN value puts its channel in the trip condition: a channel that cannot
 *  show it is safe counts as unsafe (fail-safe).
 *
 * Unit trip. When a function of unit u trips and u's trip output is 0, the
 * output becomes 1 and the function becomes u's first-out reason (functions
 * tripping on the same tick: the lowest id, i.e. configuration order). The
 * output stays latched until a reset command, which is refused while any
 * unbypassed function of the unit is still tripped. The output is a u32
 * STATE element written at stage 10 (PROTECTION) of tick T; a unit model
 * reads it at stage 2 (ACTUATORS) of tick T + 1, so the one-tick delay of
 * docs/ARCHITECTURE.md section 2 comes from the stage order, with no extra buffer.
 *
 * Unit trip inputs. A unit model that owns its trip input (unit.h: the u32
 * store "uN.core.trip", any non-zero bits = scram, protection owns bits
 * 1..31) is wired through unit_trip_stores/unit_trip_indices: at every stage
 * PROTECTION the system writes PCS_PROTECTION_TRIP_CAUSE_BIT(first-out function) there
 * while u's output is latched and 0 otherwise, and a reset clears it at
 * once (stage 1), so a unit reset later in the same command batch is
 * accepted. Either way of wiring gives the same one-tick delay.
 *
 * Permissives. A function may be armed by a permissive flag (arm,
 * arm_store, arm_index): while the flag is 0 the function is BLOCKED (state
 * bit PCS_PROTECTION_TRIP_ST_BLOCKED) and does not trip, as a trip blocked
 * below P-7 in a Westinghouse plant ([HRTD] 12.2).
 *
 * Bypass. A whole function may be bypassed (it never trips), or single
 * channels (2oo4 with one channel bypassed acts as 2oo3). A channel bypass
 * that would leave fewer than k channels is refused: a function must always
 * be able to trip.
 *
 * Published channels: per function `<name>` (U32 state word, PCS_PROTECTION_TRIP_ST_*);
 * per unit `<unit>.rps.trip` (U32, 0 or 1) and `<unit>.rps.first_out` (U32,
 * first-out function id + 1; 0 = none).
 *
 * Thread-safety: build-time calls on the world's thread; the object is owned
 * by the world. Queries are world-thread only.
 */
#ifndef PCSIM_PROTECTION_H
#define PCSIM_PROTECTION_H

#include <stdint.h>

#include "pcsim/event.h"
#include "pcsim/export.h"
#include "pcsim/sensor.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pcs_protection pcs_protection;

/** What a trip function compares with its setpoint. */
typedef enum pcs_protection_trip_kind {
    PCS_PROTECTION_TRIP_LEVEL = 0, /**< the measured value */
    PCS_PROTECTION_TRIP_RATE = 1,  /**< its rate of change over a window, value units / s */
} pcs_protection_trip_kind;

/** Which side of the setpoint is unsafe. */
typedef enum pcs_protection_trip_direction {
    PCS_PROTECTION_TRIP_HIGH = 0, /**< trip at >= setpoint */
    PCS_PROTECTION_TRIP_LOW = 1,  /**< trip at <= setpoint */
} pcs_protection_trip_direction;

/** Limits. */
#define PCS_PROTECTION_TRIP_MAX_INPUTS 8u         /**< channels per function */
#define PCS_PROTECTION_TRIP_MAX_FUNCTIONS 1024u   /**< functions per protection system */
#define PCS_PROTECTION_TRIP_RATE_WINDOW_MAX 1200u /**< rate window, ticks (60 s at 0.05 s) */
#define PCS_PROTECTION_TRIP_UNIT_NAME_MAX 32u     /**< unit channel prefix length */
#define PCS_PROTECTION_TRIP_NAME_MAX 100u         /**< function channel name length */
/** pcs_protection_first_out() when a unit has not tripped. */
#define PCS_PROTECTION_TRIP_NONE UINT32_MAX
/** unit_trip_stores entry for a unit without a trip input to write. */
#define PCS_PROTECTION_TRIP_NO_TARGET UINT32_MAX
/** Cause bits written to a unit's trip input for first-out function @p f:
 *  bit 1 + f, functions 30 and above sharing bit 31 (bit 0 is the unit's
 *  manual scram, unit.h PCS_UNIT_TRIP_MANUAL). */
#define PCS_PROTECTION_TRIP_CAUSE_BIT(f) (1u << (1u + ((f) < 30u ? (f) : 30u)))

/** Function state word bits (channel `<name>`). */
#define PCS_PROTECTION_TRIP_ST_CHANNEL_MASK 0xFFu /**< bit c: channel c in trip condition */
#define PCS_PROTECTION_TRIP_ST_BYPASS_SHIFT 8u    /**< bits 8..15: channel c bypassed */
#define PCS_PROTECTION_TRIP_ST_BYPASS_MASK 0xFF00u
#define PCS_PROTECTION_TRIP_ST_TRIPPED 0x10000u  /**< k-of-n met and function not bypassed */
#define PCS_PROTECTION_TRIP_ST_BYPASSED 0x20000u /**< whole function bypassed */
#define PCS_PROTECTION_TRIP_ST_WARMING 0x40000u  /**< rate window not yet full */
#define PCS_PROTECTION_TRIP_ST_BLOCKED 0x80000u  /**< permissive-armed function, permissive off */

/** Command family of the protection system (pcs_command_kind_find). */
#define PCS_PROTECTION_TRIP_COMMANDS "protection"

/**
 * Ops of the "protection" family (kind = the family's first kind + op).
 * Targets: each trip function by its name (e.g. "u1.rps.high_flux": bypass
 * ops) and each unit by its prefix (unit_names, or "u1".."uN": reset).
 *  - BYPASS / UNBYPASS: args[0] = channel index in [0, n_inputs), or any
 *    negative value for the whole function. Refused: channel out of range
 *    (PCS_E_INVAL), a channel bypass leaving fewer than k channels
 *    (PCS_E_STATE).
 *  - RESET: clears the unit's trip output and first-out reason. Refused
 *    (PCS_E_STATE, naming the function) while an unbypassed function of the
 *    unit is tripped.
 */
enum pcs_protection_trip_op {
    PCS_PROTECTION_TRIP_OP_BYPASS = 0,
    PCS_PROTECTION_TRIP_OP_UNBYPASS = 1,
    PCS_PROTECTION_TRIP_OP_RESET = 2,
    PCS_PROTECTION_TRIP_OP_COUNT = 3,
};

/**
 * Event kinds (PCS_EV_MODEL_BASE + 80..95).
 *  - TRIP_FUNCTION: function's coincidence became met. subject = function;
 *    values = {unit, channels in trip (unbypassed), setpoint, most extreme
 *    tripped channel's value (rate for RATE)}.
 *  - TRIP_FUNCTION_CLEAR: the coincidence is no longer met. subject =
 *    function; values = {unit, channels in trip, setpoint, 0}.
 *  - UNIT_TRIP: a unit's trip output latched. subject = unit; values =
 *    {first-out function id, setpoint, value as in TRIP_FUNCTION, 0}.
 *  - TRIP_RESET: a unit's trip was reset. subject = unit; values =
 *    {first-out function id it had, 0, 0, 0}.
 *  - TRIP_BYPASS: a bypass changed. subject = function; values = {channel
 *    (-1 = whole function), 1 bypassed / 0 restored, 0, 0}.
 */
enum {
    PCS_EV_TRIP_FUNCTION = PCS_EV_MODEL_BASE + 80,
    PCS_EV_TRIP_FUNCTION_CLEAR = PCS_EV_MODEL_BASE + 81,
    PCS_EV_UNIT_TRIP = PCS_EV_MODEL_BASE + 82,
    PCS_EV_TRIP_RESET = PCS_EV_MODEL_BASE + 83,
    PCS_EV_TRIP_BYPASS = PCS_EV_MODEL_BASE + 84,
};

/** One trip function. Start from pcs_protection_function_default(). */
typedef struct pcs_protection_function_def {
    const char *name;   /**< channel of its state word, e.g. "u1.rps.flux_high"; 1..100 chars */
    uint32_t unit;      /**< unit it trips, [0, n_units); default 0 */
    pcs_protection_trip_kind kind; /**< default LEVEL */
    pcs_protection_trip_direction direction; /**< default HIGH */
    double setpoint;              /**< value units (LEVEL) or value units / s (RATE); finite */
    uint32_t n_inputs;            /**< redundant channels, [1, PCS_PROTECTION_TRIP_MAX_INPUTS] */
    uint32_t inputs[PCS_PROTECTION_TRIP_MAX_INPUTS]; /**< sensor ids, distinct */
    uint32_t k;                 /**< coincidence: trip at >= k channels, [1, n_inputs]; default 1 */
    uint32_t rate_window_ticks; /**< RATE window W, [1, 1200] ticks; default 20 */
    /** Permissive arming (e.g. the low-pressure trip above P-7, the turbine
     *  trip above P-9): 0 (default) always armed; 1 armed only while the
     *  float64 element arm_store[arm_index] is non-zero (a permissive flag,
     *  pcsim/plant_signals.h), else BLOCKED: it never trips. The element is
     *  read as the tick finds it (a flag written at a later stage acts on
     *  the next tick). */
    uint32_t arm;
    uint32_t arm_store; /**< float64 store of the permissive flag (when arm = 1) */
    uint32_t arm_index; /**< its element */
} pcs_protection_function_def;

/** The protection system. Start from pcs_protection_default(). */
typedef struct pcs_protection_def {
    uint32_t n_units; /**< units protected, [1, 2^20]; default 1 */
    const char *const
        *unit_names;      /**< n_units channel prefixes (1..32 chars), or NULL for "u1".."uN" */
    uint32_t n_functions; /**< [1, 1024] */
    const pcs_protection_function_def *functions; /**< n_functions entries; ids are indices */
    /** n_units u32 stores the protection writes as each unit's trip input
     *  (e.g. pcs_unit_trip_store()), PCS_PROTECTION_TRIP_NO_TARGET for none; NULL: none at all. */
    const uint32_t *unit_trip_stores;
    /** Element in each of those stores; NULL: element 0. */
    const uint32_t *unit_trip_indices;
    /** NULL or "" (default): the world's protection, stores "rps.*", system
     *  "protection". Else another one in the same world (a unit added while
     *  running, pcsim/structure.h): stores "<prefix>rps.*", system and load
     *  check "<prefix>protection", the command family shared; at most 31
     *  chars. Function and unit channels and targets keep their own names. */
    const char *prefix;
    /** Added to the function ids and unit indices its events carry (0, 0:
     *  as the ids and indices here), so the events of a second protection
     *  in the world name its own functions and units. */
    uint32_t event_function_base, event_unit_base;
} pcs_protection_def;

/** Fill @p cfg with the defaults above (name NULL, n_inputs 0: must be set). */
PCS_API pcs_status pcs_protection_function_default(pcs_protection_function_def *cfg);

/** Fill @p cfg: one unit, default names, no trip targets, no functions (must be set). */
PCS_API pcs_status pcs_protection_default(pcs_protection_def *cfg);

/**
 * Check every field of @p cfg and of each function against @p sensors, and
 * the unit trip targets against @p w's stores (u32 arrays, index in range).
 * @return PCS_E_INVAL naming the function (id and name) or unit, the field,
 *         its value and the allowed range.
 */
PCS_API pcs_status pcs_protection_def_validate(const pcs_world *w, const pcs_sensors *sensors,
                                               const pcs_protection_def *cfg);

/**
 * Build the protection system: STATE stores "rps.*", a system at
 * PCS_STAGE_PROTECTION (priority 0) reading the sensors' value store and
 * writing its own stores and the unit trip inputs, the command targets
 * and the channels above. Build phase only. Strings are copied. Build the
 * unit models first when their trip inputs are targets.
 * @return PCS_E_INVAL (bad config; duplicate channel name), PCS_E_STATE
 *         (sealed, or a protection system exists), PCS_E_NOMEM. If channel
 *         registration fails part-way the world holds part of the system:
 *         discard the world.
 */
PCS_API pcs_status pcs_protection_add(pcs_world *w, const pcs_sensors *sensors,
                                      const pcs_protection_def *cfg, pcs_protection **out);

/**
 * Where unit @p unit's trip output lives: a u32 element (store id, index),
 * 0 = not tripped, 1 = tripped (latched). A model without its own trip input
 * registers @p store in its ACTUATORS-stage system's reads and scrams when
 * it reads 1 (the other way of wiring: unit_trip_stores above).
 * @return PCS_E_INVAL (NULL), PCS_E_NOTFOUND (unit out of range).
 */
PCS_API pcs_status pcs_protection_trip_output(const pcs_protection *p, uint32_t unit,
                                              uint32_t *store, uint32_t *index);

/** Trip output of @p unit (0 or 1; 0 for bad arguments). */
PCS_API uint32_t pcs_protection_tripped(const pcs_protection *p, uint32_t unit);

/** First-out function id of @p unit, or PCS_PROTECTION_TRIP_NONE. */
PCS_API uint32_t pcs_protection_first_out(const pcs_protection *p, uint32_t unit);

/** State word (PCS_PROTECTION_TRIP_ST_*) of function @p f; 0 for bad arguments. */
PCS_API uint32_t pcs_protection_function_state(const pcs_protection *p, uint32_t f);

/** Find a function by name. @return PCS_E_NOTFOUND naming it. */
/** Name of trip function @p f ("?" out of range or NULL). Any thread after build. */
PCS_API const char *pcs_protection_function_name(const pcs_protection *p, uint32_t f);

PCS_API pcs_status pcs_protection_function_find(const pcs_protection *p, const char *name,
                                                uint32_t *f);

#ifdef __cplusplus
}
#endif

#endif
