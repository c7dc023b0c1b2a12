/**
 * @file fork_child.h
 * @brief Run a piece of a test in a forked child and get its result back:
 *        a world built once (its primaries settled) is fresh in every child,
 *        so a test that needs the same station fresh several times builds
 *        it once.
 *
 * The child works on its copy of the process; the world it uses must have no
 * threads of its own (built with workers = 0), since a child has only the
 * thread that forked. The child calls no Criterion assertion (it would report
 * from the wrong process): it fills a fork_child_out, and the caller asserts
 * on that. The child leaves by _exit, so nothing it allocated is freed or
 * leak-checked.
 */
#ifndef PCS_TESTS_FORK_CHILD_H
#define PCS_TESTS_FORK_CHILD_H

#include <stdint.h>

#include "pcsim/status.h"

/** What a child reports: a status, a state hash and a message. */
typedef struct fork_child_out {
    pcs_status st;
    uint64_t hash;
    char msg[512];
} fork_child_out;

/**
 * Fork, run @p fn(ctx, out) in the child, and return what it put in out
 * (zeroed first). Asserts (in the caller's process) that the fork worked and
 * the child exited normally with its whole report.
 */
fork_child_out fork_child_run(void (*fn)(void *ctx, fork_child_out *out), void *ctx);

#endif
