/**
 * @file thread.c
 * @brief pcs_thread: the one place host helper threads are created (see thread.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/profile.h"
#include "pcsim/thread.h"

struct pcs_thread {
    pthread_t handle;
    void (*fn)(void *arg);
    void *arg;
    char name[32]; /* its trace track's name (pcs_profile_trace_thread_name copies it) */
};

static void *trampoline(void *p)
{
    pcs_thread *t = p;
    if (t->name[0]) /* thread-local only: a trace session started later names the track */
        pcs_profile_trace_thread_name(t->name);
    t->fn(t->arg);
    return NULL;
}

pcs_status pcs_thread_start(const char *name, void (*fn)(void *arg), void *arg,
                            pcs_thread **out)
{
    if (!fn || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_thread_start: fn or out is NULL");
    pcs_thread *t = calloc(1, sizeof *t);
    if (!t)
        return pcs_error_set(PCS_E_NOMEM, "pcs_thread_start: out of memory");
    t->fn = fn;
    t->arg = arg;
    if (name)
        snprintf(t->name, sizeof t->name, "%s", name);
    int rc = pthread_create(&t->handle, NULL, trampoline, t);
    if (rc != 0) {
        free(t);
        return pcs_error_set(PCS_E_STATE, "pcs_thread_start: cannot create thread '%s': %s",
                             name ? name : "?", strerror(rc));
    }
    if (name) {
        char short_name[16];
        strncpy(short_name, name, sizeof short_name - 1);
        short_name[15] = '\0';
        pthread_setname_np(t->handle, short_name);
    }
    *out = t;
    return PCS_OK;
}

void pcs_thread_join(pcs_thread *t)
{
    if (!t)
        return;
    pthread_join(t->handle, NULL);
    free(t);
}
