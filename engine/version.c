/**
 * @file version.c
 * @brief The linked library's version string.
 */
#include "pcsim/version.h"

#define PCS_STR2(x) #x
#define PCS_STR(x) PCS_STR2(x)

const char *pcs_version(void)
{
    return PCS_STR(PCS_VERSION_MAJOR) "." PCS_STR(PCS_VERSION_MINOR) "." PCS_STR(
        PCS_VERSION_PATCH);
}
