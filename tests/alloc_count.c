/**
 * @file alloc_count.c
 * @brief Thread-local allocation counter behind alloc_count.h.
 */
#include <stddef.h>

#include "tests/alloc_count.h"

static _Thread_local int counting;
static _Thread_local uint64_t count;

#if defined(__SANITIZE_ADDRESS__)
/* Declared here: gcc does not ship allocator_interface.h; the runtime has it. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));

static void on_malloc(const volatile void *ptr, size_t size)
{
    (void)ptr;
    (void)size;
    if (counting)
        count++;
}

static void on_free(const volatile void *ptr)
{
    (void)ptr;
}

void pcs_test_alloc_begin(void)
{
    static int installed;
    if (!installed) {
        __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
        installed = 1;
    }
    count = 0;
    counting = 1;
}

#else
#include <mimalloc.h>

/* Every entry point is defined here so no pointer crosses allocators. */
void *malloc(size_t n)
{
    if (counting)
        count++;
    return mi_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    if (counting)
        count++;
    return mi_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    if (counting)
        count++;
    return mi_realloc(p, n);
}

void *aligned_alloc(size_t align, size_t n)
{
    if (counting)
        count++;
    return mi_aligned_alloc(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (counting)
        count++;
    return mi_posix_memalign(out, align, n);
}

void *memalign(size_t align, size_t n)
{
    if (counting)
        count++;
    return mi_memalign(align, n);
}

size_t malloc_usable_size(void *p)
{
    return mi_usable_size(p);
}

void free(void *p)
{
    mi_free(p);
}

void pcs_test_alloc_begin(void)
{
    count = 0;
    counting = 1;
}
#endif

uint64_t pcs_test_alloc_end(void)
{
    counting = 0;
    return count;
}
