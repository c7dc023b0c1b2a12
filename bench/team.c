/**
 * @file team.c
 * @brief Worker threads for multi-threaded benchmarks: rounds started and awaited.
 *
 * Members sleep on a condition variable between rounds rather than spin: on a
 * machine with few cores a spinning member would steal the time the harness
 * thread is measuring. The wake-up cost (tens of microseconds) is paid once
 * per run() call, which the harness sizes to about a millisecond.
 */
#include <pthread.h>
#include <stdlib.h>

#include "bench/bench.h"

struct pcs_bench_team {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* round started or stop */
    pthread_cond_t idle; /* a member finished its round */
    uint64_t round;      /* rounds started */
    unsigned finished;   /* members done with the current round */
    uint64_t n_each;
    int stop;
    pcs_bench_team_fn fn;
    void *ctx;
    unsigned n; /* members running */
    pthread_t *threads;
    struct member_arg *args; /* outlive the members; freed at stop */
};

typedef struct member_arg {
    pcs_bench_team *t;
    unsigned idx;
} member_arg;

static void *member(void *p)
{
    member_arg *a = p;
    pcs_bench_team *t = a->t;
    uint64_t seen = 0;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (!t->stop && t->round == seen)
            pthread_cond_wait(&t->wake, &t->lock);
        if (t->stop)
            break;
        seen = t->round;
        uint64_t n = t->n_each;
        pthread_mutex_unlock(&t->lock);
        t->fn(t->ctx, a->idx, n);
        pthread_mutex_lock(&t->lock);
        if (++t->finished == t->n)
            pthread_cond_signal(&t->idle);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

pcs_bench_team *pcs_bench_team_start(unsigned n_threads, pcs_bench_team_fn fn, void *ctx)
{
    if (n_threads == 0 || n_threads > 256 || !fn)
        return NULL;
    pcs_bench_team *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->wake, NULL);
    pthread_cond_init(&t->idle, NULL);
    t->fn = fn;
    t->ctx = ctx;
    t->threads = calloc(n_threads, sizeof *t->threads);
    t->args = calloc(n_threads, sizeof *t->args);
    for (unsigned i = 0; t->threads && t->args && i < n_threads; i++) {
        t->args[i] = (member_arg){.t = t, .idx = i};
        if (pthread_create(&t->threads[i], NULL, member, &t->args[i]) != 0)
            break;
        t->n++;
    }
    if (t->n != n_threads) {
        pcs_bench_team_stop(t);
        return NULL;
    }
    return t;
}

void pcs_bench_team_go(pcs_bench_team *t, uint64_t n_each)
{
    pthread_mutex_lock(&t->lock);
    t->n_each = n_each;
    t->finished = 0;
    t->round++;
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->lock);
}

void pcs_bench_team_wait(pcs_bench_team *t)
{
    pthread_mutex_lock(&t->lock);
    while (t->finished < t->n)
        pthread_cond_wait(&t->idle, &t->lock);
    pthread_mutex_unlock(&t->lock);
}

void pcs_bench_team_stop(pcs_bench_team *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->lock);
    t->stop = 1;
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->lock);
    for (unsigned i = 0; i < t->n; i++)
        pthread_join(t->threads[i], NULL);
    pthread_cond_destroy(&t->idle);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
    free(t->threads);
    free(t->args);
    free(t);
}
