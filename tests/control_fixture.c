/**
 * @file control_fixture.c
 * @brief Test support shared by test_sensor.c, test_protection.c and test_alarm.c.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <string.h>

#include "tests/control_fixture.h"

void ctl_plant_init(ctl_plant *p, uint32_t n, uint64_t seed)
{
    pcs_world_config cfg;
    pcs_world_config_default(&cfg);
    cfg.seed = seed;
    cfg.workers = 0;
    p->w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &p->w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_store_register(p->w, "plant.x", sizeof(double), n, PCS_STORE_STATE, &p->store),
                 PCS_OK);
    p->x = pcs_store_data(p->w, p->store);
    p->n = n;
}

void ctl_tick(pcs_world *w, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
}

void ctl_command(pcs_world *w, uint32_t kind, uint32_t target, double arg0)
{
    pcs_command c = {.kind = kind, .target = target, .args = {arg0}};
    cr_assert_eq(pcs_command_submit(w, &c), PCS_OK, "%s", pcs_last_error());
}

int ctl_event(const pcs_world *w, uint32_t kind, uint32_t subject, pcs_event *out)
{
    uint32_t n = 0;
    const pcs_event *ev = pcs_world_events(w, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (ev[i].kind == kind && (subject == UINT32_MAX || ev[i].subject == subject)) {
            if (out)
                *out = ev[i];
            return 1;
        }
    }
    return 0;
}

uint32_t ctl_events(const pcs_world *w, uint32_t kind, uint32_t subject)
{
    uint32_t n = 0, hits = 0;
    const pcs_event *ev = pcs_world_events(w, &n);
    for (uint32_t i = 0; i < n; i++)
        hits += ev[i].kind == kind && (subject == UINT32_MAX || ev[i].subject == subject);
    return hits;
}

pcs_sensor_config ctl_sensor(const ctl_plant *p, const char *name, uint32_t index)
{
    pcs_sensor_config c;
    pcs_sensor_config_default(&c);
    c.name = name;
    c.unit = "1";
    c.store = p->store;
    c.index = index;
    return c;
}

void ctl_expect_message(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    for (const char *s = first; s; s = va_arg(ap, const char *))
        cr_assert(strstr(pcs_last_error(), s) != NULL, "message '%s' should name '%s'",
                  pcs_last_error(), s);
    va_end(ap);
}
