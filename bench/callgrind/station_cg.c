/**
 * @file station_cg.c
 * @brief Standalone driver for the instructions (valgrind --tool=callgrind),
 *        thread CPU time and wall time per tick of the built-in 4-unit
 *        station (the world of bench/station_bench.c: public station API,
 *        snapshot pool, no worker pool), with READERS threads copying 40
 *        channels each at 10 Hz of wall time. Not part of pcsim-bench; build
 *        it by hand:
 *
 *   cc -std=c17 -O2 -g -ffp-contract=off -D_GNU_SOURCE -Iinclude -I. \
 *      bench/callgrind/station_cg.c build/libpcsim.a -fopenmp -lmimalloc -lck \
 *      -lxxhash -lhwloc -ljansson -lklu -lm -lpthread -o build/station_cg
 *
 *   ./build/station_cg N [READERS]   per tick: CPU and wall p50, p95, p99, max
 *   ./build/station_cg N READERS alt the same, with the readers reading in
 *                                    blocks of 500 ticks and parked in the
 *                                    blocks between: both sets of figures
 *                                    come from one process and the same
 *                                    machine load (readers on against off)
 *   ./build/station_cg N READERS [alt] steam_side
 *                                    any of the above on the bench's own 4-unit
 *                                    text (bench/station_scenario.h) with every
 *                                    unit sg_model steam_side (or boundary);
 *                                    without it, the built-in default scenario
 *   ./build/station_cg N READERS steam_side units=64
 *                                    the bench's text with 64 units (its 4-unit
 *                                    pattern repeated; issue 16), boundary or
 *                                    steam_side only
 *   ./build/station_cg N READERS ... parallel [workers=W]
 *                                    with the parallel unit sections on
 *                                    (pcs_world_set_parallel_units; issue 16),
 *                                    run by the host alone or with a pool of W
 *                                    workers (then the CPU time is the host's
 *                                    share only)
 *   valgrind --tool=callgrind --toggle-collect=measured_tick ./build/station_cg N 0
 *
 * and divide the Ir total by N (measured_tick leaves out the build and the
 * first tick, which seals the world). The CPU time (CLOCK_THREAD_CPUTIME_ID) leaves
 * out the time the ticking thread waited for a core, so on a shared machine
 * it is the load-robust figure beside the wall time; it still counts cache
 * pollution and the CPU the thread spent in system calls (stage 12's wake).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/callgrind/cg_common.h"
#include "bench/station_scenario.h"
#include "pcsim/pcsim.h"

#define SC_CHANNELS 40u
#define SC_PERIOD_NS 100000000ull
#define SC_BLOCK 500 /* ticks per block in alt mode */

/* What the ticking thread tells the readers. */
typedef struct sc_shared {
    atomic_int stop;
    atomic_int active; /* 0: readers park on wake until it is 1 again */
    pthread_mutex_t lock;
    pthread_cond_t wake;
} sc_shared;

typedef struct sc_reader {
    pthread_t thread;
    const pcs_snapshot_pool *pool;
    uint32_t index, n_channel;
    sc_shared *sh;
    uint64_t reads;
} sc_reader;

static double wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

/* The ticks callgrind counts (--toggle-collect=measured_tick). */
__attribute__((noinline)) static pcs_status measured_tick(pcs_world *w)
{
    return pcs_world_tick(w);
}

static void *sc_reader_main(void *arg)
{
    sc_reader *rd = arg;
    pcs_reader *r = NULL;
    uint32_t ids[SC_CHANNELS];
    double out[SC_CHANNELS];
    for (uint32_t j = 0; j < SC_CHANNELS; j++)
        ids[j] = (rd->index * 7u + j) % rd->n_channel;
    if (pcs_reader_open(rd->pool, &r) != PCS_OK ||
        pcs_reader_set_min_interval(r, SC_PERIOD_NS) != PCS_OK)
        return NULL;
    uint64_t after = 0;
    while (!atomic_load(&rd->sh->stop)) {
        if (!atomic_load(&rd->sh->active)) {
            pthread_mutex_lock(&rd->sh->lock);
            while (!atomic_load(&rd->sh->active) && !atomic_load(&rd->sh->stop))
                pthread_cond_wait(&rd->sh->wake, &rd->sh->lock);
            pthread_mutex_unlock(&rd->sh->lock);
            continue;
        }
        uint64_t published;
        if (pcs_reader_wait(r, after, SC_PERIOD_NS / 2, &published) != PCS_OK)
            continue;
        if (pcs_snapshot_read(r, ids, SC_CHANNELS, out, NULL) == PCS_OK)
            rd->reads++;
        after = published;
    }
    pcs_reader_close(r);
    return NULL;
}

static void sc_set_active(sc_shared *sh, int on)
{
    pthread_mutex_lock(&sh->lock);
    atomic_store(&sh->active, on);
    pthread_cond_broadcast(&sh->wake);
    pthread_mutex_unlock(&sh->lock);
}

static void sc_print(const char *what, double *t, int n)
{
    if (n < 1)
        return;
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    printf("  %s per tick: p50 %.1f us, p95 %.1f us, p99 %.1f us, max %.1f us (%d ticks)\n", what,
           t[n / 2] / 1e3, t[(size_t)(0.95 * n)] / 1e3, t[(size_t)(0.99 * n)] / 1e3, t[n - 1] / 1e3,
           n);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000, readers = argc > 2 ? atoi(argv[2]) : 0;
    int alt = 0, parallel = 0;
    unsigned units = 4, workers = 0;
    const char *sg = NULL; /* NULL: the built-in default scenario */
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "alt") == 0)
            alt = 1;
        else if (strncmp(argv[i], "units=", 6) == 0)
            units = (unsigned)atoi(argv[i] + 6);
        else if (strcmp(argv[i], "parallel") == 0)
            parallel = 1;
        else if (strncmp(argv[i], "workers=", 8) == 0)
            workers = (unsigned)atoi(argv[i] + 8);
        else
            sg = argv[i];
    }
    pcs_scenario *scn;
    char text[8192];
    if (sg && !pcs_bench_station_text_n(sg, units, text, sizeof text)) {
        fprintf(stderr,
                "station_cg: argument '%s' (units %u): must be alt, units=N (1..64), boundary or "
                "steam_side\n",
                sg, units);
        return 1;
    }
    pcs_world *w;
    pcs_station *st;
    pcs_snapshot_pool *pool;
    if (n < 1 || readers < 0 || readers > 64)
        return 1;
    if ((sg ? pcs_scenario_load_string(sg, text, strlen(text), NULL, &scn)
            : pcs_scenario_default(&scn)) != PCS_OK) {
        fprintf(stderr, "%s\n", pcs_last_error());
        return 1;
    }
    pcs_world_def wd = pcs_scenario_world_def(scn);
    wd.workers = 0;
    pcs_exec *exec = NULL;
    pcs_exec_def ec;
    pcs_exec_default(&ec);
    ec.workers = workers;
    if (pcs_world_create(&wd, &w) != PCS_OK || pcs_station_add(w, scn, &st) != PCS_OK ||
        pcs_snapshot_attach(w, NULL, &pool) != PCS_OK ||
        pcs_world_set_parallel_units(w, parallel) != PCS_OK ||
        (workers &&
         (pcs_exec_create(&ec, &exec) != PCS_OK || pcs_exec_attach(exec, w) != PCS_OK)) ||
        pcs_world_tick(w) != PCS_OK) {
        fprintf(stderr, "%s\n", pcs_last_error());
        return 1;
    }
    sc_shared sh = {.active = 1};
    pthread_mutex_init(&sh.lock, NULL);
    pthread_cond_init(&sh.wake, NULL);
    sc_reader *rd = calloc((size_t)readers + 1, sizeof *rd);
    for (int i = 0; i < readers; i++) {
        rd[i] = (sc_reader){.pool = pool,
                            .index = (uint32_t)i,
                            .n_channel = pcs_snapshot_channel_count(pool),
                            .sh = &sh};
        pthread_create(&rd[i].thread, NULL, sc_reader_main, &rd[i]);
    }
    /* [0, n_on): ticks with readers reading; from the end down: parked (alt). */
    double *cpu = malloc((size_t)n * sizeof *cpu), *wall = malloc((size_t)n * sizeof *wall);
    int n_on = 0, n_off = 0;
    uint64_t allocs0 = pcs_world_alloc_count(w);
    for (int i = 0; i < n; i++) {
        int on = !alt || (i / SC_BLOCK) % 2 == 0;
        if (alt && i % SC_BLOCK == 0)
            sc_set_active(&sh, on);
        double c0 = cpu_ns(), w0 = wall_ns();
        if (measured_tick(w) != PCS_OK) {
            fprintf(stderr, "%s\n", pcs_last_error());
            return 1;
        }
        int k = on ? n_on++ : n - 1 - n_off++;
        cpu[k] = cpu_ns() - c0;
        wall[k] = wall_ns() - w0;
    }
    uint64_t world_allocs = pcs_world_alloc_count(w) - allocs0, reads = 0;
    atomic_store(&sh.stop, 1);
    sc_set_active(&sh, 1);
    for (int i = 0; i < readers; i++) {
        pthread_join(rd[i].thread, NULL);
        reads += rd[i].reads;
    }
    printf("station (%s), %d ticks, %d readers x %u channels at 10 Hz wall%s (%llu reads); world "
           "allocs %llu; hash %016llx\n",
           sg ? sg : "default", n, readers, SC_CHANNELS, alt ? ", alternating blocks" : "",
           (unsigned long long)reads, (unsigned long long)world_allocs,
           (unsigned long long)pcs_world_state_hash(w));
    if (alt)
        printf(" readers reading:\n");
    sc_print("CPU ", cpu, n_on);
    sc_print("wall", wall, n_on);
    if (alt) {
        printf(" readers parked:\n");
        sc_print("CPU ", cpu + n - n_off, n_off);
        sc_print("wall", wall + n - n_off, n_off);
    }
    free(cpu);
    free(wall);
    free(rd);
    pcs_station_destroy(st);
    pcs_world_destroy(w);
    pcs_exec_destroy(exec);
    pcs_scenario_destroy(scn);
    return 0;
}
