/**
 * @file version.c
 * @brief The linked library's version string, from the Makefile's VERSION.
 *
 * The Makefile passes its VERSION as PCS_MAKE_VERSION_{MAJOR,MINOR,PATCH};
 * the string is built from those, so pcs_version(), the SONAME and the
 * pkg-config file all say what the Makefile says. include/pcsim/version.h
 * keeps the same numbers as macros for hosts' #if tests, and a mismatch stops
 * the build here rather than shipping two versions.
 */
#include "pcsim/version.h"

#if !defined(PCS_MAKE_VERSION_MAJOR) || !defined(PCS_MAKE_VERSION_MINOR) ||                        \
    !defined(PCS_MAKE_VERSION_PATCH)
#error "build engine/version.c through the Makefile: it passes VERSION as PCS_MAKE_VERSION_*"
#endif
#if PCS_MAKE_VERSION_MAJOR != PCS_VERSION_MAJOR || PCS_MAKE_VERSION_MINOR != PCS_VERSION_MINOR ||  \
    PCS_MAKE_VERSION_PATCH != PCS_VERSION_PATCH
#error "include/pcsim/version.h's PCS_VERSION_* differ from the Makefile's VERSION: update both"
#endif

#define PCS_STR2(x) #x
#define PCS_STR(x) PCS_STR2(x)

const char *pcs_version(void)
{
    return PCS_STR(PCS_MAKE_VERSION_MAJOR) "." PCS_STR(PCS_MAKE_VERSION_MINOR) "." PCS_STR(
        PCS_MAKE_VERSION_PATCH);
}
