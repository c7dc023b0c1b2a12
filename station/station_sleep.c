/**
 * @file station_sleep.c
 * @brief Sleeping units (pcsim/station_sleep.h): the decision at stage 13,
 *        the command wake at stage 1, the catch-up of slow physics on wake.
 *
 * Everything a sleeping station depends on is in its STATE stores (flag,
 * counters, previous key state, held SCRATCH copies), written only by the
 * two systems here, so the hash, saves and loads cover it. The only
 * non-state memory is the per-unit references (store ids, xenon phase)
 * rebuilt by the build or by the unit_add apply a load re-runs. The command
 * wake keeps no cursor: it reads this tick's commands from the tick's first
 * journal entry (pcs_journal_tick_start), so a retried tick reads its
 * commands again and a load needs nothing (sleep_commands).
 *
 * Which devices sleep: whole plant units, and nothing finer. A unit's
 * systems and jobs ("uN." names, its own instrumentation banks excepted:
 * group_instrument) are gated as one group. A pump is not put to sleep on
 * its own because it has no state apart from its loop: its head is a
 * junction term and its shaft is stepped inside the unit's one network
 * solve ("uN.primary", primary_step.c), which couples every pump, the
 * core, the pressurizer and the SG tubes each tick; holding its rows while
 * the loop runs would be a different model, not a sleep. A valve (MSIV,
 * dump, relief valve) is a flow area of the unit's steam-side network,
 * stepped the same way in "uN.secondary". A sensor is a row of a bank
 * system that reads the plant every tick: holding it would hide a moving
 * plant from protection. A unit is the smallest group that shares no
 * state with the rest of the station (the parallel unit sections prove
 * it), so it is what sleeps.
 *
 * Units added while running: the tables have a slot per scenario unit from
 * the build (core NULL until the add: every loop skips it), and
 * pcs_station_sleep_unit_added joins the unit at the unit_add apply (see
 * the header). The systems are retired and registered again rather than
 * amended because a system's declared access is fixed at registration.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/command.h"
#include "pcsim/job.h"
#include "pcsim/plant.h"
#include "pcsim/station_sleep.h"
#include "pcsim/structure.h"
#include "pcsim/system.h"
#include "pcsim/unit.h"
#include "pcsim/unit_freeze.h"
#include "station/station_internal.h"

/** Key state of a unit (the header's (b)). */
enum { KEY_POWER, KEY_TAVG, KEY_P_RCS, KEY_P_STEAM, KEY_COUNT };

/** Per-unit counters, one "station.sleep.counts" element. */
enum {
    CNT_QUIET,  /* consecutive awake ticks passing (a)-(c) */
    CNT_SLEPT,  /* ticks skipped in the current sleep */
    CNT_TRIP,   /* the trip input last seen */
    CNT_SLEEPS, /* statistics (pcs_station_sleep_stats) */
    CNT_WAKE_CMD,
    CNT_WAKE_INPUT,
    CNT_WAKE_EVERY,
    CNT_ASLEEP,
    CNT_COUNT
};

/** A channel read directly from its store. */
typedef struct sleep_ref {
    uint32_t store, index;
} sleep_ref;

/** A SCRATCH store of the unit, held in "station.sleep.held" from @p at. */
typedef struct sleep_scratch {
    uint32_t store;
    size_t at, bytes;
} sleep_scratch;

typedef struct sleep_unit {
    pcs_unit *core;         /* NULL: a unit of the scenario not built yet */
    sleep_scratch *scratch; /* the unit's SCRATCH stores */
    uint32_t n_scratch;
    uint32_t held_store; /* where scratch[].at points: "station.sleep.held" or its own */
    uint32_t number;     /* N of "uN" */
    uint32_t xe_phase;
    sleep_ref key[KEY_COUNT];
    double key_scale[KEY_COUNT]; /* 1 / reference; 0: the key is absent */
    sleep_ref flags, trip;
} sleep_unit;

struct station_sleep {
    pcs_station_sleep_def def;
    uint32_t n; /* the scenario's units (built or not): the tables' length */
    sleep_unit *u;
    uint32_t flag_store, count_store, prev_store;
    uint32_t sys_wake, sys_decide; /* the two systems, re-registered when a unit is added */
    uint32_t window_ticks, every_ticks;
    unsigned char *commanded; /* n flags, this tick's commands (scratch) */
    const pcs_station *st;    /* for its removed units (unit_remove): skipped, never woken */
};

pcs_station_sleep_def pcs_station_sleep_default(void)
{
    pcs_station_sleep_def d = {.tolerance_per_s = 1e-4, .window_s = 10.0, .wake_every_s = 60.0};
    return d;
}

static pcs_status sleep_def_check(const pcs_station *st, const pcs_station_sleep_def *d, double dt)
{
    if (!st || !d)
        return pcs_error_set(PCS_E_INVAL, "pcs_station_sleep_add: NULL argument");
    if (st->sleep || st->freeze || st->n_units == 0 || !st->plant)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_station_sleep_add: %s: sleep is already added, the station "
                             "has no units, or its units are freezable (sleep and freeze both "
                             "gate a unit's systems: use one)",
                             st->source);
    if (!(d->tolerance_per_s > 0.0 && d->tolerance_per_s <= 1.0))
        return pcs_error_set(PCS_E_INVAL, "sleep.tolerance_per_s = %g is outside (0, 1]",
                             d->tolerance_per_s);
    if (!(d->window_s >= dt && d->window_s <= 3600.0))
        return pcs_error_set(PCS_E_INVAL, "sleep.window_s = %g is outside [dt = %g, 3600]",
                             d->window_s, dt);
    double every_min = PCS_SLOW_PERIOD_TICKS * dt;
    if (!(d->wake_every_s >= every_min && d->wake_every_s <= 1e6))
        return pcs_error_set(PCS_E_INVAL,
                             "sleep.wake_every_s = %g is outside [%g (one SLOW period), 1e6]",
                             d->wake_every_s, every_min);
    return PCS_OK;
}

static const uint32_t *cnt_of(pcs_world *w, const struct station_sleep *s, uint32_t i)
{
    return (const uint32_t *)pcs_store_data(w, s->count_store) + (size_t)i * CNT_COUNT;
}

static double ref_f64(pcs_world *w, sleep_ref r)
{
    return ((const double *)pcs_store_data(w, r.store))[r.index];
}

static uint32_t ref_u32(pcs_world *w, sleep_ref r)
{
    return ((const uint32_t *)pcs_store_data(w, r.store))[r.index];
}

/* Copy unit @p i's SCRATCH stores into the held copy (@p to_held) or back.
 * Its systems rewrite them every tick they run; while it sleeps they are
 * restored from the held copy every tick, so a load (which leaves SCRATCH
 * stores as the build made them) gives readers the values it slept with. */
static void sleep_hold(pcs_world *w, const struct station_sleep *s, uint32_t i, int to_held)
{
    unsigned char *held = pcs_store_data(w, s->u[i].held_store);
    for (uint32_t k = 0; k < s->u[i].n_scratch; k++) {
        const sleep_scratch *x = &s->u[i].scratch[k];
        unsigned char *data = pcs_store_data(w, x->store);
        if (to_held)
            memcpy(held + x->at, data, x->bytes);
        else
            memcpy(data, held + x->at, x->bytes);
    }
}

/* The unit's decay heat and poisons over the slept ticks, then awake. */
static pcs_status sleep_wake_unit(pcs_world *w, struct station_sleep *s, uint32_t i, int cause)
{
    uint32_t *flag = (uint32_t *)pcs_store_data(w, s->flag_store) + i;
    uint32_t *cnt = (uint32_t *)cnt_of(w, s, i);
    pcs_unit_gap_def g = pcs_unit_gap_default();
    g.real_s = (double)cnt[CNT_SLEPT] * pcs_world_clock(w)->dt_s;
    pcs_status rc = pcs_unit_gap_apply(w, s->u[i].core, &g, NULL);
    if (rc != PCS_OK)
        return pcs_error_set(rc, "station.sleep: waking u%u: %s", s->u[i].number, pcs_last_error());
    *flag = 0;
    cnt[CNT_SLEPT] = 0;
    cnt[CNT_QUIET] = 0;
    cnt[cause]++;
    return PCS_OK;
}

/* Unit index of a command target "uN" or "uN.<device>", or UINT32_MAX. */
static uint32_t target_unit(const struct station_sleep *s, const char *name)
{
    if (!name || name[0] != 'u' || name[1] < '1' || name[1] > '9')
        return UINT32_MAX;
    char *end;
    unsigned long n = strtoul(name + 1, &end, 10);
    if (*end != '\0' && *end != '.')
        return UINT32_MAX;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->u[i].core && s->u[i].number == n)
            return i;
    return UINT32_MAX;
}

/* Mark the units this tick's applied commands address (journal entries
 * whose effective tick is now). A failed tick is retried at the same tick
 * number (world.c) and its commands, drained and journaled by the failed
 * attempt, are not drained again, but they are still the tick's: so every
 * attempt reads from the tick's first entry (pcs_journal_tick_start), which
 * a retry keeps and a load ends. (A cursor of its own, moved past them by
 * the failed attempt's read, let the retry see none; one rewound whenever
 * the tick number repeated took a load back to a tick already run for a
 * retry, and found the replaced run's commands.) */
static void sleep_commands(pcs_world *w, struct station_sleep *s)
{
    uint64_t now = pcs_world_clock(w)->tick, cursor = pcs_journal_tick_start(w);
    memset(s->commanded, 0, s->n);
    pcs_command batch[32];
    uint32_t got;
    while ((got = pcs_journal_read(w, &cursor, batch, 32, NULL)) > 0)
        for (uint32_t k = 0; k < got; k++) {
            if (batch[k].tick != now)
                continue;
            pcs_target_id id = pcs_target_id_load(batch[k].target);
            uint32_t i = target_unit(s, pcs_command_target_name(w, id));
            if (i != UINT32_MAX)
                s->commanded[i] = 1;
        }
}

/* Stage 1: a command wakes its unit before any unit system runs; the
 * units still asleep skip this tick. */
static pcs_status sleep_wake_system(pcs_world *w, void *ctx)
{
    struct station_sleep *s = ctx;
    sleep_commands(w, s);
    const uint32_t *flag = pcs_store_data(w, s->flag_store);
    for (uint32_t i = 0; i < s->n; i++) {
        if (!s->u[i].core || !pcs_station_unit_running(s->st, s->u[i].number))
            continue; /* not built yet (its slots stay zero) or removed */
        uint32_t *cnt = (uint32_t *)cnt_of(w, s, i);
        if (s->commanded[i]) {
            cnt[CNT_QUIET] = 0;
            if (flag[i]) {
                pcs_status rc = sleep_wake_unit(w, s, i, CNT_WAKE_CMD);
                if (rc != PCS_OK)
                    return rc;
            }
        }
        if (flag[i]) {
            sleep_hold(w, s, i, 0);
            cnt[CNT_SLEPT]++;
            cnt[CNT_ASLEEP]++;
        }
    }
    return PCS_OK;
}

/* Largest normalised rate of the unit's key state since the last tick;
 * the key state becomes the previous. */
static double sleep_rate(pcs_world *w, const sleep_unit *u, double *prev, double dt)
{
    double r = 0.0;
    for (int k = 0; k < KEY_COUNT; k++) {
        if (u->key_scale[k] == 0.0)
            continue;
        double x = ref_f64(w, u->key[k]);
        r = fmax(r, fabs(x - prev[k]) / dt * u->key_scale[k]);
        if (!(x == x))
            r = INFINITY; /* a NaN never passes */
        prev[k] = x;
    }
    return r;
}

/* Stage 13: an awake unit that passed (a)-(c) for a whole window falls
 * asleep before a xenon due tick; a sleeping one wakes on an input change
 * or, before a due tick, every wake_every_s. */
static pcs_status sleep_decide_system(pcs_world *w, void *ctx)
{
    struct station_sleep *s = ctx;
    const pcs_clock *c = pcs_world_clock(w);
    uint32_t *flag = pcs_store_data(w, s->flag_store);
    double *prev = pcs_store_data(w, s->prev_store);
    for (uint32_t i = 0; i < s->n; i++) {
        const sleep_unit *u = &s->u[i];
        if (!u->core || !pcs_station_unit_running(s->st, u->number))
            continue;
        uint32_t *cnt = (uint32_t *)cnt_of(w, s, i);
        uint32_t trip = ref_u32(w, u->trip);
        int edge = (c->tick + 1) % PCS_SLOW_PERIOD_TICKS == u->xe_phase % PCS_SLOW_PERIOD_TICKS;
        if (flag[i]) {
            int cause = trip != cnt[CNT_TRIP]                      ? CNT_WAKE_INPUT
                        : edge && cnt[CNT_SLEPT] >= s->every_ticks ? CNT_WAKE_EVERY
                                                                   : -1;
            cnt[CNT_TRIP] = trip;
            pcs_status rc = cause >= 0 ? sleep_wake_unit(w, s, i, cause) : PCS_OK;
            if (rc != PCS_OK)
                return rc;
            continue;
        }
        double rate = sleep_rate(w, u, prev + (size_t)i * KEY_COUNT, c->dt_s);
        int tripped = (ref_u32(w, u->flags) & PCS_UNIT_FLAG_SCRAMMED) != 0;
        int quiet = tripped && rate < s->def.tolerance_per_s && trip == cnt[CNT_TRIP];
        cnt[CNT_QUIET] = quiet ? cnt[CNT_QUIET] + (cnt[CNT_QUIET] < UINT32_MAX) : 0;
        cnt[CNT_TRIP] = trip;
        if (edge && cnt[CNT_QUIET] >= s->window_ticks) {
            flag[i] = 1;
            sleep_hold(w, s, i, 1);
            cnt[CNT_SLEPT] = 0;
            cnt[CNT_SLEEPS]++;
        }
    }
    return PCS_OK;
}

/* Channel @p fmt (with the unit number) as a store reference. */
static pcs_status sleep_channel(pcs_world *w, uint32_t n, const char *fmt, sleep_ref *out)
{
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, fmt, n);
    uint32_t id;
    pcs_channel_info info;
    pcs_status rc = pcs_channel_find(w, name, &id);
    if (rc == PCS_OK)
        rc = pcs_channel_get(w, id, &info);
    if (rc == PCS_OK) {
        out->store = info.store;
        out->index = info.index;
    }
    return rc;
}

/* The xenon job's phase of unit N. */
static pcs_status sleep_xe_phase(pcs_world *w, uint32_t n, uint32_t *phase)
{
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "u%u.xenon", n);
    uint32_t nj = pcs_schedule_job_count(w);
    for (uint32_t j = 0; j < nj; j++) {
        pcs_schedule_job job;
        if (pcs_schedule_job_at(w, j, &job) == PCS_OK && strcmp(job.name, name) == 0) {
            *phase = job.phase;
            return PCS_OK;
        }
    }
    return pcs_error_set(PCS_E_NOTFOUND, "no xenon job '%s'", name);
}

static pcs_status sleep_unit_init(pcs_world *w, const pcs_station *st, uint32_t i, sleep_unit *u,
                                  size_t *held_bytes)
{
    const pcs_plant_unit *pu = pcs_plant_unit_get(st->plant, i);
    static const char *const keys[KEY_COUNT] = {"u%u.core.power", "u%u.rcs.t_avg",
                                                "u%u.rcs.pressure", "u%u.steam.header_pressure"};
    const double refs[KEY_COUNT] = {st->units[i].core.nominal_power_w, 100.0, 1e7, 1e7};
    u->core = pu->core;
    u->number = pu->index;
    char prefix[16];
    int plen = snprintf(prefix, sizeof prefix, "u%u.", u->number);
    uint32_t ns = pcs_store_count(w);
    for (uint32_t id = 0; id < ns; id++)
        if (pcs_store_kind_of(w, id) == PCS_STORE_SCRATCH &&
            strncmp(pcs_store_name(w, id), prefix, (size_t)plen) == 0)
            u->n_scratch++;
    u->scratch = pcs_world_alloc(w, (u->n_scratch + 1) * sizeof *u->scratch);
    if (!u->scratch)
        return pcs_error_set(PCS_E_NOMEM, "out of memory for the held stores of u%u", u->number);
    u->n_scratch = 0;
    for (uint32_t id = 0; id < ns; id++)
        if (pcs_store_kind_of(w, id) == PCS_STORE_SCRATCH &&
            strncmp(pcs_store_name(w, id), prefix, (size_t)plen) == 0) {
            sleep_scratch *x = &u->scratch[u->n_scratch++];
            x->store = id;
            x->at = *held_bytes;
            x->bytes = pcs_store_bytes(w, id);
            *held_bytes += x->bytes;
        }
    pcs_status rc = sleep_xe_phase(w, u->number, &u->xe_phase);
    for (int k = 0; rc == PCS_OK && k < KEY_COUNT; k++) {
        pcs_status kr = sleep_channel(w, u->number, keys[k], &u->key[k]);
        if (kr == PCS_OK)
            u->key_scale[k] = 1.0 / refs[k];
        else if (k != KEY_P_STEAM) /* the steam side is optional */
            rc = kr;
    }
    if (rc == PCS_OK)
        rc = sleep_channel(w, u->number, "u%u.core.flags", &u->flags);
    if (rc == PCS_OK)
        rc = sleep_channel(w, u->number, "u%u.core.trip", &u->trip);
    return rc;
}

/* 1 if @p id is among the @p n of @p ids. */
static int ids_has(const uint32_t *ids, uint32_t n, uint32_t id)
{
    for (uint32_t k = 0; k < n; k++)
        if (ids[k] == id)
            return 1;
    return 0;
}

/* Append @p id to @p ids (length *n) unless present. */
static void ids_add(uint32_t *ids, uint32_t *n, uint32_t id)
{
    if (!ids_has(ids, *n, id))
        ids[(*n)++] = id;
}

/* The stores the two systems touch (declared access) over the units built
 * so far, and the systems (their ids kept: a unit_add retires both and
 * registers them again with the added unit's stores). */
static pcs_status sleep_systems(pcs_world *w, struct station_sleep *s)
{
    uint32_t cap = 3 + s->n * (KEY_COUNT + 6);
    for (uint32_t i = 0; i < s->n; i++)
        cap += s->u[i].n_scratch;
    uint32_t *rd = pcs_world_alloc(w, cap * sizeof *rd), *wr = pcs_world_alloc(w, cap * sizeof *wr);
    if (!rd || !wr)
        return pcs_error_set(PCS_E_NOMEM, "out of memory for the sleep systems");
    uint32_t nr = 0, nw = 0;
    ids_add(wr, &nw, s->flag_store);
    ids_add(wr, &nw, s->count_store);
    ids_add(wr, &nw, s->prev_store);
    for (uint32_t i = 0; i < s->n; i++) {
        const sleep_unit *u = &s->u[i];
        if (!u->core)
            continue;
        ids_add(wr, &nw, u->held_store);
        for (uint32_t k = 0; k < u->n_scratch; k++)
            ids_add(wr, &nw, u->scratch[k].store);
        uint32_t dh, xe;
        char name[PCS_NAME_MAX];
        snprintf(name, sizeof name, "u%u.dh.groups", u->number);
        pcs_status rc = pcs_store_find(w, name, &dh);
        snprintf(name, sizeof name, "u%u.xenon.state", u->number);
        if (rc == PCS_OK)
            rc = pcs_store_find(w, name, &xe);
        if (rc != PCS_OK)
            return rc;
        ids_add(wr, &nw, dh); /* pcs_unit_gap_apply on wake */
        ids_add(wr, &nw, xe);
        ids_add(wr, &nw, u->key[KEY_POWER].store); /* core.out: the decay power */
        for (int k = 1; k < KEY_COUNT; k++)
            if (u->key_scale[k] != 0.0)
                ids_add(rd, &nr, u->key[k].store);
        ids_add(rd, &nr, u->flags.store);
        ids_add(rd, &nr, u->trip.store);
    }
    uint32_t kept = 0; /* a store written (a held SCRATCH output) is not also listed read */
    for (uint32_t k = 0; k < nr; k++)
        if (!ids_has(wr, nw, rd[k]))
            rd[kept++] = rd[k];
    nr = kept;
    pcs_system_desc wake = {.name = "station.sleep.wake",
                            .stage = PCS_STAGE_COMMANDS,
                            .fn = sleep_wake_system,
                            .ctx = s,
                            .writes = wr,
                            .n_writes = nw};
    pcs_status rc = pcs_system_register(w, &wake, &s->sys_wake);
    /* The decider writes what the waker does and reads the keys it judges. */
    pcs_system_desc decide = wake;
    decide.name = "station.sleep";
    decide.stage = PCS_STAGE_EVENTS;
    decide.fn = sleep_decide_system;
    decide.reads = rd;
    decide.n_reads = nr;
    return rc == PCS_OK ? pcs_system_register(w, &decide, &s->sys_decide) : rc;
}

/* System (k < the run order's length) or job @p k's name, or NULL. */
static const char *group_name(const pcs_world *w, uint32_t k)
{
    uint32_t ns = pcs_schedule_system_count(w);
    pcs_schedule_system x;
    pcs_schedule_job j;
    if (k < ns)
        return pcs_schedule_system_at(w, k, &x) == PCS_OK ? x.name : NULL;
    return pcs_schedule_job_at(w, k - ns, &j) == PCS_OK ? j.name : NULL;
}

/* 1 when @p name ("uN.X", @p plen the prefix's length) is one of the unit's
 * own instrumentation banks, which a unit added while running has
 * ("uN.sensors", "uN.protection", "uN.alarms": plant_instr.c, create_banks
 * with a prefix) where a unit of the start is covered by the station-wide
 * "sensors", "protection" and "alarms". They keep running while it
 * sleeps, as the station-wide banks do, so the rules are the same for both:
 * its sensors keep their noise and drift and its protection can change its
 * trip input (a wake). */
static int group_instrument(const char *name, size_t plen)
{
    static const char *const banks[] = {"sensors", "protection", "alarms"};
    for (size_t k = 0; k < sizeof banks / sizeof banks[0]; k++)
        if (strcmp(name + plen, banks[k]) == 0)
            return 1;
    return 0;
}

/* 1 when @p name is in unit group @p pre: "uN." and not instrumentation. */
static int group_member(const char *name, const char *pre, size_t plen)
{
    return name && strncmp(name, pre, plen) == 0 && !group_instrument(name, plen);
}

/* Whether gating name @p name (a prefix, pcs_world_gate_add) is needed and
 * safe: 0 when another member is a proper prefix of it (that member's gate
 * covers it), 1 to gate it, -1 when it would also gate instrumentation
 * (set as the error). */
static int group_gate_needed(const pcs_world *w, uint32_t n, const char *name, const char *pre,
                             size_t plen)
{
    size_t len = strlen(name);
    for (uint32_t k = 0; k < n; k++) {
        const char *o = group_name(w, k);
        if (!o || strncmp(o, pre, plen) != 0 || strcmp(o, name) == 0)
            continue;
        size_t olen = strlen(o);
        if (group_instrument(o, plen) && strncmp(o, name, len) == 0) {
            pcs_error_set(PCS_E_INVAL, "gating '%s' would also gate instrumentation '%s'", name, o);
            return -1;
        }
        if (!group_instrument(o, plen) && olen < len && strncmp(name, o, olen) == 0)
            return 0;
    }
    return 1;
}

/* Gate unit @p i's systems and jobs (every "uN." name but its own
 * instrumentation) on its flag and publish the flag as "uN.asleep". */
static pcs_status sleep_gate(pcs_world *w, const struct station_sleep *s, uint32_t i)
{
    char pre[PCS_NAME_MAX];
    size_t plen = (size_t)snprintf(pre, sizeof pre, "u%u.", s->u[i].number);
    uint32_t n = pcs_schedule_system_count(w) + pcs_schedule_job_count(w), gated = 0;
    pcs_status rc = PCS_OK;
    for (uint32_t k = 0; rc == PCS_OK && k < n; k++) {
        const char *name = group_name(w, k);
        if (!group_member(name, pre, plen))
            continue;
        int need = group_gate_needed(w, n, name, pre, plen);
        uint32_t g = 0;
        rc = need < 0 ? PCS_E_INVAL : need ? pcs_world_gate_add(w, name, s->flag_store, i, &g) : rc;
        gated += g;
    }
    if (rc == PCS_OK && gated == 0)
        rc = pcs_error_set(PCS_E_NOTFOUND, "no system or job of u%u to gate", s->u[i].number);
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "u%u.asleep", s->u[i].number);
    return rc == PCS_OK ? pcs_channel_register(w, name, "", PCS_CHANNEL_U32, s->flag_store, i, NULL)
                        : rc;
}

/* The per-unit tables have a slot for every unit of the scenario, built at
 * the start or later (zero until it is added: pcs_station_sleep_unit_added),
 * so adding a unit registers no table again; the units of the start hold
 * their SCRATCH stores in one store. */
static pcs_status sleep_build(pcs_world *w, const pcs_station *st, struct station_sleep *s)
{
    s->n = st->n_all;
    s->st = st;
    s->u = pcs_world_alloc(w, s->n * sizeof *s->u);
    s->commanded = pcs_world_alloc(w, s->n);
    if (!s->u || !s->commanded)
        return pcs_error_set(PCS_E_NOMEM, "out of memory for the sleep units");
    memset(s->u, 0, s->n * sizeof *s->u);
    for (uint32_t i = 0; i < s->n; i++)
        s->u[i].number = i + 1; /* units are built in order (station_units.c) */
    pcs_status rc = PCS_OK;
    size_t held = 0;
    uint32_t held_store = 0;
    for (uint32_t i = 0; rc == PCS_OK && i < st->n_units; i++)
        rc = sleep_unit_init(w, st, i, &s->u[i], &held);
    if (rc == PCS_OK)
        rc = pcs_store_register(w, "station.sleep.held", 1, held ? held : 1, PCS_STORE_STATE,
                                &held_store);
    for (uint32_t i = 0; i < st->n_units; i++)
        s->u[i].held_store = held_store;
    if (rc == PCS_OK)
        rc = pcs_store_register(w, "station.sleep", sizeof(uint32_t), s->n, PCS_STORE_STATE,
                                &s->flag_store);
    if (rc == PCS_OK)
        rc = pcs_store_register(w, "station.sleep.counts", CNT_COUNT * sizeof(uint32_t), s->n,
                                PCS_STORE_STATE, &s->count_store);
    if (rc == PCS_OK)
        rc = pcs_store_register(w, "station.sleep.prev", KEY_COUNT * sizeof(double), s->n,
                                PCS_STORE_STATE_F64, &s->prev_store);
    for (uint32_t i = 0; rc == PCS_OK && i < st->n_units; i++)
        rc = sleep_gate(w, s, i);
    if (rc == PCS_OK)
        rc = sleep_systems(w, s);
    return rc;
}

/* The added unit as one of the start: its key channels, SCRATCH stores
 * (held in a store of its own, registered now), gate and flag channel,
 * then the two systems again with its stores in their declared access. */
static pcs_status sleep_unit_join(pcs_world *w, const pcs_station *st, struct station_sleep *s,
                                  uint32_t i)
{
    sleep_unit *u = &s->u[i];
    size_t held = 0;
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "station.sleep.held.u%u", i + 1);
    pcs_status rc = sleep_unit_init(w, st, i, u, &held);
    if (rc == PCS_OK)
        rc = pcs_store_register(w, name, 1, held ? held : 1, PCS_STORE_STATE, &u->held_store);
    if (rc == PCS_OK)
        rc = sleep_gate(w, s, i);
    if (rc == PCS_OK)
        rc = pcs_system_retire(w, s->sys_wake);
    if (rc == PCS_OK)
        rc = pcs_system_retire(w, s->sys_decide);
    return rc == PCS_OK ? sleep_systems(w, s) : rc;
}

pcs_status pcs_station_sleep_unit_added(pcs_station *st, uint32_t i)
{
    struct station_sleep *s = st->sleep;
    if (!s)
        return PCS_OK;
    if (i >= s->n || s->u[i].core || !pcs_plant_unit_get(st->plant, i))
        return pcs_error_set(PCS_E_STATE, "station.sleep: u%u added: not a unit being added",
                             i + 1);
    pcs_status rc = sleep_unit_join(st->world, st, s, i);
    if (rc == PCS_OK)
        return rc;
    s->u[i].core = NULL; /* the failed tick stops; the systems never touch it */
    return pcs_error_set(rc, "station.sleep: u%u added: %s", i + 1, pcs_last_error());
}

pcs_status pcs_station_sleep_add(pcs_world *w, pcs_station *st, const pcs_station_sleep_def *def)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_station_sleep_add: world is NULL");
    double dt = pcs_world_clock(w)->dt_s;
    pcs_status rc = sleep_def_check(st, def, dt);
    if (rc != PCS_OK)
        return rc;
    struct station_sleep *s = pcs_world_alloc(w, sizeof *s);
    if (!s)
        return pcs_error_set(PCS_E_NOMEM, "pcs_station_sleep_add: %s", pcs_last_error());
    memset(s, 0, sizeof *s);
    s->def = *def;
    s->window_ticks = (uint32_t)ceil(def->window_s / dt - 1e-9);
    s->every_ticks = (uint32_t)ceil(def->wake_every_s / dt - 1e-9);
    rc = sleep_build(w, st, s);
    if (rc != PCS_OK)
        return pcs_error_set(rc, "pcs_station_sleep_add: %s: %s", st->source, pcs_last_error());
    st->sleep = s;
    return PCS_OK;
}

/* Unit @p unit (1-based) as an index, or UINT32_MAX. */
static uint32_t sleep_index(const pcs_station *st, uint32_t unit)
{
    if (!st || !st->sleep)
        return UINT32_MAX;
    for (uint32_t i = 0; i < st->sleep->n; i++)
        if (st->sleep->u[i].core && st->sleep->u[i].number == unit)
            return i;
    return UINT32_MAX;
}

int pcs_station_unit_asleep(const pcs_station *st, uint32_t unit)
{
    uint32_t i = sleep_index(st, unit);
    /* a unit removed while asleep keeps its flag (a STATE store, hashed as
     * it was) but is gone, not asleep: hosts would show it sleeping */
    if (i == UINT32_MAX || !pcs_station_unit_running(st, unit))
        return 0;
    return ((const uint32_t *)pcs_store_data(st->world, st->sleep->flag_store))[i] != 0;
}

pcs_status pcs_station_sleep_stats_get(const pcs_station *st, uint32_t unit,
                                       pcs_station_sleep_stats *out)
{
    uint32_t i = sleep_index(st, unit);
    if (!out || i == UINT32_MAX)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_station_sleep_stats_get: NULL, no sleep support or no unit "
                             "u%u built",
                             unit);
    const uint32_t *c = cnt_of(st->world, st->sleep, i);
    out->sleeps = c[CNT_SLEEPS];
    out->wakes_command = c[CNT_WAKE_CMD];
    out->wakes_input = c[CNT_WAKE_INPUT];
    out->wakes_every = c[CNT_WAKE_EVERY];
    out->ticks_asleep = c[CNT_ASLEEP];
    return PCS_OK;
}
