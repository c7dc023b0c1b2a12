/**
 * @file fuzz_common.c
 * @brief Helpers shared by the fuzz targets (see fuzz_common.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_common.h"

static int memfds[2] = {-1, -1};
static uint64_t pristine_hash;

_Noreturn void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz invariant: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* One memfd per slot for the whole process, rewritten per input: the
 * loaders open the /proc path afresh, so each open starts at offset 0. */
void fuzz_file(int slot, const void *data, size_t size, char path[FUZZ_PATH_LEN])
{
    if (memfds[slot] < 0 && (memfds[slot] = memfd_create("pcsim-fuzz", MFD_CLOEXEC)) < 0)
        fuzz_fail("memfd_create failed");
    int fd = memfds[slot];
    if (ftruncate(fd, 0) != 0)
        fuzz_fail("ftruncate failed");
    const char *p = data;
    for (size_t done = 0; done < size;) {
        ssize_t n = pwrite(fd, p + done, size - done, (off_t)done);
        if (n <= 0)
            fuzz_fail("pwrite to the memfd failed");
        done += (size_t)n;
    }
    snprintf(path, FUZZ_PATH_LEN, "/proc/self/fd/%d", fd);
}

void fuzz_build_station(fuzz_station *h)
{
    fuzz_build_station_file(h, NULL);
}

void fuzz_build_station_file(fuzz_station *h, const char *scenario_file)
{
    memset(h, 0, sizeof *h);
    pcs_status st = scenario_file ? pcs_scenario_load_file(scenario_file, NULL, &h->scn)
                                  : pcs_scenario_default(&h->scn);
    if (st != PCS_OK)
        fuzz_fail("scenario: %s", pcs_last_error());
    pcs_world_def cfg = pcs_scenario_world_def(h->scn);
    cfg.workers = 0; /* jobs run inline: one thread, repeatable */
    if (pcs_world_create(&cfg, &h->world) != PCS_OK)
        fuzz_fail("world: %s", pcs_last_error());
    if (pcs_station_add(h->world, h->scn, &h->st) != PCS_OK)
        fuzz_fail("plant: %s", pcs_last_error());
}

/* pcs_world_save writes through a temporary file and a rename, which a
 * memfd path cannot take: save into a private directory, copy the image
 * into memfd slot 1 and remove the directory. */
void fuzz_keep_pristine(fuzz_station *h)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512], file[600];
    snprintf(dir, sizeof dir, "%s/pcsim-fuzz-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir))
        fuzz_fail("mkdtemp '%s' failed", dir);
    snprintf(file, sizeof file, "%s/pristine.save", dir);
    if (pcs_world_save(h->world, file) != PCS_OK)
        fuzz_fail("save: %s", pcs_last_error());
    FILE *f = fopen(file, "rb");
    if (!f)
        fuzz_fail("cannot reopen '%s'", file);
    static unsigned char img[1 << 22];
    size_t n = fread(img, 1, sizeof img, f);
    fclose(f);
    remove(file);
    rmdir(dir);
    if (n == 0 || n == sizeof img)
        fuzz_fail("pristine save of %zu bytes (expected 1 .. %zu)", n, sizeof img - 1);
    char path[FUZZ_PATH_LEN];
    fuzz_file(1, img, n, path);
    pristine_hash = pcs_world_state_hash(h->world);
    fuzz_restore(h); /* the image must load back to the same state */
}

void fuzz_restore(fuzz_station *h)
{
    char path[FUZZ_PATH_LEN];
    snprintf(path, sizeof path, "/proc/self/fd/%d", memfds[1]);
    if (pcs_world_load(h->world, path) != PCS_OK)
        fuzz_fail("restoring the pristine save failed: %s", pcs_last_error());
    uint64_t hash = pcs_world_state_hash(h->world);
    if (hash != pristine_hash)
        fuzz_fail("restored world has state hash %016llx, pristine %016llx",
                  (unsigned long long)hash, (unsigned long long)pristine_hash);
}

void fuzz_rebuild(fuzz_station *h, const char *scenario_file)
{
    pcs_station_destroy(h->st);
    pcs_world_destroy(h->world);
    pcs_scenario_destroy(h->scn);
    fuzz_build_station_file(h, scenario_file);
    uint64_t hash = pcs_world_state_hash(h->world);
    if (hash != pristine_hash)
        fuzz_fail("a rebuilt station has state hash %016llx, pristine %016llx",
                  (unsigned long long)hash, (unsigned long long)pristine_hash);
}

uint64_t fuzz_pristine_hash(void)
{
    return pristine_hash;
}
