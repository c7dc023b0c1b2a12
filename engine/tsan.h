/**
 * @file tsan.h
 * @brief Happens-before annotations for code ThreadSanitizer cannot see (internal).
 *
 * ck's ring indices are published with inline assembly, which TSan does not
 * instrument, so it would report the plain copies of ring slots as races. In
 * TSan builds we declare the edge ck's barriers provide: every ring operation
 * acquires the ring's sync address before touching a slot and releases it
 * after, on both the producer and the consumer side. That covers the
 * producer-write -> consumer-read edge and the consumer-read -> producer-reuse
 * edge. It never suppresses a report; elsewhere the build is plain C11 atomics.
 */
#ifndef PCS_ENGINE_TSAN_H
#define PCS_ENGINE_TSAN_H

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PCS_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define PCS_TSAN 1
#endif

#ifdef PCS_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define PCS_TSAN_ACQUIRE(addr) __tsan_acquire((void *)(addr))
#define PCS_TSAN_RELEASE(addr) __tsan_release((void *)(addr))
#else
#define PCS_TSAN_ACQUIRE(addr) ((void)0)
#define PCS_TSAN_RELEASE(addr) ((void)0)
#endif

#endif
