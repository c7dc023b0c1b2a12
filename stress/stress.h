/**
 * @file stress.h
 * @brief A jcstress-style concurrency stress framework: actors, arbiter, outcome table.
 *
 * A stress test claims something about concurrent code ("every command is
 * applied exactly once") and lets threads race against it many times. Each run
 * ends in an outcome, an integer id the test defines in its outcome table
 * together with a grade:
 *
 *   ACCEPTABLE              the claim holds, nothing notable;
 *   ACCEPTABLE_INTERESTING  the claim holds, but a rare legal interleaving
 *                           happened (a full ring refused a command ...);
 *   FORBIDDEN               the claim is broken.
 *
 * The runner counts outcomes, prints the table as jcstress does, and fails the
 * test on any FORBIDDEN outcome or any id missing from the table. For ITERATION
 * tests it also reports in how many batches at least two actors truly ran at
 * the same time on different CPUs (actors are pinned round-robin to the CPUs
 * the process may use, as jcstress does): a clean table from batches that never overlapped
 * proves little. A test marked
 * expect_fail is a deliberately broken fixture: it passes when the runner sees
 * a FORBIDDEN (or unknown) outcome and FAILS when it does not, which proves the
 * framework can fail at all (and that the machine really ran actors in parallel).
 *
 * Two styles:
 *
 * ITERATION (jcstress proper). Fresh state per iteration. The runner allocates a
 * batch of `stride` states, calls init on each, releases the actor threads
 * through a spin barrier so they start together, and each actor runs its
 * function over every state of the batch in index order (so actor 0 and actor 1
 * meet on state i at about the same moment, as jcstress's strides do). After
 * the batch the arbiter looks at each state (all actors done: their writes are
 * visible) and returns its outcome id; then fini. Repeat until the time budget.
 *
 *     actor 0:  | barrier | s0 s1 s2 ... s(stride-1) | done |
 *     actor 1:  | barrier | s0 s1 s2 ... s(stride-1) | done |   arbiter(s0..)
 *
 * SOAK. One shared state, built by setup. Every actor loops until
 * pcs_stress_running() turns false (the runner stops them after the budget),
 * recording outcomes into its own counters with pcs_stress_record(): plain
 * per-thread increments, cheap enough for 1e8 torn-read checks. After the
 * actors are joined, finish() may record final outcomes (reconciliation: "all
 * accepted commands were applied"), then teardown. Per-thread counters are
 * summed in actor order.
 *
 * Threads: the runner creates one thread per actor (test tooling is allowed to
 * create threads; the library is not, outside exec/). Actor functions must not
 * block forever: a soak actor must poll pcs_stress_running() in its loop.
 */
#ifndef PCS_STRESS_H
#define PCS_STRESS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/** Most actors a test may declare. */
#define PCS_STRESS_MAX_ACTORS 8u
/** Outcome ids are 0 .. PCS_STRESS_MAX_OUTCOMES-1. */
#define PCS_STRESS_MAX_OUTCOMES 64u

/** How an outcome is judged. */
typedef enum pcs_stress_grade {
    PCS_STRESS_ACCEPTABLE = 0,
    PCS_STRESS_INTERESTING = 1, /**< printed as ACCEPTABLE_INTERESTING */
    PCS_STRESS_FORBIDDEN = 2,
} pcs_stress_grade;

/** One row of a test's outcome table. */
typedef struct pcs_stress_outcome {
    int id;                 /**< 0 .. PCS_STRESS_MAX_OUTCOMES-1, unique in the table */
    pcs_stress_grade grade; /**< how the runner judges it */
    const char *label;      /**< the observed result, e.g. "r1=0, r2=0" */
    const char *desc;       /**< what it means */
} pcs_stress_outcome;

typedef enum pcs_stress_style {
    PCS_STRESS_ITERATION = 0, /**< fresh state per iteration, arbiter per state */
    PCS_STRESS_SOAK = 1,      /**< shared state, actors loop and record */
} pcs_stress_style;

/**
 * Per-actor control block, owned by the runner. An actor may read its fields
 * and record outcomes; it must not share it with other threads.
 */
typedef struct pcs_stress_ctl {
    _Alignas(64) const _Atomic int *stop;     /**< set by the runner (soak) */
    unsigned actor;                           /**< this actor's index */
    uint64_t counts[PCS_STRESS_MAX_OUTCOMES]; /**< outcomes recorded by this thread */
    uint64_t unknown;                         /**< records with an id out of range */
    int unknown_id;                           /**< the last such id */
    char pad[64]; /**< keep neighbours' counters apart (size is a multiple of 64) */
} pcs_stress_ctl;

/** Soak actors: keep looping while this is true. One relaxed load. */
static inline int pcs_stress_running(const pcs_stress_ctl *ctl)
{
    return !atomic_load_explicit(ctl->stop, memory_order_relaxed);
}

/** Count one occurrence of outcome @p id in this actor's counters. */
static inline void pcs_stress_record(pcs_stress_ctl *ctl, int id)
{
    if (id >= 0 && (unsigned)id < PCS_STRESS_MAX_OUTCOMES) {
        ctl->counts[id]++;
    } else {
        ctl->unknown++;
        ctl->unknown_id = id;
    }
}

/** A CPU hint for spin loops (PAUSE on x86). */
static inline void pcs_stress_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    atomic_signal_fence(memory_order_seq_cst);
#endif
}

/** Actor body. ITERATION: @p state is one state of the batch. SOAK: the shared state. */
typedef void (*pcs_stress_actor_fn)(void *state, pcs_stress_ctl *ctl);

/** A stress test. Define one as a static const and register it with PCS_STRESS_REGISTER. */
typedef struct pcs_stress_test {
    const char *name;        /**< "group.name", unique */
    const char *description; /**< the claim under test, one sentence */
    pcs_stress_style style;
    int expect_fail;   /**< deliberately broken fixture: must be caught */
    int native_only;   /**< skipped under ThreadSanitizer: the effect needs the bare
                            hardware memory model, which TSan's atomics hide */
    double weight;     /**< share of the time budget (0 = 1.0) */
    unsigned n_actors; /**< 1 .. PCS_STRESS_MAX_ACTORS */
    pcs_stress_actor_fn actors[PCS_STRESS_MAX_ACTORS];
    const pcs_stress_outcome *outcomes;
    unsigned n_outcomes;

    /* ITERATION style */
    size_t state_size;           /**< bytes of one state (zeroed before init) */
    unsigned stride;             /**< states per batch; 0 = 64 */
    int (*init)(void *state);    /**< optional; nonzero = setup error (test fails) */
    int (*arbiter)(void *state); /**< outcome id of a finished state */
    void (*fini)(void *state);   /**< optional */

    /* SOAK style */
    void *(*setup)(void);                              /**< NULL return = setup error */
    void (*finish)(void *shared, pcs_stress_ctl *ctl); /**< optional, after join */
    void (*teardown)(void *shared);                    /**< optional */
} pcs_stress_test;

/** Add @p t to the runner's registry (called by PCS_STRESS_REGISTER before main). */
void pcs_stress_register(const pcs_stress_test *t);

/** Register a `static const pcs_stress_test` variable at program start. */
#define PCS_STRESS_REGISTER(var)                                                                   \
    __attribute__((constructor)) static void pcs_stress_register_##var(void)                       \
    {                                                                                              \
        pcs_stress_register(&(var));                                                               \
    }

/** Result of running one test. */
typedef struct pcs_stress_result {
    uint64_t counts[PCS_STRESS_MAX_OUTCOMES];
    uint64_t unknown;
    int unknown_id;
    uint64_t total;            /**< outcomes counted */
    uint64_t forbidden;        /**< outcomes graded FORBIDDEN */
    uint64_t unlisted;         /**< outcomes missing from the table (incl. out of range) */
    double seconds;            /**< wall time spent */
    int setup_error;           /**< init/setup failed */
    int failed;                /**< forbidden, unknown or setup error seen */
    int passed;                /**< verdict after expect_fail is applied */
    int skipped;               /**< native_only test in a TSan build: not run, counts as passed */
    uint64_t batches;          /**< ITERATION: batches run */
    uint64_t parallel_batches; /**< ... in which two actors overlapped on distinct CPUs */
    int inconclusive;          /**< expect_fail not caught, but too few parallel batches to tell */
} pcs_stress_result;

/**
 * An expect_fail ITERATION fixture that is not caught is a framework failure
 * only if its actors really ran in parallel in at least this many batches;
 * below it (one CPU, or a machine busy with other work) the run is reported
 * INCONCLUSIVE and not failed. SOAK fixtures can be caught by preemption alone
 * and are always judged strictly.
 */
#define PCS_STRESS_MIN_PARALLEL_BATCHES 2000u

/**
 * Run @p t for about @p budget_s seconds (stress/driver.c). An expect_fail
 * iteration test stops as soon as it is caught, and otherwise keeps trying for
 * up to 4 budgets before it is reported NOT caught.
 */
void pcs_stress_run(const pcs_stress_test *t, double budget_s, pcs_stress_result *res);

/** Judge the counts in @p res against @p t's table (sets forbidden, failed, passed). */
void pcs_stress_judge(const pcs_stress_test *t, pcs_stress_result *res);

/** Print the jcstress-style outcome table and the verdict to stdout. */
void pcs_stress_print(const pcs_stress_test *t, const pcs_stress_result *res);

/** True in a ThreadSanitizer build. */
#if defined(__SANITIZE_THREAD__)
#define PCS_STRESS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PCS_STRESS_TSAN 1
#endif
#endif
#ifndef PCS_STRESS_TSAN
#define PCS_STRESS_TSAN 0
#endif

/** Seconds on a monotonic clock. */
double pcs_stress_now(void);

#endif
