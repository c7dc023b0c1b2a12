/*
 * Minimal embedding of pcsim, as shown in README.md: build a world, add one
 * state store and one system, submit a command from the host, tick, and read
 * the state hash. `make test` compiles and runs this file so it cannot rot.
 */
#include <inttypes.h>
#include <stdio.h>

#include <pcsim/pcsim.h>

enum { CMD_SET_POWER = 1 };

typedef struct heater {
    uint32_t store; /* [0] power W, [1] temperature K */
} heater;

/* Stage HEAT: dT/dt = P / C with C = 1e6 J/K. */
static pcs_status heat(pcs_world *w, void *ctx)
{
    heater *h = ctx;
    double *x = pcs_store_data(w, h->store);
    x[1] += x[0] / 1e6 * pcs_world_clock(w)->dt_s;
    return PCS_OK;
}

static pcs_status set_power(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    heater *h = ctx;
    if (cmd->args[0] < 0.0)
        return pcs_error_set(PCS_E_INVAL, "set_power: %g W < 0", cmd->args[0]);
    ((double *)pcs_store_data(w, h->store))[0] = cmd->args[0];
    return PCS_OK;
}

int main(void)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w;
    if (pcs_world_create(&cfg, &w) != PCS_OK) {
        fprintf(stderr, "create: %s\n", pcs_last_error());
        return 1;
    }
    static heater h;
    pcs_store_register(w, "heater", sizeof(double), 2, PCS_STORE_STATE, &h.store);
    ((double *)pcs_store_data(w, h.store))[1] = 300.0;
    pcs_system_desc sys = {.name = "heater", .stage = PCS_STAGE_HEAT, .fn = heat, .ctx = &h,
                           .writes = &h.store, .n_writes = 1};
    pcs_system_register(w, &sys, NULL);
    pcs_command_handler_register(w, CMD_SET_POWER, set_power, &h);

    pcs_command cmd = {.kind = CMD_SET_POWER, .args = {2e6}}; /* 2 MW */
    pcs_command_submit(w, &cmd);
    for (int i = 0; i < 200; i++) /* 10 s of simulated time */
        if (pcs_world_tick(w) != PCS_OK) {
            fprintf(stderr, "tick: %s\n", pcs_last_error());
            return 1;
        }
    double t = ((double *)pcs_store_data(w, h.store))[1];
    printf("T after 10 s at 2 MW: %.3f K (expected 320.000), hash %016" PRIx64 "\n", t,
           pcs_world_state_hash(w));
    pcs_world_destroy(w);
    return (t > 319.999 && t < 320.001) ? 0 : 1;
}
