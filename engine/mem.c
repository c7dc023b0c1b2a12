/**
 * @file mem.c
 * @brief Per-world heap: mimalloc in release builds, the C allocator under sanitizers.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/mem.h"

#define PCS_ALIGN 64u

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
/* A regrown registry's old array stays allocated until destroy; poisoned, a
 * pointer someone kept into it (a record's address held across a
 * registration) fails under AddressSanitizer instead of reading stale data. */
#define POISON_STALE(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#else
#define POISON_STALE(p, n) ((void)(p), (void)(n))
#endif

#ifndef PCS_MEM_SYSTEM
#include <mimalloc.h>

int pcs_mem_init(pcs_mem *m)
{
    m->count = 0;
    m->bytes = 0;
    m->heap = mi_heap_new();
    return m->heap ? 0 : -1;
}

static void *raw_alloc(pcs_mem *m, size_t bytes)
{
    return mi_heap_zalloc_aligned((mi_heap_t *)m->heap, bytes, PCS_ALIGN);
}

void pcs_mem_destroy(pcs_mem *m)
{
    if (m->heap)
        mi_heap_destroy((mi_heap_t *)m->heap);
    m->heap = NULL;
}

#else

/* Each block carries a link to the previous one so destroy can free them all. */
typedef struct block {
    struct block *prev;
    unsigned char pad[PCS_ALIGN - sizeof(struct block *)];
} block;

int pcs_mem_init(pcs_mem *m)
{
    m->count = 0;
    m->bytes = 0;
    m->heap = NULL;
    return 0;
}

static void *raw_alloc(pcs_mem *m, size_t bytes)
{
    if (bytes > SIZE_MAX - sizeof(block) - PCS_ALIGN)
        return NULL;
    size_t total = (sizeof(block) + bytes + PCS_ALIGN - 1) / PCS_ALIGN * PCS_ALIGN;
    block *b = aligned_alloc(PCS_ALIGN, total);
    if (!b)
        return NULL;
    memset(b, 0, total);
    b->prev = m->heap;
    m->heap = b;
    return b + 1;
}

void pcs_mem_destroy(pcs_mem *m)
{
    block *b = m->heap;
    while (b) {
        block *prev = b->prev;
        free(b);
        b = prev;
    }
    m->heap = NULL;
}
#endif

void *pcs_mem_alloc(pcs_mem *m, size_t bytes)
{
    void *p = raw_alloc(m, bytes ? bytes : 1);
    if (p) {
        m->count++;
        m->bytes += bytes;
    }
    return p;
}

void *pcs_mem_array(pcs_mem *m, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return pcs_mem_alloc(m, n * size);
}

void *pcs_mem_regrow(pcs_mem *m, const void *old, size_t used, size_t n, size_t size)
{
    void *a = pcs_mem_array(m, n, size);
    if (a && used) {
        memcpy(a, old, used * size);
        POISON_STALE(old, used * size);
    }
    return a;
}

char *pcs_mem_strdup(pcs_mem *m, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = pcs_mem_alloc(m, n);
    if (d)
        memcpy(d, s, n);
    return d;
}
