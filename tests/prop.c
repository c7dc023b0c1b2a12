/**
 * @file prop.c
 * @brief The property runner of prop.h: choice recording, generation,
 *        shrinking passes, fork isolation and the failure report.
 */
#include "tests/prop.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROP_NOTES_MAX (4u * PROP_MSG_MAX)
#define PROP_FAIL_EXIT 3 /* child exit code for "property returned nonzero" */
#define PROP_MAX_SPANS 256u

/* One run's state. Lives in a MAP_SHARED page so an isolated child's choices,
 * message and notes are visible to the parent even if the child dies. */
struct prop {
    uint64_t rng[4];
    int generating;
    int final;
    const uint64_t *replay; /* choices to replay when !generating */
    size_t replay_len;
    size_t n; /* choices consumed */
    uint64_t buf[PROP_MAX_CHOICES];
    char msg[PROP_MSG_MAX];
    char notes[PROP_NOTES_MAX];
    size_t notes_len;
    uint32_t spans[PROP_MAX_SPANS][2]; /* [start, end) of closed examples */
    uint32_t n_spans;
    uint32_t open[PROP_MAX_SPANS]; /* starts of open examples */
    uint32_t n_open;
};

/* ---- random source: splitmix64 seeds xoshiro256** (Vigna, prng.di.unimi.it) ---- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t xoshiro_next(uint64_t s[4])
{
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

static void rng_seed(uint64_t s[4], uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        s[i] = splitmix64(&seed);
}

/* ---- draws ---- */

/* A fresh choice in [0, max]. Uniform draws rarely hit a range's ends, where
 * bugs live, so 1/16 of draws take 0, 1/16 take max and 1/8 a small offset. */
static uint64_t generate(prop *p, uint64_t max)
{
    uint64_t sel = xoshiro_next(p->rng) & 15u, r = xoshiro_next(p->rng);
    if (sel == 0)
        return 0;
    if (sel == 1)
        return max;
    if (sel <= 3)
        return max < 16 ? r % (max + 1) : r % 17;
    return max == UINT64_MAX ? r : r % (max + 1);
}

static uint64_t draw(prop *p, uint64_t max)
{
    if (p->n >= PROP_MAX_CHOICES)
        return 0; /* cut off: the rest of the case takes the simplest values */
    uint64_t v;
    if (p->generating)
        v = generate(p, max);
    else
        v = p->n < p->replay_len ? p->replay[p->n] : 0;
    if (v > max)
        v = max; /* a shrink pass raised it past this draw's range */
    p->buf[p->n++] = v;
    return v;
}

int64_t prop_int(prop *p, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    return (int64_t)((uint64_t)lo + draw(p, (uint64_t)hi - (uint64_t)lo));
}

uint64_t prop_u64(prop *p, uint64_t max)
{
    return draw(p, max);
}

double prop_double(prop *p, double lo, double hi)
{
    const uint64_t steps = 1ull << 32;
    uint64_t v = draw(p, steps);
    return v == steps ? hi : lo + (hi - lo) * ((double)v / (double)steps);
}

int prop_bool(prop *p)
{
    return (int)draw(p, 1);
}

void prop_bytes(prop *p, void *out, size_t n)
{
    unsigned char *b = out;
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)draw(p, 255);
}

uint32_t prop_pick(prop *p, uint32_t n)
{
    return n <= 1 ? 0 : (uint32_t)draw(p, n - 1u);
}

void prop_span_begin(prop *p)
{
    if (p->n_open < PROP_MAX_SPANS)
        p->open[p->n_open] = (uint32_t)p->n;
    p->n_open++;
}

void prop_span_end(prop *p)
{
    if (p->n_open == 0)
        return;
    p->n_open--;
    if (p->n_open < PROP_MAX_SPANS && p->n_spans < PROP_MAX_SPANS && p->open[p->n_open] < p->n) {
        p->spans[p->n_spans][0] = p->open[p->n_open];
        p->spans[p->n_spans][1] = (uint32_t)p->n;
        p->n_spans++;
    }
}

void prop_note(prop *p, const char *fmt, ...)
{
    if (p->notes_len + 2 >= PROP_NOTES_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(p->notes + p->notes_len, PROP_NOTES_MAX - p->notes_len - 1, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    p->notes_len += (size_t)k;
    if (p->notes_len > PROP_NOTES_MAX - 2)
        p->notes_len = PROP_NOTES_MAX - 2;
    p->notes[p->notes_len++] = '\n';
    p->notes[p->notes_len] = '\0';
}

int prop_fail(prop *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg, sizeof p->msg, fmt, ap);
    va_end(ap);
    return 1;
}

int prop_final(const prop *p)
{
    return p->final;
}

/* ---- one run of the property ---- */

typedef struct runner {
    const prop_config *cfg;
    prop_fn fn;
    void *ctx;
    prop *p; /* shared page */
    uint32_t runs;
} runner;

static void run_reset(prop *p, int final)
{
    p->final = final;
    p->n = 0;
    p->msg[0] = '\0';
    p->notes[0] = '\0';
    p->notes_len = 0;
    p->n_spans = 0;
    p->n_open = 0;
}

static int run_child(runner *r)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return prop_fail(r->p, "fork failed");
    if (pid == 0) {
        signal(SIGALRM, SIG_DFL);
        if (!r->p->final) {
            int devnull = open("/dev/null", O_WRONLY);
            if (devnull >= 0)
                dup2(devnull, STDERR_FILENO);
        }
        alarm(r->cfg->timeout_s);
        int failed = r->fn(r->p, r->ctx);
        _exit(failed ? PROP_FAIL_EXIT : 0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == PROP_FAIL_EXIT)
        return 1;
    char why[128];
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(why, sizeof why, "timed out after %u s", r->cfg->timeout_s);
    else if (WIFSIGNALED(status))
        snprintf(why, sizeof why, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(why, sizeof why, "exited with status %d (a sanitizer report?)",
                 WEXITSTATUS(status));
    char prev[PROP_MSG_MAX];
    memcpy(prev, r->p->msg, sizeof prev);
    prev[sizeof prev - 1] = '\0';
    size_t k = (size_t)snprintf(r->p->msg, sizeof r->p->msg, "%s", why);
    if (prev[0] && k < sizeof r->p->msg)
        (void)!snprintf(r->p->msg + k, sizeof r->p->msg - k, "; last message: %.900s", prev);
    return 1;
}

/* Run the property once, generating from @p seed or replaying @p buf. */
static int run_once(runner *r, int generating, uint64_t seed, const uint64_t *buf, size_t len,
                    int final)
{
    prop *p = r->p;
    run_reset(p, final);
    p->generating = generating;
    rng_seed(p->rng, seed);
    p->replay = buf;
    p->replay_len = len;
    r->runs++;
    return r->cfg->isolate ? run_child(r) : (r->fn(p, r->ctx) != 0);
}

/* ---- shrinking ---- */

typedef struct shrinker {
    runner *r;
    uint64_t cur[PROP_MAX_CHOICES];
    size_t n;
    uint64_t cand[PROP_MAX_CHOICES];
    uint32_t spans[PROP_MAX_SPANS][2]; /* examples of cur's run */
    uint32_t n_spans;
    uint32_t budget_left;
    uint32_t accepted;
    char first_msg[PROP_MSG_MAX]; /* the failure being shrunk */
} shrinker;

static int shortlex_less(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    if (na != nb)
        return na < nb;
    for (size_t i = 0; i < na; i++)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* Two failure messages name the same failure when they differ only in
 * numbers: "sum 1100 >= 1000" is "sum 1000 >= 1000", but a refused load is
 * not a crash. Shrinking keeps to the failure first found, so a simpler but
 * different failure does not take its place halfway (Hypothesis does the
 * same, by exception type and location). */
static int same_failure(const char *a, const char *b)
{
    for (;;) {
        while (*a >= '0' && *a <= '9')
            a++;
        while (*b >= '0' && *b <= '9')
            b++;
        if (*a != *b)
            return 0;
        if (!*a)
            return 1;
        a++;
        b++;
    }
}

/* Run cand[0..len); keep what it consumed if it still fails the same way and is simpler. */
static int try_cand(shrinker *s, size_t len)
{
    if (s->budget_left == 0)
        return 0;
    s->budget_left--;
    if (!run_once(s->r, 0, 0, s->cand, len, 0))
        return 0;
    const prop *p = s->r->p;
    if (!shortlex_less(p->buf, p->n, s->cur, s->n) || !same_failure(p->msg, s->first_msg))
        return 0;
    memcpy(s->cur, p->buf, p->n * sizeof *p->buf);
    s->n = p->n;
    memcpy(s->spans, p->spans, p->n_spans * sizeof p->spans[0]);
    s->n_spans = p->n_spans;
    s->accepted++;
    return 1;
}

static void cand_from_cur(shrinker *s)
{
    memcpy(s->cand, s->cur, s->n * sizeof *s->cur);
}

/* Delete cur[i, i+k); if that passes, also try it with one of the @p back
 * choices before i lowered by one (the length of the list the chunk was in). */
static int try_delete(shrinker *s, size_t i, size_t k, size_t back)
{
    if (i + k > s->n || k == 0)
        return 0;
    size_t len = s->n - k;
    cand_from_cur(s);
    memmove(s->cand + i, s->cand + i + k, (s->n - i - k) * sizeof *s->cand);
    if (try_cand(s, len))
        return 1;
    for (size_t j = i; j-- > 0 && j + back >= i && s->budget_left;) {
        if (s->cur[j] == 0)
            continue;
        cand_from_cur(s);
        memmove(s->cand + i, s->cand + i + k, (s->n - i - k) * sizeof *s->cand);
        s->cand[j]--;
        if (try_cand(s, len))
            return 1;
    }
    return 0;
}

static int pass_delete_spans(shrinker *s)
{
    int progress = 0;
    for (uint32_t q = s->n_spans; q-- > 0 && s->budget_left;) {
        if (q >= s->n_spans) /* an accepted deletion changed the examples */
            continue;
        size_t i = s->spans[q][0], k = s->spans[q][1] - s->spans[q][0];
        progress |= try_delete(s, i, k, 8);
    }
    return progress;
}

/* Zero a whole example: every draw in it takes its simplest value. */
static int pass_zero_spans(shrinker *s)
{
    int progress = 0;
    for (uint32_t q = 0; q < s->n_spans && s->budget_left; q++) {
        size_t i = s->spans[q][0], k = s->spans[q][1] - s->spans[q][0];
        if (i + k > s->n)
            continue;
        int any = 0;
        for (size_t j = i; j < i + k; j++)
            any |= s->cur[j] != 0;
        if (!any)
            continue;
        cand_from_cur(s);
        memset(s->cand + i, 0, k * sizeof *s->cand);
        progress |= try_cand(s, s->n);
    }
    return progress;
}

static int pass_delete(shrinker *s)
{
    int progress = 0;
    static const size_t ks[] = {8, 4, 2, 1};
    for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++) {
        size_t k = ks[q];
        for (size_t i = s->n >= k ? s->n - k + 1 : 0; i-- > 0 && s->budget_left;)
            progress |= try_delete(s, i, k, 1);
    }
    return progress;
}

static int pass_zero(shrinker *s)
{
    int progress = 0;
    static const size_t ks[] = {8, 4, 2};
    for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++) {
        size_t k = ks[q];
        for (size_t i = 0; i + k <= s->n && s->budget_left; i++) {
            int any = 0;
            for (size_t j = i; j < i + k; j++)
                any |= s->cur[j] != 0;
            if (!any)
                continue;
            cand_from_cur(s);
            memset(s->cand + i, 0, k * sizeof *s->cand);
            progress |= try_cand(s, s->n);
        }
    }
    return progress;
}

/* Set choice i to v and try; the binary searches assume "fails" is monotone in v. */
static int try_value(shrinker *s, size_t i, uint64_t v)
{
    cand_from_cur(s);
    s->cand[i] = v;
    return try_cand(s, s->n);
}

static int pass_minimise(shrinker *s)
{
    int progress = 0;
    for (size_t i = 0; i < s->n && s->budget_left; i++) {
        if (s->cur[i] == 0)
            continue;
        if (try_value(s, i, 0)) {
            progress = 1;
            continue;
        }
        uint64_t lo = 0, hi = s->cur[i]; /* lo passes, hi fails */
        while (lo + 1 < hi && s->budget_left && i < s->n && s->cur[i] == hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (try_value(s, i, mid)) {
                hi = mid;
                progress = 1;
            } else {
                lo = mid;
            }
        }
    }
    return progress;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int pass_sort(shrinker *s)
{
    int progress = 0;
    for (size_t k = 2; k <= 8; k++)
        for (size_t i = 0; i + k <= s->n && s->budget_left; i++) {
            cand_from_cur(s);
            qsort(s->cand + i, k, sizeof *s->cand, cmp_u64);
            if (memcmp(s->cand + i, s->cur + i, k * sizeof *s->cand) != 0)
                progress |= try_cand(s, s->n);
        }
    return progress;
}

/* Lower choice i by d and raise choice j by d: the largest d that still fails. */
static int try_move(shrinker *s, size_t i, size_t j, uint64_t d)
{
    if (s->cur[j] > UINT64_MAX - d)
        return 0;
    cand_from_cur(s);
    s->cand[i] -= d;
    s->cand[j] += d;
    return try_cand(s, s->n);
}

static int pass_redistribute(shrinker *s)
{
    int progress = 0;
    for (size_t i = 0; i < s->n && s->budget_left; i++)
        for (size_t j = i + 1; j < s->n && j <= i + 16 && s->budget_left; j++) {
            uint64_t have = s->cur[i];
            if (have == 0)
                break;
            if (try_move(s, i, j, have)) {
                progress = 1;
                continue;
            }
            uint64_t lo = 0, hi = have; /* lo: moving lo fails (trivially 0), hi: passes */
            while (lo + 1 < hi && s->budget_left && i < s->n && j < s->n && s->cur[i] == have) {
                uint64_t mid = lo + (hi - lo) / 2;
                if (try_move(s, i, j, mid)) {
                    progress = 1;
                    break; /* the buffer changed: restart from its new values */
                }
                hi = mid;
            }
        }
    return progress;
}

static void shrink(shrinker *s)
{
    int progress = 1;
    while (progress && s->budget_left) {
        progress = 0;
        /* Examples first, then values (a run each), then the blind chunk
         * deletions, which waste most runs when a case draws a fixed number
         * of choices (the deleted tail comes back as zeros). */
        progress |= pass_zero_spans(s);
        progress |= pass_delete_spans(s);
        progress |= pass_zero(s);
        progress |= pass_minimise(s);
        progress |= pass_delete(s);
        progress |= pass_sort(s);
        progress |= pass_redistribute(s);
    }
}

/* ---- the runner ---- */

void prop_config_default(prop_config *cfg, const char *name)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->name = name;
    cfg->cases = 100;
    cfg->base_seed = PROP_BASE_SEED;
    cfg->max_shrink_runs = 2000;
    cfg->timeout_s = 10;
}

static uint64_t case_seed(const prop_config *cfg, uint32_t i)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a of the name */
    for (const char *c = cfg->name; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    uint64_t x = cfg->base_seed ^ h ^ ((uint64_t)i << 32);
    return splitmix64(&x);
}

static int env_u64(const char *name, uint64_t *out)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    char *end = NULL;
    unsigned long long x = strtoull(v, &end, 0);
    if (*end)
        return 0;
    *out = (uint64_t)x;
    return 1;
}

static void report(const prop_config *cfg, const prop_result *res, const shrinker *s, const prop *p)
{
    fprintf(stderr, "prop '%s' FAILED on case %u, seed %llu\n", cfg->name, res->cases_run,
            (unsigned long long)res->seed);
    fprintf(stderr, "  rerun that case: PCS_PROP_SEED=%llu <test binary> --filter <this test>\n",
            (unsigned long long)res->seed);
    fprintf(stderr, "  shrunk (%u accepted of %u runs) to %zu choices: [", res->shrinks,
            res->shrink_runs, s->n);
    for (size_t i = 0; i < s->n && i < 256; i++)
        fprintf(stderr, "%s%llu", i ? ", " : "", (unsigned long long)s->cur[i]);
    fprintf(stderr, "%s]\n  failure: %s\n", s->n > 256 ? ", ..." : "", res->message);
    if (!p->notes_len)
        return;
    fprintf(stderr, "  the shrunk case:\n");
    for (const char *line = p->notes; *line;) {
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        fprintf(stderr, "    %.*s\n", len, line);
        line += len + (end != NULL);
    }
}

/* Shrink the failing case in r->p, replay the result once (final) and report it. */
static void on_failure(runner *r, prop_result *res, shrinker *s)
{
    s->r = r;
    s->n = r->p->n;
    memcpy(s->cur, r->p->buf, s->n * sizeof *s->cur);
    s->n_spans = r->p->n_spans;
    memcpy(s->spans, r->p->spans, s->n_spans * sizeof s->spans[0]);
    s->accepted = 0;
    memcpy(s->first_msg, r->p->msg, sizeof s->first_msg);
    s->budget_left = r->cfg->max_shrink_runs;
    uint32_t runs_before = r->runs;
    shrink(s);
    res->shrink_runs = r->runs - runs_before;
    res->shrinks = s->accepted;
    memcpy(s->cand, s->cur, s->n * sizeof *s->cur);
    if (!run_once(r, 0, 0, s->cand, s->n, 1))
        snprintf(r->p->msg, sizeof r->p->msg, "(the shrunk case passed when replayed: flaky)");
    res->n_choices = (uint32_t)s->n;
    for (size_t i = 0; i < s->n && i < 64; i++)
        res->choices[i] = s->cur[i];
    snprintf(res->message, sizeof res->message, "%s", r->p->msg);
    if (!r->cfg->quiet)
        report(r->cfg, res, s, r->p);
}

int prop_check(const prop_config *cfg, prop_fn fn, void *ctx, prop_result *out)
{
    prop_result local;
    prop_result *res = out ? out : &local;
    memset(res, 0, sizeof *res);
    prop *p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    shrinker *s = malloc(sizeof *s);
    if (p == MAP_FAILED || !s) {
        snprintf(res->message, sizeof res->message, "prop_check: out of memory");
        free(s);
        res->failed = 1;
        return 1;
    }
    runner r = {.cfg = cfg, .fn = fn, .ctx = ctx, .p = p};
    uint64_t cases = cfg->cases, one_seed = 0;
    int single = env_u64("PCS_PROP_SEED", &one_seed);
    env_u64("PCS_PROP_CASES", &cases);
    for (uint32_t i = 0; i < (single ? 1u : cases); i++) {
        uint64_t seed = single ? one_seed : case_seed(cfg, i);
        res->cases_run = i + 1;
        if (run_once(&r, 1, seed, NULL, 0, 0)) {
            res->failed = 1;
            res->seed = seed;
            on_failure(&r, res, s);
            break;
        }
    }
    munmap(p, sizeof *p);
    free(s);
    return res->failed;
}
