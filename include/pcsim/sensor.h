/**
 * @file sensor.h
 * @brief Plant sensors: each turns one state value into a measured channel,
 *        the only values protection and alarms read (as in a real plant).
 *
 * A world holds at most one sensor bank, built from an array of sensor
 * configurations (the plant builder lists every unit's instruments in it).
 * Sensor ids are the array indices. At stage PCS_STAGE_SENSORS, sensor k
 * samples the F64 element (store, index) after stages 3-7 have run and
 * computes, in this order:
 *
 *  1. first-order lag  tau dy/dt = x - y. For x held constant over a step
 *     (the state is sampled once per tick), the exact solution over dt is
 *     y[n+1] = y[n] + alpha (x[n] - y[n]),  alpha = 1 - exp(-dt/tau)
 *     (zero-order-hold equivalent), evaluated as x + exp(-dt/tau) (y - x),
 *     which for tau = 0 returns x exactly. The lag starts at the first sample
 *     (no start-up transient). A NaN input passes through as NaN and the lag
 *     restarts at the next finite value.
 *  2. drift offset (failure mode DRIFT): offset += rate * dt each tick.
 *  3. Gaussian noise: + noise_sd * N(0, 1) from the sensor's own pcs_rng
 *     stream, seeded from (world seed, sensor id, PCS_SENSOR_RNG_STREAM).
 *     A noisy sensor draws one deviate every tick whatever its mode, so a
 *     failure never shifts the stream. Deviates come from a ziggurat sampler
 *     (Marsaglia & Tsang 2000) over the stream. The generator state lives in a STATE store, so the
 *     state hash and save/load cover it.
 *  4. quantisation: quantum * rint(v * (1 / quantum)) when quantum > 0,
 *     rounding to nearest with ties to even (the IEEE 754 default), as a
 *     converter with a symmetric transfer characteristic does.
 *  5. range: v < lo sets PCS_SENSOR_ST_UNDER_RANGE, v > hi sets
 *     PCS_SENSOR_ST_OVER_RANGE, and the output is clamped to [lo, hi].
 *
 * Failure modes, set by command at stage 1 and cleared by
 * PCS_SENSOR_OP_CLEAR: STUCK holds the measured value the sensor had when
 * the command applied; DRIFT adds a ramp (args[0], value units per second)
 * from zero; FAIL_LOW outputs lo with UNDER_RANGE set; FAIL_HIGH outputs hi
 * with OVER_RANGE set (a transmitter driven past its scale). The lag keeps
 * tracking the true value in every mode, so a cleared sensor reads the plant.
 *
 * Published channels per sensor: `<name>` (F64, the configured unit) and
 * `<name>.status` (U32, the PCS_SENSOR_ST_* word).
 *
 * Thread-safety: build-time calls on the world's thread; the bank is owned by
 * the world (freed with it). Query functions are world-thread only.
 */
#ifndef PCSIM_SENSOR_H
#define PCSIM_SENSOR_H

#include <stdint.h>

#include "pcsim/event.h"
#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pcs_sensors pcs_sensors;

/** Failure modes (bits 8..11 of the status word). */
typedef enum pcs_sensor_mode {
    PCS_SENSOR_NORMAL = 0,    /**< healthy */
    PCS_SENSOR_STUCK = 1,     /**< output frozen */
    PCS_SENSOR_DRIFT = 2,     /**< output plus a ramp */
    PCS_SENSOR_FAIL_LOW = 3,  /**< output at lo, under-range */
    PCS_SENSOR_FAIL_HIGH = 4, /**< output at hi, over-range */
} pcs_sensor_mode;

/** Status word bits. */
#define PCS_SENSOR_ST_VALID 0x1u       /**< sampled at least once */
#define PCS_SENSOR_ST_UNDER_RANGE 0x2u /**< last value below lo (clamped) */
#define PCS_SENSOR_ST_OVER_RANGE 0x4u  /**< last value above hi (clamped) */
#define PCS_SENSOR_ST_FAILED 0x8u      /**< a failure mode is set */
#define PCS_SENSOR_ST_MODE_SHIFT 8u    /**< pcs_sensor_mode at bits 8..11 */
#define PCS_SENSOR_ST_MODE_MASK 0xF00u

/** rng stream id of sensor noise (entity id = sensor id). "SENS". */
#define PCS_SENSOR_RNG_STREAM UINT64_C(0x53454e53)

/** Longest sensor name (so `<name>.status` fits a channel name). */
#define PCS_SENSOR_NAME_MAX 100u
/** Limits on configuration values. */
#define PCS_SENSOR_TAU_MAX_S 1e6

/** Command family of the sensor bank (pcs_command_kind_find). */
#define PCS_SENSOR_COMMANDS "sensors"

/**
 * Ops of the "sensors" family (kind = the family's first kind + op). Each
 * sensor is a target by its name ("u1.loop1.flow.B") and takes every op.
 */
enum pcs_sensor_op {
    PCS_SENSOR_OP_STUCK = 0,     /**< freeze the output */
    PCS_SENSOR_OP_DRIFT = 1,     /**< args[0] = drift rate, value units / s, finite */
    PCS_SENSOR_OP_FAIL_LOW = 2,  /**< output lo */
    PCS_SENSOR_OP_FAIL_HIGH = 3, /**< output hi */
    PCS_SENSOR_OP_CLEAR = 4,     /**< back to normal, drift offset reset */
    PCS_SENSOR_OP_COUNT = 5,
};

/**
 * Event kinds (PCS_EV_MODEL_BASE + 64..79).
 *  - SENSOR_MODE: a failure mode was set or cleared. subject = sensor id;
 *    values = {new mode, old mode, drift rate (value units/s), measured value}.
 *  - SENSOR_RANGE: the under/over-range bits changed. subject = sensor id;
 *    values = {new range bits, old range bits, unclamped value, clamped value}.
 */
enum {
    PCS_EV_SENSOR_MODE = PCS_EV_MODEL_BASE + 64,
    PCS_EV_SENSOR_RANGE = PCS_EV_MODEL_BASE + 65,
};

/** One sensor. Start from pcs_sensor_default(). */
typedef struct pcs_sensor_def {
    const char *name; /**< channel name, e.g. "u1.loop1.flow.A"; 1..100 chars */
    const char *unit; /**< SI unit symbol of the value ("kg/s"); "" allowed */
    uint32_t store;   /**< source store id: an array of doubles */
    uint32_t index;   /**< element in the source store */
    double tau_s;     /**< lag time constant, s; [0, 1e6]; default 0 (none) */
    double noise_sd;  /**< noise standard deviation, value units; >= 0, finite; default 0 */
    double quantum;   /**< quantisation step, value units; >= 0, finite; default 0 (none) */
    double lo;        /**< range low end; finite, lo < hi; default -1e300 */
    double hi;        /**< range high end; finite; default 1e300 */
} pcs_sensor_def;

/** Fill @p cfg with the defaults above (name NULL: must be set). PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_sensor_default(pcs_sensor_def *cfg);

/**
 * Check every field; @p w is needed to check the source store and index.
 * @return PCS_E_INVAL with a message naming the sensor, the field, its value
 *         and the allowed range.
 */
PCS_API pcs_status pcs_sensor_def_validate(const pcs_world *w, const pcs_sensor_def *cfg);

/**
 * Build the world's sensor bank: registers its STATE stores ("sensors.*"),
 * its system at PCS_STAGE_SENSORS (priority 0), a command target per sensor and two
 * channels per sensor. Build phase only.
 * @param cfgs @p n sensor configurations (n in [1, 2^20]); copied.
 * @param out  set on success; owned by the world.
 * The bank's one system reads every distinct source store (its read list
 * is sized from the world at build: no limit on source stores).
 * @return PCS_E_INVAL (bad config, naming sensor and field; duplicate channel
 *         name), PCS_E_STATE (world sealed, or a bank already exists), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_sensor_add(pcs_world *w, const pcs_sensor_def *cfgs, uint32_t n,
                                  pcs_sensors **out);

/**
 * pcs_sensor_add for another bank in the same world (a unit added while
 * running, pcsim/structure.h): its stores, system and load check are named
 * "<prefix>sensors.*", "<prefix>sensors" (prefix "u2." gives
 * "u2.sensors.value"); its sensors' channels and targets keep their own
 * names, the command family is shared with the first bank, and its noise
 * streams are seeded apart from the first bank's. @p prefix NULL or "" is
 * pcs_sensor_add; at most 31 chars. @p event_base is added to the sensor ids its
 * events carry (0 for the world's first bank). Build phase or a structural
 * apply.
 */
PCS_API pcs_status pcs_sensor_add_prefixed(pcs_world *w, const char *prefix, uint32_t event_base,
                                           const pcs_sensor_def *cfgs, uint32_t n,
                                           pcs_sensors **out);

/** Number of sensors (0 for NULL). */
PCS_API uint32_t pcs_sensor_count(const pcs_sensors *s);

/** Find a sensor by its channel name. @return PCS_E_NOTFOUND naming it. */
PCS_API pcs_status pcs_sensor_find(const pcs_sensors *s, const char *name, uint32_t *id);

/**
 * Where sensor @p id's measured value (F64) and status word (U32) live:
 * (store id, element index). Protection and alarms read these.
 * @return PCS_E_INVAL (NULL), PCS_E_NOTFOUND (id out of range).
 */
PCS_API pcs_status pcs_sensor_value_ref(const pcs_sensors *s, uint32_t id, uint32_t *store,
                                        uint32_t *index);
PCS_API pcs_status pcs_sensor_status_ref(const pcs_sensors *s, uint32_t id, uint32_t *store,
                                         uint32_t *index);

/**
 * Detach sensor @p id from its source, for good: the device it measured is
 * gone (a unit removed while running, the station's unit_remove). From its
 * next sample its lag holds the value it has then (the source is no longer
 * read, so a source nobody computes any more cannot move it); drift, noise,
 * quantisation, range and failure modes apply as before. Not state: the
 * structural change that calls it is re-applied by a load before the stores
 * are restored, and the held value is taken at the first sample after, from
 * the restored lag, so a loaded world samples as the saved one did.
 * While amending (pcsim/structure.h) or in the build phase; allocates once
 * per bank (n doubles and n flags) at its first call.
 * @return PCS_E_INVAL (NULL), PCS_E_NOTFOUND (id out of range), PCS_E_STATE
 *         (sealed and not amending), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_sensor_hold(pcs_world *w, pcs_sensors *s, uint32_t id);

/** Measured value of sensor @p id (NaN if out of range). World thread. */
PCS_API double pcs_sensor_value(const pcs_sensors *s, uint32_t id);

/** Status word of sensor @p id (0 if out of range). World thread. */
PCS_API uint32_t pcs_sensor_status(const pcs_sensors *s, uint32_t id);

#ifdef __cplusplus
}
#endif

#endif
