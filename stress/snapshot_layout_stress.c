/**
 * @file snapshot_layout_stress.c
 * @brief Stress test of the snapshot pool across repeated changes of the channel set (issue 19).
 *
 * Claim (snapshot.h, snapshot/hazard.c): while the world's thread ticks and
 * changes the channel layout over and over, every read on another thread
 * returns, for each id asked, that channel's value (never another
 * channel's, never freed memory), all from one tick and never older than
 * the reader's previous read, or fails with PCS_E_NOTFOUND naming a retired
 * id.
 *
 * The world registers SLS_RANGE channels at build; channel k holds
 * k + 4096 * tick (exact in a double), so a value names its channel
 * (value mod 4096) and its tick. Layout version v (the writer relayouts the
 * pool every SLS_EVERY ticks, at most every SLS_MIN_S seconds, through the
 * step a structural commit runs, snapshot/relayout.c) has channels 0 and 1
 * and the window [2 + v, 2 + v + SLS_WINDOW): each change retires the
 * window's first id and adds the next one. Readers aim at the window of the
 * version they saw last, so some of their ids have been retired meanwhile.
 * Actor 3 reads through views (a retired id gives NaN there), every other
 * one held for a few microseconds, so that retired layouts stay pinned and
 * are freed at later publications.
 *
 * The broken variant is the one-line change of verify/snapshot_layout.pml
 * FREE_UNSCANNED: the writer frees a retired layout without looking at the
 * readers' announcements. Its frees are quarantined (hazard.c: the buffers
 * are poisoned, the block freed at teardown), so a reader still inside
 * reads the poison, whole, instead of memory the allocator may have handed
 * out or unmapped; the test must catch it as "freed memory".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "snapshot/pool.h" /* pcs_snapshot_relayout, the broken fixture's switches */
#include "stress/stress.h"

#define SLS_RANGE 2048u
#define SLS_WINDOW 6u
#define SLS_EVERY 32u
#define SLS_MIN_S 1e-3
#define SLS_READERS 3u
#define SLS_IDS 6u
/* The broken variant changes every SLS_BROKEN_EVERY ticks without the time
 * limit, so it is caught within the quick run's fraction of a second, and
 * stops after SLS_BROKEN_MAX_CHANGES (its frees are quarantined until
 * teardown: about 20 MB). */
#define SLS_BROKEN_EVERY 4u
#define SLS_BROKEN_MAX_CHANGES 1000u

typedef struct sls_shared {
    pcs_world *w;
    pcs_snapshot_pool *pool;
    uint32_t store;
    int broken;
    uint64_t version; /* writer: the layout version */
    uint8_t live[SLS_RANGE];
    pcs_reader *r[SLS_READERS];
    uint64_t last_tick[SLS_READERS];
    uint64_t last_version[SLS_READERS];
} sls_shared;

enum {
    SLS_OK = 0,           /* every id read, each its own channel, one tick */
    SLS_RETIRED = 1,      /* PCS_E_NOTFOUND: an id was retired */
    SLS_NEW_LAYOUT = 2,   /* OK, and the reader saw a newer layout version than before */
    SLS_VIEW_NAN = 3,     /* a view gave NaN for an id retired in its layout */
    SLS_RATE = 4,         /* PCS_E_RATE / PCS_E_CORRUPT view: lapped */
    SLS_CHANGED = 5,      /* writer: a layout change */
    SLS_NOT_YET = 6,      /* nothing published yet */
    SLS_NOT_ADDED = 7,    /* PCS_E_NOTFOUND: an id past the layout range */
    SLS_PINNED = 8,       /* writer: a retired layout kept for a reader inside */
    SLS_RECLAIMED = 9,    /* finish: every retired layout freed once the readers left */
    SLS_LEAK = 16,        /* finish: a retired layout left pending or uncounted */
    SLS_OTHER = 10,       /* another channel's value */
    SLS_FREED = 11,       /* the poison of a freed layout */
    SLS_TORN = 12,        /* values of two ticks */
    SLS_BACKWARDS = 13,   /* older than the previous read, or an older layout */
    SLS_BAD_MESSAGE = 14, /* NOTFOUND without "was retired at layout version" */
    SLS_ERROR = 15,       /* any other status */
};

static const pcs_stress_outcome sls_outcomes[] = {
    {SLS_OK, PCS_STRESS_ACCEPTABLE, "values of the ids read",
     "each value is its channel's, all from one tick"},
    {SLS_RETIRED, PCS_STRESS_ACCEPTABLE, "error: retired",
     "PCS_E_NOTFOUND: channel N was retired at layout version V"},
    {SLS_NEW_LAYOUT, PCS_STRESS_INTERESTING, "values, newer layout",
     "a read in a newer layout than the reader's previous one"},
    {SLS_VIEW_NAN, PCS_STRESS_ACCEPTABLE, "view: NaN for a retired id",
     "pcs_view_f64 of an id retired in the view's layout"},
    {SLS_RATE, PCS_STRESS_INTERESTING, "lapped", "PCS_E_RATE or a view that failed validation"},
    {SLS_CHANGED, PCS_STRESS_ACCEPTABLE, "writer: layout changed",
     "one channel retired and one added"},
    {SLS_PINNED, PCS_STRESS_INTERESTING, "writer: kept for a reader",
     "after a change a retired layout was still pending (a reader inside; freed later)"},
    {SLS_NOT_YET, PCS_STRESS_ACCEPTABLE, "nothing published", "before the first tick"},
    {SLS_NOT_ADDED, PCS_STRESS_ACCEPTABLE, "error: not added yet",
     "PCS_E_NOTFOUND: the id is past the reader's layout (ids are [0, n))"},
    {SLS_RECLAIMED, PCS_STRESS_ACCEPTABLE, "finish: all freed",
     "after the run and one more publication no retired layout is pending"},
    {SLS_LEAK, PCS_STRESS_FORBIDDEN, "finish: not freed",
     "a retired layout still pending with no reader inside, or freed != retired"},
    {SLS_OTHER, PCS_STRESS_FORBIDDEN, "another channel's value", "value mod 4096 != the id read"},
    {SLS_FREED, PCS_STRESS_FORBIDDEN, "freed memory", "the poison of a freed layout's buffers"},
    {SLS_TORN, PCS_STRESS_FORBIDDEN, "torn", "values of two ticks in one read"},
    {SLS_BACKWARDS, PCS_STRESS_FORBIDDEN, "went back", "older tick or layout than before"},
    {SLS_BAD_MESSAGE, PCS_STRESS_FORBIDDEN, "unclear error", "NOTFOUND that names no retirement"},
    {SLS_ERROR, PCS_STRESS_FORBIDDEN, "error", "an unexpected status"},
};

/* Stage SENSORS: channel k = k + 4096 * tick for the live ones and the one
 * the next change adds (a relayout republishes the tick's values, so a new
 * channel's element must hold them, as a structural apply would set it). */
static pcs_status sls_fill(pcs_world *w, void *ctx)
{
    sls_shared *s = ctx;
    double *f = pcs_store_data(w, s->store);
    double base = 4096.0 * (double)pcs_world_clock(w)->tick;
    f[0] = base;
    f[1] = base + 1.0;
    uint64_t lo = s->version + 2u;
    for (uint64_t k = lo; k < lo + SLS_WINDOW + 1u && k < SLS_RANGE; k++)
        f[k] = base + (double)k;
    return PCS_OK;
}

/* After the actors: no reader is inside a layout, so one more publication
 * frees every retired one (the first layout and one per change). */
static void sls_finish(void *shared, pcs_stress_ctl *ctl)
{
    sls_shared *s = shared;
    pcs_snapshot_stats st;
    if (pcs_world_tick(s->w) != PCS_OK || pcs_snapshot_stats_get(s->pool, &st) != PCS_OK) {
        pcs_stress_record(ctl, SLS_ERROR);
        return;
    }
    int ok = st.layouts_pending == 0 && st.layouts_freed == st.layout_version - 1u;
    pcs_stress_record(ctl, ok ? SLS_RECLAIMED : SLS_LEAK);
}

static void sls_teardown(void *shared)
{
    sls_shared *s = shared;
    for (uint32_t i = 0; i < SLS_READERS; i++)
        pcs_reader_close(s->r[i]);
    pcs_world_destroy(s->w);
    free(s);
}

/* The id range of version @p v: ids past its window have not been added
 * yet (a structural commit adds a channel at the end of the range). */
static uint32_t sls_range(uint64_t v)
{
    uint64_t n = v + 2u + SLS_WINDOW;
    return (uint32_t)(n < SLS_RANGE ? n : SLS_RANGE);
}

/* The live set of version @p v: 0, 1 and the window [2 + v, 2 + v + W). */
static void sls_live(sls_shared *s, uint64_t v)
{
    memset(s->live, 0, sizeof s->live);
    s->live[0] = s->live[1] = 1;
    for (uint64_t k = v + 2u; k < v + 2u + SLS_WINDOW && k < SLS_RANGE; k++)
        s->live[k] = 1;
}

static pcs_status sls_channels(sls_shared *s, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++) {
        char name[32];
        snprintf(name, sizeof name, "sls.c%04u", i);
        pcs_status st = pcs_channel_register(s->w, name, "", PCS_CHANNEL_F64, s->store, i, NULL);
        if (st != PCS_OK)
            return st;
    }
    return PCS_OK;
}

static void *sls_setup_common(int broken)
{
    sls_shared *s = calloc(1, sizeof *s);
    pcs_world_def cfg;
    if (!s || pcs_world_default(&cfg) != PCS_OK)
        goto fail;
    s->broken = broken;
    cfg.snapshot_buffers = 3; /* laps come soonest */
    if (pcs_world_create(&cfg, &s->w) != PCS_OK ||
        pcs_store_register(s->w, "sls.v", 8, SLS_RANGE, PCS_STORE_STATE, &s->store) != PCS_OK)
        goto fail;
    pcs_system_desc d = {.name = "sls.fill",
                         .stage = PCS_STAGE_SENSORS,
                         .fn = sls_fill,
                         .ctx = s,
                         .writes = &s->store,
                         .n_writes = 1};
    /* Attach with version 2's range, then register the channels later
     * versions add (still the build phase): the pool learns them at its
     * relayouts, as it learns a structural commit's new channels. */
    if (sls_channels(s, 0, sls_range(2)) != PCS_OK ||
        pcs_system_register(s->w, &d, NULL) != PCS_OK ||
        pcs_snapshot_attach(s->w, NULL, &s->pool) != PCS_OK ||
        sls_channels(s, sls_range(2), SLS_RANGE) != PCS_OK)
        goto fail;
    s->pool->test_free_unscanned = broken;
    s->pool->test_quarantine = broken;
    /* Version 2: the first window (version 1 had every channel). */
    s->version = 2;
    sls_live(s, s->version);
    if (pcs_snapshot_relayout(s->pool, s->live, sls_range(s->version), s->version) != PCS_OK)
        goto fail;
    for (uint32_t i = 0; i < SLS_READERS; i++)
        if (pcs_reader_open(s->pool, &s->r[i]) != PCS_OK)
            goto fail;
    return s;
fail:
    if (s) {
        for (uint32_t i = 0; i < SLS_READERS; i++)
            pcs_reader_close(s->r[i]);
        pcs_world_destroy(s->w);
    }
    free(s);
    return NULL;
}

static void *sls_setup(void)
{
    return sls_setup_common(0);
}

static void *sls_setup_broken(void)
{
    return sls_setup_common(1);
}

/* Actor 0: the world's thread: tick, and change the layout every so often. */
static void sls_writer(void *shared, pcs_stress_ctl *ctl)
{
    sls_shared *s = shared;
    double last = pcs_stress_now();
    uint64_t changes = 0, limit = s->broken ? SLS_BROKEN_MAX_CHANGES : SLS_RANGE;
    uint64_t every = s->broken ? SLS_BROKEN_EVERY : SLS_EVERY;
    double min_s = s->broken ? 0.0 : SLS_MIN_S;
    for (uint64_t n = 1; pcs_stress_running(ctl); n++) {
        if (pcs_world_tick(s->w) != PCS_OK)
            pcs_stress_record(ctl, SLS_ERROR);
        if (n % every || s->version + 2u + SLS_WINDOW >= SLS_RANGE || changes >= limit)
            continue;
        double now = pcs_stress_now();
        if (now - last < min_s)
            continue;
        last = now;
        /* The structural commit's step, between ticks on the world's thread. */
        sls_live(s, s->version + 1u);
        if (pcs_snapshot_relayout(s->pool, s->live, sls_range(s->version + 1u), s->version + 1u) !=
            PCS_OK) {
            pcs_stress_record(ctl, SLS_ERROR);
            continue;
        }
        s->version++;
        changes++;
        pcs_snapshot_stats st;
        pcs_stress_record(ctl, SLS_CHANGED);
        if (pcs_snapshot_stats_get(s->pool, &st) == PCS_OK && st.layouts_pending > 0)
            pcs_stress_record(ctl, SLS_PINNED);
    }
}

/* Judge the values @p v of @p ids read at @p tick. */
static int sls_judge(const uint32_t *ids, const double *v, uint32_t n, uint64_t tick)
{
    for (uint32_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &v[i], sizeof bits);
        if (bits == PCS_LAYOUT_POISON)
            return SLS_FREED;
        if (!(v[i] >= 0.0) || fmod(v[i], 4096.0) != (double)ids[i])
            return SLS_OTHER;
        if (floor(v[i] / 4096.0) != (double)tick)
            return SLS_TORN;
    }
    return SLS_OK;
}

/* The ids a reader asks for: 0, 1, and the window of the pool's current
 * version as the reader last saw it (pcs_snapshot_stats: a host
 * re-resolving its names), shifted by @p turn so that some are retired or
 * not added yet by the time the read runs. */
static void sls_ids(uint64_t version, uint32_t turn, uint32_t *ids)
{
    ids[0] = 0;
    ids[1] = 1;
    uint64_t lo = (version ? version : 2u) + 2u;
    for (uint32_t i = 2; i < SLS_IDS; i++) {
        uint64_t k = lo + (turn + i) % (SLS_WINDOW + 1u) - (turn % 16u == 0);
        ids[i] = (uint32_t)(k < SLS_RANGE ? k : SLS_RANGE - 1u);
    }
}

static uint64_t sls_version(const sls_shared *s)
{
    pcs_snapshot_stats st;
    return pcs_snapshot_stats_get(s->pool, &st) == PCS_OK ? st.layout_version : 2u;
}

static int sls_after(sls_shared *s, unsigned me, int id, uint64_t tick, uint64_t version)
{
    if (id != SLS_OK)
        return id;
    if (tick < s->last_tick[me] || version < s->last_version[me])
        return SLS_BACKWARDS;
    s->last_tick[me] = tick;
    int newer = version > s->last_version[me] && s->last_version[me] != 0;
    s->last_version[me] = version;
    return newer ? SLS_NEW_LAYOUT : SLS_OK;
}

static int sls_status(pcs_status st)
{
    if (st == PCS_E_NOTFOUND && strstr(pcs_last_error(), "was retired at layout version"))
        return SLS_RETIRED;
    if (st == PCS_E_NOTFOUND && strstr(pcs_last_error(), "but channel ids are [0, "))
        return SLS_NOT_ADDED;
    if (st == PCS_E_NOTFOUND)
        return SLS_BAD_MESSAGE;
    return st == PCS_E_RATE ? SLS_RATE : st == PCS_E_STATE ? SLS_NOT_YET : SLS_ERROR;
}

/* Actors 1, 2: copy-out readers. */
static void sls_reader(void *shared, pcs_stress_ctl *ctl)
{
    sls_shared *s = shared;
    unsigned me = ctl->actor - 1;
    pcs_reader *r = s->r[me];
    uint32_t ids[SLS_IDS];
    double v[SLS_IDS];
    for (uint32_t turn = 0; pcs_stress_running(ctl); turn++) {
        sls_ids(sls_version(s), turn, ids);
        uint64_t tick;
        pcs_status st = pcs_snapshot_read(r, ids, SLS_IDS, v, &tick);
        if (st != PCS_OK) {
            pcs_stress_record(ctl, sls_status(st));
            continue;
        }
        int id = sls_judge(ids, v, SLS_IDS, tick);
        pcs_stress_record(ctl, sls_after(s, me, id, tick, pcs_reader_layout_version(r)));
    }
}

/* Actor 3: views; a retired id reads NaN (not the poison's NaN). */
static void sls_viewer(void *shared, pcs_stress_ctl *ctl)
{
    sls_shared *s = shared;
    unsigned me = ctl->actor - 1;
    pcs_reader *r = s->r[me];
    uint32_t ids[SLS_IDS], got[SLS_IDS];
    double v[SLS_IDS];
    for (uint32_t turn = 0; pcs_stress_running(ctl); turn++) {
        sls_ids(sls_version(s), turn, ids);
        pcs_view view;
        pcs_status st = pcs_view_begin(r, &view);
        if (st != PCS_OK) {
            pcs_stress_record(ctl, sls_status(st));
            continue;
        }
        /* Every other view works a while (a few microseconds) before it
         * reads: its layout stays pinned across the writer's changes, so
         * retired layouts wait for it and are freed at later publications. */
        for (uint32_t spin = (turn & 1u) ? 400u : 0u; spin; spin--)
            pcs_stress_pause();
        uint32_t n = 0, retired = 0, poison = 0;
        for (uint32_t i = 0; i < SLS_IDS; i++) {
            double x = pcs_view_f64(&view, ids[i]);
            uint64_t bits;
            memcpy(&bits, &x, sizeof bits);
            poison |= bits == PCS_LAYOUT_POISON;
            if (isnan(x) && bits != PCS_LAYOUT_POISON) {
                retired++;
                continue;
            }
            got[n] = ids[i];
            v[n++] = x;
        }
        /* Reading a freed layout is the bug, whatever validation says after
         * (with real memory it may crash or read a reused block's words). */
        int valid = pcs_view_validate(&view) == PCS_OK;
        if (poison || !valid) {
            pcs_stress_record(ctl, poison ? SLS_FREED : SLS_RATE);
            continue;
        }
        int id = sls_judge(got, v, n, view.tick);
        if (id == SLS_OK && retired)
            id = SLS_VIEW_NAN;
        if (id == SLS_VIEW_NAN)
            id = sls_after(s, me, SLS_OK, view.tick, view.layout_version) == SLS_BACKWARDS
                     ? SLS_BACKWARDS
                     : SLS_VIEW_NAN;
        else
            id = sls_after(s, me, id, view.tick, view.layout_version);
        pcs_stress_record(ctl, id);
    }
}

static const pcs_stress_test sls_test = {
    .name = "snapshot.layout_change",
    .description = "reads across repeated layout changes: each value its channel's, one tick, "
                   "or a retired-id error; never freed memory",
    .style = PCS_STRESS_SOAK,
    .n_actors = 4,
    .actors = {sls_writer, sls_reader, sls_reader, sls_viewer},
    .outcomes = sls_outcomes,
    .n_outcomes = sizeof sls_outcomes / sizeof sls_outcomes[0],
    .setup = sls_setup,
    .finish = sls_finish,
    .teardown = sls_teardown,
    .weight = 2.0,
};
PCS_STRESS_REGISTER(sls_test)

static const pcs_stress_test sls_broken = {
    .name = "snapshot.broken_free_unscanned",
    .description = "BROKEN ON PURPOSE: the writer frees retired layouts without the hazard "
                   "scan; readers must be caught reading freed memory",
    .style = PCS_STRESS_SOAK,
    .expect_fail = 1,
    .n_actors = 4,
    .actors = {sls_writer, sls_reader, sls_reader, sls_viewer},
    .outcomes = sls_outcomes,
    .n_outcomes = sizeof sls_outcomes / sizeof sls_outcomes[0],
    .setup = sls_setup_broken,
    .teardown = sls_teardown,
};
PCS_STRESS_REGISTER(sls_broken)
