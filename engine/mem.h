/**
 * @file mem.h
 * @brief Per-world build-time memory (internal).
 *
 * Release builds take every world array from a private mimalloc heap, freed in
 * one call when the world dies. Sanitizer builds (PCS_MEM_SYSTEM) use the C
 * allocator instead, so AddressSanitizer sees every array's bounds.
 * A mimalloc heap allocates only on the thread that created it: a world is
 * created, built and destroyed on one thread.
 */
#ifndef PCS_ENGINE_MEM_H
#define PCS_ENGINE_MEM_H

#include <stddef.h>
#include <stdint.h>

typedef struct pcs_mem {
    void *heap;        /**< mi_heap_t*, or the head of a block list (PCS_MEM_SYSTEM) */
    uint64_t count;    /**< allocations made */
    uint64_t bytes;    /**< bytes requested */
} pcs_mem;

int pcs_mem_init(pcs_mem *m);
/** Zeroed, 64-byte aligned; NULL on failure or size overflow. */
void *pcs_mem_alloc(pcs_mem *m, size_t bytes);
/** Zeroed array of n elements of size; NULL on overflow. */
void *pcs_mem_array(pcs_mem *m, size_t n, size_t size);
char *pcs_mem_strdup(pcs_mem *m, const char *s);
/* A new array of @p n elements holding the first @p used of @p old (the rest
 * zeroed), for registries that grow during the build. @p old stays in the
 * heap until destroy: build-time memory only. Under AddressSanitizer its
 * first @p used elements are poisoned, so a pointer kept into the old array
 * fails loudly. NULL when out of memory. */
void *pcs_mem_regrow(pcs_mem *m, const void *old, size_t used, size_t n, size_t size);
void pcs_mem_destroy(pcs_mem *m);

#endif
