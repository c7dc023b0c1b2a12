/**
 * @file snapshot_cg.c
 * @brief Standalone driver for the instructions (valgrind --tool=callgrind)
 *        per snapshot read and per publication, on one thread so the count
 *        does not depend on timing or on a writer racing the reader (issue
 *        16, bench/README.md "Snapshots"): the copy loops alone, no retries.
 *        Not part of pcsim-bench; build it by hand:
 *
 *   cc -std=c17 -O2 -g -ffp-contract=off -D_GNU_SOURCE -Iinclude -I. \
 *      bench/callgrind/snapshot_cg.c bench/snapshot_world.c build/libpcsim.a \
 *      -fopenmp -lmimalloc -lck -lxxhash -lhwloc -ljansson -lklu -lm -lpthread \
 *      -o build/snapshot_cg
 *
 *   ./build/snapshot_cg MODE CHANNELS N     thread CPU ns per operation
 *   valgrind --tool=callgrind --toggle-collect=flow ./build/snapshot_cg MODE CHANNELS N
 *
 * and divide the Ir total by N. MODE is one of
 *   read      pcs_snapshot_read of ids 0 .. CHANNELS - 1 (what snapshot.read does)
 *   null      pcs_snapshot_read with ids = NULL (the first CHANNELS)
 *   reversed  ids CHANNELS - 1 .. 0 (a span copy, then a gather, in a bulk build)
 *   publish   pcs_publish_system of CHANNELS doubles (what snapshot.publish does)
 *   memcpy    memcpy of CHANNELS doubles between private buffers (the floor)
 * flow() is the measured loop; world creation and teardown are outside it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/callgrind/cg_common.h"
#include "bench/snapshot_world.h"
#include "snapshot/pool.h"

typedef struct cg_ctx {
    const char *mode;
    snapbench_world sw;
    pcs_reader *r;
    uint32_t *ids;
    double *out, *src;
} cg_ctx;

/* The measured loop (callgrind's --toggle-collect). */
__attribute__((noinline)) static double flow(cg_ctx *c, uint64_t n)
{
    double sum = 0.0;
    uint32_t k = c->sw.n;
    for (uint64_t i = 0; i < n; i++) {
        if (!strcmp(c->mode, "publish")) {
            pcs_publish_system(c->sw.w, c->sw.pool);
        } else if (!strcmp(c->mode, "memcpy")) {
            memcpy(c->out, c->src, k * sizeof(double));
            __asm__ volatile("" : : "r"(c->out) : "memory");
        } else {
            const uint32_t *ids = !strcmp(c->mode, "null") ? NULL : c->ids;
            if (pcs_snapshot_read(c->r, ids, k, c->out, NULL) != PCS_OK)
                return -1.0;
        }
        sum += c->out[0];
    }
    return sum;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s read|null|reversed|publish|memcpy CHANNELS N\n", argv[0]);
        return 2;
    }
    cg_ctx c = {.mode = argv[1]};
    uint32_t k = (uint32_t)strtoul(argv[2], NULL, 10);
    uint64_t n = strtoull(argv[3], NULL, 10);
    if (k == 0 || snapbench_world_create(k, &c.sw) != 0 || pcs_reader_open(c.sw.pool, &c.r)) {
        fprintf(stderr, "setup: %s\n", pcs_last_error());
        return 1;
    }
    c.ids = malloc(k * sizeof *c.ids);
    c.out = calloc(k, sizeof *c.out);
    c.src = calloc(k, sizeof *c.src);
    if (!c.ids || !c.out || !c.src)
        return 1;
    int reversed = !strcmp(c.mode, "reversed");
    for (uint32_t i = 0; i < k; i++)
        c.ids[i] = reversed ? k - 1 - i : i;
    double t0 = cpu_ns();
    double sum = flow(&c, n);
    double t1 = cpu_ns();
    if (sum < 0.0) {
        fprintf(stderr, "read: %s\n", pcs_last_error());
        return 1;
    }
    printf("%s %u channels: %.1f ns/op (thread CPU, %llu ops)\n", c.mode, k, (t1 - t0) / (double)n,
           (unsigned long long)n);
    pcs_reader_close(c.r);
    snapbench_world_destroy(&c.sw);
    free(c.ids);
    free(c.out);
    free(c.src);
    return 0;
}
