/**
 * @file structure.c
 * @brief Structural change while the world runs (pcsim/structure.h):
 *        structural kinds, the stage-1 check and queue, the apply after
 *        stage 13, the commit, the structure log and its replay.
 *
 * Stage 1. A structural kind owns its command kind the way a plain handler
 * does (w->handlers[kind], so the drain in command.c needs nothing new): its
 * handler is accept_or_reject below, which refuses when the log could not
 * take the change (the log bounds every applied change, so a change that
 * could not be logged is never accepted), runs the kind's check, and queues
 * what it accepted. command.c journals an accepted command and emits
 * command_rejected for a refused one, as for any command.
 *
 * After stage 13 and the plugins' after_step (world.c,
 * apply_structural_changes), the queue is applied in drain order with
 * w->amending set, which pcs_world_check_build lets through, and the world
 * commits once: the run order without retired systems and the same-stage
 * conflict check of the new ones (system.c), retired jobs unbound (job.c),
 * the parallel sections again (par_stage.c), the layout version, the log,
 * the observers. An apply that fails stops the queue: the changes applied
 * before it are logged and committed (nothing is rolled back, world.c) and
 * the tick fails with a message naming the command; the changes queued
 * after it stay queued, and the retry of the tick applies them.
 *
 * Retried ticks. A failed tick is retried at the same tick number, and
 * nothing it did is rolled back (world.c). An ordinary command drained by
 * the failed attempt keeps its effect and its journal entry and is not
 * drained again; a structural change accepted by it is in the same
 * position: journaled, its model holding it pending (a pump's one change
 * per tick, unit_add's next unit), so it stays queued and is neither
 * checked nor journaled again. Its apply is still to come, so it is the
 * retry that applies it, in drain order, before the retry's own changes
 * (they were drained later). The event its check emitted announces the
 * change, but the failed attempt's list was discarded (event.c: a failed
 * tick delivers and commits nothing, unless the failure came after stage
 * 13's delivery). The check runs as the kind's handler, so its events are
 * kept like any command's (engine/command_carry.c), and every later
 * attempt's stage 1 emits them again before its drain: the attempt that
 * succeeds holds each change's announcement exactly once, at its drain
 * position among the tick's commands, in its delivered and committed list,
 * as a run without the failure (or a replay of the journal) would. That
 * holds for a change applied by a failed attempt before its apply failed
 * too (it is in the journal); the change whose apply failed leaves the
 * journal and its events leave the carry with it.
 *
 * Failed applies. The change whose apply failed was journaled at its
 * drain like the others, but it is not applied and not logged, and the
 * model that refused it has forgotten it (its apply ran). Left in the
 * journal, a replay would apply it (the failure was the world's lack of
 * room, not the command) and its log and hash would differ from the run's.
 * So its entry is withdrawn from the journal (command.c: the slot is kept
 * and skipped by every read), and the journal and the log both hold what
 * was applied. A replay reproduces the run only if the failing apply left
 * the world as it found it (what it did register is committed with the
 * rest, and a replay, whose apply succeeds, cannot make the same half), and
 * if running the failed attempt's stages again changed nothing (world.c's
 * rule: the retry runs every stage again, so a run whose stages integrate
 * is not reproduced by a replay whatever the journal says).
 *
 * Memory. The state (observers, layout version) is allocated at the first
 * structural kind or observer; the queue (commands_per_tick entries) and the
 * log (structure_log_capacity entries) at the first kind. The queue cannot
 * overflow: stage 1 drains at most commands_per_tick commands, and a failed
 * tick's queue (applied by the retry) makes the retry refuse what does not
 * fit. A load drops the queue (its changes were checked against the
 * world the load replaced). A tick with an empty queue touches nothing here.
 */
#include <stdio.h>
#include <string.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "engine/world_internal.h"
#include "pcsim/structure.h"

/* Observers a world keeps: the snapshot pool and a host's own. */
#define OBSERVERS_MAX 16u
/* Longest kind name + 1. */
#define KIND_NAME_MAX 64u

typedef struct kind_rec {
    char name[KIND_NAME_MAX]; /* "" when the kind is not structural */
    pcs_command_fn check, apply, dropped;
    pcs_structure_validate_fn validate; /* optional: a load's check of a log entry */
    void *ctx;
} kind_rec;

typedef struct observer_rec {
    pcs_structure_observer_fn fn;
    void *ctx;
} observer_rec;

struct pcs_structure {
    kind_rec kinds[PCS_COMMAND_KINDS_MAX];
    uint32_t n_kinds;
    pcs_command *queue; /* commands_per_tick, at the first kind */
    uint32_t n_queued;
    pcs_command *log; /* structure_log_capacity (at least 1), at the first kind */
    uint32_t n_log;
    observer_rec observers[OBSERVERS_MAX];
    uint32_t n_observers;
    uint64_t layout_version;
};

pcs_structure_kind_def pcs_structure_kind_default(void)
{
    return (pcs_structure_kind_def){0};
}

int pcs_world_amending(const pcs_world *w)
{
    return w ? w->amending : 0;
}

uint64_t pcs_world_layout_version(const pcs_world *w)
{
    if (!w)
        return 0;
    return w->structure ? w->structure->layout_version : 1;
}

/* The world's structure state, created on first use (build phase). */
static pcs_status structure_get(pcs_world *w, const char *fn, pcs_structure **out)
{
    if (!w->structure) {
        pcs_structure *s = pcs_mem_alloc(&w->mem, sizeof *s);
        if (!s)
            return pcs_error_set(PCS_E_NOMEM, "%s: out of memory", fn);
        memset(s, 0, sizeof *s);
        s->layout_version = 1;
        w->structure = s;
    }
    *out = w->structure;
    return PCS_OK;
}

/* Registrations here belong to the build alone: an apply may not add kinds
 * or observers (the commit is calling them). */
static pcs_status check_build_only(const pcs_world *w, const char *fn)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "%s: world is NULL", fn);
    if (w->sealed)
        return pcs_error_set(PCS_E_STATE,
                             "%s: the world is sealed (it has ticked); structural kinds and "
                             "observers are registered before the first tick",
                             fn);
    return PCS_OK;
}

static pcs_status check_kind_name(const char *fn, const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n >= KIND_NAME_MAX)
        return pcs_error_set(PCS_E_INVAL, "%s: name '%s' must be 1..%u chars", fn,
                             name ? name : "(null)", KIND_NAME_MAX - 1);
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '.' || c == '-';
        if (!ok)
            return pcs_error_set(PCS_E_INVAL,
                                 "%s: name '%s' has a bad character at position %zu (allowed: "
                                 "[A-Za-z0-9_.-])",
                                 fn, name, i);
    }
    return PCS_OK;
}

/* The def's fields, the kind free: the first failure is the error. */
static pcs_status check_kind_def(const pcs_world *w, const pcs_structure_kind_def *d)
{
    static const char fn[] = "pcs_structure_kind_register";
    if (!d)
        return pcs_error_set(PCS_E_INVAL, "%s: def is NULL", fn);
    if (d->kind == 0 || d->kind >= PCS_COMMAND_KINDS_MAX)
        return pcs_error_set(PCS_E_INVAL, "%s: kind %u is outside [1, %u]", fn, d->kind,
                             PCS_COMMAND_KINDS_MAX - 1);
    pcs_status st = check_kind_name(fn, d->name);
    if (st != PCS_OK)
        return st;
    if (!d->check || !d->apply)
        return pcs_error_set(PCS_E_INVAL, "%s: '%s' needs check and apply", fn, d->name);
    const pcs_handler_rec *h = &w->handlers[d->kind];
    if (h->family)
        return pcs_error_set(PCS_E_INVAL, "%s: '%s': kind %u belongs to family '%s'", fn, d->name,
                             d->kind, w->targets.families[h->family - 1].name);
    if (h->fn && w->structure && w->structure->kinds[d->kind].name[0])
        return pcs_error_set(PCS_E_INVAL, "%s: '%s': kind %u is structural kind '%s'", fn, d->name,
                             d->kind, w->structure->kinds[d->kind].name);
    if (h->fn)
        return pcs_error_set(PCS_E_INVAL, "%s: '%s': kind %u has a plain handler", fn, d->name,
                             d->kind);
    return PCS_OK;
}

/* The queue and the log, at the first kind. */
static pcs_status alloc_buffers(pcs_world *w, pcs_structure *s)
{
    if (s->queue)
        return PCS_OK;
    uint32_t log_cap = w->cfg.structure_log_capacity ? w->cfg.structure_log_capacity : 1;
    s->queue = pcs_mem_array(&w->mem, w->cfg.commands_per_tick, sizeof *s->queue);
    s->log = pcs_mem_array(&w->mem, log_cap, sizeof *s->log);
    if (!s->queue || !s->log)
        return pcs_error_set(PCS_E_NOMEM,
                             "pcs_structure_kind_register: out of memory for the queue (%u) "
                             "and the structure log (%u)",
                             w->cfg.commands_per_tick, log_cap);
    return PCS_OK;
}

/* Stage 1 (command.c's drain calls it as the kind's handler): accept, and
 * queue, or reject. */
static pcs_status accept_or_reject(pcs_world *w, void *ctx, const pcs_command *c)
{
    pcs_structure *s = ctx;
    const kind_rec *k = &s->kinds[c->kind];
    if (s->n_log + s->n_queued >= w->cfg.structure_log_capacity)
        return pcs_error_set(PCS_E_OVERFLOW,
                             "structural command '%s' (kind %u, source (%u, %u), seq %llu) at "
                             "tick %llu: the structure log is full (structure_log_capacity %u "
                             "changes, %u applied and %u queued)",
                             k->name, c->kind, c->source_class, c->source_id,
                             (unsigned long long)c->seq, (unsigned long long)c->tick,
                             w->cfg.structure_log_capacity, s->n_log, s->n_queued);
    if (s->n_queued >= w->cfg.commands_per_tick) /* only after a failed tick's retry */
        return pcs_error_set(PCS_E_RATE,
                             "structural command '%s' (kind %u) at tick %llu: the queue holds "
                             "commands_per_tick (%u) changes of a failed attempt at this tick",
                             k->name, c->kind, (unsigned long long)c->tick,
                             w->cfg.commands_per_tick);
    pcs_status st = k->check(w, k->ctx, c);
    if (st != PCS_OK)
        return st;
    s->queue[s->n_queued++] = *c;
    return PCS_OK;
}

pcs_status pcs_structure_kind_register(pcs_world *w, const pcs_structure_kind_def *def)
{
    static const char fn[] = "pcs_structure_kind_register";
    pcs_status st = check_build_only(w, fn);
    if (st == PCS_OK)
        st = check_kind_def(w, def);
    pcs_structure *s = NULL;
    if (st == PCS_OK)
        st = structure_get(w, fn, &s);
    if (st == PCS_OK)
        st = alloc_buffers(w, s);
    if (st != PCS_OK)
        return st;
    kind_rec *k = &s->kinds[def->kind];
    snprintf(k->name, sizeof k->name, "%s", def->name);
    k->check = def->check;
    k->apply = def->apply;
    k->dropped = def->dropped;
    k->validate = def->validate;
    k->ctx = def->ctx;
    s->n_kinds++;
    w->handlers[def->kind] = (pcs_handler_rec){.fn = accept_or_reject, .ctx = s};
    return PCS_OK;
}

pcs_status pcs_structure_observe(pcs_world *w, pcs_structure_observer_fn fn, void *ctx)
{
    static const char name[] = "pcs_structure_observe";
    pcs_status st = check_build_only(w, name);
    if (st != PCS_OK)
        return st;
    if (!fn)
        return pcs_error_set(PCS_E_INVAL, "%s: fn is NULL", name);
    pcs_structure *s = NULL;
    st = structure_get(w, name, &s);
    if (st != PCS_OK)
        return st;
    if (s->n_observers == OBSERVERS_MAX)
        return pcs_error_set(PCS_E_OVERFLOW, "%s: the world already has %u observers (the most)",
                             name, OBSERVERS_MAX);
    s->observers[s->n_observers++] = (observer_rec){.fn = fn, .ctx = ctx};
    return PCS_OK;
}

pcs_status pcs_retire_check(const pcs_world *w, const char *fn, const char *what, uint32_t id,
                            uint32_t n,
                            const char *(*retired_name)(const pcs_world *w, uint32_t id))
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "%s: world is NULL", fn);
    if (!w->amending)
        return pcs_error_set(PCS_E_STATE,
                             "%s: %s %u: only a structural command's apply may retire "
                             "(structure.h)",
                             fn, what, id);
    if (id >= n)
        return pcs_error_set(PCS_E_NOTFOUND, "%s: no %s %u (the world has %u)", fn, what, id, n);
    const char *name = retired_name(w, id);
    if (name)
        return pcs_error_set(PCS_E_NOTFOUND, "%s: %s %u '%s' is already retired", fn, what, id,
                             name);
    return PCS_OK;
}

uint32_t pcs_structure_log_count(const pcs_world *w)
{
    return w && w->structure ? w->structure->n_log : 0;
}

pcs_status pcs_structure_log_at(const pcs_world *w, uint32_t i, pcs_command *out)
{
    if (!w || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_structure_log_at: NULL argument");
    uint32_t n = pcs_structure_log_count(w);
    if (i >= n)
        return pcs_error_set(PCS_E_NOTFOUND, "pcs_structure_log_at: entry %u is outside [0, %u)", i,
                             n);
    *out = w->structure->log[i];
    return PCS_OK;
}

void pcs_structure_hash(const pcs_world *w, void *xxh3_state)
{
    const pcs_structure *s = w->structure;
    if (!s || s->n_log == 0)
        return; /* a world without structural change keeps its hash */
    uint64_t n = s->n_log;
    XXH3_64bits_update(xxh3_state, &n, sizeof n);
    XXH3_64bits_update(xxh3_state, s->log, (size_t)s->n_log * sizeof *s->log);
}

/* The counts a commit reports: taken before the applies, completed after. */
typedef struct counts {
    uint32_t systems, jobs, channels, r_systems, r_jobs, r_channels;
} counts;

static counts counts_now(const pcs_world *w)
{
    return (counts){w->n_systems,         w->n_jobs,         w->n_channels,
                    w->n_retired_systems, w->n_retired_jobs, w->n_retired_channels};
}

/* The commit: schedule, jobs, parallel sections, layout version, observers. */
static pcs_status commit(pcs_world *w, pcs_structure *s, const counts *before, uint32_t applied)
{
    counts now = counts_now(w);
    pcs_structure_change ch = {
        .tick = w->clock.tick,
        .n_applied = applied,
        .systems_added = now.systems - before->systems,
        .systems_retired = now.r_systems - before->r_systems,
        .jobs_added = now.jobs - before->jobs,
        .jobs_retired = now.r_jobs - before->r_jobs,
        .channels_added = now.channels - before->channels,
        .channels_retired = now.r_channels - before->r_channels,
    };
    pcs_status st = pcs_systems_commit(w, before->systems);
    pcs_jobs_commit(w);
    if (st == PCS_OK && w->par_units)
        st = pcs_par_plan_rebuild(w);
    if (ch.channels_added || ch.channels_retired)
        s->layout_version++;
    ch.layout_version = s->layout_version;
    for (uint32_t i = 0; st == PCS_OK && i < s->n_observers; i++)
        st = s->observers[i].fn(w, s->observers[i].ctx, &ch);
    return st;
}

/* Apply @p n commands in order, logging each one applied, then commit.
 * The first failure stops the applies and is the result (after the commit
 * of what was applied); *@p failed is its index, @p n when none failed. */
static pcs_status apply_batch(pcs_world *w, pcs_structure *s, const pcs_command *cmds, uint32_t n,
                              uint32_t *failed)
{
    counts before = counts_now(w);
    pcs_status st = PCS_OK;
    char why[PCS_LAST_ERROR_MAX];
    uint32_t i = 0;
    w->amending = 1;
    for (; i < n; i++) {
        const pcs_command *c = &cmds[i];
        const kind_rec *k = &s->kinds[c->kind];
        pcs_error_clear();
        st = k->apply(w, k->ctx, c);
        if (st != PCS_OK) {
            const char *m = pcs_last_error();
            snprintf(why, sizeof why,
                     "structural command '%s' (kind %u, source (%u, %u), seq %llu) at tick "
                     "%llu: apply failed (%s): %s",
                     k->name, c->kind, c->source_class, c->source_id, (unsigned long long)c->seq,
                     (unsigned long long)w->clock.tick, pcs_status_str(st),
                     m[0] ? m : "no message");
            break;
        }
        /* How a change reached the queue (source, sequence) is transport,
         * not structure: a journal replay resubmits every command through
         * one source, and the log (hashed, saved, compared at load) must
         * not differ for that. Its order is the log's own. */
        pcs_command logged = *c;
        logged.source_class = 0;
        logged.source_id = 0;
        logged.seq = 0;
        s->log[s->n_log++] = logged;
    }
    w->amending = 0;
    *failed = i;
    if (i == 0 && st == PCS_OK)
        return PCS_OK;
    pcs_status cs = commit(w, s, &before, i);
    if (st != PCS_OK)
        return pcs_error_set(st, "%s", why);
    return cs;
}

pcs_status pcs_structure_apply_queued(pcs_world *w)
{
    pcs_structure *s = w->structure;
    if (s->n_queued == 0)
        return PCS_OK;
    uint32_t n = s->n_queued, failed = 0;
    s->n_queued = 0; /* applied once, whatever the outcome (no rollback, world.c) */
    pcs_status st = apply_batch(w, s, s->queue, n, &failed);
    if (failed < n)
        /* Not applied: it leaves the journal, which holds what was applied
         * ("Failed applies" above). */
        pcs_journal_withdraw(w, &s->queue[failed]);
    if (failed + 1u < n) {
        /* The changes accepted after the failed one were journaled like it,
         * and their models may hold them pending: the retry applies them. */
        s->n_queued = n - (failed + 1u);
        memmove(s->queue, s->queue + failed + 1u, (size_t)s->n_queued * sizeof *s->queue);
    }
    return st;
}

void pcs_structure_drop_queued(pcs_world *w)
{
    pcs_structure *s = w->structure;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n_queued; i++) {
        const kind_rec *k = &s->kinds[s->queue[i].kind];
        if (k->dropped)
            (void)k->dropped(w, k->ctx, &s->queue[i]);
    }
    s->n_queued = 0;
}

const pcs_command *pcs_structure_log_data(const pcs_world *w)
{
    return w->structure ? w->structure->log : NULL;
}

const char *pcs_structure_kind_name(const pcs_world *w, uint32_t kind)
{
    if (!w->structure || kind >= PCS_COMMAND_KINDS_MAX || !w->structure->kinds[kind].name[0])
        return NULL;
    return w->structure->kinds[kind].name;
}

pcs_status pcs_structure_validate(const pcs_world *w, const pcs_command *c)
{
    const kind_rec *k = &w->structure->kinds[c->kind];
    return k->validate ? k->validate(w, k->ctx, c) : PCS_OK;
}

pcs_status pcs_structure_command_validate(const pcs_world *w, const pcs_command *c)
{
    if (!w || !c)
        return pcs_error_set(PCS_E_INVAL, "pcs_structure_command_validate: NULL argument");
    /* The kind is checked first: it indexes the kind table. */
    return pcs_structure_kind_name(w, c->kind) ? pcs_structure_validate(w, c) : PCS_OK;
}

pcs_status pcs_structure_replay(pcs_world *w, const pcs_command *entries, uint32_t n)
{
    pcs_structure *s = w->structure;
    uint64_t now = w->clock.tick;
    pcs_status st = PCS_OK;
    /* One batch per tick, at that tick, as the run applied and committed them. */
    for (uint32_t i = 0, j; st == PCS_OK && i < n; i = j) {
        for (j = i + 1; j < n && entries[j].tick == entries[i].tick;)
            j++;
        w->clock.tick = entries[i].tick;
        uint32_t failed;
        st = apply_batch(w, s, &entries[i], j - i, &failed);
    }
    w->clock.tick = now;
    return st;
}
