/**
 * @file alloc_hook.c
 * @brief Counts every C-heap allocation of the bench process (bytes allocated per op).
 *
 * The bench executable defines malloc and friends itself; the dynamic linker
 * resolves every call in the process to them (glibc supports replacing malloc
 * this way, and its own internal calls go through the replaced symbols). Each
 * one counts the request and forwards to glibc's allocator through its
 * exported __libc_* entry points, so the heap is glibc's throughout and a
 * pointer from any of them may be freed by any other.
 *
 * What it cannot see: memory from private mimalloc heaps (mi_heap_*, which take
 * pages from the OS directly). World heaps are such heaps; benchmarks report
 * those through pcs_world_alloc_count (bench.h world_allocs).
 *
 * Counters are global relaxed atomics: a hot path that allocates is the thing
 * being measured, and the count must include every thread of the benchmark.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/harness_internal.h"

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);
extern void __libc_free(void *p);

static _Atomic uint64_t alloc_count;
static _Atomic uint64_t alloc_bytes;

static void count(size_t bytes)
{
    atomic_fetch_add_explicit(&alloc_count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&alloc_bytes, bytes, memory_order_relaxed);
}

void bench_alloc_read(uint64_t *n, uint64_t *bytes)
{
    *n = atomic_load_explicit(&alloc_count, memory_order_relaxed);
    *bytes = atomic_load_explicit(&alloc_bytes, memory_order_relaxed);
}

void *malloc(size_t size)
{
    count(size);
    return __libc_malloc(size);
}

void free(void *p)
{
    __libc_free(p);
}

void *calloc(size_t n, size_t size)
{
    count(n * size);
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    count(size);
    return __libc_realloc(p, size);
}

void *aligned_alloc(size_t align, size_t size)
{
    count(size);
    return __libc_memalign(align, size);
}

void *memalign(size_t align, size_t size);
void *memalign(size_t align, size_t size)
{
    count(size);
    return __libc_memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    if (align < sizeof(void *) || (align & (align - 1)) != 0)
        return EINVAL;
    count(size);
    void *p = __libc_memalign(align, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *valloc(size_t size);
void *valloc(size_t size)
{
    count(size);
    return __libc_valloc(size);
}

void *pvalloc(size_t size);
void *pvalloc(size_t size)
{
    count(size);
    return __libc_pvalloc(size);
}

int bench_alloc_selftest(void)
{
    uint64_t c0, b0, c1, b1;
    bench_alloc_read(&c0, &b0);
    void *a = malloc(1000);
    void *b = aligned_alloc(64, 128); /* the engine's command sources use this */
    void *c = calloc(10, 30);
    pcs_bench_consume_ptr(a);
    pcs_bench_consume_ptr(b);
    pcs_bench_consume_ptr(c);
    bench_alloc_read(&c1, &b1);
    free(a);
    free(b);
    free(c);
    /* Hand-computed: 3 calls, 1000 + 128 + 300 bytes. */
    int ok = c1 - c0 == 3 && b1 - b0 == 1428;
    printf("  %-44s %llu calls, %llu bytes (want 3, 1428) %s\n", "malloc hook counts",
           (unsigned long long)(c1 - c0), (unsigned long long)(b1 - b0), ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
}
