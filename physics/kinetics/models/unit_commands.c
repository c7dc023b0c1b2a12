/**
 * @file unit_commands.c
 * @brief Command handlers of the reactor units and the world's unit registry.
 *
 * The engine allows one handler per command kind and world, while a world may
 * hold several units. So the first unit built registers the handlers, with a
 * registry (units by index) as their context; the registry lives in a SCRATCH
 * store named "units.registry" so later builds find it. It holds pointers,
 * which is why it is scratch: not hashed, not saved (it is rebuilt with the
 * world). Handlers validate the target and arguments and write the command
 * stores; the systems act on them from stage 2 of the same tick.
 */
#include <string.h>

#include "physics/kinetics/models/unit_internal.h"
#include "pcsim/command.h"
#include "pcsim/event.h"
#include "pcsim/math.h"
#include "pcsim/system.h"

#define UNIT_REGISTRY_STORE "units.registry"

typedef struct unit_registry {
    pcs_unit *units[PCS_UNIT_MAX + 1]; /* by unit index; [0] unused */
} unit_registry;

static pcs_status unit_target(void *ctx, const pcs_command *c, pcs_unit **u)
{
    unit_registry *r = ctx;
    if (c->target < 1 || c->target > PCS_UNIT_MAX || !r->units[c->target])
        return pcs_error_set(PCS_E_INVAL, "unit command %u: no unit %u in this world", c->kind,
                             c->target);
    *u = r->units[c->target];
    return PCS_OK;
}

/* Bank argument: an index in [0, n_banks) or -1 for all; sets [*lo, *hi). */
static pcs_status unit_bank_range(const pcs_unit *u, const pcs_command *c, uint32_t *lo,
                                  uint32_t *hi)
{
    double b = c->args[0];
    if (b == -1.0) {
        *lo = 0;
        *hi = u->cfg.n_banks;
        return PCS_OK;
    }
    if (!(b >= 0.0 && b < (double)u->cfg.n_banks) || b != pcs_floor(b))
        return pcs_error_set(PCS_E_INVAL,
                             "%s command %u: bank args[0] = %g is not -1 or an index in [0, %u)",
                             u->prefix, c->kind, b, u->cfg.n_banks);
    *lo = (uint32_t)b;
    *hi = *lo + 1;
    return PCS_OK;
}

static pcs_status unit_cmd_rod_position(pcs_world *w, void *ctx, const pcs_command *c)
{
    (void)w;
    pcs_unit *u = NULL;
    uint32_t lo = 0, hi = 0;
    pcs_status st = unit_target(ctx, c, &u);
    if (st == PCS_OK)
        st = unit_bank_range(u, c, &lo, &hi);
    if (st != PCS_OK)
        return st;
    double x = c->args[1];
    if (!(x >= 0.0 && x <= 1.0))
        return pcs_error_set(PCS_E_INVAL, "%s rod position args[1] = %g is outside [0, 1]",
                             u->prefix, x);
    if (u->scram[UNIT_SCRAM_LATCHED])
        return pcs_error_set(PCS_E_STATE, "%s rod position: the unit is scrammed; reset first",
                             u->prefix);
    for (uint32_t b = lo; b < hi; b++)
        u->cmd[b] = x;
    return PCS_OK;
}

static pcs_status unit_cmd_rod_speed(pcs_world *w, void *ctx, const pcs_command *c)
{
    (void)w;
    pcs_unit *u = NULL;
    uint32_t lo = 0, hi = 0;
    pcs_status st = unit_target(ctx, c, &u);
    if (st == PCS_OK)
        st = unit_bank_range(u, c, &lo, &hi);
    if (st != PCS_OK)
        return st;
    double v = c->args[1];
    if (!(v > 0.0 && v <= 1.0))
        return pcs_error_set(PCS_E_INVAL, "%s rod speed args[1] = %g is outside (0, 1] travel/s",
                             u->prefix, v);
    for (uint32_t b = lo; b < hi; b++)
        u->speed[b] = v;
    return PCS_OK;
}

static pcs_status unit_cmd_scram(pcs_world *w, void *ctx, const pcs_command *c)
{
    (void)w;
    pcs_unit *u = NULL;
    pcs_status st = unit_target(ctx, c, &u);
    if (st != PCS_OK)
        return st;
    u->scram[UNIT_SCRAM_MANUAL] = 1;
    return PCS_OK;
}

static pcs_status unit_cmd_reset(pcs_world *w, void *ctx, const pcs_command *c)
{
    pcs_unit *u = NULL;
    pcs_status st = unit_target(ctx, c, &u);
    if (st != PCS_OK)
        return st;
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

static pcs_status unit_cmd_boron(pcs_world *w, void *ctx, const pcs_command *c)
{
    (void)w;
    pcs_unit *u = NULL;
    pcs_status st = unit_target(ctx, c, &u);
    if (st != PCS_OK)
        return st;
    double ppm = c->args[0];
    if (!(ppm >= 0.0 && ppm <= 10000.0))
        return pcs_error_set(PCS_E_INVAL, "%s boron args[0] = %g ppm is outside [0, 10000]",
                             u->prefix, ppm);
    *u->boron = ppm;
    return PCS_OK;
}

static pcs_status unit_registry_create(pcs_world *w, unit_registry **out)
{
    uint32_t id;
    pcs_status st = pcs_store_register(w, UNIT_REGISTRY_STORE, sizeof(unit_registry), 1,
                                       PCS_STORE_SCRATCH, &id);
    if (st != PCS_OK)
        return st;
    unit_registry *r = pcs_store_data(w, id);
    static const struct {
        uint32_t kind;
        pcs_command_fn fn;
    } h[] = {
        {PCS_UNIT_CMD_ROD_POSITION, unit_cmd_rod_position},
        {PCS_UNIT_CMD_ROD_SPEED, unit_cmd_rod_speed},
        {PCS_UNIT_CMD_SCRAM, unit_cmd_scram},
        {PCS_UNIT_CMD_RESET, unit_cmd_reset},
        {PCS_UNIT_CMD_BORON, unit_cmd_boron},
    };
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++) {
        st = pcs_command_handler_register(w, h[i].kind, h[i].fn, r);
        if (st != PCS_OK)
            return st;
    }
    *out = r;
    return PCS_OK;
}

int pcs_unit_index_taken(pcs_world *w, uint32_t index)
{
    uint32_t id;
    if (pcs_store_find(w, UNIT_REGISTRY_STORE, &id) != PCS_OK) {
        pcs_error_clear();
        return 0;
    }
    const unit_registry *r = pcs_store_data(w, id);
    return r->units[index] != NULL;
}

pcs_status pcs_unit_commands_register(pcs_world *w, pcs_unit *u)
{
    uint32_t id;
    unit_registry *r;
    if (pcs_store_find(w, UNIT_REGISTRY_STORE, &id) == PCS_OK) {
        r = pcs_store_data(w, id);
    } else {
        pcs_status st = unit_registry_create(w, &r);
        if (st != PCS_OK)
            return st;
    }
    pcs_error_clear(); /* the failed lookup above set a message */
    r->units[u->index] = u;
    return PCS_OK;
}
