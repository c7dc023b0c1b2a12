/**
 * @file fuzz_common.h
 * @brief Shared by the libFuzzer targets: inputs as files through a memfd,
 *        the station world built once per process, and a hard stop for a
 *        broken invariant.
 */
#ifndef PCS_FUZZ_COMMON_H
#define PCS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/pcsim.h"
#include "pcsim/station.h"
#include "station/station_internal.h"

/* The station a target fuzzes against, built through pcsim/station.h. */
typedef struct fuzz_station {
    pcs_scenario *scn;
    pcs_world *world;
    pcs_station *st;
} fuzz_station;

/** Room for "/proc/self/fd/N". */
#define FUZZ_PATH_LEN 64

/* libFuzzer's entry points (fuzzer/FuzzerInterface.h, not installed by Debian). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/**
 * Put @p size bytes into this process's memfd @p slot (0 or 1) and write its
 * path ("/proc/self/fd/N") into @p path, so a loader opens, fstats and reads
 * a real (regular) file. Aborts if the memfd cannot be written.
 */
void fuzz_file(int slot, const void *data, size_t size, char path[FUZZ_PATH_LEN]);

/** Print "fuzz invariant: <msg>" to stderr and abort: libFuzzer records the input. */
_Noreturn void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * Build the default scenario's station (the built-in pwr-station.json) into
 * @p h as `pcsim run` does, without snapshot pool, profile or worker pool.
 * Aborts on failure: every target needs it.
 */
void fuzz_build_station(fuzz_station *h);

/** The same from a scenario file (NULL: the built-in one). */
void fuzz_build_station_file(fuzz_station *h, const char *scenario_file);

/** The state of @p h's world as a save image in memfd slot 1, for fuzz_restore. */
void fuzz_keep_pristine(fuzz_station *h);

/** Load the kept image back; aborts unless the state hash is the kept one. */
void fuzz_restore(fuzz_station *h);

/**
 * Destroy @p h and build it again from @p scenario_file (NULL: the built-in
 * one); aborts unless the new world has the kept image's state hash. For a
 * world that applied a structural change: it refuses the kept image, whose
 * structure log it extends (pcsim/persist.h), so only a fresh one is pristine.
 */
void fuzz_rebuild(fuzz_station *h, const char *scenario_file);

/** State hash of the kept image. */
uint64_t fuzz_pristine_hash(void);

#endif
