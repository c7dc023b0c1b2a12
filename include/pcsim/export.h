/**
 * @file export.h
 * @brief Symbol visibility for the shared library.
 *
 * The library is built with -fvisibility=hidden; only declarations marked
 * PCS_API are exported from libpcsim.so, so the ABI is exactly the pcs_ names.
 */
#ifndef PCSIM_EXPORT_H
#define PCSIM_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define PCS_API __attribute__((visibility("default")))
#else
#define PCS_API
#endif

#endif
