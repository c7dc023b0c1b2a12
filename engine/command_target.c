/**
 * @file command_target.c
 * @brief Command kind families and named command targets: what a command acts
 *        on, resolved by name once and checked by id at stage 1.
 *
 * Families. A model asks for n consecutive kinds and gets the lowest free run
 * (kinds taken by plain handlers are skipped), so kinds follow registration
 * order and no two models agree ranges in a comment. w->handlers[kind].family
 * names a kind's family, so stage 1 finds it in O(1).
 *
 * Targets. A target is a name in a slot with a generation (Box2D's id.h); a
 * name carries one binding per family (ctx, element, accepted kinds), because
 * "u1" takes unit, plant and protection commands. Slots come in
 * registration order and a removed slot is reused last-in first-out with its
 * generation advanced, so the same build sequence gives the same ids: a
 * journal replayed on a world built from the same scenario resolves the same.
 * Names are found through a name index (engine/name_index.h), rebuilt when
 * the slots grow or a target is removed (build phase only). Stage 1 reads the
 * slots and bindings only: the apply is an index check, a generation compare
 * and a walk over the name's bindings (one per family, a handful), with no
 * allocation.
 */
#include <stddef.h>
#include <string.h>

#include "engine/name_index.h"
#include "engine/world_internal.h"

_Static_assert(offsetof(pcs_target_rec, name) == 0, "the name index reads a record's first member");

/* ---- families ------------------------------------------------------------ */

static const pcs_family_rec *family_named(const pcs_targets *t, const char *name)
{
    for (uint32_t i = 0; i < t->n_families; i++)
        if (strcmp(t->families[i].name, name) == 0)
            return &t->families[i];
    return NULL;
}

/* Lowest k >= 1 with kinds [k, k + n) all free, or 0. */
static uint32_t free_run(const pcs_world *w, uint32_t n)
{
    uint32_t run = 0;
    for (uint32_t k = 1; k < PCS_COMMAND_KINDS_MAX; k++) {
        const pcs_handler_rec *h = &w->handlers[k];
        run = (h->fn || h->family) ? 0 : run + 1;
        if (run == n)
            return k + 1 - n;
    }
    return 0;
}

static pcs_status family_args_check(const pcs_world *w, const char *name, uint32_t n_kinds,
                                    pcs_target_fn fn, const uint32_t *first_kind)
{
    static const char who[] = "pcs_command_family_register";
    pcs_status st = pcs_world_check_build(w, who);
    if (st == PCS_OK)
        st = pcs_name_check(who, name);
    if (st != PCS_OK)
        return st;
    if (!fn || !first_kind)
        return pcs_error_set(PCS_E_INVAL, "%s: family '%s': fn or first_kind is NULL", who, name);
    if (n_kinds < 1 || n_kinds > PCS_COMMAND_FAMILY_MAX_KINDS)
        return pcs_error_set(PCS_E_INVAL, "%s: family '%s': n_kinds %u is outside [1, %u]", who,
                             name, n_kinds, PCS_COMMAND_FAMILY_MAX_KINDS);
    if (family_named(&w->targets, name))
        return pcs_error_set(PCS_E_INVAL, "%s: family '%s' is already registered", who, name);
    return PCS_OK;
}

pcs_status pcs_command_family_register(pcs_world *w, const char *name, uint32_t n_kinds,
                                       pcs_target_fn fn, uint32_t *first_kind)
{
    pcs_status st = family_args_check(w, name, n_kinds, fn, first_kind);
    if (st != PCS_OK)
        return st;
    pcs_targets *t = &w->targets;
    uint32_t first = free_run(w, n_kinds);
    if (first == 0)
        return pcs_error_set(PCS_E_OVERFLOW,
                             "pcs_command_family_register: family '%s': no %u free consecutive "
                             "kinds below %u",
                             name, n_kinds, PCS_COMMAND_KINDS_MAX);
    if (!t->families)
        t->families = pcs_mem_array(&w->mem, PCS_COMMAND_KINDS_MAX, sizeof *t->families);
    const char *copy = pcs_mem_strdup(&w->mem, name);
    if (!t->families || !copy)
        return pcs_error_set(PCS_E_NOMEM, "pcs_command_family_register: out of memory");
    pcs_family_rec *f = &t->families[t->n_families];
    *f = (pcs_family_rec){.name = copy, .first = first, .n_kinds = n_kinds, .fn = fn};
    t->n_families++;
    for (uint32_t k = first; k < first + n_kinds; k++)
        w->handlers[k].family = t->n_families;
    *first_kind = first;
    return PCS_OK;
}

pcs_status pcs_command_family_share(pcs_world *w, const char *name, uint32_t n_kinds,
                                    pcs_target_fn fn, uint32_t *first_kind)
{
    const pcs_family_rec *f = w && name ? family_named(&w->targets, name) : NULL;
    if (!f)
        return pcs_command_family_register(w, name, n_kinds, fn, first_kind);
    if (!first_kind)
        return pcs_error_set(PCS_E_INVAL, "pcs_command_family_share: first_kind is NULL");
    if (f->n_kinds != n_kinds || f->fn != fn)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_command_family_share: family '%s' is registered with %u kinds "
                             "and %s handler, not %u kinds and this one",
                             name, f->n_kinds, f->fn == fn ? "the same" : "another", n_kinds);
    *first_kind = f->first;
    return PCS_OK;
}

pcs_status pcs_command_family_find(const pcs_world *w, const char *name, uint32_t *first_kind,
                                   uint32_t *n_kinds)
{
    if (!w || !name || !first_kind)
        return pcs_error_set(PCS_E_INVAL, "pcs_command_family_find: NULL argument");
    const pcs_family_rec *f = family_named(&w->targets, name);
    if (!f)
        return pcs_error_set(PCS_E_NOTFOUND, "no command family named '%s'", name);
    *first_kind = f->first;
    if (n_kinds)
        *n_kinds = f->n_kinds;
    return PCS_OK;
}

pcs_status pcs_command_kind_find(const pcs_world *w, const char *family, uint32_t op,
                                 uint32_t *kind)
{
    uint32_t first = 0, n = 0;
    pcs_status st = pcs_command_family_find(w, family, &first, &n);
    if (st != PCS_OK || !kind)
        return st != PCS_OK ? st
                            : pcs_error_set(PCS_E_INVAL, "pcs_command_kind_find: kind is NULL");
    if (op >= n)
        return pcs_error_set(PCS_E_INVAL, "command family '%s': op %u is outside [0, %u)", family,
                             op, n);
    *kind = first + op;
    return PCS_OK;
}

/* ---- the name index -------------------------------------------------------- */

/* Entry of the name index where @p name is or would go. */
static uint32_t index_slot(const pcs_targets *t, const char *name)
{
    return pcs_name_index_slot(t->index, t->slots_cap, t->slots, sizeof *t->slots, name);
}

/* Room for one more slot (and so one more name in the index). */
static pcs_status slots_reserve(pcs_world *w)
{
    pcs_targets *t = &w->targets;
    if (t->free_head || t->n_slots < t->slots_cap)
        return PCS_OK;
    if (t->n_slots >= PCS_TARGET_MAX)
        return pcs_error_set(PCS_E_OVERFLOW, "pcs_command_target_register: more than %u targets",
                             PCS_TARGET_MAX);
    pcs_target_rec *slots =
        pcs_name_index_grow(&w->mem, t->slots, t->n_slots, sizeof *slots, &t->slots_cap, &t->index);
    if (!slots)
        return pcs_error_set(PCS_E_NOMEM, "pcs_command_target_register: out of memory");
    t->slots = slots;
    return PCS_OK;
}

static pcs_status bindings_reserve(pcs_world *w)
{
    pcs_targets *t = &w->targets;
    if (t->n_bindings < t->bindings_cap)
        return PCS_OK;
    uint32_t cap = t->bindings_cap ? 2 * t->bindings_cap : 64;
    pcs_binding_rec *b = pcs_mem_regrow(&w->mem, t->bindings, t->n_bindings, cap, sizeof *b);
    if (!b)
        return pcs_error_set(PCS_E_NOMEM, "pcs_command_target_register: out of memory");
    t->bindings = b;
    t->bindings_cap = cap;
    return PCS_OK;
}

/* ---- targets --------------------------------------------------------------- */

static uint32_t find_slot(const pcs_targets *t, const char *name)
{
    return pcs_name_index_lookup(t->index, t->slots_cap, t->slots, sizeof *t->slots, t->n_live,
                                 name);
}

static const pcs_binding_rec *binding_of(const pcs_targets *t, uint32_t slot, uint32_t family)
{
    for (uint32_t b = t->slots[slot].binding; b != 0; b = t->bindings[b - 1].next)
        if (t->bindings[b - 1].family == family)
            return &t->bindings[b - 1];
    return NULL;
}

static pcs_status def_check(const pcs_world *w, const pcs_command_target_def *def)
{
    static const char who[] = "pcs_command_target_register";
    pcs_status st = pcs_world_check_build(w, who);
    if (st == PCS_OK && !def)
        st = pcs_error_set(PCS_E_INVAL, "%s: def is NULL", who);
    if (st == PCS_OK)
        st = pcs_name_check(who, def->name);
    if (st != PCS_OK)
        return st;
    uint32_t fam = def->family < PCS_COMMAND_KINDS_MAX ? w->handlers[def->family].family : 0;
    if (fam == 0 || w->targets.families[fam - 1].first != def->family)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: target '%s': family %u is not the first kind of a registered "
                             "family",
                             who, def->name, def->family);
    const pcs_family_rec *f = &w->targets.families[fam - 1];
    if (f->n_kinds < 64 && (def->ops >> f->n_kinds) != 0)
        return pcs_error_set(
            PCS_E_INVAL, "%s: target '%s': ops 0x%llx name kinds outside family '%s' (%u kinds)",
            who, def->name, (unsigned long long)def->ops, f->name, f->n_kinds);
    return PCS_OK;
}

/* Slot for a new name: the last removed one (its generation already
 * advanced) or the next unused one. */
static uint32_t slot_take(pcs_targets *t, const char *name)
{
    uint32_t s;
    if (t->free_head) {
        s = t->free_head - 1;
        t->free_head = t->slots[s].next_free;
    } else {
        s = t->n_slots++;
        t->slots[s].generation = 1;
    }
    t->slots[s].name = name;
    t->slots[s].binding = 0;
    t->slots[s].next_free = 0;
    t->index[index_slot(t, name)] = s + 1;
    t->n_live++;
    return s;
}

pcs_status pcs_command_target_register(pcs_world *w, const pcs_command_target_def *def,
                                       pcs_target_id *out)
{
    pcs_status st = def_check(w, def);
    if (st != PCS_OK)
        return st;
    pcs_targets *t = &w->targets;
    uint32_t fam = w->handlers[def->family].family - 1;
    uint32_t slot = find_slot(t, def->name);
    if (slot && binding_of(t, slot - 1, fam))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_command_target_register: target '%s' already takes family '%s'",
                             def->name, t->families[fam].name);
    st = bindings_reserve(w);
    if (st == PCS_OK && !slot)
        st = slots_reserve(w);
    if (st != PCS_OK)
        return st;
    if (!slot) {
        const char *copy = pcs_mem_strdup(&w->mem, def->name);
        if (!copy)
            return pcs_error_set(PCS_E_NOMEM, "pcs_command_target_register: out of memory");
        slot = slot_take(t, copy) + 1;
    }
    pcs_target_rec *r = &t->slots[slot - 1];
    pcs_binding_rec *b = &t->bindings[t->n_bindings];
    uint64_t all = t->families[fam].n_kinds == 64 ? ~0ull : (1ull << t->families[fam].n_kinds) - 1;
    *b = (pcs_binding_rec){.next = r->binding,
                           .family = fam,
                           .ctx = def->ctx,
                           .element = def->element,
                           .ops = def->ops ? def->ops : all};
    r->binding = ++t->n_bindings;
    if (out)
        *out = (pcs_target_id){slot - 1, r->generation};
    return PCS_OK;
}

pcs_status pcs_command_target_find(const pcs_world *w, const char *name, pcs_target_id *out)
{
    if (!w || !name || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_command_target_find: NULL argument");
    uint32_t slot = find_slot(&w->targets, name);
    if (!slot)
        return pcs_error_set(PCS_E_NOTFOUND, "no command target named '%s'", name);
    *out = (pcs_target_id){slot - 1, w->targets.slots[slot - 1].generation};
    return PCS_OK;
}

static const pcs_target_rec *current(const pcs_world *w, pcs_target_id id)
{
    const pcs_targets *t = &w->targets;
    if (id.index >= t->n_slots || id.generation == 0)
        return NULL;
    const pcs_target_rec *r = &t->slots[id.index];
    return r->name && r->generation == id.generation ? r : NULL;
}

/* The binding of @p id that takes @p kind. */
static pcs_status resolve(const pcs_world *w, pcs_target_id id, uint32_t kind,
                          const pcs_binding_rec **out)
{
    const pcs_target_rec *r = current(w, id);
    if (!r)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "command kind %u: target id (index %u, generation %u) is unknown or "
                             "stale",
                             kind, id.index, id.generation);
    uint32_t fam = kind < PCS_COMMAND_KINDS_MAX ? w->handlers[kind].family : 0;
    if (fam == 0)
        return pcs_error_set(PCS_E_INVAL,
                             "command kind %u belongs to no family: target '%s' takes none", kind,
                             r->name);
    const pcs_family_rec *f = &w->targets.families[fam - 1];
    const pcs_binding_rec *b = binding_of(&w->targets, id.index, fam - 1);
    if (!b || !((b->ops >> (kind - f->first)) & 1u))
        return pcs_error_set(PCS_E_INVAL,
                             "command kind %u (family '%s', op %u) is not one target '%s' takes",
                             kind, f->name, kind - f->first, r->name);
    *out = b;
    return PCS_OK;
}

pcs_status pcs_command_target_check(const pcs_world *w, pcs_target_id id, uint32_t kind)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_command_target_check: world is NULL");
    const pcs_binding_rec *b;
    return resolve(w, id, kind, &b);
}

pcs_status pcs_command_target_apply(pcs_world *w, const pcs_handler_rec *h, const pcs_command *c)
{
    pcs_target_id id = pcs_target_id_load(c->target);
    const pcs_binding_rec *b = NULL;
    pcs_status st = resolve(w, id, c->kind, &b);
    if (st != PCS_OK)
        return st;
    const pcs_family_rec *f = &w->targets.families[h->family - 1];
    pcs_command_call call = {.ctx = b->ctx,
                             .element = b->element,
                             .op = c->kind - f->first,
                             .target_name = w->targets.slots[id.index].name,
                             .cmd = c};
    return f->fn(w, &call);
}

const char *pcs_command_target_name(const pcs_world *w, pcs_target_id id)
{
    const pcs_target_rec *r = w ? current(w, id) : NULL;
    return r ? r->name : NULL;
}

uint32_t pcs_command_target_count(const pcs_world *w)
{
    return w ? w->targets.n_live : 0;
}

int pcs_command_target_next(const pcs_world *w, uint32_t *cursor, pcs_target_id *out)
{
    if (!w || !cursor || !out)
        return 0;
    const pcs_targets *t = &w->targets;
    for (uint32_t i = *cursor; i < t->n_slots; i++)
        if (t->slots[i].name) {
            *out = (pcs_target_id){.index = i, .generation = t->slots[i].generation};
            *cursor = i + 1;
            return 1;
        }
    return 0;
}

pcs_status pcs_command_target_remove(pcs_world *w, pcs_target_id id)
{
    pcs_status st = pcs_world_check_build(w, "pcs_command_target_remove");
    if (st != PCS_OK)
        return st;
    pcs_targets *t = &w->targets;
    if (!current(w, id))
        return pcs_error_set(PCS_E_NOTFOUND,
                             "pcs_command_target_remove: target id (index %u, generation %u) is "
                             "unknown or stale",
                             id.index, id.generation);
    pcs_target_rec *r = &t->slots[id.index];
    /* Out of the index while it still has its name (backward shift: no
     * rebuild, so a removal while amending costs O(1) on average). Its
     * bindings stay in the array, unreachable: world memory. */
    pcs_name_index_remove(t->index, t->slots_cap, t->slots, sizeof *t->slots, id.index);
    r->name = NULL;
    r->binding = 0;
    r->generation = r->generation == PCS_TARGET_GENERATION_MAX ? 1 : r->generation + 1;
    r->next_free = t->free_head;
    t->free_head = id.index + 1;
    t->n_live--;
    return PCS_OK;
}
