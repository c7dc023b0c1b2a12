/**
 * @file plant.c
 * @brief Scenario plant sections -> physics plant; script names -> commands.
 */
#include <stdio.h>
#include <string.h>

#include "cli/plant.h"

int plant_build(host *h, char *err, size_t err_len)
{
    (void)h;
    (void)err;
    (void)err_len;
    return 0;
}

int plant_resolve_action(host *h, const scn_action *a, size_t index, pcs_command *out, char *err,
                         size_t err_len)
{
    (void)out;
    snprintf(err, err_len, "%s: $.script[%zu].command: unknown command '%s'", h->scn.source,
             index, a->command);
    return -1;
}

void plant_timeline_channels(host *h)
{
    h->n_timeline = 0;
}

int plant_describe_event(const host *h, const pcs_event *ev, char *out, size_t len)
{
    (void)h;
    switch (ev->kind) {
    case PCS_EV_COMMAND_REJECTED:
        snprintf(out, len, "command kind %u from source (%g, %g) seq %g rejected: %s",
                 ev->subject, ev->values[0], ev->values[1], ev->values[2],
                 pcs_status_str((pcs_status)(int)ev->values[3]));
        return 1;
    case PCS_EV_EVENT_OVERFLOW:
        snprintf(out, len, "%g events dropped (event buffer full)", ev->values[0]);
        return 1;
    default:
        return 0;
    }
}
