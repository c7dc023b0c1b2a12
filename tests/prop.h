/**
 * @file prop.h
 * @brief A small property-based test runner (Hypothesis-style choice
 *        sequences, shrinking, seed replay) for the Criterion tests.
 *
 * Debian packages no C property-testing library, so this is the part of one
 * the tests need.
 *
 * How a case is made. A property is a function that draws its inputs through
 * prop_int / prop_u64 / prop_double / prop_bool / prop_bytes and returns
 * nonzero (prop_fail) when the property does not hold. Every draw consumes
 * one *choice*: a uint64 already reduced to the draw's range, recorded in the
 * case's choice buffer. When a case is generated the choices come from a
 * xoshiro256** stream seeded (through splitmix64) by the case seed; they lean
 * on the range's ends and small offsets now and then, since bugs live there.
 * When a case is replayed the choices come from a buffer; a draw past its end
 * gets 0. Choice 0 is always the simplest value of a draw (lo for integers
 * and doubles, false, byte 0), so "smaller buffer" means "simpler case".
 *
 * How a failure shrinks. The runner mutates the failing buffer and re-runs the
 * property on each candidate, keeping a candidate only if the property still
 * fails the same way (its message differs only in numbers) and the buffer it
 * actually consumed is smaller in shortlex order (shorter, or as long and
 * lexicographically smaller). The passes, repeated
 * until none makes progress or the run budget (max_shrink_runs) is spent:
 *   - zero whole examples marked with prop_span_begin/end, then delete them
 *     (also with one of the 8 choices before the example lowered by one:
 *     usually the length of the list it is in);
 *   - zero chunks of 8, 4, 2 choices;
 *   - minimise each choice: try 0, then binary search for the smallest value
 *     that still fails (halving steps);
 *   - delete chunks of 8, 4, 2, 1 choices (also with the choice just before
 *     lowered by one);
 *   - sort windows of 2..8 choices ascending;
 *   - move value between two choices (lower one, raise a later one by the
 *     same amount), so "a + b >= 1000" reaches a single 1000.
 * Because a property reads choices in order, deleting or lowering choices
 * removes list elements, commands, corruptions and so on without the
 * property knowing anything about shrinking.
 *
 * Reproducing. On failure the runner prints, to stderr: the property's name,
 * the case number and its seed, the shrunk choice buffer, the failure message
 * and the notes (prop_note) of a final replay of the shrunk case, and how to
 * rerun it:  PCS_PROP_SEED=<seed> ./build/pcsim-tests --filter 'suite/test'
 * reruns exactly that case (then shrinks it again). PCS_PROP_CASES=<n>
 * overrides the number of cases of every property. Without them the runner is
 * deterministic: case i's seed is a splitmix64 mix of the fixed base seed,
 * the property's name and i, so `make test` runs the same cases every time.
 *
 * Isolation. With cfg.isolate set, every run of the property (each case,
 * each shrink candidate) happens in a forked child with an alarm of
 * cfg.timeout_s: a crash, sanitizer abort or hang is then a failure that
 * shrinks like any other ("signal 11", "timed out after 5 s"). The child
 * starts from a copy of the parent, so state built once before prop_check
 * (a world, a save image) is pristine in every run; its stderr is silenced
 * except in the final replay, so a sanitizer report shows once, for the
 * shrunk case. The world must have no threads of its own across the fork
 * (build it with workers = 0). Without isolation the property runs in the
 * calling process and must leave no state behind between runs.
 *
 * A property must not call cr_assert (it would stop the runner, or report
 * from a child); it returns prop_fail(p, "what, where, value") instead.
 * Thread-safety: one prop_check per thread; a prop handle is not shared.
 */
#ifndef PCS_TESTS_PROP_H
#define PCS_TESTS_PROP_H

#include <stddef.h>
#include <stdint.h>

typedef struct prop prop;

/** Longest choice buffer a case may consume; a longer case is cut off (draws get 0). */
#define PROP_MAX_CHOICES 4096u
/** Longest failure message and note text kept per run. */
#define PROP_MSG_MAX 1024u

/**
 * A property: draw inputs from @p p, return 0 when it holds, nonzero
 * (normally prop_fail's return) when it does not.
 */
typedef int (*prop_fn)(prop *p, void *ctx);

/** Runner settings. Start from prop_config_default(). */
typedef struct prop_config {
    const char *name;         /**< for messages and the seed mix; required */
    uint32_t cases;           /**< cases to generate; default 100 (PCS_PROP_CASES overrides) */
    uint64_t base_seed;       /**< default PROP_BASE_SEED */
    uint32_t max_shrink_runs; /**< property runs spent shrinking; default 2000 */
    int isolate;              /**< fork per run (crash/hang = failure); default 0 */
    unsigned timeout_s;       /**< per-run alarm when isolated; default 10 */
    int quiet;                /**< 1: print nothing on failure (runner self-tests) */
} prop_config;

#define PROP_BASE_SEED 0x9e3779b97f4a7c15ull

/** What prop_check found. */
typedef struct prop_result {
    int failed;                 /**< 1 if a failing case was found */
    uint32_t cases_run;         /**< cases generated (including the failing one) */
    uint64_t seed;              /**< seed of the failing case */
    uint32_t shrink_runs;       /**< property runs spent shrinking */
    uint32_t shrinks;           /**< candidates accepted */
    uint32_t n_choices;         /**< length of the shrunk buffer */
    uint64_t choices[64];       /**< its first 64 choices */
    char message[PROP_MSG_MAX]; /**< failure message of the shrunk case */
} prop_result;

/** Defaults above, with @p name. */
void prop_config_default(prop_config *cfg, const char *name);

/**
 * Run @p fn on cfg->cases generated cases (or the one case PCS_PROP_SEED
 * names); on the first failure shrink it, replay the shrunk case once more
 * (its notes and, isolated, its stderr are shown) and print the report.
 * Without isolation, @p ctx holds what the final replay left in it.
 * @return 0 if every case passed, 1 if a case failed (details in @p out, may be NULL).
 */
int prop_check(const prop_config *cfg, prop_fn fn, void *ctx, prop_result *out);

/** Integer in [lo, hi] (lo <= hi); shrinks toward lo. */
int64_t prop_int(prop *p, int64_t lo, int64_t hi);
/** Unsigned integer in [0, max]; shrinks toward 0. */
uint64_t prop_u64(prop *p, uint64_t max);
/** Double in [lo, hi] on a 2^32-step grid, ends included; shrinks toward lo. */
double prop_double(prop *p, double lo, double hi);
/** 0 or 1; shrinks toward 0. */
int prop_bool(prop *p);
/** @p n bytes, one choice each; shrink toward 0. */
void prop_bytes(prop *p, void *out, size_t n);
/** Index into a table of @p n entries (n >= 1); shrinks toward 0. */
uint32_t prop_pick(prop *p, uint32_t n);

/**
 * Mark the choices drawn between begin and end as one example (a list
 * element, a command, a corruption). The shrinker tries deleting whole
 * examples (also with one of the 8 choices before it lowered by one: the
 * list's length, usually) and zeroing them. Spans nest; unbalanced ends are
 * ignored.
 */
void prop_span_begin(prop *p);
void prop_span_end(prop *p);

/** Record a line describing the case (printed for the shrunk case only). */
void prop_note(prop *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Record the failure message; @return 1, for `return prop_fail(...)`. */
int prop_fail(prop *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** 1 during the final replay of a shrunk failing case (for extra diagnostics). */
int prop_final(const prop *p);

#endif
