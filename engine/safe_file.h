/**
 * @file safe_file.h
 * @brief Bounded opens for reading files that come from users (engine only).
 *        Writing whole-or-nothing files is public: pcs_atomic_file in persist.h.
 */
#ifndef PCS_ENGINE_SAFE_FILE_H
#define PCS_ENGINE_SAFE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/status.h"

/*
 * Open @p path for reading without blocking or taking a terminal
 * (O_RDONLY|O_NONBLOCK|O_NOCTTY|O_CLOEXEC), fstat it and refuse anything but
 * a regular file, naming its kind: "<what> '<path>': is a directory, not a
 * regular file". A FIFO with no writer is refused at once. O_NONBLOCK is
 * cleared before returning, so reads behave as usual.
 * @return PCS_OK with *fd and *size (bytes at open), or PCS_E_IO naming the
 *         path and the OS reason or the kind.
 */
pcs_status pcs_open_regular(const char *path, const char *what, int *fd, uint64_t *size);

/*
 * Read up to @p cap bytes from @p fd into @p buf, until end of file; retries
 * interrupted and short reads. @return the count in *got, or PCS_E_IO.
 */
pcs_status pcs_read_upto(int fd, void *buf, size_t cap, size_t *got, const char *what,
                         const char *path);

#endif
