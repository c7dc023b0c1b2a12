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
    pcs_world_def cfg;
    pcs_world_default(&cfg);
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

uint32_t ctl_kind(const pcs_world *w, const char *family, uint32_t op)
{
    uint32_t kind = 0;
    cr_assert_eq(pcs_command_kind_find(w, family, op, &kind), PCS_OK, "%s", pcs_last_error());
    return kind;
}

pcs_command ctl_make(const pcs_world *w, const char *family, uint32_t op, const char *target,
                     double arg0)
{
    pcs_target_id id;
    cr_assert_eq(pcs_command_target_find(w, target, &id), PCS_OK, "%s", pcs_last_error());
    pcs_command c = {
        .kind = ctl_kind(w, family, op), .target = pcs_target_id_store(id), .args = {arg0}};
    return c;
}

void ctl_command(pcs_world *w, const char *family, uint32_t op, const char *target, double arg0)
{
    pcs_command c = ctl_make(w, family, op, target, arg0);
    cr_assert_eq(pcs_command_submit(w, &c), PCS_OK, "%s", pcs_last_error());
}

const char *ctl_element_name(const pcs_world *w, const char *store, uint32_t k)
{
    uint32_t id;
    if (pcs_store_find(w, store, &id) != PCS_OK)
        return NULL;
    for (uint32_t c = 0; c < pcs_channel_count(w); c++) {
        pcs_channel_info info;
        if (pcs_channel_get(w, c, &info) == PCS_OK && info.store == id && info.index == k)
            return info.name;
    }
    return NULL;
}

void ctl_sensor_command(pcs_world *w, uint32_t op, uint32_t k, double arg0)
{
    const char *name = ctl_element_name(w, "sensors.value", k);
    cr_assert_not_null(name, "no sensor %u", k);
    ctl_command(w, PCS_SENSOR_COMMANDS, op, name, arg0);
}

void ctl_unit_command(pcs_world *w, uint32_t op, uint32_t unit, double a0, double a1)
{
    pcs_unit_def c;
    pcs_unit_default(&c);
    int rod = op == PCS_UNIT_OP_ROD_POSITION || op == PCS_UNIT_OP_ROD_SPEED;
    char name[48];
    if (rod && a0 >= 0.0) {
        uint32_t b = (uint32_t)a0;
        int bank = (double)b == a0 && b < c.n_banks;
        snprintf(name, sizeof name, "u%u.%s", unit, bank ? c.banks[b].name : "nobank");
    } else {
        snprintf(name, sizeof name, "u%u", unit);
    }
    pcs_target_id id = {PCS_TARGET_MAX, 1};
    (void)pcs_command_target_find(w, name, &id); /* left unknown when absent */
    pcs_command cmd = {.kind = ctl_kind(w, PCS_UNIT_COMMANDS, op),
                       .target = pcs_target_id_store(id),
                       .args = {rod ? a1 : a0}};
    cr_assert_eq(pcs_command_submit(w, &cmd), PCS_OK, "%s", pcs_last_error());
}

void ctl_command_unknown(pcs_world *w, const char *family, uint32_t op)
{
    pcs_target_id nobody = {999999, 1};
    pcs_command c = {.kind = ctl_kind(w, family, op), .target = pcs_target_id_store(nobody)};
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

pcs_sensor_def ctl_sensor(const ctl_plant *p, const char *name, uint32_t index)
{
    pcs_sensor_def c;
    pcs_sensor_default(&c);
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
