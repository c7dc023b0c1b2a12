/**
 * @file protection.c
 * @brief Trip functions, k-out-of-n coincidence, bypasses and the latched
 *        unit trip with its first-out reason (model in include/pcsim/protection.h).
 *
 * Per tick each function builds a bit mask of its channels in the trip
 * condition, removes bypassed channels, counts the rest against k, and
 * latches its unit's trip output on the first tripped function. Functions are
 * visited in id order, so the first-out of a tick with several trips is the
 * lowest id: deterministic, and the configuration order is the priority.
 *
 * Direction without branches: a LOW comparison v <= sp is the HIGH
 * comparison on negated values, -v >= -sp (negation is exact), so each
 * function stores a sign and a signed setpoint. The test is written as
 * !(s*v < s*sp) so that NaN, for which every comparison is false, trips.
 *
 * Load check (protection_load_check, run on a staged save before any of it
 * is applied): the rate ring of a RATE function indexes its history, so its
 * next slot must be below the function's window W and its sample count at
 * most W, equal to the slot while the window fills (both 0 for LEVEL
 * functions); rate history values finite (sensor outputs, clamped to finite
 * ranges); state words and bypass words only PCS_PROTECTION_TRIP_ST_* bits of channels
 * the function has, a channel bypass leaving at least k channels (as the
 * command enforces), WARMING only on RATE functions; per unit trip 0 or 1 and
 * first-out 0 (no trip) or the id + 1 of a function of that unit (with trip 1).
 */
#include <stdio.h>
#include <string.h>

#include "physics/instrumentation/models/instr_common.h"
#include "pcsim/channel.h"
#include "pcsim/command.h"
#include "pcsim/math.h"
#include "pcsim/persist.h"
#include "pcsim/protection.h"
#include "pcsim/system.h"

struct pcs_protection {
    const char *prefix; /* the bank's name prefix (pcs_protection_def.prefix), NULL for none */
    uint32_t fbase, ubase; /* added to function ids and unit indices in events */
    uint32_t n_units;
    uint32_t n_functions;
    const double *values; /* the sensors' measured values, by sensor id */
    /* function configuration (read-only after build) */
    uint32_t *unit;
    uint32_t *kind;
    double *sign;      /* +1 HIGH, -1 LOW */
    double *signed_sp; /* sign * setpoint */
    double *setpoint;
    uint32_t *n_inputs;
    uint32_t *inputs; /* n_functions x PCS_PROTECTION_TRIP_MAX_INPUTS sensor ids */
    uint32_t *k;
    uint32_t *window;     /* RATE: W ticks */
    double *inv_window_s; /* RATE: 1 / (W dt) */
    uint32_t *hist_base;  /* RATE: offset of the function's history in rps.rate_hist */
    const double **arm;   /* permissive flag per function, NULL: always armed */
    uint32_t *arm_stores; /* their distinct stores (the system reads them) */
    uint32_t n_arm_stores;
    const char **names;
    const char **unit_names; /* each unit's channel and target prefix ("u1" by default) */
    /* state: store ids and base pointers */
    uint32_t id_word, id_bypass, id_trip, id_first, id_hist, id_ring;
    uint32_t *word;   /* published state word per function */
    uint32_t *bypass; /* PCS_PROTECTION_TRIP_ST_BYPASS_MASK | PCS_PROTECTION_TRIP_ST_BYPASSED bits,
                         set by command */
    uint32_t *trip;   /* per unit, 0/1, latched */
    uint32_t *first;  /* per unit, first-out function id + 1, 0 = none */
    double *hist;     /* RATE: per function n_inputs x W past values */
    uint32_t *ring;   /* RATE: per function {next slot, samples held} */
    /* unit trip inputs written each tick (NULL: none), and their distinct
     * stores (n_units entries each, from the world heap) */
    uint32_t **trip_input;
    uint32_t *trip_input_stores;
    uint32_t n_trip_input_stores;
};

static const pcs_protection_function_def function_defaults = {.kind = PCS_PROTECTION_TRIP_LEVEL,
                                                              .direction = PCS_PROTECTION_TRIP_HIGH,
                                                              .k = 1,
                                                              .rate_window_ticks = 20};

pcs_status pcs_protection_function_default(pcs_protection_function_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_protection_function_default: cfg is NULL");
    *cfg = function_defaults;
    return PCS_OK;
}

static const pcs_protection_def protection_defaults = {.n_units = 1};

pcs_status pcs_protection_default(pcs_protection_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_protection_default: cfg is NULL");
    *cfg = protection_defaults;
    return PCS_OK;
}

/* ---- validation ---------------------------------------------------------- */

static pcs_status bad_u32(uint32_t f, const char *name, const char *field, uint32_t v, uint32_t lo,
                          uint32_t hi)
{
    return pcs_error_set(PCS_E_INVAL, "trip function %u ('%s'): %s = %u is outside [%u, %u]", f,
                         name, field, v, lo, hi);
}

static pcs_status check_inputs(const pcs_protection_function_def *c, uint32_t f, uint32_t n_sensors)
{
    for (uint32_t i = 0; i < c->n_inputs; i++) {
        if (c->inputs[i] >= n_sensors)
            return pcs_error_set(PCS_E_INVAL,
                                 "trip function %u ('%s'): inputs[%u] = %u is outside [0, %u) "
                                 "(sensor ids)",
                                 f, c->name, i, c->inputs[i], n_sensors);
        for (uint32_t j = 0; j < i; j++)
            if (c->inputs[j] == c->inputs[i])
                return pcs_error_set(PCS_E_INVAL,
                                     "trip function %u ('%s'): inputs[%u] = inputs[%u] = %u; "
                                     "redundant channels must be distinct sensors",
                                     f, c->name, j, i, c->inputs[i]);
    }
    return PCS_OK;
}

static pcs_status check_function(const pcs_protection_function_def *c, uint32_t f, uint32_t n_units,
                                 uint32_t n_sensors)
{
    size_t len = c->name ? strlen(c->name) : 0;
    if (len == 0 || len > PCS_PROTECTION_TRIP_NAME_MAX)
        return pcs_error_set(PCS_E_INVAL, "trip function %u: name length = %zu is outside [1, %u]",
                             f, len, PCS_PROTECTION_TRIP_NAME_MAX);
    if (c->unit >= n_units)
        return bad_u32(f, c->name, "unit", c->unit, 0, n_units - 1);
    if ((unsigned)c->kind > PCS_PROTECTION_TRIP_RATE)
        return bad_u32(f, c->name, "kind", (uint32_t)c->kind, PCS_PROTECTION_TRIP_LEVEL,
                       PCS_PROTECTION_TRIP_RATE);
    if ((unsigned)c->direction > PCS_PROTECTION_TRIP_LOW)
        return bad_u32(f, c->name, "direction", (uint32_t)c->direction, PCS_PROTECTION_TRIP_HIGH,
                       PCS_PROTECTION_TRIP_LOW);
    if (!pcs_isfinite(c->setpoint))
        return pcs_error_set(PCS_E_INVAL, "trip function %u ('%s'): setpoint = %g must be finite",
                             f, c->name, c->setpoint);
    if (c->n_inputs < 1 || c->n_inputs > PCS_PROTECTION_TRIP_MAX_INPUTS)
        return bad_u32(f, c->name, "n_inputs", c->n_inputs, 1, PCS_PROTECTION_TRIP_MAX_INPUTS);
    if (c->k < 1 || c->k > c->n_inputs)
        return bad_u32(f, c->name, "k", c->k, 1, c->n_inputs);
    if (c->kind == PCS_PROTECTION_TRIP_RATE &&
        (c->rate_window_ticks < 1 || c->rate_window_ticks > PCS_PROTECTION_TRIP_RATE_WINDOW_MAX))
        return bad_u32(f, c->name, "rate_window_ticks", c->rate_window_ticks, 1,
                       PCS_PROTECTION_TRIP_RATE_WINDOW_MAX);
    if (c->arm > 1)
        return bad_u32(f, c->name, "arm", c->arm, 0, 1);
    return check_inputs(c, f, n_sensors);
}

/* pcs_instr_ref_check of @p r, an element reference in entry @p k of one of
 * the protection config's lists: its fields are named by the formats
 * @p store_fmt and @p index_fmt of k ("functions[%u].arm_store"). */
static pcs_status check_entry(const pcs_world *w, pcs_instr_ref r, const char *store_fmt,
                              const char *index_fmt, uint32_t k)
{
    char store_field[48], index_field[48];
    snprintf(store_field, sizeof store_field, store_fmt, k);
    snprintf(index_field, sizeof index_field, index_fmt, k);
    r.who = "protection config";
    r.store_field = store_field;
    r.index_field = index_field;
    return pcs_instr_ref_check(w, &r);
}

/* Each permissive-armed function's flag: an element of a float64 store. */
static pcs_status check_arms(const pcs_world *w, const pcs_protection_def *cfg)
{
    pcs_instr_ref arm = {.elem = sizeof(double),
                         .store_note = "stores registered so far",
                         .array_note = "a permissive flag is an array of float64"};
    pcs_status st = PCS_OK;
    for (uint32_t f = 0; st == PCS_OK && f < cfg->n_functions; f++) {
        if (!cfg->functions[f].arm)
            continue;
        arm.store = cfg->functions[f].arm_store;
        arm.index = cfg->functions[f].arm_index;
        st = check_entry(w, arm, "functions[%u].arm_store", "functions[%u].arm_index", f);
    }
    return st;
}

static pcs_status check_targets(const pcs_world *w, const pcs_protection_def *cfg)
{
    pcs_instr_ref input = {.elem = sizeof(uint32_t),
                           .store_note = "or PCS_PROTECTION_TRIP_NO_TARGET",
                           .array_note = "a trip input is an array of u32"};
    pcs_status st = PCS_OK;
    for (uint32_t u = 0; st == PCS_OK && cfg->unit_trip_stores && u < cfg->n_units; u++) {
        input.store = cfg->unit_trip_stores[u];
        input.index = cfg->unit_trip_indices ? cfg->unit_trip_indices[u] : 0;
        if (input.store == PCS_PROTECTION_TRIP_NO_TARGET)
            continue;
        st = check_entry(w, input, "unit_trip_stores[%u]", "unit_trip_indices[%u]", u);
    }
    return st;
}

pcs_status pcs_protection_def_validate(const pcs_world *w, const pcs_sensors *sensors,
                                       const pcs_protection_def *cfg)
{
    if (!w || !cfg || !sensors)
        return pcs_error_set(PCS_E_INVAL, "pcs_protection_def_validate: NULL argument");
    if (cfg->n_units < 1 || cfg->n_units > (1u << 20))
        return pcs_error_set(PCS_E_INVAL, "protection config: n_units = %u is outside [1, %u]",
                             cfg->n_units, 1u << 20);
    for (uint32_t u = 0; cfg->unit_names && u < cfg->n_units; u++) {
        size_t len = cfg->unit_names[u] ? strlen(cfg->unit_names[u]) : 0;
        if (len == 0 || len > PCS_PROTECTION_TRIP_UNIT_NAME_MAX)
            return pcs_error_set(PCS_E_INVAL,
                                 "protection config: unit_names[%u] length = %zu is outside "
                                 "[1, %u]",
                                 u, len, PCS_PROTECTION_TRIP_UNIT_NAME_MAX);
    }
    if (cfg->n_functions < 1 || cfg->n_functions > PCS_PROTECTION_TRIP_MAX_FUNCTIONS ||
        !cfg->functions)
        return pcs_error_set(PCS_E_INVAL,
                             "protection config: n_functions = %u is outside [1, %u] (or "
                             "functions is NULL)",
                             cfg->n_functions, PCS_PROTECTION_TRIP_MAX_FUNCTIONS);
    uint32_t n_sensors = pcs_sensor_count(sensors);
    for (uint32_t f = 0; f < cfg->n_functions; f++) {
        pcs_status st = check_function(&cfg->functions[f], f, cfg->n_units, n_sensors);
        if (st != PCS_OK)
            return st;
    }
    pcs_status st = check_arms(w, cfg);
    return st == PCS_OK ? check_targets(w, cfg) : st;
}

/* ---- the tick ------------------------------------------------------------- */

/* Channel values of a LEVEL function into x; returns the trip mask. */
static uint32_t level_mask(const pcs_protection *p, uint32_t f, double *x)
{
    const uint32_t *in = &p->inputs[f * PCS_PROTECTION_TRIP_MAX_INPUTS];
    const double sg = p->sign[f], ssp = p->signed_sp[f];
    uint32_t mask = 0;
    for (uint32_t c = 0; c < p->n_inputs[f]; c++) {
        x[c] = p->values[in[c]];
        mask |= (uint32_t) !(sg * x[c] < ssp) << c;
    }
    return mask;
}

/* Channel rates of a RATE function into x (pushing this tick's values into
 * its window); returns the trip mask, 0 with *warming set while the window
 * fills. */
static uint32_t rate_mask(pcs_protection *p, uint32_t f, double *x, uint32_t *warming)
{
    const uint32_t *in = &p->inputs[f * PCS_PROTECTION_TRIP_MAX_INPUTS];
    const uint32_t w = p->window[f];
    uint32_t *ring = &p->ring[2 * f];
    const uint32_t pos = ring[0], full = ring[1] == w;
    double *h = &p->hist[p->hist_base[f]];
    const double sg = p->sign[f], ssp = p->signed_sp[f];
    uint32_t mask = 0;
    for (uint32_t c = 0; c < p->n_inputs[f]; c++) {
        double v = p->values[in[c]];
        double *slot = &h[c * w + pos]; /* holds the value of W ticks ago once full */
        x[c] = (v - *slot) * p->inv_window_s[f];
        *slot = v;
        mask |= (uint32_t) !(sg * x[c] < ssp) << c;
    }
    ring[0] = pos + 1 == w ? 0 : pos + 1;
    if (full)
        return mask;
    ring[1]++;
    *warming = PCS_PROTECTION_TRIP_ST_WARMING;
    return 0;
}

/* The most unsafe value among the channels in @p live (for events). */
static double extreme(const pcs_protection *p, uint32_t f, const double *x, uint32_t live)
{
    double best = 0.0;
    int have = 0;
    for (uint32_t c = 0; c < p->n_inputs[f]; c++) {
        if (!(live >> c & 1))
            continue;
        if (!have || p->sign[f] * x[c] > p->sign[f] * best)
            best = x[c];
        have = 1;
    }
    return best;
}

static void on_edge(pcs_world *w, pcs_protection *p, uint32_t f, uint32_t tripped, uint32_t live,
                    const double *x)
{
    double n_live = (double)__builtin_popcount(live);
    if (tripped)
        pcs_event_emit(w, PCS_EV_TRIP_FUNCTION, f + p->fbase, (double)(p->unit[f] + p->ubase),
                       n_live, p->setpoint[f], extreme(p, f, x, live));
    else
        pcs_event_emit(w, PCS_EV_TRIP_FUNCTION_CLEAR, f + p->fbase, (double)(p->unit[f] + p->ubase),
                       n_live, p->setpoint[f], 0.0);
}

static void latch(pcs_world *w, pcs_protection *p, uint32_t f, uint32_t live, const double *x)
{
    uint32_t u = p->unit[f];
    p->trip[u] = 1;
    p->first[u] = f + 1;
    pcs_event_emit(w, PCS_EV_UNIT_TRIP, u + p->ubase, (double)(f + p->fbase), p->setpoint[f],
                   extreme(p, f, x, live), 0.0);
}

static pcs_status protection_step(pcs_world *w, void *ctx)
{
    pcs_protection *p = ctx;
    for (uint32_t f = 0; f < p->n_functions; f++) {
        double x[PCS_PROTECTION_TRIP_MAX_INPUTS];
        uint32_t warming = 0;
        uint32_t mask = p->kind[f] == PCS_PROTECTION_TRIP_RATE ? rate_mask(p, f, x, &warming)
                                                               : level_mask(p, f, x);
        uint32_t byp = p->bypass[f];
        uint32_t blocked = p->arm[f] && *p->arm[f] == 0.0 ? PCS_PROTECTION_TRIP_ST_BLOCKED : 0u;
        uint32_t live = mask & ~(byp >> PCS_PROTECTION_TRIP_ST_BYPASS_SHIFT) &
                        PCS_PROTECTION_TRIP_ST_CHANNEL_MASK;
        uint32_t tripped = !(byp & PCS_PROTECTION_TRIP_ST_BYPASSED) && !blocked &&
                           (uint32_t)__builtin_popcount(live) >= p->k[f];
        uint32_t word =
            mask | byp | warming | blocked | (tripped ? PCS_PROTECTION_TRIP_ST_TRIPPED : 0u);
        uint32_t old = p->word[f];
        p->word[f] = word;
        if ((old ^ word) & PCS_PROTECTION_TRIP_ST_TRIPPED)
            on_edge(w, p, f, tripped, live, x);
        if (tripped && !p->trip[p->unit[f]])
            latch(w, p, f, live, x);
    }
    for (uint32_t u = 0; u < p->n_units; u++)
        if (p->trip_input[u])
            *p->trip_input[u] = p->trip[u] ? PCS_PROTECTION_TRIP_CAUSE_BIT(p->first[u] - 1) : 0u;
    return PCS_OK;
}

/* ---- commands -------------------------------------------------------------- */

/* Bypass bit for args[0]: the function bit for a negative channel. */
static pcs_status bypass_bit(const pcs_protection *p, uint32_t f, double a, uint32_t *bit,
                             int32_t *channel)
{
    if (a < 0.0) {
        *bit = PCS_PROTECTION_TRIP_ST_BYPASSED;
        *channel = -1;
        return PCS_OK;
    }
    uint32_t n = p->n_inputs[f];
    if (!(a == pcs_floor(a)) || a >= (double)n)
        return pcs_error_set(PCS_E_INVAL,
                             "trip bypass: function %u ('%s'): channel args[0] = %g is not an "
                             "integer in [0, %u) or negative",
                             f, p->names[f], a, n);
    *channel = (int32_t)a;
    *bit = 1u << (PCS_PROTECTION_TRIP_ST_BYPASS_SHIFT + (uint32_t)a);
    return PCS_OK;
}

static pcs_status on_bypass(pcs_world *w, pcs_protection *p, uint32_t f, uint32_t op, double a)
{
    uint32_t bit = 0;
    int32_t channel = -1;
    pcs_status st = bypass_bit(p, f, a, &bit, &channel);
    if (st != PCS_OK)
        return st;
    uint32_t next = op == PCS_PROTECTION_TRIP_OP_BYPASS ? p->bypass[f] | bit : p->bypass[f] & ~bit;
    uint32_t chans = (uint32_t)__builtin_popcount(next & PCS_PROTECTION_TRIP_ST_BYPASS_MASK);
    if (p->n_inputs[f] - chans < p->k[f])
        return pcs_error_set(PCS_E_STATE,
                             "trip bypass: function %u ('%s') would keep %u of %u channels, "
                             "fewer than k = %u: it could no longer trip",
                             f, p->names[f], p->n_inputs[f] - chans, p->n_inputs[f], p->k[f]);
    p->bypass[f] = next;
    pcs_event_emit(w, PCS_EV_TRIP_BYPASS, f + p->fbase, (double)channel,
                   op == PCS_PROTECTION_TRIP_OP_BYPASS ? 1.0 : 0.0, 0.0, 0.0);
    return PCS_OK;
}

static pcs_status on_reset(pcs_world *w, pcs_protection *p, uint32_t u)
{
    for (uint32_t f = 0; f < p->n_functions; f++)
        if (p->unit[f] == u && (p->word[f] & PCS_PROTECTION_TRIP_ST_TRIPPED) &&
            !(p->bypass[f] & PCS_PROTECTION_TRIP_ST_BYPASSED))
            return pcs_error_set(PCS_E_STATE,
                                 "trip reset: unit %u: function %u ('%s') is still tripped", u, f,
                                 p->names[f]);
    double had = p->first[u] ? (double)(p->first[u] - 1) : -1.0;
    p->trip[u] = 0;
    p->first[u] = 0;
    if (p->trip_input[u])
        *p->trip_input[u] = 0; /* at once: the unit may be reset later in this batch */
    pcs_event_emit(w, PCS_EV_TRIP_RESET, u + p->ubase, had, 0.0, 0.0, 0.0);
    return PCS_OK;
}

/* Function targets take the bypass ops, unit targets the reset (the engine
 * checked which), so the element is a function or a unit as the op expects. */
static pcs_status on_command(pcs_world *w, const pcs_command_call *c)
{
    if (c->op == PCS_PROTECTION_TRIP_OP_RESET)
        return on_reset(w, c->ctx, c->element);
    return on_bypass(w, c->ctx, c->element, c->op, c->cmd->args[0]);
}

/* ---- load check -------------------------------------------------------------- */

/* Channel bits of function f: bit c for each of its n_inputs channels. */
static uint32_t channel_bits(const pcs_protection *p, uint32_t f)
{
    return (1u << p->n_inputs[f]) - 1u;
}

static pcs_status check_ring(const pcs_protection *p, const uint32_t *ring, uint32_t f)
{
    uint32_t w = p->kind[f] == PCS_PROTECTION_TRIP_RATE ? p->window[f] : 0u;
    uint32_t pos = ring[2 * f], held = ring[2 * f + 1];
    char allowed[96];
    snprintf(allowed, sizeof allowed, "[0, %u) (function %u's window)", w ? w : 1u, f);
    if (pos >= (w ? w : 1u))
        return pcs_instr_bad_word("rps.rate_ring", 2 * f, "next slot", pos, allowed);
    snprintf(allowed, sizeof allowed,
             "[0, %u] and equal to the next slot %u until the window "
             "is full",
             w, pos);
    if (held > w || (held < w && held != pos))
        return pcs_instr_bad_word("rps.rate_ring", 2 * f + 1, "samples held", held, allowed);
    return PCS_OK;
}

static pcs_status check_words(const pcs_protection *p, const uint32_t *word, const uint32_t *bypass,
                              uint32_t f)
{
    uint32_t ch = channel_bits(p, f), byp_ch = ch << PCS_PROTECTION_TRIP_ST_BYPASS_SHIFT;
    uint32_t byp_ok = byp_ch | PCS_PROTECTION_TRIP_ST_BYPASSED;
    uint32_t blocked = p->arm[f] ? PCS_PROTECTION_TRIP_ST_BLOCKED : 0u;
    uint32_t word_ok =
        ch | byp_ok | PCS_PROTECTION_TRIP_ST_TRIPPED | blocked |
        (p->kind[f] == PCS_PROTECTION_TRIP_RATE ? PCS_PROTECTION_TRIP_ST_WARMING : 0u);
    char allowed[96];
    snprintf(allowed, sizeof allowed, "bits of mask 0x%x (function %u)", word_ok, f);
    if (word[f] & ~word_ok)
        return pcs_instr_bad_word("rps.word", f, "state word", word[f], allowed);
    snprintf(allowed, sizeof allowed, "bits of mask 0x%x, at most %u channels (n - k)", byp_ok,
             p->n_inputs[f] - p->k[f]);
    uint32_t chans = (uint32_t)__builtin_popcount(bypass[f] & byp_ch);
    if ((bypass[f] & ~byp_ok) || p->n_inputs[f] - chans < p->k[f])
        return pcs_instr_bad_word("rps.bypass", f, "bypass word", bypass[f], allowed);
    return PCS_OK;
}

static pcs_status check_units(const pcs_protection *p, const uint32_t *trip, const uint32_t *first)
{
    pcs_status st = pcs_load_check_u32("rps.trip", "latched trip", trip, p->n_units, 1, 2);
    for (uint32_t u = 0; st == PCS_OK && u < p->n_units; u++) {
        uint32_t f1 = first[u];
        int ok = trip[u] ? f1 >= 1 && f1 <= p->n_functions && p->unit[f1 - 1] == u : f1 == 0;
        if (!ok) {
            char allowed[96];
            snprintf(allowed, sizeof allowed, "%s",
                     trip[u] ? "1 + a function of this unit" : "0 (the unit is not tripped)");
            st = pcs_instr_bad_word("rps.first_out", u, "first-out function + 1", f1, allowed);
        }
    }
    return st;
}

static pcs_status protection_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_protection *p = ctx;
    const uint32_t *word = pcs_load_view_store(v, p->id_word);
    const uint32_t *bypass = pcs_load_view_store(v, p->id_bypass);
    const uint32_t *ring = pcs_load_view_store(v, p->id_ring);
    pcs_status st = PCS_OK;
    for (uint32_t f = 0; st == PCS_OK && f < p->n_functions; f++) {
        st = check_ring(p, ring, f);
        if (st == PCS_OK)
            st = check_words(p, word, bypass, f);
    }
    if (st == PCS_OK)
        st = pcs_instr_check_finite("rps.rate_hist", "past channel value",
                                    pcs_load_view_store(v, p->id_hist),
                                    pcs_store_bytes(w, p->id_hist) / sizeof(double));
    if (st == PCS_OK)
        st =
            check_units(p, pcs_load_view_store(v, p->id_trip), pcs_load_view_store(v, p->id_first));
    return st;
}

/* ---- build ------------------------------------------------------------------ */

static pcs_status alloc_arrays(pcs_world *w, pcs_protection *p)
{
    uint32_t n = p->n_functions;
    uint32_t **const u32[] = {&p->unit,   &p->kind,      &p->n_inputs,  &p->k,
                              &p->window, &p->hist_base, &p->arm_stores};
    double **const f64[] = {&p->sign, &p->signed_sp, &p->setpoint, &p->inv_window_s};
    p->inputs = pcs_world_alloc(w, n * sizeof(uint32_t) * PCS_PROTECTION_TRIP_MAX_INPUTS);
    p->arm = pcs_world_alloc(w, n * sizeof *p->arm);
    p->trip_input = pcs_world_alloc(w, p->n_units * sizeof *p->trip_input);
    p->trip_input_stores = pcs_world_alloc(w, p->n_units * sizeof *p->trip_input_stores);
    if (!p->inputs || !p->arm || !p->trip_input || !p->trip_input_stores ||
        !pcs_instr_alloc_u32(w, n, u32, sizeof u32 / sizeof u32[0]) ||
        !pcs_instr_alloc_f64(w, n, f64, sizeof f64 / sizeof f64[0]))
        return pcs_error_set(PCS_E_NOMEM, "pcs_protection_add: out of memory");
    return PCS_OK;
}

/* Copy the configuration; returns the rate history length in doubles. */
static size_t fill_functions(pcs_world *w, pcs_protection *p, const pcs_protection_def *cfg)
{
    double dt = pcs_world_clock(w)->dt_s;
    size_t hist = 0;
    for (uint32_t f = 0; f < p->n_functions; f++) {
        const pcs_protection_function_def *c = &cfg->functions[f];
        p->unit[f] = c->unit;
        p->kind[f] = (uint32_t)c->kind;
        p->sign[f] = c->direction == PCS_PROTECTION_TRIP_LOW ? -1.0 : 1.0;
        p->signed_sp[f] = p->sign[f] * c->setpoint;
        p->setpoint[f] = c->setpoint;
        p->n_inputs[f] = c->n_inputs;
        memcpy(&p->inputs[f * PCS_PROTECTION_TRIP_MAX_INPUTS], c->inputs, sizeof c->inputs);
        p->k[f] = c->k;
        p->arm[f] = NULL;
        if (c->arm) {
            p->arm[f] = (const double *)pcs_store_data(w, c->arm_store) + c->arm_index;
            pcs_instr_set_add(p->arm_stores, &p->n_arm_stores, p->n_functions, c->arm_store);
        }
        if (c->kind == PCS_PROTECTION_TRIP_RATE) {
            p->window[f] = c->rate_window_ticks;
            p->inv_window_s[f] = 1.0 / (c->rate_window_ticks * dt);
            p->hist_base[f] = (uint32_t)hist;
            hist += (size_t)c->n_inputs * c->rate_window_ticks;
        }
    }
    return hist;
}

static pcs_status register_stores(pcs_world *w, pcs_protection *p, size_t hist)
{
    size_t n = p->n_functions, units = p->n_units;
    pcs_instr_stores r = {.w = w, .prefix = p->prefix};
    p->word = pcs_instr_store(&r, "rps.word", sizeof *p->word, n, &p->id_word);
    p->bypass = pcs_instr_store(&r, "rps.bypass", sizeof *p->bypass, n, &p->id_bypass);
    p->trip = pcs_instr_store(&r, "rps.trip", sizeof *p->trip, units, &p->id_trip);
    p->first = pcs_instr_store(&r, "rps.first_out", sizeof *p->first, units, &p->id_first);
    /* a store has at least one element; unused without RATE functions */
    p->hist = pcs_instr_store(&r, "rps.rate_hist", sizeof *p->hist, hist ? hist : 1, &p->id_hist);
    p->ring = pcs_instr_store(&r, "rps.rate_ring", sizeof *p->ring, 2 * n, &p->id_ring);
    return r.st;
}

/* "u1".."uN": the unit prefixes when the configuration names none. */
static const char **numbered_units(pcs_world *w, uint32_t n)
{
    enum { LEN = 12 }; /* "u", at most 10 digits, NUL */
    const char **names = pcs_world_alloc(w, n * sizeof *names);
    char *text = pcs_world_alloc(w, (size_t)n * LEN);
    if (!names || !text) {
        pcs_error_set(PCS_E_NOMEM, "pcs_protection_add: out of memory");
        return NULL;
    }
    for (uint32_t u = 0; u < n; u++) {
        snprintf(text + (size_t)u * LEN, LEN, "u%u", u + 1);
        names[u] = text + (size_t)u * LEN;
    }
    return names;
}

/* The functions' and units' names: channel and command target names. */
static pcs_status copy_names(pcs_world *w, pcs_protection *p, const pcs_protection_def *cfg)
{
    static const char fn[] = "pcs_protection_add";
    p->names = pcs_instr_names_copy(w, fn, PCS_INSTR_FIELD(cfg->functions, name), p->n_functions);
    if (p->names && cfg->unit_names)
        p->unit_names = pcs_instr_names_copy(w, fn, PCS_INSTR_ARRAY(cfg->unit_names), p->n_units);
    else if (p->names)
        p->unit_names = numbered_units(w, p->n_units);
    return p->unit_names ? PCS_OK : PCS_E_NOMEM;
}

/* Each function's state word; each unit's trip and first-out. */
static pcs_status register_channels(pcs_world *w, pcs_protection *p)
{
    const pcs_instr_channel function = {.suffix = "", .kind = PCS_CHANNEL_U32, .store = p->id_word};
    const pcs_instr_channel unit[] = {
        {.suffix = ".rps.trip", .kind = PCS_CHANNEL_U32, .store = p->id_trip},
        {.suffix = ".rps.first_out", .kind = PCS_CHANNEL_U32, .store = p->id_first},
    };
    pcs_status st = pcs_instr_channels(w, p->names, p->n_functions, &function, 1);
    return st == PCS_OK ? pcs_instr_channels(w, p->unit_names, p->n_units, unit, 2) : st;
}

/* Pointers to the unit trip inputs, and their distinct stores for the writes list. */
static void connect_trip_inputs(pcs_world *w, pcs_protection *p, const pcs_protection_def *cfg)
{
    for (uint32_t u = 0; cfg->unit_trip_stores && u < p->n_units; u++) {
        uint32_t store = cfg->unit_trip_stores[u];
        if (store == PCS_PROTECTION_TRIP_NO_TARGET)
            continue;
        uint32_t index = cfg->unit_trip_indices ? cfg->unit_trip_indices[u] : 0;
        p->trip_input[u] = (uint32_t *)pcs_store_data(w, store) + index;
        /* never full: there are at most n_units distinct stores */
        pcs_instr_set_add(p->trip_input_stores, &p->n_trip_input_stores, p->n_units, store);
    }
}

static const pcs_instr_bank bank = {
    .fn = "pcs_protection_add",
    .one = "a protection system",
    .first_store = "rps.word",
    .n_max = 0,
    .system = {.name = "protection", .stage = PCS_STAGE_PROTECTION, .fn = protection_step}};

static pcs_status register_system(pcs_world *w, pcs_protection *p, uint32_t sensor_store)
{
    uint32_t n_reads = 2 + p->n_arm_stores;
    uint32_t *reads = pcs_world_alloc(w, n_reads * sizeof *reads);
    uint32_t n_writes = 5 + p->n_trip_input_stores;
    uint32_t *writes = pcs_world_alloc(w, n_writes * sizeof *writes);
    if (!writes || !reads)
        return pcs_error_set(PCS_E_NOMEM, "pcs_protection_add: out of memory");
    reads[0] = sensor_store;
    reads[1] = p->id_bypass;
    memcpy(reads + 2, p->arm_stores, p->n_arm_stores * sizeof *reads);
    uint32_t own[] = {p->id_word, p->id_trip, p->id_first, p->id_hist, p->id_ring};
    memcpy(writes, own, sizeof own);
    memcpy(writes + 5, p->trip_input_stores, p->n_trip_input_stores * sizeof *writes);
    return pcs_instr_system(w, &bank, p->prefix, p, reads, n_reads, writes, n_writes);
}

/* The "protection" family's targets: each function by its name (bypass ops)
 * and each unit by its prefix (reset). */
static pcs_status register_targets(pcs_world *w, pcs_protection *p)
{
    uint32_t family = 0;
    pcs_status st = pcs_instr_family(w, p->prefix, PCS_PROTECTION_TRIP_COMMANDS,
                                     PCS_PROTECTION_TRIP_OP_COUNT, on_command, &family);
    pcs_command_target_def function = {.family = family,
                                       .ctx = p,
                                       .ops = (1u << PCS_PROTECTION_TRIP_OP_BYPASS) |
                                              (1u << PCS_PROTECTION_TRIP_OP_UNBYPASS)};
    pcs_command_target_def unit = {
        .family = family, .ctx = p, .ops = 1u << PCS_PROTECTION_TRIP_OP_RESET};
    if (st == PCS_OK)
        st = pcs_instr_targets(w, p->names, p->n_functions, function);
    return st == PCS_OK ? pcs_instr_targets(w, p->unit_names, p->n_units, unit) : st;
}

pcs_status pcs_protection_add(pcs_world *w, const pcs_sensors *sensors,
                              const pcs_protection_def *cfg, pcs_protection **out)
{
    pcs_status st = pcs_instr_add_check(w, &bank, cfg ? cfg->prefix : NULL, w && out, 0);
    if (st == PCS_OK)
        st = pcs_protection_def_validate(w, sensors, cfg);
    if (st != PCS_OK)
        return st;
    uint32_t sensor_store, index0;
    pcs_sensor_value_ref(sensors, 0, &sensor_store, &index0);
    pcs_protection *p = pcs_world_alloc(w, sizeof *p);
    if (!p)
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory", bank.fn);
    p->n_units = cfg->n_units;
    p->n_functions = cfg->n_functions;
    p->fbase = cfg->event_function_base;
    p->ubase = cfg->event_unit_base;
    st = pcs_instr_prefix_copy(w, bank.fn, cfg->prefix, &p->prefix);
    if (st != PCS_OK)
        return st;
    p->values = (const double *)pcs_store_data(w, sensor_store) + index0;
    st = alloc_arrays(w, p);
    if (st == PCS_OK)
        st = register_stores(w, p, fill_functions(w, p, cfg));
    if (st == PCS_OK)
        st = copy_names(w, p, cfg);
    if (st == PCS_OK)
        st = register_channels(w, p);
    if (st == PCS_OK) {
        connect_trip_inputs(w, p, cfg);
        st = register_system(w, p, sensor_store);
    }
    if (st == PCS_OK)
        st = register_targets(w, p);
    st = pcs_instr_add_end(w, st, p->prefix, "protection", protection_load_check, p);
    if (st == PCS_OK)
        *out = p;
    return st;
}

/* ---- queries ---------------------------------------------------------------- */

pcs_status pcs_protection_trip_output(const pcs_protection *p, uint32_t unit, uint32_t *store,
                                      uint32_t *index)
{
    return pcs_instr_element_ref("pcs_protection_trip_output", "unit", p && store && index,
                                 p ? p->n_units : 0, unit, p ? p->id_trip : 0, store, index);
}

uint32_t pcs_protection_tripped(const pcs_protection *p, uint32_t unit)
{
    return (p && unit < p->n_units) ? p->trip[unit] : 0;
}

uint32_t pcs_protection_first_out(const pcs_protection *p, uint32_t unit)
{
    if (!p || unit >= p->n_units || p->first[unit] == 0)
        return PCS_PROTECTION_TRIP_NONE;
    return p->first[unit] - 1;
}

uint32_t pcs_protection_function_state(const pcs_protection *p, uint32_t f)
{
    return (p && f < p->n_functions) ? p->word[f] : 0;
}

const char *pcs_protection_function_name(const pcs_protection *p, uint32_t f)
{
    return (p && f < p->n_functions) ? p->names[f] : "?";
}

pcs_status pcs_protection_function_find(const pcs_protection *p, const char *name, uint32_t *f)
{
    return pcs_instr_find("pcs_protection_function_find", "function", p ? p->names : NULL,
                          p ? p->n_functions : 0, name, f);
}
