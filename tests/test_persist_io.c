/**
 * @file test_persist_io.c
 * @brief Save-file I/O against a hostile file system: what is already at or
 *        beside the path is never followed or deleted, reads are bounded by
 *        what the world can need, non-regular files are refused at once,
 *        concurrent and interrupted saves leave a whole file, and the header
 *        ties a save to the world that wrote it.
 *
 * Each test works in its own directory under /tmp so that "no temporary file
 * is left" can be checked by listing it.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/persist_internal.h"
#include "pcsim/pcsim.h"

/* A world with one STATE store "x" of @p count elements of @p elem bytes,
 * filled from @p fill so that two fills give two state hashes. */
static pcs_world *io_world(uint64_t build_hash, size_t elem, size_t count, unsigned fill)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.seed = 3;
    cfg.build_hash = build_hash;
    cfg.event_capacity = 2; /* the events section: 16 + 2 * 48 bytes */
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    uint32_t id;
    cr_assert_eq(pcs_store_register(w, "x", elem, count, PCS_STORE_STATE, &id), PCS_OK, "%s",
                 pcs_last_error());
    unsigned char *x = pcs_store_data(w, id);
    for (size_t i = 0; i < elem * count; i++)
        x[i] = (unsigned char)(i * 31u + fill);
    return w;
}

static pcs_world *small_world(unsigned fill)
{
    return io_world(0, 8, 16, fill);
}

static char dir[64];
static char save_path[128];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/pcsim-io-XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(save_path, sizeof save_path, "%s/w.save", dir);
}

/* Names in dir other than "." and "..", joined by spaces into @p out. */
static int list_dir(char *out, size_t len)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    out[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", n ? " " : "", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

static void read_text(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    size_t n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
}

/* The file at save_path loads into a world shaped like small_world and gives @p hash. */
static void expect_loads(uint64_t hash_a, uint64_t hash_b)
{
    pcs_world *c = small_world(9u);
    cr_assert_eq(pcs_world_load(c, save_path), PCS_OK, "%s", pcs_last_error());
    uint64_t h = pcs_world_state_hash(c);
    cr_assert(h == hash_a || h == hash_b, "loaded hash %016llx is neither %016llx nor %016llx",
              (unsigned long long)h, (unsigned long long)hash_a, (unsigned long long)hash_b);
    pcs_world_destroy(c);
}

/* Load save_path into a fresh small world: must fail with @p want, name
 * @p text, and leave the world as it was. */
static void expect_refused(pcs_status want, const char *text)
{
    pcs_world *c = small_world(9u);
    uint64_t before = pcs_world_state_hash(c);
    pcs_status st = pcs_world_load(c, save_path);
    cr_assert_eq(st, want, "load returned %s: %s", pcs_status_str(st), pcs_last_error());
    cr_assert(strstr(pcs_last_error(), text) != NULL, "'%s' names '%s'", pcs_last_error(), text);
    cr_assert_eq(pcs_world_state_hash(c), before, "a refused load changes nothing");
    pcs_world_destroy(c);
}

/* --- Safe atomic writes ------------------------------------------------- */

Test(persist_io, symlink_beside_the_path_is_never_followed)
{
    make_dir();
    char victim[160], tmp[160], text[64];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", save_path);
    write_text(victim, "keep me\n");
    cr_assert_eq(symlink(victim, tmp), 0, "%s", strerror(errno));
    pcs_world *a = small_world(1u);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    read_text(victim, text, sizeof text);
    cr_assert_str_eq(text, "keep me\n", "the symlink's target was written through");
    struct stat s;
    cr_assert_eq(lstat(tmp, &s), 0, "the symlink at %s was removed", tmp);
    cr_assert(S_ISLNK(s.st_mode), "%s is no longer a symlink", tmp);
    cr_assert_eq(lstat(save_path, &s), 0);
    cr_assert(S_ISREG(s.st_mode), "the save is not a regular file (mode %o)", s.st_mode);
    expect_loads(pcs_world_state_hash(a), 0);
    pcs_world_destroy(a);
    remove_dir();
}

Test(persist_io, plain_file_beside_the_path_is_kept)
{
    make_dir();
    char tmp[160], text[64];
    snprintf(tmp, sizeof tmp, "%s.tmp", save_path);
    write_text(tmp, "somebody's notes\n");
    pcs_world *a = small_world(1u);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(access(tmp, F_OK), 0, "%s was deleted", tmp);
    read_text(tmp, text, sizeof text);
    cr_assert_str_eq(text, "somebody's notes\n");
    expect_loads(pcs_world_state_hash(a), 0);
    pcs_world_destroy(a);
    remove_dir();
}

/* A save replaces the file at its path with a new inode; a user who made the
 * old one private (0600) must not find the new one readable by everyone. */
Test(persist_io, replacing_a_file_keeps_its_permissions)
{
    make_dir();
    pcs_world *a = small_world(1u);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(chmod(save_path, 0600), 0, "%s", strerror(errno));
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    struct stat s;
    cr_assert_eq(stat(save_path, &s), 0);
    cr_assert_eq(s.st_mode & 07777, 0600, "the replaced save has mode %o, the old one had 600",
                 (unsigned)(s.st_mode & 07777));
    pcs_world_destroy(a);
    remove_dir();
}

Test(persist_io, save_error_names_the_path_and_the_reason)
{
    make_dir();
    char missing[160];
    snprintf(missing, sizeof missing, "%s/no/such/w.save", dir);
    pcs_world *a = small_world(1u);
    cr_assert_eq(pcs_world_save(a, missing), PCS_E_IO);
    char want[160];
    snprintf(want, sizeof want, "%s/no/such", dir);
    cr_assert(strstr(pcs_last_error(), want) != NULL, "%s", pcs_last_error());
    cr_assert(strstr(pcs_last_error(), "No such file or directory") != NULL, "%s",
              pcs_last_error());
    pcs_world_destroy(a);
    remove_dir();
}

/* --- Bounded reads ------------------------------------------------------ */

Test(persist_io, trailing_bytes_are_refused_with_their_count)
{
    make_dir();
    pcs_world *a = small_world(1u);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    FILE *f = fopen(save_path, "ab");
    fputs("extra", f);
    fclose(f);
    expect_refused(PCS_E_CORRUPT, "5 trailing bytes");
    pcs_world_destroy(a);
    remove_dir();
}

static long max_rss_kib(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_maxrss;
}

/* A sparse 1 GiB file costs no disk; reading it whole would cost 1 GiB of memory. */
Test(persist_io, huge_file_is_refused_without_reading_it)
{
    make_dir();
    pcs_world *a = small_world(1u);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(truncate(save_path, 1l << 30), 0, "%s", strerror(errno));
    long before = max_rss_kib();
    expect_refused(PCS_E_CORRUPT, "file is 1073741824 bytes");
    long grown = max_rss_kib() - before;
    cr_assert_lt(grown, 64 * 1024, "the load grew the process by %ld KiB", grown);
    pcs_world_destroy(a);
    remove_dir();
}

/* The structure log's pass (persist.c, replay_structure) reads the table
 * before the load proper: a header claiming as many sections as a sparse
 * 256 MiB file could hold made it allocate and read the whole claimed
 * table (its checksum is only known after). It hashes it in pieces now. */
Test(persist_io, huge_claimed_table_is_refused_without_reading_it)
{
    make_dir();
    pcs_world *a = small_world(1u);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    const uint64_t size = 256ull << 20;
    uint32_t n = (uint32_t)((size - 48u - 8u) / 104u); /* header, records of 104, checksum */
    FILE *f = fopen(save_path, "r+b");
    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, 12, SEEK_SET), 0); /* n_sections: after magic[8] and version */
    cr_assert_eq(fwrite(&n, sizeof n, 1, f), 1u);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(truncate(save_path, (off_t)size), 0, "%s", strerror(errno));
    long before = max_rss_kib();
    char want[96]; /* the load proper's refusal, 2581109 = (2^28 - 56) / 104 */
    snprintf(want, sizeof want, "file has %u sections, this world has 2", n);
    cr_assert_eq(n, 2581109u);
    expect_refused(PCS_E_CORRUPT, want);
    long grown = max_rss_kib() - before;
    cr_assert_lt(grown, 64 * 1024, "the load grew the process by %ld KiB", grown);
    pcs_world_destroy(a);
    remove_dir();
}

Test(persist_io, directory_and_device_are_refused_by_kind)
{
    make_dir();
    snprintf(save_path, sizeof save_path, "%s", dir);
    expect_refused(PCS_E_IO, "is a directory");
    expect_refused(PCS_E_IO, dir);
    snprintf(save_path, sizeof save_path, "/dev/null");
    expect_refused(PCS_E_IO, "is a character device");
    remove_dir();
}

/* Load in a child so that a load that blocks fails the test instead of hanging it. */
Test(persist_io, fifo_without_writer_is_refused_at_once)
{
    make_dir();
    snprintf(save_path, sizeof save_path, "%s/fifo", dir);
    cr_assert_eq(mkfifo(save_path, 0600), 0, "%s", strerror(errno));
    int msg[2];
    cr_assert_eq(pipe(msg), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        pcs_world *c = small_world(9u);
        pcs_status st = pcs_world_load(c, save_path);
        ssize_t n = write(msg[1], pcs_last_error(), strlen(pcs_last_error()));
        _exit(st == PCS_E_IO && n > 0 ? 0 : 1);
    }
    close(msg[1]);
    int status = 0, waited = 0;
    for (int i = 0; i < 100 && !waited; i++) { /* up to 1 s */
        waited = waitpid(pid, &status, WNOHANG) == pid;
        if (!waited)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    if (!waited) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    char text[512] = {0};
    ssize_t n = read(msg[0], text, sizeof text - 1);
    close(msg[0]);
    cr_assert(waited, "the load of a FIFO with no writer still blocked after 1 s");
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "load of a FIFO: '%s'", text);
    cr_assert(n > 0 && strstr(text, "is a FIFO") != NULL, "'%s' names the kind", text);
    remove_dir();
}

/* --- Concurrent and interrupted saves ----------------------------------- */

typedef struct saver {
    pcs_world *w;
    pthread_barrier_t *go;
    pcs_status st;
    char msg[512];
} saver;

static void *save_thread(void *arg)
{
    saver *s = arg;
    pthread_barrier_wait(s->go);
    s->st = pcs_world_save(s->w, save_path);
    snprintf(s->msg, sizeof s->msg, "%s", s->st == PCS_OK ? "" : pcs_last_error());
    return NULL;
}

static void expect_only_the_save(int round)
{
    char names[1024];
    int n = list_dir(names, sizeof names);
    cr_assert(n == 1 && !strcmp(names, "w.save"), "round %d: the directory holds '%s'", round,
              names);
}

Test(persist_io, two_threads_saving_one_path_leave_one_whole_file)
{
    make_dir();
    pcs_world *a = small_world(1u), *b = small_world(2u);
    uint64_t ha = pcs_world_state_hash(a), hb = pcs_world_state_hash(b);
    cr_assert_neq(ha, hb);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, 2);
    for (int round = 0; round < 100; round++) {
        saver s[2] = {{.w = a, .go = &go}, {.w = b, .go = &go}};
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            cr_assert_eq(pthread_create(&t[i], NULL, save_thread, &s[i]), 0);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        for (int i = 0; i < 2; i++)
            cr_assert_eq(s[i].st, PCS_OK, "round %d saver %d: %s", round, i, s[i].msg);
        expect_loads(ha, hb);
        expect_only_the_save(round);
    }
    pthread_barrier_destroy(&go);
    pcs_world_destroy(a);
    pcs_world_destroy(b);
    remove_dir();
}

/* Two saver processes, forked once (a fork per round is slow under ASan):
 * each round the parent releases both with one byte each and reads back one
 * result byte from each, '0' for a save that worked. */
static void saver_process(pcs_world *w, int go, int done)
{
    char c;
    while (read(go, &c, 1) == 1) {
        char r = pcs_world_save(w, save_path) == PCS_OK ? '0' : '1';
        if (write(done, &r, 1) != 1)
            break;
    }
    _exit(0);
}

Test(persist_io, two_processes_saving_one_path_leave_one_whole_file)
{
    make_dir();
    pcs_world *a = small_world(1u), *b = small_world(2u);
    uint64_t ha = pcs_world_state_hash(a), hb = pcs_world_state_hash(b);
    int go[2][2], done[2][2];
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(pipe(go[i]), 0);
        cr_assert_eq(pipe(done[i]), 0);
        pid[i] = fork();
        cr_assert_neq(pid[i], -1);
        if (pid[i] == 0) {
            close(go[i][1]);
            close(done[i][0]);
            if (i == 1) { /* the first saver's ends, inherited */
                close(go[0][1]);
                close(done[0][0]);
            }
            saver_process(i ? b : a, go[i][0], done[i][1]);
        }
        close(go[i][0]);
        close(done[i][1]);
    }
    for (int round = 0; round < 100; round++) {
        for (int i = 0; i < 2; i++)
            cr_assert_eq(write(go[i][1], "g", 1), 1);
        for (int i = 0; i < 2; i++) {
            char r = 0;
            cr_assert_eq(read(done[i][0], &r, 1), 1, "round %d: saver %d died", round, i);
            cr_assert_eq(r, '0', "round %d: saver %d failed", round, i);
        }
        expect_loads(ha, hb);
        expect_only_the_save(round);
    }
    for (int i = 0; i < 2; i++) {
        close(go[i][1]); /* the saver sees end of file and exits */
        close(done[i][0]);
        int status;
        cr_assert_eq(waitpid(pid[i], &status, 0), pid[i]);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    pcs_world_destroy(a);
    pcs_world_destroy(b);
    remove_dir();
}

/* A child saves @p b over the save of @p a while the parent kills it at once
 * after it started: whatever point the kill hits, the path holds a whole file. */
Test(persist_io, save_killed_mid_write_leaves_a_whole_file)
{
    make_dir();
    /* 8 MiB of state: the write takes long enough to be hit mid-way. */
    pcs_world *a = io_world(0, 8, 1u << 20, 1u), *b = io_world(0, 8, 1u << 20, 2u);
    uint64_t ha = pcs_world_state_hash(a), hb = pcs_world_state_hash(b);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    int started[2];
    cr_assert_eq(pipe(started), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        close(started[0]);
        ssize_t n = write(started[1], "s", 1);
        (void)n;
        _exit(pcs_world_save(b, save_path) == PCS_OK ? 0 : 1);
    }
    close(started[1]);
    char c;
    cr_assert_eq(read(started[0], &c, 1), 1);
    close(started[0]);
    nanosleep(&(struct timespec){0, 1000000}, NULL);
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    pcs_world *check = io_world(0, 8, 1u << 20, 9u);
    cr_assert_eq(pcs_world_load(check, save_path), PCS_OK, "%s", pcs_last_error());
    uint64_t h = pcs_world_state_hash(check);
    cr_assert(h == ha || h == hb, "the file after the kill is neither save");
    pcs_world_destroy(check);
    pcs_world_destroy(a);
    pcs_world_destroy(b);
    remove_dir(); /* a killed save may leave its own uniquely named temporary */
}

/* RLIMIT_FSIZE makes the write fail as on a full disk (EFBIG). */
Test(persist_io, failed_write_keeps_the_previous_file_and_no_temporary)
{
    make_dir();
    pcs_world *a = io_world(0, 8, 1024, 1u), *b = io_world(0, 8, 1024, 2u);
    uint64_t ha = pcs_world_state_hash(a);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    int msg[2];
    cr_assert_eq(pipe(msg), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        close(msg[0]);
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = {4096, 4096};
        setrlimit(RLIMIT_FSIZE, &lim);
        pcs_status st = pcs_world_save(b, save_path);
        ssize_t n = write(msg[1], pcs_last_error(), strlen(pcs_last_error()));
        (void)n;
        _exit(st == PCS_E_IO ? 0 : 1);
    }
    close(msg[1]);
    char text[512] = {0};
    ssize_t n = read(msg[0], text, sizeof text - 1);
    close(msg[0]);
    int status;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "save over the limit: '%s'", text);
    cr_assert(n > 0 && strstr(text, "File too large") && strstr(text, dir), "'%s'", text);
    pcs_world *check = io_world(0, 8, 1024, 9u);
    cr_assert_eq(pcs_world_load(check, save_path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_state_hash(check), ha, "the previous save was lost");
    expect_only_the_save(0);
    pcs_world_destroy(check);
    pcs_world_destroy(a);
    pcs_world_destroy(b);
    remove_dir();
}

/* --- The header ties a save to its world -------------------------------- */

Test(persist_io, save_of_another_build_is_refused_naming_both_hashes)
{
    make_dir();
    pcs_world *a = io_world(0xa11ce, 8, 16, 1u);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    pcs_world *c = io_world(0xb0b, 8, 16, 9u);
    uint64_t before = pcs_world_state_hash(c);
    cr_assert_eq(pcs_world_load(c, save_path), PCS_E_CORRUPT, "%s", pcs_last_error());
    cr_assert(strstr(pcs_last_error(), "0x00000000000a11ce") != NULL, "%s", pcs_last_error());
    cr_assert(strstr(pcs_last_error(), "0x0000000000000b0b") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_state_hash(c), before);
    /* The same build loads. */
    pcs_world *d = io_world(0xa11ce, 8, 16, 9u);
    cr_assert_eq(pcs_world_load(d, save_path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_state_hash(d), pcs_world_state_hash(a));
    pcs_world_destroy(a);
    pcs_world_destroy(c);
    pcs_world_destroy(d);
    remove_dir();
}

/* Same name and byte count, another element shape: 4 x 8 bytes is not 8 x 4. */
Test(persist_io, store_of_another_shape_is_refused)
{
    make_dir();
    pcs_world *a = io_world(0, 8, 4, 1u);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    pcs_world *c = io_world(0, 4, 8, 9u);
    uint64_t before = pcs_world_state_hash(c);
    cr_assert_eq(pcs_world_load(c, save_path), PCS_E_CORRUPT, "%s", pcs_last_error());
    cr_assert(strstr(pcs_last_error(), "4 elements of 8 bytes") != NULL, "%s", pcs_last_error());
    cr_assert(strstr(pcs_last_error(), "8 elements of 4 bytes") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_state_hash(c), before);
    pcs_world_destroy(a);
    pcs_world_destroy(c);
    remove_dir();
}

Test(persist_io, version_1_file_is_refused_by_its_version)
{
    make_dir();
    unsigned char v1[512] = {'P', 'C', 'S', 'I', 'M', 'S', 'V', '1', 1, 0, 0, 0};
    FILE *f = fopen(save_path, "wb");
    fwrite(v1, 1, sizeof v1, f);
    fclose(f);
    expect_refused(PCS_E_VERSION, "file version 1, this build reads 2");
    remove_dir();
}

/* Tests and the save fuzzer edit values and reseal: the result must load. */
Test(persist_io, reseal_makes_an_edited_save_load)
{
    make_dir();
    pcs_world *a = small_world(1u);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    FILE *f = fopen(save_path, "rb");
    unsigned char buf[4096];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    /* The last byte of store x: after header and 2 table entries (264 bytes), 128 bytes. */
    buf[48 + 2 * 104 + 8 + 128 - 1] ^= 0x5a;
    cr_assert_eq(pcs_persist_reseal(buf, len), 2, "store x and events:previous");
    f = fopen(save_path, "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    pcs_world *c = small_world(9u);
    cr_assert_eq(pcs_world_load(c, save_path), PCS_OK, "%s", pcs_last_error());
    cr_assert_neq(pcs_world_state_hash(c), pcs_world_state_hash(a), "the edit was applied");
    pcs_world_destroy(a);
    pcs_world_destroy(c);
    remove_dir();
}

/* Edit one u32 of a save at @p at to @p v, reseal, and write it back. */
static void edit_u32_and_reseal(size_t at, uint32_t v)
{
    FILE *f = fopen(save_path, "rb");
    unsigned char buf[4096];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    memcpy(buf + at, &v, sizeof v);
    cr_assert_eq(pcs_persist_reseal(buf, len), 2);
    f = fopen(save_path, "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
}

/* Header: layout version at byte 40; table entry 0 offset at 48 + 64. */
Test(persist_io, other_layout_version_is_refused)
{
    make_dir();
    pcs_world *a = small_world(1u);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    edit_u32_and_reseal(40, 7);
    expect_refused(PCS_E_VERSION, "section layout 7 (reserved 0), this build reads layout 3");
    pcs_world_destroy(a);
    remove_dir();
}

Test(persist_io, section_not_where_the_previous_ends_is_refused)
{
    make_dir();
    pcs_world *a = small_world(1u);
    cr_assert_eq(pcs_world_save(a, save_path), PCS_OK, "%s", pcs_last_error());
    edit_u32_and_reseal(48 + 64, 48 + 2 * 104 + 8 - 1); /* one byte earlier than it is */
    expect_refused(PCS_E_CORRUPT, "section 'store:x' starts at byte 263; the previous one ends "
                                  "at 264");
    pcs_world_destroy(a);
    remove_dir();
}
