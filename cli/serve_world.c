/**
 * @file serve_world.c
 * @brief The world thread of `pcsim serve`: builds the station through
 *        pcsim/station.h, ticks it (on request in step mode, paced by
 *        pcs_world_advance in free mode, back to back in fast mode) and
 *        answers the network thread's requests.
 *
 * The world, its station and its heap belong to this thread alone
 * (docs/ARCHITECTURE.md section 2): it creates them, ticks them and destroys
 * them. The network thread sees the world only through what a build hands it
 * (the snapshot pool and a command source) and through the request slot.
 *
 * The slot protocol: the network thread fills req and sets pending under the
 * mutex, then signals; this thread copies the request out, works on it
 * without the mutex, and stores the reply with done under the mutex, then
 * wakes the loop with uv_async_send. The network thread never submits a
 * request while one is pending or done, so one slot suffices. The mutex
 * orders everything a build wrote (pool, source) before the network thread
 * reads the reply, and every command the network thread submitted before a
 * step request before that step's first tick drains: so in step mode an act
 * sent before a step applies at that step's first tick, deterministically.
 *
 * A reset builds the new world before destroying the old one, so a failed
 * build leaves the old world running. A load does the same, and loads the
 * save into the new world before the swap (do_load says why). The network
 * thread closes every reader of the old pool before it asks for a reset or
 * a load and reopens them on the pool the reply names.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/serve.h"

static void set_error(char *out, const char *what)
{
    snprintf(out, PCS_LAST_ERROR_MAX, "%s: %s", what, pcs_last_error());
}

/* The act source's rate limit: --rate/--burst, else the scenario's
 * run.command_rate_per_s/command_burst (default 400/s, burst 800). Set here,
 * before the source is handed to the network thread (its one producer). */
static pcs_status set_act_rate(const serve_world *sw, serve_world_info *info)
{
    pcs_scenario_run run = pcs_scenario_run_params(sw->scn);
    info->rate_per_s = sw->opt->rate >= 0.0 ? sw->opt->rate : run.command_rate_per_s;
    info->burst = sw->opt->burst ? sw->opt->burst : run.command_burst;
    return pcs_command_source_set_rate(info->source, info->rate_per_s, info->burst);
}

/* A world and station from the scenario, with its pool and the network
 * thread's command source. On failure nothing is left behind. */
static pcs_status build(serve_world *sw, int has_seed, uint64_t seed, pcs_world **w,
                        pcs_station **st, serve_world_info *info, char *error)
{
    pcs_world_def def = pcs_scenario_world_def(sw->scn);
    if (has_seed)
        def.seed = seed;
    *w = NULL;
    *st = NULL;
    pcs_status s = pcs_world_create(&def, w);
    if (s != PCS_OK) {
        set_error(error, "world");
        return s;
    }
    if ((s = pcs_station_add(*w, sw->scn, st)) != PCS_OK) {
        set_error(error, "station");
    } else if ((s = pcs_snapshot_attach(*w, NULL, &info->pool)) != PCS_OK) {
        set_error(error, "snapshot pool");
    } else if ((s = pcs_command_source_open(*w, SERVE_SOURCE_CLASS, 1, SERVE_SOURCE_CAPACITY,
                                            &info->source)) != PCS_OK) {
        set_error(error, "command source");
    } else if ((s = set_act_rate(sw, info)) != PCS_OK) {
        set_error(error, "command source");
    } else if ((s = pcs_world_set_speed(*w, sw->opt->speed)) != PCS_OK) {
        set_error(error, "--speed"); /* parse_opts checked the range: not reached */
    }
    if (s != PCS_OK) {
        pcs_station_destroy(*st);
        pcs_world_destroy(*w);
        *w = NULL;
        *st = NULL;
        return s;
    }
    info->dt_s = def.dt_s;
    info->seed = def.seed;
    info->n_channels = pcs_snapshot_channel_count(info->pool);
    info->layout = pcs_snapshot_layout_version(info->pool);
    info->generation = sw->info.generation + 1;
    info->station = *st;
    info->units = pcs_station_unit_count(*st);
    return PCS_OK;
}

static void publish_tick(serve_world *sw)
{
    atomic_store_explicit(&sw->tick, pcs_world_clock(sw->world)->tick, memory_order_release);
    if (atomic_load_explicit(&sw->subscribers, memory_order_acquire) > 0)
        uv_async_send(sw->tick_async);
}

static int stopping(serve_world *sw)
{
    pthread_mutex_lock(&sw->mu);
    int stop = sw->stop;
    pthread_mutex_unlock(&sw->mu);
    return stop;
}

/* One tick and its notice, timed for the stop summary. */
static pcs_status tick(serve_world *sw)
{
    uint64_t t0 = serve_now_ns();
    pcs_status st = pcs_world_tick(sw->world);
    if (st == PCS_OK)
        publish_tick(sw);
    hist_add(&sw->tick_ns, serve_now_ns() - t0);
    return st;
}

/* Free mode: the tick due now, if any, and its notice (serve_pace.c);
 * @p due receives when the next one is due (0: at once). */
static pcs_status paced_tick(serve_world *sw, uint64_t *due)
{
    uint64_t t0 = serve_now_ns();
    uint64_t drops = sw->pace.drops, dropped = sw->pace.dropped;
    pcs_world_advance_result r;
    pcs_status st = serve_pace_advance(&sw->pace, sw->world, t0, &r, due);
    if (sw->pace.drops != drops && !sw->opt->quiet) /* at most once a second of lag */
        fprintf(stderr,
                "pcsim serve: %llu ticks behind at speed %g (over %g s of wall time); "
                "dropped, pacing starts again from now\n",
                (unsigned long long)(sw->pace.dropped - dropped), pcs_world_speed(sw->world),
                SERVE_PACE_MAX_LAG_S);
    if (r.ticks_run == 0 && st == PCS_OK)
        return st;
    if (st == PCS_OK)
        publish_tick(sw);
    hist_add(&sw->tick_ns, serve_now_ns() - t0);
    return st;
}

/* A stop is looked for after every tick: an uncontended lock costs tens of
 * ns against a tick's tens of us, and a long step (up to 1000000 ticks) must
 * not hold up SIGTERM for seconds (an ASan build ticks in about 1 ms). */
static void do_step(serve_world *sw, serve_req *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        uint64_t t = pcs_world_clock(sw->world)->tick;
        if ((r->status = tick(sw)) != PCS_OK) {
            snprintf(r->error, sizeof r->error, "tick %llu failed: %s", (unsigned long long)t,
                     pcs_last_error());
            return;
        }
        if (stopping(sw))
            return;
    }
}

/* The new world replaces the live one, which is destroyed. */
static void swap_in(serve_world *sw, pcs_world *w, pcs_station *st, const serve_world_info *info)
{
    pcs_station_destroy(sw->station);
    pcs_world_destroy(sw->world);
    sw->world = w;
    sw->station = st;
    sw->info = *info;
    atomic_store_explicit(&sw->tick, pcs_world_clock(w)->tick, memory_order_release);
}

static void do_reset(serve_world *sw, serve_req *r)
{
    pcs_world *w;
    pcs_station *st;
    serve_world_info info;
    r->status = build(sw, r->has_seed, r->seed, &w, &st, &info, r->error);
    if (r->status == PCS_OK)
        swap_in(sw, w, st, &info);
    r->info = sw->info;
}

/* A load replays the save's structure log before it checks the stores, and
 * an applied structural change cannot be undone (pcsim/structure.h, "Saves
 * and replay"): a save refused after its replay would leave the live world
 * with the save's structure. So every load goes into a fresh world of the
 * same scenario and seed, swapped in as a reset's is only if the load
 * succeeds; a refused one leaves the live world untouched. The fresh world
 * also replays a save made before changes the live world has applied since
 * (save, pump_install, load that save), which the live world must refuse.
 * The cost is a station build (docs/protocol.md, "load"). */
static void do_load(serve_world *sw, serve_req *r)
{
    pcs_world *w;
    pcs_station *st;
    serve_world_info info;
    r->status = build(sw, 1, sw->info.seed, &w, &st, &info, r->error);
    if (r->status == PCS_OK && (r->status = pcs_world_load(w, r->path)) != PCS_OK) {
        snprintf(r->error, sizeof r->error, "%s", pcs_last_error());
        pcs_station_destroy(st);
        pcs_world_destroy(w);
    } else if (r->status == PCS_OK) {
        swap_in(sw, w, st, &info);
    }
    r->info = sw->info;
}

static void handle(serve_world *sw, serve_req *r)
{
    r->status = PCS_OK;
    r->error[0] = '\0';
    switch (r->kind) {
    case SERVE_REQ_ACT:
        r->status = pcs_station_command(sw->station, r->target, r->command, r->value, &r->cmd);
        if (r->status != PCS_OK)
            snprintf(r->error, sizeof r->error, "%s", pcs_last_error());
        break;
    case SERVE_REQ_STEP:
        do_step(sw, r);
        break;
    case SERVE_REQ_RESET:
        do_reset(sw, r);
        break;
    case SERVE_REQ_LOAD:
        do_load(sw, r);
        break;
    case SERVE_REQ_SAVE:
        if ((r->status = pcs_world_save(sw->world, r->path)) != PCS_OK)
            snprintf(r->error, sizeof r->error, "%s", pcs_last_error());
        break;
    }
    r->tick = pcs_world_clock(sw->world)->tick;
    atomic_store_explicit(&sw->tick, r->tick, memory_order_release);
    r->hash = r->want_hash ? pcs_world_state_hash(sw->world) : 0;
}

/* Take the pending request if there is one (mutex held by the caller),
 * answer it without the mutex, and post the reply. */
static void serve_pending(serve_world *sw)
{
    serve_req r = sw->req;
    sw->pending = 0;
    pthread_mutex_unlock(&sw->mu);
    handle(sw, &r);
    pthread_mutex_lock(&sw->mu);
    sw->req = r;
    sw->done = 1;
    uv_async_send(sw->reply_async);
}

static void abs_time(uint64_t ns, struct timespec *ts)
{
    ts->tv_sec = (time_t)(ns / 1000000000u);
    ts->tv_nsec = (long)(ns % 1000000000u);
}

/* Step mode: sleep until a request. Free mode: tick when due, answering
 * requests between ticks; fast mode: tick back to back, likewise. Wall time
 * spent answering a request (a save, a reset) is paced like any other: owed
 * ticks follow, unless it was over SERVE_PACE_MAX_LAG_S (serve_pace.c).
 * Called and returns with the mutex held. */
static void run_loop(serve_world *sw)
{
    serve_pace_start(&sw->pace, sw->world, serve_now_ns());
    uint64_t due = 0;
    while (!sw->stop) {
        if (sw->pending) {
            serve_pending(sw);
            continue;
        }
        if (sw->opt->mode == SERVE_MODE_STEP) {
            pthread_cond_wait(&sw->cv, &sw->mu);
            continue;
        }
        if (due && serve_now_ns() < due) {
            struct timespec ts;
            abs_time(due, &ts);
            pthread_cond_timedwait(&sw->cv, &sw->mu, &ts);
            continue;
        }
        pthread_mutex_unlock(&sw->mu);
        pcs_status st = sw->opt->mode == SERVE_MODE_FAST ? tick(sw) : paced_tick(sw, &due);
        if (st != PCS_OK) {
            /* A failing tick stops the clock; say so once and wait for a reset or load. */
            fprintf(stderr, "pcsim serve: tick %llu failed: %s; the world is paused\n",
                    (unsigned long long)pcs_world_clock(sw->world)->tick, pcs_last_error());
            due = UINT64_MAX;
        }
        pthread_mutex_lock(&sw->mu);
        if (due == UINT64_MAX) {
            while (!sw->stop && !sw->pending)
                pthread_cond_wait(&sw->cv, &sw->mu);
            serve_pace_start(&sw->pace, sw->world, serve_now_ns());
            due = 0;
        }
    }
}

static void world_main(void *arg)
{
    serve_world *sw = arg;
    char error[PCS_LAST_ERROR_MAX] = "";
    pcs_status s = build(sw, 0, 0, &sw->world, &sw->station, &sw->info, error);
    pthread_mutex_lock(&sw->mu);
    sw->ready = s == PCS_OK ? 1 : -1;
    snprintf(sw->start_error, sizeof sw->start_error, "%s", error);
    pthread_cond_broadcast(&sw->cv);
    if (s == PCS_OK)
        run_loop(sw);
    pthread_mutex_unlock(&sw->mu);
    pcs_station_destroy(sw->station);
    pcs_world_destroy(sw->world);
    sw->station = NULL;
    sw->world = NULL;
}

int serve_world_start(serve_world *sw, const serve_opts *opt, const pcs_scenario *scn,
                      uv_async_t *reply_async, uv_async_t *tick_async)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&sw->mu, NULL);
    pthread_cond_init(&sw->cv, &ca);
    pthread_condattr_destroy(&ca);
    sw->opt = opt;
    sw->scn = scn;
    sw->reply_async = reply_async;
    sw->tick_async = tick_async;
    if (pcs_thread_start("pcsim-world", world_main, sw, &sw->thread) != PCS_OK) {
        set_error(sw->start_error, "world thread");
        return -1;
    }
    pthread_mutex_lock(&sw->mu);
    while (sw->ready == 0)
        pthread_cond_wait(&sw->cv, &sw->mu);
    int ok = sw->ready > 0;
    pthread_mutex_unlock(&sw->mu);
    if (!ok) {
        pcs_thread_join(sw->thread);
        sw->thread = NULL;
        return -1;
    }
    return 0;
}

void serve_world_submit(serve_world *sw, const serve_req *req)
{
    pthread_mutex_lock(&sw->mu);
    sw->req = *req;
    sw->pending = 1;
    sw->done = 0;
    pthread_cond_broadcast(&sw->cv);
    pthread_mutex_unlock(&sw->mu);
}

int serve_world_take(serve_world *sw, serve_req *out)
{
    pthread_mutex_lock(&sw->mu);
    int done = sw->done;
    if (done) {
        *out = sw->req;
        sw->done = 0;
    }
    pthread_mutex_unlock(&sw->mu);
    return done;
}

void serve_world_stop(serve_world *sw)
{
    if (!sw->thread)
        return;
    pthread_mutex_lock(&sw->mu);
    sw->stop = 1;
    pthread_cond_broadcast(&sw->cv);
    pthread_mutex_unlock(&sw->mu);
    pcs_thread_join(sw->thread);
    sw->thread = NULL;
    pthread_cond_destroy(&sw->cv);
    pthread_mutex_destroy(&sw->mu);
    if (!sw->opt->quiet && sw->tick_ns.n)
        fprintf(stderr,
                "pcsim serve: %llu ticks; tick us p50 %.2f p95 %.2f p99 %.2f max %.2f "
                "(tick and its notice)\n",
                (unsigned long long)sw->tick_ns.n, hist_percentile(&sw->tick_ns, 50) / 1e3,
                hist_percentile(&sw->tick_ns, 95) / 1e3, hist_percentile(&sw->tick_ns, 99) / 1e3,
                hist_percentile(&sw->tick_ns, 100) / 1e3);
    if (!sw->opt->quiet && sw->pace.drops)
        fprintf(stderr, "pcsim serve: fell behind %llu times; %llu ticks dropped\n",
                (unsigned long long)sw->pace.drops, (unsigned long long)sw->pace.dropped);
}
