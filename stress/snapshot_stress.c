/**
 * @file snapshot_stress.c
 * @brief Stress tests of the snapshot pool and the event log through the public API.
 *
 * Torn-read claim (docs/ARCHITECTURE.md section 6, snapshot.h): while one thread ticks a
 * world as fast as it can, every successful pcs_snapshot_read on another
 * thread returns a set of channels that were all published on one tick, and
 * one reader's ticks never go backwards.
 *
 * How a torn read shows: the writer fills every published word from the tick
 * and closes the buffer with an XXH3 of the contents. With K = 256 U32
 * channels (published as exact doubles):
 *     w[0], w[1]     tick (low, high 32 bits)
 *     w[2 .. K-3]    tick * 0x9e3779b1 + i (mod 2^32), different per word and tick
 *     w[K-2], w[K-1] XXH3-64 of w[0 .. K-3] (low, high)
 * A reader recomputes the hash and every word from the tick it finds, and
 * checks that tick against the one the call returned and against its
 * previous read. Any mismatch is FORBIDDEN.
 *
 * The deliberately broken variant reads the same buffer through the view API
 * and skips pcs_view_validate, i.e. a seqlock without the final check. It
 * must be caught by the very same checks (expect_fail): on two shared cores a
 * reader preempted in mid-read is lapped by the writer, whose ticks take
 * about a microsecond.
 *
 * Event-log claim: each reader sees every event exactly once, in order, or an
 * explicit missed count that accounts exactly for the gap, and never a torn
 * event. Each event carries its number k in values[0] and mix(k) in the other
 * three values; the ring holds only 64 events, so readers do fall behind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "pcsim/pcsim.h"
#include "stress/stress.h"

#define SNS_WORDS 256u
#define SNS_DATA_WORDS (SNS_WORDS - 2u)
#define SNS_MAX_READERS 3u
#define SNS_EVENT_RING 64u

/* ---- shared helpers ---------------------------------------------------- */

/* splitmix64's finaliser: a different, well-mixed value per (tick, word). */
static uint64_t sns_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Word i of tick t: cheap (the reader checks 252 of them per read) and
 * different for every tick, since 0x9e3779b1 is odd. The hash does the rest. */
static uint32_t sns_word(uint64_t tick, uint32_t i)
{
    return (uint32_t)tick * 0x9e3779b1u + i;
}

typedef struct sns_shared {
    pcs_world *w;
    pcs_snapshot_pool *pool;
    uint32_t store;
    uint64_t events_emitted;        /* world thread only */
    pcs_reader *r[SNS_MAX_READERS]; /* reader i belongs to actor i + 1 */
    uint64_t last_tick[SNS_MAX_READERS];
    uint64_t expect_event[SNS_MAX_READERS]; /* events returned + missed so far */
} sns_shared;

/* Stage SENSORS: fill the channel store from the tick; emit this tick's events. */
static pcs_status sns_fill(pcs_world *w, void *ctx)
{
    sns_shared *s = ctx;
    uint32_t *u = pcs_store_data(w, s->store);
    uint64_t tick = pcs_world_clock(w)->tick;
    u[0] = (uint32_t)tick;
    u[1] = (uint32_t)(tick >> 32);
    for (uint32_t i = 2; i < SNS_DATA_WORDS; i++)
        u[i] = sns_word(tick, i);
    uint64_t h = XXH3_64bits(u, SNS_DATA_WORDS * sizeof *u);
    u[SNS_DATA_WORDS] = (uint32_t)h;
    u[SNS_DATA_WORDS + 1] = (uint32_t)(h >> 32);
    /* 0..4 events a tick (2 on average), so the 64-slot ring wraps often. */
    uint32_t n = (uint32_t)(sns_mix(tick) % 5u);
    for (uint32_t k = 0; k < n; k++, s->events_emitted++) {
        uint64_t e = s->events_emitted;
        double m = (double)(uint32_t)sns_mix(e);
        pcs_event_emit(w, PCS_EV_MODEL_BASE + 1, (uint32_t)e, (double)e, m, m + 1.0, m + 2.0);
    }
    return PCS_OK;
}

static void *sns_setup(void)
{
    sns_shared *s = calloc(1, sizeof *s);
    pcs_world_def cfg;
    if (!s || pcs_world_default(&cfg) != PCS_OK)
        goto fail;
    cfg.snapshot_buffers = 3; /* the fewest allowed: laps come soonest */
    if (pcs_world_create(&cfg, &s->w) != PCS_OK ||
        pcs_store_register(s->w, "sns.words", 4, SNS_WORDS, PCS_STORE_STATE, &s->store) != PCS_OK)
        goto fail;
    for (uint32_t i = 0; i < SNS_WORDS; i++) {
        char name[32];
        snprintf(name, sizeof name, "sns.w%03u", i);
        if (pcs_channel_register(s->w, name, "", PCS_CHANNEL_U32, s->store, i, NULL) != PCS_OK)
            goto fail;
    }
    pcs_system_desc d = {.name = "sns.fill",
                         .stage = PCS_STAGE_SENSORS,
                         .fn = sns_fill,
                         .ctx = s,
                         .writes = &s->store,
                         .n_writes = 1};
    pcs_snapshot_options opt = {.event_log_capacity = SNS_EVENT_RING};
    if (pcs_system_register(s->w, &d, NULL) != PCS_OK ||
        pcs_snapshot_attach(s->w, &opt, &s->pool) != PCS_OK)
        goto fail;
    for (uint32_t i = 0; i < SNS_MAX_READERS; i++)
        if (pcs_reader_open(s->pool, &s->r[i]) != PCS_OK)
            goto fail;
    return s;
fail:
    if (s) {
        for (uint32_t i = 0; i < SNS_MAX_READERS; i++)
            pcs_reader_close(s->r[i]);
        pcs_world_destroy(s->w);
    }
    free(s);
    return NULL;
}

static void sns_teardown(void *shared)
{
    sns_shared *s = shared;
    for (uint32_t i = 0; i < SNS_MAX_READERS; i++)
        pcs_reader_close(s->r[i]);
    pcs_world_destroy(s->w);
    free(s);
}

/* ---- torn-read test ---------------------------------------------------- */

enum {
    SNS_OK = 0,         /* consistent, the newest tick */
    SNS_OK_STALE = 1,   /* consistent, behind the newest when it finished */
    SNS_OK_RETRIED = 2, /* consistent after >= 1 retry */
    SNS_NOT_YET = 3,    /* nothing published yet */
    SNS_GAVE_UP = 4,    /* PCS_E_RATE: lapped PCS_SNAPSHOT_RETRY_LIMIT times */
    SNS_TORN_HASH = 10, /* contents do not match their hash */
    SNS_TORN_WORD = 11, /* a word is not mix(tick, i) for the buffer's tick */
    SNS_TICK_LIE = 12,  /* the returned tick differs from the tick in the data */
    SNS_BACKWARDS = 13, /* older than this reader's previous read */
    SNS_ERROR = 14,     /* any other error (including a failed tick) */
};

static const pcs_stress_outcome sns_torn_outcomes[] = {
    {SNS_OK, PCS_STRESS_ACCEPTABLE, "consistent, newest", "all words from one tick"},
    {SNS_OK_STALE, PCS_STRESS_ACCEPTABLE, "consistent, stale",
     "all words from one tick; the writer published again meanwhile"},
    {SNS_OK_RETRIED, PCS_STRESS_INTERESTING, "consistent after retry",
     "the writer lapped the reader; it retried and got one tick"},
    {SNS_NOT_YET, PCS_STRESS_ACCEPTABLE, "nothing published", "the writer had not ticked yet"},
    {SNS_GAVE_UP, PCS_STRESS_INTERESTING, "gave up (PCS_E_RATE)",
     "lapped on every attempt; refused rather than torn"},
    {SNS_TORN_HASH, PCS_STRESS_FORBIDDEN, "hash mismatch", "words from different ticks"},
    {SNS_TORN_WORD, PCS_STRESS_FORBIDDEN, "word mismatch", "a word does not belong to the tick"},
    {SNS_TICK_LIE, PCS_STRESS_FORBIDDEN, "tick mismatch", "returned tick != tick in the data"},
    {SNS_BACKWARDS, PCS_STRESS_FORBIDDEN, "time went back", "older than the previous read"},
    {SNS_ERROR, PCS_STRESS_FORBIDDEN, "error", "an unexpected status"},
};

/* Actor 0: the world's thread, ticking as fast as it can. */
static void sns_writer(void *shared, pcs_stress_ctl *ctl)
{
    sns_shared *s = shared;
    while (pcs_stress_running(ctl))
        if (pcs_world_tick(s->w) != PCS_OK)
            pcs_stress_record(ctl, SNS_ERROR);
}

/* Judge one read of all words, returned with @p tick. */
static int sns_judge(sns_shared *s, unsigned reader, const double *v, uint64_t tick)
{
    uint32_t u[SNS_WORDS];
    for (uint32_t i = 0; i < SNS_WORDS; i++)
        u[i] = (uint32_t)v[i]; /* U32 channels: exact doubles in [0, 2^32) */
    uint64_t h = XXH3_64bits(u, SNS_DATA_WORDS * sizeof *u);
    if (u[SNS_DATA_WORDS] != (uint32_t)h || u[SNS_DATA_WORDS + 1] != (uint32_t)(h >> 32))
        return SNS_TORN_HASH;
    uint64_t t = (uint64_t)u[0] | (uint64_t)u[1] << 32;
    for (uint32_t i = 2; i < SNS_DATA_WORDS; i++)
        if (u[i] != sns_word(t, i))
            return SNS_TORN_WORD;
    if (t != tick)
        return SNS_TICK_LIE;
    if (tick < s->last_tick[reader])
        return SNS_BACKWARDS;
    s->last_tick[reader] = tick;
    return SNS_OK;
}

static int sns_outcome_of(pcs_status st)
{
    return st == PCS_E_STATE ? SNS_NOT_YET : st == PCS_E_RATE ? SNS_GAVE_UP : SNS_ERROR;
}

/* Actors 1..3: copy-out readers. */
static void sns_reader(void *shared, pcs_stress_ctl *ctl)
{
    sns_shared *s = shared;
    unsigned me = ctl->actor - 1;
    pcs_reader *r = s->r[me];
    double v[SNS_WORDS];
    pcs_reader_stats before, after;
    pcs_reader_stats_get(r, &before);
    while (pcs_stress_running(ctl)) {
        uint64_t tick = 0;
        pcs_status st = pcs_snapshot_read(r, NULL, SNS_WORDS, v, &tick);
        if (st != PCS_OK) {
            pcs_stress_record(ctl, sns_outcome_of(st));
            continue;
        }
        int id = sns_judge(s, me, v, tick);
        pcs_reader_stats_get(r, &after);
        if (id == SNS_OK && after.retries != before.retries)
            id = SNS_OK_RETRIED;
        else if (id == SNS_OK && after.staleness > 0)
            id = SNS_OK_STALE;
        before = after;
        pcs_stress_record(ctl, id);
    }
}

/* Broken on purpose: a view read without pcs_view_validate. */
static void sns_reader_unvalidated(void *shared, pcs_stress_ctl *ctl)
{
    sns_shared *s = shared;
    unsigned me = ctl->actor - 1;
    double v[SNS_WORDS];
    while (pcs_stress_running(ctl)) {
        pcs_view view;
        pcs_status st = pcs_view_begin(s->r[me], &view);
        if (st != PCS_OK) {
            pcs_stress_record(ctl, sns_outcome_of(st));
            continue;
        }
        for (uint32_t i = 0; i < SNS_WORDS; i++)
            v[i] = pcs_view_f64(&view, i);
        /* (the missing step: if (pcs_view_validate(&view) != PCS_OK) retry) */
        pcs_stress_record(ctl, sns_judge(s, me, v, view.tick));
    }
}

#define SNS_TORN_TEST(var, nm, n_readers, reader_fn, broken, desc)                                 \
    static const pcs_stress_test var = {                                                           \
        .name = nm,                                                                                \
        .description = desc,                                                                       \
        .style = PCS_STRESS_SOAK,                                                                  \
        .expect_fail = broken,                                                                     \
        .n_actors = 1 + (n_readers),                                                               \
        .actors = {sns_writer, reader_fn, reader_fn, reader_fn},                                   \
        .outcomes = sns_torn_outcomes,                                                             \
        .n_outcomes = sizeof sns_torn_outcomes / sizeof sns_torn_outcomes[0],                      \
        .setup = sns_setup,                                                                        \
        .teardown = sns_teardown,                                                                  \
        .weight = 2.0,                                                                             \
    };                                                                                             \
    PCS_STRESS_REGISTER(var)

SNS_TORN_TEST(sns_torn_1, "snapshot.torn_read_1_reader", 1, sns_reader, 0,
              "a copy-out read racing a writer at full speed is never torn, never older")
SNS_TORN_TEST(sns_torn_2, "snapshot.torn_read_2_readers", 2, sns_reader, 0,
              "two readers racing the writer: every read from one tick, never older")
SNS_TORN_TEST(sns_torn_3, "snapshot.torn_read_3_readers", 3, sns_reader, 0,
              "three readers (more threads than cores) racing the writer: never torn")
SNS_TORN_TEST(sns_torn_broken, "snapshot.broken_unvalidated_view", 3, sns_reader_unvalidated, 1,
              "BROKEN ON PURPOSE: views read without validation must be caught torn")

/* ---- paused flag under load ------------------------------------------- */

/* The writer runs a fixed cycle of SNP_CYCLE ticks: SNP_RUN ticks running,
 * then pcs_world_pause (republishing the last running tick with the flag
 * set), SNP_CYCLE - SNP_RUN ticks stepped while paused (flag set), then
 * pcs_world_resume (republishing the last paused tick with the flag clear).
 * So the flag a reader may see with tick t is fixed by t % SNP_CYCLE: clear
 * for the running ticks, set for the paused ones, and either for the two
 * ticks a republication repeats. Any other pair means the flag and the
 * values came from different publications: torn. */
#define SNP_CYCLE 7u
#define SNP_RUN 5u

enum {
    SNP_RUNNING = 0,    /* a running tick, flag clear */
    SNP_PAUSED = 1,     /* a paused tick, flag set */
    SNP_REPUBLISH = 2,  /* the tick a pause or resume republished, with the new flag */
    SNP_FLAG_TORN = 15, /* the flag does not fit the tick */
};

static const pcs_stress_outcome snp_outcomes[] = {
    {SNP_RUNNING, PCS_STRESS_ACCEPTABLE, "running tick, flag clear", "ticked while running"},
    {SNP_PAUSED, PCS_STRESS_ACCEPTABLE, "paused tick, flag set", "stepped while paused"},
    {SNP_REPUBLISH, PCS_STRESS_INTERESTING, "republication",
     "the tick a pause or resume republished, with the new flag"},
    {SNS_NOT_YET, PCS_STRESS_ACCEPTABLE, "nothing published", "the writer had not ticked yet"},
    {SNS_GAVE_UP, PCS_STRESS_INTERESTING, "gave up (PCS_E_RATE)",
     "lapped on every attempt; refused rather than torn"},
    {SNS_TORN_HASH, PCS_STRESS_FORBIDDEN, "hash mismatch", "words from different ticks"},
    {SNS_TORN_WORD, PCS_STRESS_FORBIDDEN, "word mismatch", "a word does not belong to the tick"},
    {SNS_TICK_LIE, PCS_STRESS_FORBIDDEN, "tick mismatch", "returned tick != tick in the data"},
    {SNS_BACKWARDS, PCS_STRESS_FORBIDDEN, "time went back", "older than the previous read"},
    {SNS_ERROR, PCS_STRESS_FORBIDDEN, "error", "an unexpected status"},
    {SNP_FLAG_TORN, PCS_STRESS_FORBIDDEN, "flag torn", "the paused flag does not fit the tick"},
};

static void snp_writer(void *shared, pcs_stress_ctl *ctl)
{
    sns_shared *s = shared;
    while (pcs_stress_running(ctl)) {
        uint64_t pos = pcs_world_clock(s->w)->tick % SNP_CYCLE;
        if (pos == SNP_RUN && pcs_world_pause(s->w) != PCS_OK)
            pcs_stress_record(ctl, SNS_ERROR);
        pcs_status st = pos >= SNP_RUN ? pcs_world_step_once(s->w) : pcs_world_tick(s->w);
        if (st != PCS_OK)
            pcs_stress_record(ctl, SNS_ERROR);
        if (pos == SNP_CYCLE - 1 && pcs_world_resume(s->w) != PCS_OK)
            pcs_stress_record(ctl, SNS_ERROR);
    }
}

static int snp_judge_flag(uint64_t tick, int paused)
{
    uint64_t pos = tick % SNP_CYCLE;
    if (pos == SNP_RUN - 1 || pos == SNP_CYCLE - 1) /* the ticks a pause or resume repeats */
        return paused == (pos == SNP_CYCLE - 1) ? (paused ? SNP_PAUSED : SNP_RUNNING)
                                                : SNP_REPUBLISH;
    int want = pos >= SNP_RUN;
    return paused != want ? SNP_FLAG_TORN : paused ? SNP_PAUSED : SNP_RUNNING;
}

/* Actors 1..3: copy-out reads and validated views, in turn. */
static void snp_reader(void *shared, pcs_stress_ctl *ctl)
{
    sns_shared *s = shared;
    unsigned me = ctl->actor - 1;
    pcs_reader *r = s->r[me];
    double v[SNS_WORDS];
    for (uint64_t k = 0; pcs_stress_running(ctl); k++) {
        uint64_t tick = 0;
        int paused;
        pcs_status st;
        if (k & 1u) {
            pcs_view view;
            st = pcs_view_begin(r, &view);
            if (st == PCS_OK) {
                for (uint32_t i = 0; i < SNS_WORDS; i++)
                    v[i] = pcs_view_f64(&view, i);
                if (pcs_view_validate(&view) != PCS_OK)
                    continue; /* torn on purpose by the writer: begin again */
                tick = view.tick;
            }
            paused = view.paused;
        } else {
            st = pcs_snapshot_read(r, NULL, SNS_WORDS, v, &tick);
            paused = pcs_reader_paused(r);
        }
        if (st != PCS_OK) {
            pcs_stress_record(ctl, sns_outcome_of(st));
            continue;
        }
        int id = sns_judge(s, me, v, tick);
        pcs_stress_record(ctl, id == SNS_OK ? snp_judge_flag(tick, paused) : id);
    }
}

static const pcs_stress_test snp_pause = {
    .name = "snapshot.pause_flag",
    .description = "readers racing a writer that pauses, steps and resumes every 7 ticks see "
                   "the paused flag that belongs to the values' publication, never torn",
    .style = PCS_STRESS_SOAK,
    .n_actors = 1 + SNS_MAX_READERS,
    .actors = {snp_writer, snp_reader, snp_reader, snp_reader},
    .outcomes = snp_outcomes,
    .n_outcomes = sizeof snp_outcomes / sizeof snp_outcomes[0],
    .setup = sns_setup,
    .teardown = sns_teardown,
};
PCS_STRESS_REGISTER(snp_pause)

/* ---- event-log test ---------------------------------------------------- */

enum {
    SNE_BATCH = 0,        /* a poll returned events, none missed */
    SNE_BATCH_MISSED = 1, /* a poll reported missed events and they fit the gap */
    SNE_EMPTY = 2,        /* nothing new */
    SNE_ACCOUNTED = 3,    /* final: returned + missed == appended */
    SNE_TORN = 10,        /* an event's values do not belong together */
    SNE_ORDER = 11,       /* an event number other than the next one expected */
    SNE_UNACCOUNTED = 12, /* final: returned + missed != appended */
    SNE_ERROR = 14,       /* same id as SNS_ERROR: the shared writer records it */
};

static const pcs_stress_outcome sne_outcomes[] = {
    {SNE_BATCH, PCS_STRESS_ACCEPTABLE, "events in order", "every event once, in order"},
    {SNE_BATCH_MISSED, PCS_STRESS_INTERESTING, "gap, counted",
     "the reader fell behind; missed accounts for the gap exactly"},
    {SNE_EMPTY, PCS_STRESS_ACCEPTABLE, "nothing new", "the cursor is at the head"},
    {SNE_ACCOUNTED, PCS_STRESS_ACCEPTABLE, "all accounted", "returned + missed == appended"},
    {SNE_TORN, PCS_STRESS_FORBIDDEN, "torn event", "values from two different events"},
    {SNE_ORDER, PCS_STRESS_FORBIDDEN, "out of order", "duplicate, reordered or unreported gap"},
    {SNE_UNACCOUNTED, PCS_STRESS_FORBIDDEN, "unaccounted", "returned + missed != appended"},
    {SNE_ERROR, PCS_STRESS_FORBIDDEN, "error", "an unexpected status"},
};

/* One poll of up to @p max events; the outcome id. */
static int sne_poll(sns_shared *s, unsigned me, uint32_t max)
{
    pcs_event ev[8];
    uint32_t n = 0;
    uint64_t missed = 0;
    if (pcs_events_poll(s->r[me], ev, max, &n, &missed) != PCS_OK)
        return SNE_ERROR;
    s->expect_event[me] += missed;
    for (uint32_t k = 0; k < n; k++) {
        double want = (double)(uint32_t)sns_mix((uint64_t)ev[k].values[0]);
        if (ev[k].values[1] != want || ev[k].values[2] != want + 1.0 ||
            ev[k].values[3] != want + 2.0 || ev[k].subject != (uint32_t)ev[k].values[0])
            return SNE_TORN;
        if (ev[k].values[0] != (double)s->expect_event[me])
            return SNE_ORDER;
        s->expect_event[me]++;
    }
    return n == 0 && missed == 0 ? SNE_EMPTY : missed ? SNE_BATCH_MISSED : SNE_BATCH;
}

static void sne_reader(void *shared, pcs_stress_ctl *ctl)
{
    sns_shared *s = shared;
    unsigned me = ctl->actor - 1;
    uint32_t max = 1u + me * 3u; /* 1, 4, 7: different batch sizes per reader */
    while (pcs_stress_running(ctl))
        pcs_stress_record(ctl, sne_poll(s, me, max));
}

/* After join: drain each reader and reconcile against what was appended. */
static void sne_finish(void *shared, pcs_stress_ctl *ctl)
{
    sns_shared *s = shared;
    for (unsigned me = 0; me < SNS_MAX_READERS; me++) {
        int id;
        do
            id = sne_poll(s, me, 8);
        while (id == SNE_BATCH || id == SNE_BATCH_MISSED);
        if (id != SNE_EMPTY) {
            pcs_stress_record(ctl, id);
            continue;
        }
        pcs_stress_record(ctl, s->expect_event[me] == s->events_emitted ? SNE_ACCOUNTED
                                                                        : SNE_UNACCOUNTED);
    }
}

static const pcs_stress_test sne_events = {
    .name = "snapshot.event_log",
    .description = "three pollers see every event once in order, or a missed count that "
                   "accounts exactly for the gap; never a torn event",
    .style = PCS_STRESS_SOAK,
    .n_actors = 1 + SNS_MAX_READERS,
    .actors = {sns_writer, sne_reader, sne_reader, sne_reader},
    .outcomes = sne_outcomes,
    .n_outcomes = sizeof sne_outcomes / sizeof sne_outcomes[0],
    .setup = sns_setup,
    .finish = sne_finish,
    .teardown = sns_teardown,
};
PCS_STRESS_REGISTER(sne_events)
