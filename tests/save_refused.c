/**
 * @file save_refused.c
 * @brief save_expect_refused (tests/save_refused.h).
 */
#include "tests/save_refused.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/persist.h"
#include "pcsim/status.h"
#include "tests/save_craft.h"

void save_expect_refused(pcs_world *w, const unsigned char *image, size_t len, const char *path,
                         const char *section, size_t element, double value, const char *text)
{
    unsigned char *b = malloc(len);
    cr_assert_not_null(b);
    memcpy(b, image, len);
    cr_assert(save_craft_patch(b, len, section, element * sizeof value, &value, sizeof value),
              "no section %s", section);
    cr_assert(save_craft_write(path, b, len));
    free(b);
    uint64_t before = pcs_world_state_hash(w);
    pcs_status st = pcs_world_load(w, path);
    cr_expect_eq(st, PCS_E_CORRUPT, "%s[%zu] = %g: %s", section, element, value, pcs_last_error());
    const char *store = strncmp(section, "store:", 6) == 0 ? section + 6 : section;
    cr_expect(strstr(pcs_last_error(), store) != NULL, "names the store: %s", pcs_last_error());
    cr_expect(strstr(pcs_last_error(), text) != NULL, "names '%s': %s", text, pcs_last_error());
    cr_expect_eq(pcs_world_state_hash(w), before, "the world changed");
}
