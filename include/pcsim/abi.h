/**
 * @file abi.h
 * @brief The layout of every public struct, as the library was compiled:
 *        for hosts that bind pcsim without a C compiler (the Python package
 *        in python/, cffi ABI mode) and must not guess a struct's size.
 *
 * One row per public struct (field "") and one per member, in header order:
 * struct rows give sizeof and alignof, member rows offsetof and sizeof. The
 * rows are generated at build from the preprocessed public headers
 * (tools/abi_table.awk) and measured by the compiler that builds the library
 * (station/abi.c), so a binding compares its own layout of the same headers
 * with them and refuses to run on a mismatch instead of corrupting memory.
 * Thread-safety: the table is constant; any thread.
 */
#ifndef PCSIM_ABI_H
#define PCSIM_ABI_H

#include <stdint.h>

#include "pcsim/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One row of the layout table. */
typedef struct pcs_abi_field {
    const char *type;  /**< struct tag ("pcs_command") */
    const char *field; /**< member name; "" on the struct's own row */
    uint32_t offset;   /**< offsetof; the struct's alignment on its own row */
    uint32_t size;     /**< sizeof the member, or of the struct on its own row */
} pcs_abi_field;

/**
 * The layout table: @p count (may be NULL) receives its row count. Every
 * struct's own row comes before its members' rows.
 */
PCS_API const pcs_abi_field *pcs_abi_layout(uint32_t *count);

#ifdef __cplusplus
}
#endif

#endif
