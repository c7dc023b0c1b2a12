/**
 * @file commands_cg.c
 * @brief Standalone driver for the instructions (valgrind --tool=callgrind)
 *        and thread CPU time per command of the path commands.submit_n_drain
 *        measures (bench/commands_bench.c), on one thread so the count does
 *        not depend on timing: submit_n in batches of 64 until the source
 *        (capacity 4096) is full, then one tick drains, applies (no-op
 *        handler) and journals them; and of the same record through a bare
 *        ck_ring SPSC ring (enqueue 4096, dequeue 4096), the raw baseline:
 *        the queue's ring slot, pcs_command_slot (engine/command_slot.h),
 *        packed from the public command as the queue packs it.
 *        Not part of pcsim-bench; build it by hand:
 *
 *   cc -std=c17 -O2 -g -ffp-contract=off -D_GNU_SOURCE -Iinclude -I. \
 *      bench/callgrind/commands_cg.c build/libpcsim.a -fopenmp -lmimalloc -lck \
 *      -lxxhash -lhwloc -ljansson -lklu -lm -lpthread -o build/commands_cg
 *
 *   ./build/commands_cg queue|raw|shared N   thread CPU ns per command (shared:
 *                                            pcs_command_submit through the
 *                                            shared ck_ring, 4096 then a tick)
 *   ./build/commands_cg threads N            the benchmark's two threads: wall,
 *                                            and each thread's CPU, per command
 *   valgrind --tool=callgrind --toggle-collect='flow*' ./build/commands_cg queue N
 *
 * (gcc names flow() flow.constprop.0, hence the pattern) and divide the Ir
 * total by N (flow() is the measured loop; world creation and teardown are
 * outside it).
 */
#include <ck_ring.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/callgrind/cg_common.h"
#include "engine/command_slot.h"
#include "pcsim/pcsim.h"

#define KIND 9u
#define CAP 4096u
#define BATCH 64u

CK_RING_PROTOTYPE(cg_cmd, pcs_command_slot)

static uint64_t applied, sink;

static pcs_status noop(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    (void)ctx;
    (void)cmd;
    applied++;
    return PCS_OK;
}

/* n commands (a multiple of CAP) through the shared ck_ring MPSC ring
 * (pcs_command_submit, one at a time, then a tick), on this one thread. */
static int flow_shared(pcs_world *w, const pcs_command *cmds)
{
    for (uint32_t i = 0; i < CAP; i++)
        if (pcs_command_submit(w, &cmds[i % BATCH]) != PCS_OK)
            return 1;
    return pcs_world_tick(w) != PCS_OK;
}

/* n commands (a multiple of CAP) through the queue (opened source, or the
 * shared ring when raw is 2) or the raw ring (raw 1). */
__attribute__((noinline)) static int flow(int raw, pcs_world *w, pcs_command_source *src,
                                          ck_ring_t *ring, pcs_command_slot *slots,
                                          const pcs_command *cmds, uint64_t n)
{
    for (uint64_t done = 0; done < n; done += CAP) {
        if (raw == 2) {
            if (flow_shared(w, cmds))
                return 1;
            continue;
        }
        if (raw) {
            pcs_command_slot rec = pcs_command_slot_pack(&cmds[0]);
            for (uint32_t i = 0; i < CAP; i++) {
                rec.target = (uint32_t)(done + i); /* a value the dequeue reads back */
                if (!ck_ring_enqueue_spsc_cg_cmd(ring, slots, &rec))
                    return 1;
            }
            for (uint32_t i = 0; i < CAP; i++) {
                pcs_command_slot rec;
                if (!ck_ring_dequeue_spsc_cg_cmd(ring, slots, &rec))
                    return 1;
                sink += rec.target;
            }
            continue;
        }
        for (uint32_t i = 0; i < CAP; i += BATCH) {
            uint32_t acc = 0;
            if (pcs_command_source_submit_n(src, cmds, BATCH, &acc) != PCS_OK || acc != BATCH)
                return 1;
        }
        if (pcs_world_tick(w) != PCS_OK)
            return 1;
    }
    return 0;
}

/* "threads": commands.submit_n_drain's two threads, each timing its own CPU. */
typedef struct two {
    pcs_command_source *src;
    const pcs_command *cmds;
    uint64_t n;
    double cpu_ns;
} two;

static void *producer(void *arg)
{
    two *t = arg;
    double t0 = cpu_ns();
    for (uint64_t done = 0; done < t->n;) {
        uint32_t want = t->n - done < BATCH ? (uint32_t)(t->n - done) : BATCH, acc = 0;
        if (pcs_command_source_submit_n(t->src, t->cmds, want, &acc) == PCS_OK)
            done += acc;
        else
            sched_yield();
    }
    t->cpu_ns = cpu_ns() - t0;
    return NULL;
}

static double wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static int threads(pcs_world *w, pcs_command_source *src, const pcs_command *cmds, uint64_t n)
{
    two t = {src, cmds, n, 0};
    pthread_t th;
    uint64_t ticks = 0;
    double w0 = wall_ns(), c0 = cpu_ns();
    if (pthread_create(&th, NULL, producer, &t))
        return 1;
    while (applied < n) {
        pcs_world_tick(w);
        ticks++;
    }
    double c1 = cpu_ns(), w1 = wall_ns();
    pthread_join(th, NULL);
    printf("threads: %llu commands, wall %.2f ns each (%.3g /s); CPU per command: ticking thread "
           "%.2f ns, producer %.2f ns; %llu ticks\n",
           (unsigned long long)n, (w1 - w0) / (double)n, (double)n * 1e9 / (w1 - w0),
           (c1 - c0) / (double)n, t.cpu_ns / (double)n, (unsigned long long)ticks);
    return 0;
}

int main(int argc, char **argv)
{
    int raw = argc > 1 && strcmp(argv[1], "raw") == 0;
    if (argc > 1 && strcmp(argv[1], "shared") == 0)
        raw = 2;
    long long n = argc > 2 ? atoll(argv[2]) : 1 << 22;
    n -= n % CAP;
    pcs_world_def wd;
    pcs_world_default(&wd);
    wd.commands_per_tick = 65536;
    wd.max_sources = 1;
    wd.mpsc_capacity = CAP;
    wd.workers = 0;
    pcs_world *w = NULL;
    pcs_command_source *src = NULL;
    static pcs_command cmds[BATCH];
    for (uint32_t i = 0; i < BATCH; i++)
        cmds[i].kind = KIND;
    pcs_command_slot *slots = calloc(2 * CAP, sizeof *slots);
    ck_ring_t ring;
    ck_ring_init(&ring, 2 * CAP);
    if (n < CAP || !slots || pcs_world_create(&wd, &w) != PCS_OK ||
        pcs_command_handler_register(w, KIND, noop, NULL) != PCS_OK ||
        pcs_command_source_open(w, 1, 0, CAP, &src) != PCS_OK) {
        fprintf(stderr, "commands_cg: %s\n", pcs_last_error());
        return 1;
    }
    if (strcmp(argc > 1 ? argv[1] : "", "threads") == 0) {
        pcs_world_destroy(w);
        wd.max_sources = 1;
        if (pcs_world_create(&wd, &w) != PCS_OK ||
            pcs_command_handler_register(w, KIND, noop, NULL) != PCS_OK ||
            pcs_command_source_open(w, 1, 0, 65536, &src) != PCS_OK)
            return 1;
        int bad = threads(w, src, cmds, (uint64_t)n);
        pcs_world_destroy(w);
        free(slots);
        return bad;
    }
    double t0 = cpu_ns();
    if (flow(raw, w, src, &ring, slots, cmds, (uint64_t)n)) {
        fprintf(stderr, "commands_cg: refused: %s\n", pcs_last_error());
        return 1;
    }
    double t1 = cpu_ns();
    if (raw != 1 && applied != (uint64_t)n)
        return 1;
    static const char *const what[] = {"queue", "raw", "shared"};
    printf("%s: %lld commands, %.2f ns each (thread CPU), journal %llu\n", what[raw], n,
           (t1 - t0) / (double)n, (unsigned long long)pcs_journal_count(w));
    pcs_world_destroy(w);
    free(slots);
    return sink == 1; /* keep the raw loop's reads */
}
