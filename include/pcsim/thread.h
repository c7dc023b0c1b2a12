/**
 * @file thread.h
 * @brief Named host threads (readers, producers) started through exec/.
 *
 * docs/ARCHITECTURE.md section 1: only exec/ creates threads. Hosts and the pcsim
 * program start their own helper threads (snapshot readers, command
 * producers) through this small wrapper so that rule holds everywhere and every
 * thread carries a name perf and gdb show.
 */
#ifndef PCSIM_THREAD_H
#define PCSIM_THREAD_H

#include "pcsim/export.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pcs_thread pcs_thread;

/**
 * Start @p fn(@p arg) on a new thread named @p name (at most 15 chars are
 * kept, the kernel's limit). @return PCS_E_INVAL (NULL fn/out), PCS_E_NOMEM,
 * PCS_E_STATE when the OS refuses a thread. Thread-safe.
 */
PCS_API pcs_status pcs_thread_start(const char *name, void (*fn)(void *arg), void *arg,
                                    pcs_thread **out);

/** Wait for @p t to finish and free it. NULL is allowed. */
PCS_API void pcs_thread_join(pcs_thread *t);

#ifdef __cplusplus
}
#endif

#endif
