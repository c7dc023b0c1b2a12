/**
 * @file sensor.c
 * @brief The sensor bank: lag, noise, quantisation, range and failure modes
 *        (the model is specified in include/pcsim/sensor.h).
 *
 * Layout. Configuration lives in structure-of-arrays built once (source
 * pointers, lag decay, noise, quantum, range); everything a tick or a command
 * changes lives in STATE stores, so the state hash and save/load see it:
 * value, status, lag, drift offset, drift rate, mode and each sensor's rng.
 * The tick is four plain passes over arrays (see "the tick" below).
 *
 * Load check (sensors_load_check, on a staged save before it is applied):
 * modes are pcs_sensor_mode values; status words hold only PCS_SENSOR_ST_*
 * bits with a mode field of a mode; lag, drift and drift rate finite, drift
 * and rate 0 outside DRIFT mode (the command handler keeps them so); once
 * sampled, each published value inside its sensor's [lo, hi] (the range pass
 * clamps to it); no rng state all zero (a fixed point seeding never gives).
 */
#include <math.h> /* NAN and INFINITY only */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/instrumentation/kernels/gauss.h"
#include "physics/instrumentation/models/instr_common.h"
#include "pcsim/channel.h"
#include "pcsim/command.h"
#include "pcsim/math.h"
#include "pcsim/persist.h"
#include "pcsim/rng.h"
#include "pcsim/sensor.h"
#include "pcsim/structure.h"
#include "pcsim/system.h"

#define RANGE_BITS (PCS_SENSOR_ST_UNDER_RANGE | PCS_SENSOR_ST_OVER_RANGE)

struct pcs_sensors {
    uint32_t n;
    const char *prefix; /* the bank's name prefix (pcs_sensor_add_prefixed), NULL for none */
    uint32_t ebase;     /* added to sensor ids in events */
    double dt_s;
    /* configuration (read-only after build) */
    const double **src; /* source element of each sensor */
    double *decay;      /* lag memory exp(-dt/tau); 0 for tau = 0 */
    double *noise_sd;
    double *quantum;
    double *inv_quantum; /* 1/quantum, so the tick multiplies instead of dividing */
    double *lo;
    double *hi;
    uint32_t *noisy; /* ids of sensors with noise_sd > 0, ascending */
    uint32_t n_noisy;
    uint32_t *quantised; /* ids of sensors with quantum > 0, ascending */
    uint32_t n_quantised;
    const char **names;
    double *raw; /* per-tick work array: the value before quantisation and range */
    /* state: store ids and base pointers */
    uint32_t id_value, id_status, id_lag, id_drift, id_rate, id_mode, id_rng, id_samples;
    uint64_t *samples; /* ticks sampled so far (0: the lag starts at the plant value) */
    double *value;
    uint32_t *status;
    double *lag;
    double *drift;
    double *drift_rate;
    uint32_t *mode;
    pcs_rng *rng;
    pcs_gauss_table gauss;
    /* pcs_sensor_hold: each held sensor's source becomes its hold[k], set
     * from its lag at the first sample after (hold_pending); NULL until the
     * first hold. Not state (the structure log re-applies the holds). */
    double *hold;
    unsigned char *hold_pending;
    uint32_t n_hold_pending;
};

static const pcs_sensor_def sensor_defaults = {.unit = "", .lo = -1e300, .hi = 1e300};

pcs_status pcs_sensor_default(pcs_sensor_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_sensor_default: cfg is NULL");
    *cfg = sensor_defaults;
    return PCS_OK;
}

static pcs_status bad_double(const char *who, const char *field, double v, const char *range)
{
    return pcs_error_set(PCS_E_INVAL, "sensor '%s': %s = %g is outside %s", who, field, v, range);
}

static pcs_status check_source(const pcs_world *w, const pcs_sensor_def *c)
{
    pcs_instr_ref source = {.store = c->store,
                            .index = c->index,
                            .elem = sizeof(double),
                            .who = "sensor",
                            .name = c->name,
                            .store_field = "store",
                            .store_note = "stores registered so far",
                            .index_field = "index",
                            .array_note = "the source must be an array of doubles",
                            .with_bytes = 1};
    return pcs_instr_ref_check(w, &source);
}

pcs_status pcs_sensor_def_validate(const pcs_world *w, const pcs_sensor_def *c)
{
    if (!w || !c)
        return pcs_error_set(PCS_E_INVAL, "pcs_sensor_def_validate: NULL argument");
    size_t len = c->name ? strlen(c->name) : 0;
    if (len == 0 || len > PCS_SENSOR_NAME_MAX)
        return pcs_error_set(PCS_E_INVAL, "sensor: name length = %zu is outside [1, %u]", len,
                             PCS_SENSOR_NAME_MAX);
    const char *who = c->name;
    if (!c->unit)
        return pcs_error_set(PCS_E_INVAL, "sensor '%s': unit is NULL (use \"\")", who);
    if (!pcs_isfinite(c->tau_s) || c->tau_s < 0.0 || c->tau_s > PCS_SENSOR_TAU_MAX_S)
        return bad_double(who, "tau_s", c->tau_s, "[0, 1e6] s");
    if (!pcs_isfinite(c->noise_sd) || c->noise_sd < 0.0)
        return bad_double(who, "noise_sd", c->noise_sd, "[0, finite]");
    if (!pcs_isfinite(c->quantum) || c->quantum < 0.0)
        return bad_double(who, "quantum", c->quantum, "[0, finite]");
    if (!pcs_isfinite(c->lo))
        return bad_double(who, "lo", c->lo, "finite values below hi");
    if (!pcs_isfinite(c->hi) || !(c->hi > c->lo))
        return pcs_error_set(PCS_E_INVAL, "sensor '%s': hi = %g is outside (lo = %g, finite]", who,
                             c->hi, c->lo);
    return check_source(w, c);
}

/* ---- the tick ---------------------------------------------------------- */

/*
 * The tick runs four plain passes over arrays rather than one loop with
 * every step in it: the lag pass (lag and drift) has no branch, the noise
 * pass visits only noisy sensors and the quantise pass only quantised ones
 * (a multiply and an inline round), and the range pass publishes. Each
 * pass's iterations are independent, so the CPU overlaps them. Failed,
 * out-of-range and NaN sensors and status changes leave the range pass
 * through one branch that a healthy plant never takes; the configuration is
 * read through locals so that rare call does not force reloads.
 */

/*
 * Round to the nearest integer, ties to even (the IEEE 754 default mode).
 * For |x| < 2^51, x + 1.5 * 2^52 lands in [2^52, 2^53) where doubles are
 * exactly the integers, so the addition itself rounds x and the subtraction
 * is exact. C forbids the compiler from folding (x + c) - c without
 * -ffast-math (which this project never uses). Larger |x| and NaN take the
 * library path.
 */
static inline double round_even(double x)
{
    const double shift = 6755399441055744.0; /* 1.5 * 2^52 */
    const double limit = 2251799813685248.0; /* 2^51 */
    if (x > -limit && x < limit)
        return (x + shift) - shift;
    return pcs_round(x);
}

/* Rare paths, kept out of line so the loops that call them stay tight. */
#define PCS_COLD __attribute__((noinline, cold))

/* Report a change of sensor k's range bits (event id k + @p base, the
 * bank's event base). @p raw is the unclamped value. */
static PCS_COLD void range_event(pcs_world *w, uint32_t k, uint32_t base, uint32_t old,
                                 uint32_t flags, double raw, double out)
{
    pcs_event_emit(w, PCS_EV_SENSOR_RANGE, k + base, (double)(flags & RANGE_BITS),
                   (double)(old & RANGE_BITS), raw, out);
}

/* Range-check, clamp and publish v (already quantised) for sensor k. */
static void clamp_publish(pcs_world *w, pcs_sensors *s, uint32_t k, double v, uint32_t flags)
{
    double out = v;
    if (v < s->lo[k]) {
        flags |= PCS_SENSOR_ST_UNDER_RANGE;
        out = s->lo[k];
    } else if (v > s->hi[k]) {
        flags |= PCS_SENSOR_ST_OVER_RANGE;
        out = s->hi[k];
    }
    uint32_t old = s->status[k];
    s->value[k] = out;
    s->status[k] = flags;
    if ((old ^ flags) & RANGE_BITS)
        range_event(w, k, s->ebase, old, flags, v, out);
}

/* A sensor with a failure mode set; raw[k] is the pipeline's value (with the
 * drift offset, which is non-zero only in DRIFT mode). */
static PCS_COLD void failed(pcs_world *w, pcs_sensors *s, uint32_t k, uint32_t mode)
{
    uint32_t flags =
        PCS_SENSOR_ST_VALID | PCS_SENSOR_ST_FAILED | (mode << PCS_SENSOR_ST_MODE_SHIFT);
    switch (mode) {
    case PCS_SENSOR_STUCK: /* value and range bits frozen */
        s->status[k] = flags | (s->status[k] & RANGE_BITS);
        return;
    case PCS_SENSOR_DRIFT:
        clamp_publish(w, s, k, s->raw[k], flags);
        return;
    case PCS_SENSOR_FAIL_LOW: /* clamps to lo with the under-range bit */
        clamp_publish(w, s, k, -INFINITY, flags);
        return;
    default: /* PCS_SENSOR_FAIL_HIGH; the command handler admits no other */
        clamp_publish(w, s, k, INFINITY, flags);
        return;
    }
}

/* Lag, then the drift offset. The command handler keeps drift and
 * drift_rate at 0 outside DRIFT mode, so the ramp needs no branch here. */
static void lag_pass(pcs_sensors *s)
{
    const uint32_t n = s->n;
    const double dt = s->dt_s;
    const double *const *restrict src = s->src;
    const double *restrict decay = s->decay, *restrict rate = s->drift_rate;
    double *restrict lag = s->lag, *restrict raw = s->raw, *restrict drift = s->drift;
    if (*s->samples == 0)
        for (uint32_t k = 0; k < n; k++)
            lag[k] = *src[k];
    for (uint32_t k = 0; k < n; k++) {
        double x = *src[k];
        double y = x + decay[k] * (lag[k] - x);
        if (y != y) /* NaN in: pass it on, and restart the lag at the next finite value */
            y = x;
        double d = drift[k] + rate[k] * dt;
        lag[k] = y;
        drift[k] = d;
        raw[k] = y + d;
    }
}

static void noise_pass(pcs_sensors *s)
{
    const uint32_t m = s->n_noisy;
    const uint32_t *restrict noisy = s->noisy;
    const double *restrict sd = s->noise_sd;
    double *restrict raw = s->raw;
    pcs_rng *restrict rng = s->rng;
    const pcs_gauss_table *restrict gauss = &s->gauss;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t k = noisy[i];
        raw[k] += sd[k] * pcs_gauss_sample(gauss, &rng[k]);
    }
}

static void quantise_pass(pcs_sensors *s)
{
    const uint32_t m = s->n_quantised;
    const uint32_t *restrict quantised = s->quantised;
    const double *restrict q = s->quantum, *restrict inv_q = s->inv_quantum;
    double *restrict raw = s->raw;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t k = quantised[i];
        raw[k] = q[k] * round_even(raw[k] * inv_q[k]);
    }
}

/* Everything but a healthy in-range sensor whose status does not change. */
static PCS_COLD void range_slow(pcs_world *w, pcs_sensors *s, uint32_t k)
{
    if (s->mode[k] != PCS_SENSOR_NORMAL)
        failed(w, s, k, s->mode[k]);
    else
        clamp_publish(w, s, k, s->raw[k], PCS_SENSOR_ST_VALID);
}

/* Publish every sensor. The common case (healthy, in range, status as last
 * tick) is two compares and two stores; out-of-range values, NaN (which
 * fails both compares and passes through unclamped), failure modes and
 * status changes take range_slow(). */
static void range_pass(pcs_world *w, pcs_sensors *s)
{
    const uint32_t n = s->n;
    const uint32_t *restrict mode = s->mode;
    const double *restrict raw = s->raw, *restrict lo = s->lo, *restrict hi = s->hi;
    /* Not restrict: range_slow() writes these through s. */
    double *value = s->value;
    const uint32_t *status = s->status;
    for (uint32_t k = 0; k < n; k++) {
        double v = raw[k];
        if ((mode[k] | (status[k] ^ PCS_SENSOR_ST_VALID)) != 0 || !(v >= lo[k] && v <= hi[k])) {
            range_slow(w, s, k);
            continue;
        }
        value[k] = v;
    }
}

/* Sensors held since the last sample take their lag as their source now,
 * so the lag holds (lag_pass: x = lag gives lag). Taken at the sample, not
 * at the hold, because a load re-applies the hold before it restores lag. */
static PCS_COLD void hold_pass(pcs_sensors *s)
{
    for (uint32_t k = 0; k < s->n; k++)
        if (s->hold_pending[k]) {
            s->hold[k] = *s->samples ? s->lag[k] : *s->src[k];
            s->src[k] = &s->hold[k];
            s->hold_pending[k] = 0;
        }
    s->n_hold_pending = 0;
}

static pcs_status sensors_step(pcs_world *w, void *ctx)
{
    pcs_sensors *s = ctx;
    if (s->n_hold_pending)
        hold_pass(s);
    lag_pass(s);
    noise_pass(s);
    quantise_pass(s);
    range_pass(w, s);
    (*s->samples)++;
    return PCS_OK;
}

/* ---- commands ------------------------------------------------------------ */

static pcs_status mode_of_op(uint32_t op, double rate, uint32_t *mode)
{
    switch (op) {
    case PCS_SENSOR_OP_STUCK:
        *mode = PCS_SENSOR_STUCK;
        return PCS_OK;
    case PCS_SENSOR_OP_DRIFT:
        *mode = PCS_SENSOR_DRIFT;
        if (!pcs_isfinite(rate))
            return pcs_error_set(PCS_E_INVAL,
                                 "sensor drift command: args[0] (rate) = %g must be finite", rate);
        return PCS_OK;
    case PCS_SENSOR_OP_FAIL_LOW:
        *mode = PCS_SENSOR_FAIL_LOW;
        return PCS_OK;
    case PCS_SENSOR_OP_FAIL_HIGH:
        *mode = PCS_SENSOR_FAIL_HIGH;
        return PCS_OK;
    default:
        *mode = PCS_SENSOR_NORMAL;
        return PCS_OK;
    }
}

/* The element is the sensor the target names (the engine checked the id). */
static pcs_status on_command(pcs_world *w, const pcs_command_call *c)
{
    pcs_sensors *s = c->ctx;
    uint32_t mode;
    pcs_status st = mode_of_op(c->op, c->cmd->args[0], &mode);
    if (st != PCS_OK)
        return st;
    uint32_t k = c->element;
    uint32_t old = s->mode[k];
    s->mode[k] = mode;
    s->drift[k] = 0.0;
    s->drift_rate[k] = mode == PCS_SENSOR_DRIFT ? c->cmd->args[0] : 0.0;
    pcs_event_emit(w, PCS_EV_SENSOR_MODE, k + s->ebase, (double)mode, (double)old, s->drift_rate[k],
                   s->value[k]);
    return PCS_OK;
}

/* ---- load check ------------------------------------------------------- */

#define STATUS_BITS                                                                                \
    (PCS_SENSOR_ST_VALID | RANGE_BITS | PCS_SENSOR_ST_FAILED | PCS_SENSOR_ST_MODE_MASK)

static pcs_status check_words(const pcs_sensors *s, const uint32_t *mode, const uint32_t *status)
{
    pcs_status st = pcs_load_check_u32("sensors.mode", "failure mode", mode, s->n, 1,
                                       PCS_SENSOR_FAIL_HIGH + 1u);
    for (uint32_t k = 0; st == PCS_OK && k < s->n; k++) {
        uint32_t m = (status[k] & PCS_SENSOR_ST_MODE_MASK) >> PCS_SENSOR_ST_MODE_SHIFT;
        if ((status[k] & ~STATUS_BITS) || m > PCS_SENSOR_FAIL_HIGH)
            st = pcs_error_set(PCS_E_CORRUPT,
                               "store 'sensors.status' element %u (status word): value %u; "
                               "allowed PCS_SENSOR_ST_* bits (mask 0x%x) with a mode <= %u",
                               k, status[k], STATUS_BITS, PCS_SENSOR_FAIL_HIGH);
    }
    return st;
}

static pcs_status check_drift(const pcs_sensors *s, const uint32_t *mode, const double *drift,
                              const double *rate)
{
    for (uint32_t k = 0; k < s->n; k++) {
        int drifting = mode[k] == PCS_SENSOR_DRIFT;
        if (!pcs_isfinite(drift[k]) || (!drifting && drift[k] != 0.0))
            return pcs_instr_bad_f64("sensors.drift", k, "drift offset", drift[k],
                                     drifting ? "finite" : "0 outside DRIFT mode");
        if (!pcs_isfinite(rate[k]) || (!drifting && rate[k] != 0.0))
            return pcs_instr_bad_f64("sensors.drift_rate", k, "drift rate per s", rate[k],
                                     drifting ? "finite" : "0 outside DRIFT mode");
    }
    return PCS_OK;
}

static pcs_status check_values(const pcs_sensors *s, const double *value, uint64_t samples)
{
    char allowed[96];
    for (uint32_t k = 0; k < s->n; k++) {
        double v = value[k];
        int ok = samples ? v >= s->lo[k] && v <= s->hi[k] : pcs_isfinite(v);
        if (ok)
            continue;
        snprintf(allowed, sizeof allowed, "[%.9g, %.9g] (the sensor's range)", s->lo[k], s->hi[k]);
        return pcs_instr_bad_f64("sensors.value", k, "published value", v,
                                 samples ? allowed : "finite");
    }
    return PCS_OK;
}

static pcs_status sensors_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    (void)w;
    const pcs_sensors *s = ctx;
    const uint32_t *mode = pcs_load_view_store(v, s->id_mode);
    const uint64_t *samples = pcs_load_view_store(v, s->id_samples);
    pcs_status st = check_words(s, mode, pcs_load_view_store(v, s->id_status));
    if (st == PCS_OK)
        st = check_drift(s, mode, pcs_load_view_store(v, s->id_drift),
                         pcs_load_view_store(v, s->id_rate));
    if (st == PCS_OK)
        st = pcs_instr_check_finite("sensors.lag", "lagged value",
                                    pcs_load_view_store(v, s->id_lag), s->n);
    if (st == PCS_OK)
        st = check_values(s, pcs_load_view_store(v, s->id_value), *samples);
    const pcs_rng *rng = pcs_load_view_store(v, s->id_rng);
    for (uint32_t k = 0; st == PCS_OK && k < s->n; k++)
        if ((rng[k].s[0] | rng[k].s[1] | rng[k].s[2] | rng[k].s[3]) == 0)
            st = pcs_error_set(PCS_E_CORRUPT,
                               "store 'sensors.rng' element %u (rng state): all "
                               "zero; allowed any other state",
                               k);
    return st;
}

/* ---- build ------------------------------------------------------------- */

static const pcs_instr_bank bank = {
    .fn = "pcs_sensor_add",
    .one = "a sensor bank",
    .first_store = "sensors.value",
    .n_max = 1u << 20,
    .system = {.name = "sensors", .stage = PCS_STAGE_SENSORS, .fn = sensors_step}};

static pcs_status check_all(pcs_world *w, const pcs_sensor_def *cfgs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        pcs_status st = pcs_sensor_def_validate(w, &cfgs[i]);
        if (st != PCS_OK)
            return pcs_instr_prefixed(st, "pcs_sensor_add: sensor %u", i);
    }
    return PCS_OK;
}

/* The add's build steps, in order (the stores register in it): each gets the
 * bank, its count set, and the configurations. */
typedef pcs_status (*sensor_build_step)(pcs_world *w, pcs_sensors *s, const pcs_sensor_def *cfgs);

static pcs_status alloc_config(pcs_world *w, pcs_sensors *s, const pcs_sensor_def *cfgs)
{
    (void)cfgs;
    uint32_t n = s->n;
    double **const f64[] = {&s->decay, &s->noise_sd, &s->quantum, &s->inv_quantum,
                            &s->lo,    &s->hi,       &s->raw};
    uint32_t **const u32[] = {&s->noisy, &s->quantised};
    s->src = pcs_world_alloc(w, n * sizeof *s->src);
    if (!s->src || !pcs_instr_alloc_f64(w, n, f64, sizeof f64 / sizeof f64[0]) ||
        !pcs_instr_alloc_u32(w, n, u32, sizeof u32 / sizeof u32[0]))
        return pcs_error_set(PCS_E_NOMEM, "pcs_sensor_add: out of memory for %u sensors", n);
    return PCS_OK;
}

static pcs_status register_stores(pcs_world *w, pcs_sensors *s, const pcs_sensor_def *cfgs)
{
    (void)cfgs;
    size_t n = s->n;
    pcs_instr_stores r = {.w = w, .prefix = s->prefix};
    s->value = pcs_instr_store(&r, "sensors.value", sizeof *s->value, n, &s->id_value);
    s->status = pcs_instr_store(&r, "sensors.status", sizeof *s->status, n, &s->id_status);
    s->lag = pcs_instr_store(&r, "sensors.lag", sizeof *s->lag, n, &s->id_lag);
    s->drift = pcs_instr_store(&r, "sensors.drift", sizeof *s->drift, n, &s->id_drift);
    s->drift_rate =
        pcs_instr_store(&r, "sensors.drift_rate", sizeof *s->drift_rate, n, &s->id_rate);
    s->mode = pcs_instr_store(&r, "sensors.mode", sizeof *s->mode, n, &s->id_mode);
    s->rng = pcs_instr_store(&r, "sensors.rng", sizeof *s->rng, n, &s->id_rng);
    s->samples = pcs_instr_store(&r, "sensors.samples", sizeof *s->samples, 1, &s->id_samples);
    return r.st;
}

static pcs_status fill_config(pcs_world *w, pcs_sensors *s, const pcs_sensor_def *cfgs)
{
    uint64_t seed = pcs_world_def_get(w)->seed;
    /* a prefixed bank's noise streams start above every element id of the
     * first bank's (at most 2^20 sensors), apart for each prefix */
    uint64_t base = 0;
    for (const char *c = s->prefix; c && *c; c++)
        base = (base * 131u + (unsigned char)*c) & 0xffffffffu;
    base <<= 21;
    for (uint32_t k = 0; k < s->n; k++) {
        const pcs_sensor_def *c = &cfgs[k];
        s->src[k] = (const double *)pcs_store_data(w, c->store) + c->index;
        s->decay[k] = c->tau_s > 0.0 ? pcs_exp(-s->dt_s / c->tau_s) : 0.0;
        s->noise_sd[k] = c->noise_sd;
        s->quantum[k] = c->quantum;
        s->inv_quantum[k] = c->quantum > 0.0 ? 1.0 / c->quantum : 0.0;
        if (c->noise_sd > 0.0)
            s->noisy[s->n_noisy++] = k;
        if (c->quantum > 0.0)
            s->quantised[s->n_quantised++] = k;
        s->lo[k] = c->lo;
        s->hi[k] = c->hi;
        pcs_rng_seed(&s->rng[k], seed, base + k, PCS_SENSOR_RNG_STREAM);
    }
    s->names = pcs_instr_names_copy(w, bank.fn, PCS_INSTR_FIELD(cfgs, name), s->n);
    return s->names ? PCS_OK : PCS_E_NOMEM;
}

/* Each sensor's value (with its unit) and status word. */
static pcs_status register_channels(pcs_world *w, pcs_sensors *s, const pcs_sensor_def *cfgs)
{
    const pcs_instr_channel per[] = {
        {.suffix = "",
         .kind = PCS_CHANNEL_F64,
         .store = s->id_value,
         .units = PCS_INSTR_FIELD(cfgs, unit)},
        {.suffix = ".status", .kind = PCS_CHANNEL_U32, .store = s->id_status},
    };
    pcs_status st = pcs_instr_channels(w, s->names, s->n, per, 2);
    return st == PCS_OK ? st : pcs_instr_prefixed(st, "%s", bank.fn);
}

/* The system reads the distinct source stores in first-use order, then the
 * mode and drift-rate stores. */
static pcs_status register_system(pcs_world *w, pcs_sensors *s, const pcs_sensor_def *cfgs)
{
    uint32_t *reads = NULL, n_sources = 0;
    pcs_status st = pcs_instr_read_list(w, &bank, "source stores", PCS_INSTR_U32_FIELD(cfgs, store),
                                        s->n, UINT32_MAX, 0, 2, &reads, &n_sources);
    if (st != PCS_OK)
        return st;
    reads[n_sources] = s->id_mode;
    reads[n_sources + 1] = s->id_rate;
    uint32_t writes[] = {s->id_value, s->id_status, s->id_lag,
                         s->id_drift, s->id_rng,    s->id_samples};
    st = pcs_instr_system(w, &bank, s->prefix, s, reads, n_sources + 2, writes, 6);
    free(reads);
    uint32_t family = 0;
    if (st == PCS_OK)
        st = pcs_instr_family(w, s->prefix, PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_COUNT, on_command,
                              &family);
    pcs_command_target_def every_op = {.family = family, .ctx = s};
    return st == PCS_OK ? pcs_instr_targets(w, s->names, s->n, every_op) : st;
}

pcs_status pcs_sensor_add(pcs_world *w, const pcs_sensor_def *cfgs, uint32_t n, pcs_sensors **out)
{
    return pcs_sensor_add_prefixed(w, NULL, 0, cfgs, n, out);
}

pcs_status pcs_sensor_add_prefixed(pcs_world *w, const char *prefix, uint32_t event_base,
                                   const pcs_sensor_def *cfgs, uint32_t n, pcs_sensors **out)
{
    pcs_status st = pcs_instr_add_check(w, &bank, prefix, w && cfgs && out, n);
    if (st == PCS_OK)
        st = check_all(w, cfgs, n);
    if (st != PCS_OK)
        return st;
    pcs_sensors *s = pcs_world_alloc(w, sizeof *s);
    if (!s)
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory", bank.fn);
    s->n = n;
    s->ebase = event_base;
    s->dt_s = pcs_world_clock(w)->dt_s;
    pcs_gauss_table_init(&s->gauss);
    st = pcs_instr_prefix_copy(w, bank.fn, prefix, &s->prefix);
    static const sensor_build_step steps[] = {alloc_config, register_stores, fill_config,
                                              register_channels, register_system};
    for (size_t i = 0; st == PCS_OK && i < sizeof steps / sizeof steps[0]; i++)
        st = steps[i](w, s, cfgs);
    st = pcs_instr_add_end(w, st, s->prefix, "sensors", sensors_load_check, s);
    if (st == PCS_OK)
        *out = s;
    return st;
}

/* ---- queries ------------------------------------------------------------ */

uint32_t pcs_sensor_count(const pcs_sensors *s)
{
    return s ? s->n : 0;
}

pcs_status pcs_sensor_hold(pcs_world *w, pcs_sensors *s, uint32_t id)
{
    if (!w || !s)
        return pcs_error_set(PCS_E_INVAL, "pcs_sensor_hold: NULL argument");
    if (id >= s->n)
        return pcs_error_set(PCS_E_NOTFOUND, "pcs_sensor_hold: sensor id %u is outside [0, %u)", id,
                             s->n);
    if (pcs_world_sealed(w) && !pcs_world_amending(w))
        return pcs_error_set(PCS_E_STATE, "pcs_sensor_hold: only in the build phase or while a "
                                          "structural change is applied (pcsim/structure.h)");
    if (!s->hold) {
        s->hold = pcs_world_alloc(w, s->n * sizeof *s->hold);
        s->hold_pending = pcs_world_alloc(w, s->n);
        if (!s->hold || !s->hold_pending)
            return pcs_error_set(PCS_E_NOMEM, "pcs_sensor_hold: out of memory for %u sensors",
                                 s->n);
        memset(s->hold_pending, 0, s->n);
    }
    if (s->src[id] != &s->hold[id] && !s->hold_pending[id]) {
        s->hold_pending[id] = 1;
        s->n_hold_pending++;
    }
    return PCS_OK;
}

pcs_status pcs_sensor_find(const pcs_sensors *s, const char *name, uint32_t *id)
{
    return pcs_instr_find("pcs_sensor_find", "sensor", s ? s->names : NULL, pcs_sensor_count(s),
                          name, id);
}

static pcs_status ref(const pcs_sensors *s, uint32_t id, uint32_t store, uint32_t *out_store,
                      uint32_t *out_index)
{
    return pcs_instr_element_ref("pcs_sensor_*_ref", "sensor", s && out_store && out_index,
                                 s ? s->n : 0, id, store, out_store, out_index);
}

pcs_status pcs_sensor_value_ref(const pcs_sensors *s, uint32_t id, uint32_t *store, uint32_t *index)
{
    return ref(s, id, s ? s->id_value : 0, store, index);
}

pcs_status pcs_sensor_status_ref(const pcs_sensors *s, uint32_t id, uint32_t *store,
                                 uint32_t *index)
{
    return ref(s, id, s ? s->id_status : 0, store, index);
}

double pcs_sensor_value(const pcs_sensors *s, uint32_t id)
{
    return (s && id < s->n) ? s->value[id] : (double)NAN;
}

uint32_t pcs_sensor_status(const pcs_sensors *s, uint32_t id)
{
    return (s && id < s->n) ? s->status[id] : 0;
}
