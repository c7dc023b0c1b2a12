/**
 * @file unit_commands.c
 * @brief The reactor units' command family and targets.
 *
 * The first unit built allocates the "units" family (PCS_UNIT_COMMANDS) from
 * the engine; every unit registers its targets into it: "uN" (every op; rod
 * ops move every bank) and "uN.<bank>" (rod position and speed of that bank).
 * The engine hands the handler the unit and the bank (or
 * PCS_TARGET_ELEMENT_ALL), so no unit registry is needed. Handlers validate
 * the arguments and write the command stores; the systems act on them from
 * stage 2 of the same tick.
 */
#include <stdio.h>
#include <string.h>

#include "physics/kinetics/models/unit_internal.h"
#include "pcsim/command.h"
#include "pcsim/event.h"
#include "pcsim/math.h"
#include "pcsim/system.h"

/* Banks [*lo, *hi) the target names: one bank, or all of them. */
static void unit_banks(const pcs_unit *u, uint32_t element, uint32_t *lo, uint32_t *hi)
{
    *lo = element == PCS_TARGET_ELEMENT_ALL ? 0 : element;
    *hi = element == PCS_TARGET_ELEMENT_ALL ? u->cfg.n_banks : element + 1;
}

static pcs_status unit_cmd_rod_position(pcs_unit *u, uint32_t element, const pcs_command *c)
{
    double x = c->args[0];
    if (!(x >= 0.0 && x <= 1.0))
        return pcs_error_set(PCS_E_INVAL, "%s rod position args[0] = %g is outside [0, 1]",
                             u->prefix, x);
    if (u->scram[UNIT_SCRAM_LATCHED])
        return pcs_error_set(PCS_E_STATE, "%s rod position: the unit is scrammed; reset first",
                             u->prefix);
    uint32_t lo, hi;
    unit_banks(u, element, &lo, &hi);
    for (uint32_t b = lo; b < hi; b++)
        u->cmd[b] = x;
    return PCS_OK;
}

static pcs_status unit_cmd_rod_speed(pcs_unit *u, uint32_t element, const pcs_command *c)
{
    double v = c->args[0];
    if (!(v > 0.0 && v <= 1.0))
        return pcs_error_set(PCS_E_INVAL, "%s rod speed args[0] = %g is outside (0, 1] travel/s",
                             u->prefix, v);
    uint32_t lo, hi;
    unit_banks(u, element, &lo, &hi);
    for (uint32_t b = lo; b < hi; b++)
        u->speed[b] = v;
    return PCS_OK;
}

static pcs_status unit_cmd_reset(pcs_world *w, pcs_unit *u)
{
    if (*u->trip)
        return pcs_error_set(PCS_E_STATE,
                             "%s reset: the trip input is still active (cause 0x%x); clear it "
                             "first",
                             u->prefix, *u->trip);
    if (!u->scram[UNIT_SCRAM_LATCHED])
        return PCS_OK;
    uint32_t cause = u->scram[UNIT_SCRAM_CAUSE];
    u->scram[UNIT_SCRAM_LATCHED] = 0;
    u->scram[UNIT_SCRAM_CAUSE] = 0;
    for (uint32_t b = 0; b < u->cfg.n_banks; b++)
        u->cmd[b] = u->pos[b]; /* rods stay where they are */
    pcs_event_emit(w, PCS_EV_UNIT_SCRAM_RESET, u->index, (double)cause, 0.0, 0.0, 0.0);
    return PCS_OK;
}

static pcs_status unit_cmd_boron(pcs_unit *u, const pcs_command *c)
{
    double ppm = c->args[0];
    if (!(ppm >= 0.0 && ppm <= 10000.0))
        return pcs_error_set(PCS_E_INVAL, "%s boron args[0] = %g ppm is outside [0, 10000]",
                             u->prefix, ppm);
    *u->boron = ppm;
    return PCS_OK;
}

static pcs_status unit_on_command(pcs_world *w, const pcs_command_call *call)
{
    pcs_unit *u = call->ctx;
    switch (call->op) {
    case PCS_UNIT_OP_ROD_POSITION:
        return unit_cmd_rod_position(u, call->element, call->cmd);
    case PCS_UNIT_OP_ROD_SPEED:
        return unit_cmd_rod_speed(u, call->element, call->cmd);
    case PCS_UNIT_OP_SCRAM:
        u->scram[UNIT_SCRAM_MANUAL] = 1;
        return PCS_OK;
    case PCS_UNIT_OP_RESET:
        return unit_cmd_reset(w, u);
    default: /* PCS_UNIT_OP_BORON: the engine admits no op outside the family */
        return unit_cmd_boron(u, call->cmd);
    }
}

/* The family's first kind, allocated by the first unit of the world. */
static pcs_status unit_family(pcs_world *w, uint32_t *first)
{
    if (pcs_command_family_find(w, PCS_UNIT_COMMANDS, first, NULL) == PCS_OK)
        return PCS_OK;
    pcs_error_clear(); /* not found: this is the world's first unit */
    return pcs_command_family_register(w, PCS_UNIT_COMMANDS, PCS_UNIT_OP_COUNT, unit_on_command,
                                       first);
}

int pcs_unit_index_taken(pcs_world *w, uint32_t index)
{
    char name[16];
    uint32_t first;
    pcs_target_id id;
    snprintf(name, sizeof name, "u%u", index);
    int taken = pcs_command_family_find(w, PCS_UNIT_COMMANDS, &first, NULL) == PCS_OK &&
                pcs_command_target_find(w, name, &id) == PCS_OK &&
                pcs_command_target_check(w, id, first + PCS_UNIT_OP_SCRAM) == PCS_OK;
    pcs_error_clear(); /* a failed lookup only means "not taken" */
    return taken;
}

pcs_status pcs_unit_commands_register(pcs_world *w, pcs_unit *u)
{
    uint32_t first;
    pcs_status st = unit_family(w, &first);
    pcs_command_target_def d = {
        .name = u->prefix, .family = first, .ctx = u, .element = PCS_TARGET_ELEMENT_ALL};
    if (u->cfg.external_boron) /* every op but the boron set-point */
        d.ops = ((1u << PCS_UNIT_OP_COUNT) - 1u) & ~(1u << PCS_UNIT_OP_BORON);
    if (st == PCS_OK)
        st = pcs_command_target_register(w, &d, NULL);
    char name[sizeof u->prefix + PCS_REACTIVITY_ROD_NAME_MAX + 1];
    d.name = name;
    d.ops = (1u << PCS_UNIT_OP_ROD_POSITION) | (1u << PCS_UNIT_OP_ROD_SPEED);
    for (uint32_t b = 0; st == PCS_OK && b < u->cfg.n_banks; b++) {
        snprintf(name, sizeof name, "%s.%s", u->prefix, u->cfg.banks[b].name);
        d.element = b;
        st = pcs_command_target_register(w, &d, NULL);
    }
    return st;
}
