/**
 * @file alarm.c
 * @brief The alarm bank: condition with deadband and delays, the ISA-18.2
 *        state machine, first-out groups and operator commands (model in
 *        include/pcsim/alarm.h).
 *
 * Hot path. In a quiet plant almost every alarm sits in NORMAL with its
 * condition clear, or in ACKED with it present. Each tick an alarm updates
 * its condition (a compare, and the delay counter when the raw comparison
 * disagrees with the condition) and then asks one question: does its state
 * disagree with its condition, or is it in E/F/G, or is it suppressed? Only
 * then does it enter settle(), the state machine proper. The disagreement
 * test is a table of the condition each of A-D expects (A: clear, B: present,
 * C: present, D: clear), so it costs a load and a compare.
 *
 * Direction: a LOW alarm is a HIGH alarm on negated values (negation is
 * exact), so the loop stores sign * setpoint for the on-threshold and
 * sign * setpoint - deadband for the off-threshold.
 *
 * Load check (alarms_load_check, on a staged save before it is applied):
 * states are pcs_alarm_state values; flags hold ACTIVE, FIRST_OUT and the
 * alarm's configured priority only; a delay count is at most the larger of
 * the alarm's delays; a shelf end only on a SHELVED alarm; a group's
 * first-out is 0 or 1 + an alarm of that group (the clear pass writes that
 * alarm's flags, so a wrong one is a write outside the bank), and an alarm
 * has FIRST_OUT exactly when its group names it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/instrumentation/models/instr_common.h"
#include "pcsim/alarm.h"
#include "pcsim/channel.h"
#include "pcsim/command.h"
#include "pcsim/math.h"
#include "pcsim/persist.h"
#include "pcsim/system.h"

struct pcs_alarms {
    uint32_t n;
    const char *prefix; /* the bank's name prefix (pcs_alarm_add_prefixed), NULL for none */
    uint32_t ebase;     /* added to alarm ids in events */
    uint32_t n_groups;
    uint32_t family; /* first kind of the "alarms" command family */
    /* configuration (read-only after build) */
    const double **src; /* the watched sensor value */
    double *sign;       /* +1 HIGH, -1 LOW */
    double *on_sp;      /* sign * setpoint: present at sign * v >= on_sp */
    double *off_sp;     /* sign * setpoint - deadband: clear at sign * v <= off_sp */
    uint32_t *on_delay;
    uint32_t *off_delay;
    uint32_t *priority;
    uint32_t *group;           /* dense group index + 1; 0 = none */
    uint32_t *group_id;        /* configured id of each dense group */
    const uint32_t **suppress; /* suppression input, or NULL */
    const char **names;
    uint32_t *annunciating; /* per group: alarms in B, C or D this tick (work array) */
    /* state: store ids and base pointers */
    uint32_t id_state, id_flags, id_count, id_until, id_first;
    uint32_t *state;
    uint32_t *flags;
    uint32_t *count; /* consecutive evaluations the raw comparison disagreed */
    uint64_t *until; /* SHELVED: tick the shelf ends; 0 = until unshelved */
    uint32_t *first; /* per group: first-out alarm id + 1; 0 = none */
};

/* The condition each of A-D expects; a mismatch means a transition is due. */
static const uint32_t expect_active[4] = {0, 1, 1, 0};

static const char *const state_names[] = {
    "normal", "unack", "acked", "rtn_unack", "shelved", "suppressed", "out_of_service",
};

const char *pcs_alarm_state_name(pcs_alarm_state state)
{
    return (unsigned)state <= PCS_ALARM_OUT_OF_SERVICE ? state_names[state] : "?";
}

static const pcs_alarm_def alarm_defaults = {.direction = PCS_ALARM_HIGH,
                                             .priority = PCS_ALARM_PRIO_MEDIUM,
                                             .suppress_store = PCS_ALARM_NO_SUPPRESS};

pcs_status pcs_alarm_default(pcs_alarm_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_alarm_default: cfg is NULL");
    *cfg = alarm_defaults;
    return PCS_OK;
}

/* ---- validation -------------------------------------------------------------- */

static pcs_status bad_u32(const char *name, const char *field, uint32_t v, uint32_t lo, uint32_t hi)
{
    return pcs_error_set(PCS_E_INVAL, "alarm '%s': %s = %u is outside [%u, %u]", name, field, v, lo,
                         hi);
}

static pcs_status check_suppress(const pcs_world *w, const pcs_alarm_def *c)
{
    if (c->suppress_store == PCS_ALARM_NO_SUPPRESS)
        return PCS_OK;
    pcs_instr_ref input = {.store = c->suppress_store,
                           .index = c->suppress_index,
                           .elem = sizeof(uint32_t),
                           .who = "alarm",
                           .name = c->name,
                           .store_field = "suppress_store",
                           .store_note = "or PCS_ALARM_NO_SUPPRESS",
                           .index_field = "suppress_index",
                           .array_note = "the input must be an array of u32"};
    return pcs_instr_ref_check(w, &input);
}

pcs_status pcs_alarm_def_validate(const pcs_world *w, const pcs_sensors *sensors,
                                  const pcs_alarm_def *c)
{
    if (!w || !sensors || !c)
        return pcs_error_set(PCS_E_INVAL, "pcs_alarm_def_validate: NULL argument");
    size_t len = c->name ? strlen(c->name) : 0;
    if (len == 0 || len > PCS_ALARM_NAME_MAX)
        return pcs_error_set(PCS_E_INVAL, "alarm: name length = %zu is outside [1, %u]", len,
                             PCS_ALARM_NAME_MAX);
    uint32_t n_sensors = pcs_sensor_count(sensors);
    if (c->sensor >= n_sensors)
        return pcs_error_set(PCS_E_INVAL, "alarm '%s': sensor = %u is outside [0, %u)", c->name,
                             c->sensor, n_sensors);
    if ((unsigned)c->direction > PCS_ALARM_LOW)
        return bad_u32(c->name, "direction", (uint32_t)c->direction, 0, 1);
    if (!pcs_isfinite(c->setpoint))
        return pcs_error_set(PCS_E_INVAL, "alarm '%s': setpoint = %g must be finite", c->name,
                             c->setpoint);
    if (!pcs_isfinite(c->deadband) || c->deadband < 0.0)
        return pcs_error_set(PCS_E_INVAL, "alarm '%s': deadband = %g is outside [0, finite]",
                             c->name, c->deadband);
    if (c->on_delay_ticks > PCS_ALARM_DELAY_MAX_TICKS)
        return bad_u32(c->name, "on_delay_ticks", c->on_delay_ticks, 0, PCS_ALARM_DELAY_MAX_TICKS);
    if (c->off_delay_ticks > PCS_ALARM_DELAY_MAX_TICKS)
        return bad_u32(c->name, "off_delay_ticks", c->off_delay_ticks, 0,
                       PCS_ALARM_DELAY_MAX_TICKS);
    if (c->priority < PCS_ALARM_PRIO_LOW || c->priority > PCS_ALARM_PRIO_URGENT)
        return bad_u32(c->name, "priority", c->priority, PCS_ALARM_PRIO_LOW, PCS_ALARM_PRIO_URGENT);
    if (c->group > PCS_ALARM_GROUP_MAX)
        return bad_u32(c->name, "group", c->group, 0, PCS_ALARM_GROUP_MAX);
    return check_suppress(w, c);
}

/* ---- the state machine ------------------------------------------------------- */

static void transition(pcs_world *w, pcs_alarms *a, uint32_t i, uint32_t to)
{
    uint32_t from = a->state[i];
    a->state[i] = to;
    pcs_event_emit(w, PCS_EV_ALARM_STATE, i + a->ebase, (double)to, (double)from, (double)a->priority[i],
                   *a->src[i]);
}

/* A -> B, and the first-out of the alarm's group if the group has none. */
static void annunciate(pcs_world *w, pcs_alarms *a, uint32_t i)
{
    transition(w, a, i, PCS_ALARM_UNACK);
    uint32_t g = a->group[i];
    if (g == 0 || a->first[g - 1] != 0)
        return;
    a->first[g - 1] = i + 1;
    a->flags[i] |= PCS_ALARM_FL_FIRST_OUT;
    pcs_event_emit(w, PCS_EV_ALARM_FIRST_OUT, i + a->ebase, (double)a->group_id[g - 1], (double)a->priority[i],
                   *a->src[i], 0.0);
}

/* The part of settle() for E, F and G; returns 1 when the alarm is held there. */
static int held(pcs_world *w, pcs_alarms *a, uint32_t i, uint32_t sup, uint64_t tick)
{
    uint32_t st = a->state[i];
    if (st == PCS_ALARM_OUT_OF_SERVICE)
        return 1;
    if (st == PCS_ALARM_SHELVED) {
        if (a->until[i] == 0 || tick < a->until[i])
            return 1;
        a->until[i] = 0;
        transition(w, a, i, PCS_ALARM_NORMAL);
    }
    if (sup) {
        if (a->state[i] != PCS_ALARM_SUPPRESSED)
            transition(w, a, i, PCS_ALARM_SUPPRESSED);
        return 1;
    }
    if (a->state[i] == PCS_ALARM_SUPPRESSED)
        transition(w, a, i, PCS_ALARM_NORMAL);
    return 0;
}

/* Bring alarm i's state in line with its condition and inputs. */
static __attribute__((noinline)) void settle(pcs_world *w, pcs_alarms *a, uint32_t i,
                                             uint32_t active, uint32_t sup, uint64_t tick)
{
    if (held(w, a, i, sup, tick))
        return;
    switch (a->state[i]) {
    case PCS_ALARM_NORMAL:
        if (active)
            annunciate(w, a, i);
        return;
    case PCS_ALARM_UNACK:
        if (!active)
            transition(w, a, i, PCS_ALARM_RTN_UNACK);
        return;
    case PCS_ALARM_ACKED:
        if (!active)
            transition(w, a, i, PCS_ALARM_NORMAL);
        return;
    default: /* RTN_UNACK */
        if (active)
            transition(w, a, i, PCS_ALARM_UNACK);
        return;
    }
}

/* Clear the first-out of every group with no alarm left in B, C or D. */
static void clear_groups(pcs_world *w, pcs_alarms *a)
{
    for (uint32_t g = 0; g < a->n_groups; g++) {
        if (a->first[g] == 0 || a->annunciating[g] != 0)
            continue;
        uint32_t i = a->first[g] - 1;
        a->flags[i] &= ~PCS_ALARM_FL_FIRST_OUT;
        a->first[g] = 0;
        pcs_event_emit(w, PCS_EV_ALARM_FIRST_OUT_CLEAR, i + a->ebase, (double)a->group_id[g], 0.0, 0.0, 0.0);
    }
}

/*
 * One pass over the alarms. Configuration pointers live in locals so the
 * rare settle() call does not force them to be reloaded; the state arrays are
 * not restrict because settle() writes them through @p a.
 *
 * Condition: raw is the comparison with the deadband applied (the clear
 * threshold while present, the set threshold while clear), written so that
 * NaN (all comparisons false) keeps the condition. The delay counter counts
 * consecutive evaluations on which raw disagrees with the condition; the
 * condition flips when it exceeds the on- or off-delay.
 */
static pcs_status alarms_step(pcs_world *w, void *ctx)
{
    pcs_alarms *a = ctx;
    const uint64_t tick = pcs_world_clock(w)->tick;
    const uint32_t n = a->n;
    const double *const *src = a->src;
    const double *sign = a->sign, *on_sp = a->on_sp, *off_sp = a->off_sp;
    const uint32_t *on_delay = a->on_delay, *off_delay = a->off_delay, *group = a->group;
    const uint32_t *const *suppress = a->suppress;
    uint32_t *flags = a->flags, *count = a->count, *state = a->state;
    uint32_t *annunciating = a->annunciating;
    memset(annunciating, 0, a->n_groups * sizeof *annunciating);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t fl = flags[i];
        uint32_t active = fl & PCS_ALARM_FL_ACTIVE;
        const double sv = sign[i] * *src[i];
        const uint32_t raw = active ? !(sv <= off_sp[i]) : (sv >= on_sp[i]);
        if (raw == active) {
            count[i] = 0;
        } else if (count[i] + 1 > (raw ? on_delay[i] : off_delay[i])) {
            flags[i] = fl ^ PCS_ALARM_FL_ACTIVE;
            count[i] = 0;
            active = raw;
        } else {
            count[i]++;
        }
        uint32_t st = state[i];
        const uint32_t sup = suppress[i] ? *suppress[i] != 0 : 0;
        if (st > PCS_ALARM_RTN_UNACK || sup || active != expect_active[st]) {
            settle(w, a, i, active, sup, tick);
            st = state[i];
        }
        if (group[i] && st - PCS_ALARM_UNACK <= PCS_ALARM_RTN_UNACK - PCS_ALARM_UNACK)
            annunciating[group[i] - 1]++;
    }
    clear_groups(w, a);
    return PCS_OK;
}

/* ---- commands ------------------------------------------------------------------ */

static void ack(pcs_world *w, pcs_alarms *a, uint32_t i)
{
    if (a->state[i] == PCS_ALARM_UNACK)
        transition(w, a, i, PCS_ALARM_ACKED);
    else if (a->state[i] == PCS_ALARM_RTN_UNACK)
        transition(w, a, i, PCS_ALARM_NORMAL);
}

static pcs_status shelve(pcs_world *w, pcs_alarms *a, uint32_t i, double seconds)
{
    if (!pcs_isfinite(seconds) || seconds < 0.0 || seconds > PCS_ALARM_SHELVE_MAX_S)
        return pcs_error_set(PCS_E_INVAL,
                             "alarm shelve: '%s': args[0] (shelf time) = %g s is outside [0, "
                             "1e8] s",
                             a->names[i], seconds);
    if (a->state[i] == PCS_ALARM_OUT_OF_SERVICE)
        return pcs_error_set(PCS_E_STATE, "alarm shelve: '%s' is out of service", a->names[i]);
    const pcs_clock *clock = pcs_world_clock(w);
    uint64_t ticks = 0;
    pcs_status st = pcs_clock_seconds_to_ticks(clock, seconds, &ticks, NULL);
    if (st != PCS_OK)
        return st;
    if (seconds > 0.0 && ticks == 0)
        ticks = 1; /* a requested shelf lasts at least one evaluation */
    a->until[i] = seconds > 0.0 ? clock->tick + ticks : 0;
    if (a->state[i] != PCS_ALARM_SHELVED)
        transition(w, a, i, PCS_ALARM_SHELVED);
    return PCS_OK;
}

/* Alarm targets take every op but ACK_ALL, whose targets name the whole
 * bank (the engine checked which), so the element is an alarm where needed. */
static pcs_status on_command(pcs_world *w, const pcs_command_call *c)
{
    pcs_alarms *a = c->ctx;
    if (c->op == PCS_ALARM_OP_ACK_ALL) {
        for (uint32_t i = 0; i < a->n; i++)
            ack(w, a, i);
        return PCS_OK;
    }
    uint32_t i = c->element;
    uint32_t st = a->state[i];
    switch (c->op) {
    case PCS_ALARM_OP_ACK:
        ack(w, a, i);
        return PCS_OK;
    case PCS_ALARM_OP_SHELVE:
        return shelve(w, a, i, c->cmd->args[0]);
    case PCS_ALARM_OP_UNSHELVE:
        if (st == PCS_ALARM_SHELVED) {
            a->until[i] = 0;
            transition(w, a, i, PCS_ALARM_NORMAL);
        }
        return PCS_OK;
    case PCS_ALARM_OP_OUT_OF_SERVICE:
        if (st != PCS_ALARM_OUT_OF_SERVICE) {
            a->until[i] = 0;
            transition(w, a, i, PCS_ALARM_OUT_OF_SERVICE);
        }
        return PCS_OK;
    default: /* PCS_ALARM_OP_RETURN_TO_SERVICE */
        if (st == PCS_ALARM_OUT_OF_SERVICE)
            transition(w, a, i, PCS_ALARM_NORMAL);
        return PCS_OK;
    }
}

/* The bank's targets: each alarm by its name, and the bank as "alarms"
 * ("<prefix>alarms" for a prefixed bank). */
static pcs_status register_targets(pcs_world *w, pcs_alarms *a)
{
    pcs_status st = pcs_instr_family(w, a->prefix, PCS_ALARM_COMMANDS, PCS_ALARM_OP_COUNT,
                                     on_command, &a->family);
    char all_name[PCS_INSTR_PREFIX_MAX + 8];
    uint64_t all = (1u << PCS_ALARM_OP_COUNT) - 1u;
    pcs_command_target_def one = {
        .family = a->family, .ctx = a, .ops = all & ~(1u << PCS_ALARM_OP_ACK_ALL)};
    if (st == PCS_OK)
        st = pcs_instr_targets(w, a->names, a->n, one);
    const char *bank_name = pcs_instr_named(all_name, sizeof all_name, a->prefix, "alarms");
    return st == PCS_OK ? pcs_alarm_target_register(w, a, bank_name) : st;
}

pcs_status pcs_alarm_target_register(pcs_world *w, pcs_alarms *a, const char *name)
{
    if (!a)
        return pcs_error_set(PCS_E_INVAL, "pcs_alarm_target_register: alarms is NULL");
    pcs_command_target_def d = {.name = name,
                                .family = a->family,
                                .ctx = a,
                                .element = PCS_TARGET_ELEMENT_ALL,
                                .ops = 1u << PCS_ALARM_OP_ACK_ALL};
    return pcs_command_target_register(w, &d, NULL);
}

/* ---- load check ------------------------------------------------------------------ */

static pcs_status check_alarm(const pcs_alarms *a, uint32_t i, const uint32_t *state,
                              const uint32_t *flags, const uint32_t *count, const uint64_t *until)
{
    char allowed[96];
    if (state[i] > PCS_ALARM_OUT_OF_SERVICE)
        return pcs_instr_bad_word("alarms.state", i, "state", state[i], "[0, 6] (pcs_alarm_state)");
    uint32_t prio = a->priority[i] << PCS_ALARM_FL_PRIO_SHIFT;
    if ((flags[i] & ~(PCS_ALARM_FL_ACTIVE | PCS_ALARM_FL_FIRST_OUT)) != prio) {
        snprintf(allowed, sizeof allowed, "ACTIVE | FIRST_OUT bits with priority %u (0x%x)",
                 a->priority[i], prio);
        return pcs_instr_bad_word("alarms.flags", i, "flags", flags[i], allowed);
    }
    uint32_t delay = a->on_delay[i] > a->off_delay[i] ? a->on_delay[i] : a->off_delay[i];
    if (count[i] > delay) {
        snprintf(allowed, sizeof allowed, "[0, %u] (the alarm's longer delay)", delay);
        return pcs_instr_bad_word("alarms.count", i, "delay count", count[i], allowed);
    }
    if (until[i] != 0 && state[i] != PCS_ALARM_SHELVED)
        return pcs_instr_bad_word("alarms.shelved_until", i, "shelf end tick", until[i],
                                  "0 unless the alarm is shelved");
    return PCS_OK;
}

/* Group first-outs name an alarm of the group, which alone carries FIRST_OUT. */
static pcs_status check_groups(const pcs_alarms *a, const uint32_t *flags, const uint32_t *first)
{
    uint32_t n_first = a->n_groups ? a->n_groups : 1u;
    for (uint32_t g = 0; g < n_first; g++) {
        uint32_t f1 = first[g];
        if (f1 != 0 && (g >= a->n_groups || f1 > a->n || a->group[f1 - 1] != g + 1 ||
                        !(flags[f1 - 1] & PCS_ALARM_FL_FIRST_OUT)))
            return pcs_instr_bad_word("alarms.group_first", g, "first-out alarm + 1", f1,
                                      "0 or 1 + an alarm of this group flagged FIRST_OUT");
    }
    for (uint32_t i = 0; i < a->n; i++) {
        int named = a->group[i] != 0 && first[a->group[i] - 1] == i + 1;
        if (!(flags[i] & PCS_ALARM_FL_FIRST_OUT) != !named)
            return pcs_instr_bad_word(
                "alarms.flags", i, "flags", flags[i],
                "FIRST_OUT exactly when the alarm's group names it first-out");
    }
    return PCS_OK;
}

static pcs_status alarms_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    (void)w;
    const pcs_alarms *a = ctx;
    const uint32_t *state = pcs_load_view_store(v, a->id_state);
    const uint32_t *flags = pcs_load_view_store(v, a->id_flags);
    const uint32_t *count = pcs_load_view_store(v, a->id_count);
    const uint64_t *until = pcs_load_view_store(v, a->id_until);
    for (uint32_t i = 0; i < a->n; i++) {
        pcs_status st = check_alarm(a, i, state, flags, count, until);
        if (st != PCS_OK)
            return st;
    }
    return check_groups(a, flags, pcs_load_view_store(v, a->id_first));
}

/* ---- build ---------------------------------------------------------------------- */

static const pcs_instr_bank bank = {
    .fn = "pcs_alarm_add",
    .one = "an alarm bank",
    .first_store = "alarms.state",
    .n_max = 1u << 20,
    .system = {.name = "alarms", .stage = PCS_STAGE_ALARMS, .fn = alarms_step}};

static pcs_status check_all(pcs_world *w, const pcs_sensors *sensors, const pcs_alarm_def *cfgs,
                            uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        pcs_status st = pcs_alarm_def_validate(w, sensors, &cfgs[i]);
        if (st != PCS_OK)
            return pcs_instr_prefixed(st, "pcs_alarm_add: alarm %u", i);
    }
    return PCS_OK;
}

static pcs_status alloc_arrays(pcs_world *w, pcs_alarms *a)
{
    size_t n = a->n;
    /* group_id: at most one group per alarm */
    uint32_t **const u32[] = {&a->on_delay, &a->off_delay, &a->priority,
                              &a->group,    &a->group_id,  &a->annunciating};
    double **const f64[] = {&a->sign, &a->on_sp, &a->off_sp};
    a->src = pcs_world_alloc(w, n * sizeof *a->src);
    a->suppress = pcs_world_alloc(w, n * sizeof *a->suppress);
    if (!a->src || !a->suppress || !pcs_instr_alloc_u32(w, n, u32, sizeof u32 / sizeof u32[0]) ||
        !pcs_instr_alloc_f64(w, n, f64, sizeof f64 / sizeof f64[0]))
        return pcs_error_set(PCS_E_NOMEM, "pcs_alarm_add: out of memory for %u alarms", a->n);
    return PCS_OK;
}

/* Dense index + 1 of configured group @p id, adding it if new. */
static uint32_t group_index(pcs_alarms *a, uint32_t id)
{
    if (id == 0)
        return 0;
    for (uint32_t g = 0; g < a->n_groups; g++)
        if (a->group_id[g] == id)
            return g + 1;
    a->group_id[a->n_groups++] = id;
    return a->n_groups;
}

static pcs_status fill_config(pcs_world *w, pcs_alarms *a, const pcs_sensors *sensors,
                              const pcs_alarm_def *cfgs)
{
    for (uint32_t i = 0; i < a->n; i++) {
        const pcs_alarm_def *c = &cfgs[i];
        uint32_t store, index;
        pcs_sensor_value_ref(sensors, c->sensor, &store, &index);
        a->src[i] = (const double *)pcs_store_data(w, store) + index;
        a->sign[i] = c->direction == PCS_ALARM_LOW ? -1.0 : 1.0;
        a->on_sp[i] = a->sign[i] * c->setpoint;
        a->off_sp[i] = a->on_sp[i] - c->deadband;
        a->on_delay[i] = c->on_delay_ticks;
        a->off_delay[i] = c->off_delay_ticks;
        a->priority[i] = c->priority;
        a->group[i] = group_index(a, c->group);
        a->suppress[i] =
            c->suppress_store == PCS_ALARM_NO_SUPPRESS
                ? NULL
                : (const uint32_t *)pcs_store_data(w, c->suppress_store) + c->suppress_index;
    }
    a->names = pcs_instr_names_copy(w, bank.fn, PCS_INSTR_FIELD(cfgs, name), a->n);
    return a->names ? PCS_OK : PCS_E_NOMEM;
}

static pcs_status register_stores(pcs_world *w, pcs_alarms *a)
{
    size_t n = a->n,
           n_first = a->n_groups ? a->n_groups : 1; /* one at least, even without groups */
    pcs_instr_stores r = {.w = w, .prefix = a->prefix};
    a->state = pcs_instr_store(&r, "alarms.state", sizeof *a->state, n, &a->id_state);
    a->flags = pcs_instr_store(&r, "alarms.flags", sizeof *a->flags, n, &a->id_flags);
    a->count = pcs_instr_store(&r, "alarms.count", sizeof *a->count, n, &a->id_count);
    a->until = pcs_instr_store(&r, "alarms.shelved_until", sizeof *a->until, n, &a->id_until);
    a->first = pcs_instr_store(&r, "alarms.group_first", sizeof *a->first, n_first, &a->id_first);
    for (uint32_t i = 0; r.st == PCS_OK && i < a->n;
         i++) /* the priority is in the published flags */
        a->flags[i] = a->priority[i] << PCS_ALARM_FL_PRIO_SHIFT;
    return r.st;
}

/* Each alarm's state and flags words. */
static pcs_status register_channels(pcs_world *w, pcs_alarms *a)
{
    const pcs_instr_channel per[] = {
        {.suffix = "", .kind = PCS_CHANNEL_U32, .store = a->id_state},
        {.suffix = ".flags", .kind = PCS_CHANNEL_U32, .store = a->id_flags},
    };
    pcs_status st = pcs_instr_channels(w, a->names, a->n, per, 2);
    return st == PCS_OK ? st : pcs_instr_prefixed(st, "%s", bank.fn);
}

/* The system reads the sensor bank's value store, then the distinct
 * suppression-input stores in first-use order. */
static pcs_status register_system(pcs_world *w, pcs_alarms *a, uint32_t sensor_store,
                                  const pcs_alarm_def *cfgs)
{
    uint32_t *reads = NULL, n_sup = 0;
    pcs_status st =
        pcs_instr_read_list(w, &bank, "stores", PCS_INSTR_U32_FIELD(cfgs, suppress_store), a->n,
                            PCS_ALARM_NO_SUPPRESS, 1, 0, &reads, &n_sup);
    if (st != PCS_OK)
        return st;
    reads[0] = sensor_store;
    uint32_t writes[] = {a->id_state, a->id_flags, a->id_count, a->id_until, a->id_first};
    st = pcs_instr_system(w, &bank, a->prefix, a, reads, n_sup + 1, writes, 5);
    free(reads);
    return st == PCS_OK ? register_targets(w, a) : st;
}

pcs_status pcs_alarm_add(pcs_world *w, const pcs_sensors *sensors, const pcs_alarm_def *cfgs,
                         uint32_t n, pcs_alarms **out)
{
    return pcs_alarm_add_prefixed(w, NULL, 0, sensors, cfgs, n, out);
}

pcs_status pcs_alarm_add_prefixed(pcs_world *w, const char *prefix, uint32_t event_base,
                                  const pcs_sensors *sensors, const pcs_alarm_def *cfgs, uint32_t n,
                                  pcs_alarms **out)
{
    pcs_status st = pcs_instr_add_check(w, &bank, prefix, w && sensors && cfgs && out, n);
    if (st == PCS_OK)
        st = check_all(w, sensors, cfgs, n);
    if (st != PCS_OK)
        return st;
    pcs_alarms *a = pcs_world_alloc(w, sizeof *a);
    if (!a)
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory", bank.fn);
    a->n = n;
    a->ebase = event_base;
    uint32_t sensor_store, index0;
    pcs_sensor_value_ref(sensors, 0, &sensor_store, &index0);
    st = pcs_instr_prefix_copy(w, bank.fn, prefix, &a->prefix);
    if (st == PCS_OK)
        st = alloc_arrays(w, a);
    if (st == PCS_OK)
        st = fill_config(w, a, sensors, cfgs);
    if (st == PCS_OK)
        st = register_stores(w, a);
    if (st == PCS_OK)
        st = register_channels(w, a);
    if (st == PCS_OK)
        st = register_system(w, a, sensor_store, cfgs);
    st = pcs_instr_add_end(w, st, a->prefix, "alarms", alarms_load_check, a);
    if (st == PCS_OK)
        *out = a;
    return st;
}

/* ---- queries ----------------------------------------------------------------------- */

uint32_t pcs_alarm_count(const pcs_alarms *a)
{
    return a ? a->n : 0;
}

const char *pcs_alarm_name(const pcs_alarms *a, uint32_t id)
{
    return (a && id < a->n) ? a->names[id] : "?";
}

pcs_status pcs_alarm_find(const pcs_alarms *a, const char *name, uint32_t *id)
{
    return pcs_instr_find("pcs_alarm_find", "alarm", a ? a->names : NULL, pcs_alarm_count(a), name,
                          id);
}

pcs_alarm_state pcs_alarm_state_of(const pcs_alarms *a, uint32_t id)
{
    return (a && id < a->n) ? (pcs_alarm_state)a->state[id] : PCS_ALARM_NORMAL;
}

uint32_t pcs_alarm_flags(const pcs_alarms *a, uint32_t id)
{
    return (a && id < a->n) ? a->flags[id] : 0;
}
