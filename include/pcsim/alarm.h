/**
 * @file alarm.h
 * @brief Process alarms with the ISA-18.2 alarm state model: setpoints with
 *        deadband, on/off delays, priorities, first-out groups, acknowledge,
 *        shelving, suppression by design and out-of-service.
 *
 * Source: ANSI/ISA-18.2-2016, "Management of Alarm Systems for the Process
 * Industries", alarm states and their transition diagram. States (the
 * letters of that diagram; the optional latched states are not modelled):
 *
 *   A NORMAL          condition clear, nothing to acknowledge
 *   B UNACK           condition present, not acknowledged
 *   C ACKED           condition present, acknowledged
 *   D RTN_UNACK       condition cleared before it was acknowledged
 *   E SHELVED         hidden by an operator, for a time or until unshelved
 *   F SUPPRESSED      suppressed by design: a plant-state input says the
 *                     alarm is meaningless now (e.g. low flow after a trip)
 *   G OUT_OF_SERVICE  removed from service (maintenance)
 *
 * Transitions, and where they happen:
 *
 *   A -> B  condition becomes present          stage ALARMS
 *   B -> D  condition clears                   stage ALARMS
 *   C -> A  condition clears                   stage ALARMS
 *   D -> B  condition present again            stage ALARMS
 *   B -> C  acknowledge                        command (stage COMMANDS)
 *   D -> A  acknowledge                        command
 *   A-D, F -> E   shelve                       command
 *   E -> A  unshelve, or the shelf time ends   command / stage ALARMS
 *   A-D -> F  suppression input != 0           stage ALARMS
 *   F -> A  suppression input back to 0        stage ALARMS
 *   any -> G  remove from service; G -> A return to service    command
 *
 * Precedence: G over E over F over A-D. Whenever an alarm enters A at stage
 * ALARMS, or sits in A with the condition present (after a command returned
 * it to A), it is evaluated again at once, so a still-present condition
 * re-annunciates on the same tick (A -> B, a second event). The condition
 * itself (deadband and delays) is tracked in every state.
 *
 * Condition. HIGH: present when value >= setpoint; once present it clears
 * only when value <= setpoint - deadband. LOW mirrors it (value <= setpoint;
 * clears at value >= setpoint + deadband). The on-delay asks the raw
 * comparison to hold on on_delay_ticks + 1 consecutive evaluations before
 * the condition becomes present (0: at once); the off-delay does the same
 * for clearing (ISA-18.2 calls these on-delay and off-delay; deadband, too).
 * A NaN value leaves the condition as it was.
 *
 * First-out groups. Alarms sharing a group id (> 0) form a group. The first
 * alarm of the group to go A -> B while the group has no first-out gets the
 * FIRST_OUT flag (several on one tick: the lowest alarm id). The flag stays
 * until no alarm of the group is in B, C or D, then it is cleared and the
 * group waits for its next first alarm.
 *
 * Published channels per alarm: `<name>` (U32, pcs_alarm_state) and
 * `<name>.flags` (U32, PCS_ALARM_FL_*). A world holds at most one alarm bank;
 * alarms read only sensor values (sensor.h), plus the optional u32
 * suppression input.
 * Thread-safety: build on the world's thread; owned by the world; queries
 * world-thread only.
 */
#ifndef PCSIM_ALARM_H
#define PCSIM_ALARM_H

#include <stdint.h>

#include "pcsim/event.h"
#include "pcsim/export.h"
#include "pcsim/sensor.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pcs_alarms pcs_alarms;

/** Alarm states (value of channel `<name>`); the ISA-18.2 letter in brackets. */
typedef enum pcs_alarm_state {
    PCS_ALARM_NORMAL = 0,         /**< (A) */
    PCS_ALARM_UNACK = 1,          /**< (B) */
    PCS_ALARM_ACKED = 2,          /**< (C) */
    PCS_ALARM_RTN_UNACK = 3,      /**< (D) */
    PCS_ALARM_SHELVED = 4,        /**< (E) */
    PCS_ALARM_SUPPRESSED = 5,     /**< (F) suppressed by design */
    PCS_ALARM_OUT_OF_SERVICE = 6, /**< (G) */
} pcs_alarm_state;

/** Which side of the setpoint is abnormal. */
typedef enum pcs_alarm_direction {
    PCS_ALARM_HIGH = 0,
    PCS_ALARM_LOW = 1,
} pcs_alarm_direction;

/** Priorities (ISA-18.2 recommends three or four; higher is more urgent). */
typedef enum pcs_alarm_priority {
    PCS_ALARM_PRIO_LOW = 1,
    PCS_ALARM_PRIO_MEDIUM = 2,
    PCS_ALARM_PRIO_HIGH = 3,
    PCS_ALARM_PRIO_URGENT = 4,
} pcs_alarm_priority;

/** Flags word bits (channel `<name>.flags`). */
#define PCS_ALARM_FL_ACTIVE 0x1u    /**< the condition is present (after delays) */
#define PCS_ALARM_FL_FIRST_OUT 0x2u /**< first alarm of its group */
#define PCS_ALARM_FL_PRIO_SHIFT 8u  /**< priority at bits 8..10 */

/** Limits. */
#define PCS_ALARM_NAME_MAX 100u
#define PCS_ALARM_DELAY_MAX_TICKS 72000u /**< one hour at 0.05 s */
#define PCS_ALARM_GROUP_MAX 65535u
#define PCS_ALARM_SHELVE_MAX_S 1e8
/** suppress_store value meaning "no suppression input". */
#define PCS_ALARM_NO_SUPPRESS UINT32_MAX

/** Command family of the alarm bank (pcs_command_kind_find). */
#define PCS_ALARM_COMMANDS "alarms"

/**
 * Ops of the "alarms" family (kind = the family's first kind + op). Targets:
 * each alarm by its name (every op but ACK_ALL), and "alarms" plus any name
 * given to pcs_alarm_target_register (ACK_ALL only). A command with nothing
 * to do (acknowledging an acknowledged alarm, unshelving one not shelved) is
 * accepted and changes nothing. Refused: SHELVE of an out-of-service alarm
 * (PCS_E_STATE); a shelf time that is negative, not finite or above
 * PCS_ALARM_SHELVE_MAX_S (PCS_E_INVAL).
 */
enum pcs_alarm_op {
    PCS_ALARM_OP_ACK = 0,               /**< B -> C, D -> A */
    PCS_ALARM_OP_ACK_ALL = 1,           /**< acknowledge every alarm of the bank, in id order */
    PCS_ALARM_OP_SHELVE = 2,            /**< args[0] = shelf time in s (0: until unshelved) */
    PCS_ALARM_OP_UNSHELVE = 3,          /**< E -> A */
    PCS_ALARM_OP_OUT_OF_SERVICE = 4,    /**< any -> G */
    PCS_ALARM_OP_RETURN_TO_SERVICE = 5, /**< G -> A */
    PCS_ALARM_OP_COUNT = 6,
};

/**
 * Event kinds (PCS_EV_MODEL_BASE + 96..111).
 *  - ALARM_STATE: every state transition. subject = alarm id; values =
 *    {new state, old state, priority, measured value}.
 *  - ALARM_FIRST_OUT: an alarm became its group's first-out. subject =
 *    alarm id; values = {group id, priority, measured value, 0}.
 *  - ALARM_FIRST_OUT_CLEAR: a group's first-out was cleared. subject =
 *    alarm id that had it; values = {group id, 0, 0, 0}.
 */
enum {
    PCS_EV_ALARM_STATE = PCS_EV_MODEL_BASE + 96,
    PCS_EV_ALARM_FIRST_OUT = PCS_EV_MODEL_BASE + 97,
    PCS_EV_ALARM_FIRST_OUT_CLEAR = PCS_EV_MODEL_BASE + 98,
};

/** One alarm. Start from pcs_alarm_default(). */
typedef struct pcs_alarm_def {
    const char *name;              /**< channel, e.g. "u1.alarm.loop1.flow_low"; 1..100 chars */
    uint32_t sensor;               /**< sensor id whose measured value it watches */
    pcs_alarm_direction direction; /**< default HIGH */
    double setpoint;               /**< value units; finite */
    double deadband;               /**< value units; >= 0, finite; default 0 */
    uint32_t on_delay_ticks;       /**< [0, 72000]; default 0 */
    uint32_t off_delay_ticks;      /**< [0, 72000]; default 0 */
    uint32_t priority;             /**< pcs_alarm_priority, [1, 4]; default MEDIUM */
    uint32_t group;                /**< first-out group, [0, 65535]; 0 = none (default) */
    uint32_t suppress_store; /**< u32 store of the suppression input, or PCS_ALARM_NO_SUPPRESS */
    uint32_t suppress_index; /**< element of that store; != 0 suppresses */
} pcs_alarm_def;

/** Fill @p cfg with the defaults above (name NULL: must be set). */
PCS_API pcs_status pcs_alarm_default(pcs_alarm_def *cfg);

/**
 * Check every field (@p w for the suppression store, @p sensors for the id).
 * @return PCS_E_INVAL naming the alarm, the field, its value and the allowed range.
 */
PCS_API pcs_status pcs_alarm_def_validate(const pcs_world *w, const pcs_sensors *sensors,
                                          const pcs_alarm_def *cfg);

/**
 * Build the world's alarm bank: STATE stores "alarms.*", a system at
 * PCS_STAGE_ALARMS (priority 0), command targets (above) and two channels per alarm.
 * Alarm ids are indices into @p cfgs (n in [1, 2^20]). Strings are copied.
 * All alarms start in NORMAL.
 * The bank's system reads the sensor bank and every distinct suppression
 * store (its read list is sized from the world at build: no limit).
 * @return PCS_E_INVAL (bad config naming alarm and field; duplicate channel),
 *         PCS_E_STATE (sealed, or a bank
 *         exists), PCS_E_NOMEM. If channel registration fails part-way the
 *         world holds part of the bank: discard the world.
 */
PCS_API pcs_status pcs_alarm_add(pcs_world *w, const pcs_sensors *sensors,
                                 const pcs_alarm_def *cfgs, uint32_t n, pcs_alarms **out);

/**
 * pcs_alarm_add for another bank in the same world (a unit added while
 * running, pcsim/structure.h): stores, system and load check named
 * "<prefix>alarms.*", "<prefix>alarms", and the bank's ACK_ALL target
 * "<prefix>alarms"; alarm channels and targets keep their own names and the
 * command family is shared. @p prefix NULL or "" is pcs_alarm_add; at most
 * 31 chars. @p event_base is added to the alarm ids its events carry (0 for
 * the world's first bank), so they name this bank's alarms. Build phase or
 * a structural apply.
 */
PCS_API pcs_status pcs_alarm_add_prefixed(pcs_world *w, const char *prefix, uint32_t event_base,
                                          const pcs_sensors *sensors, const pcs_alarm_def *cfgs,
                                          uint32_t n, pcs_alarms **out);

/**
 * Register @p name as another target of PCS_ALARM_OP_ACK_ALL on the bank
 * (the station gives each unit's name, "u1", so `alarm_ack_all u1` reads as
 * the operator says it). Build phase only.
 * @return as pcs_command_target_register (PCS_E_INVAL: name already takes
 *         alarm commands).
 */
PCS_API pcs_status pcs_alarm_target_register(pcs_world *w, pcs_alarms *a, const char *name);

/** Number of alarms (0 for NULL). */
PCS_API uint32_t pcs_alarm_count(const pcs_alarms *a);

/** Name of alarm @p id ("?" out of range or NULL). Any thread after build. */
PCS_API const char *pcs_alarm_name(const pcs_alarms *a, uint32_t id);

/** Find an alarm by name. @return PCS_E_NOTFOUND naming it. */
PCS_API pcs_status pcs_alarm_find(const pcs_alarms *a, const char *name, uint32_t *id);

/** State of alarm @p id (PCS_ALARM_NORMAL for bad arguments). */
PCS_API pcs_alarm_state pcs_alarm_state_of(const pcs_alarms *a, uint32_t id);

/** Flags word of alarm @p id (0 for bad arguments). */
PCS_API uint32_t pcs_alarm_flags(const pcs_alarms *a, uint32_t id);

/** Lower-case state name ("rtn_unack"), or "?" out of range. */
PCS_API const char *pcs_alarm_state_name(pcs_alarm_state state);

#ifdef __cplusplus
}
#endif

#endif
