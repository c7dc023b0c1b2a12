/**
 * @file safe_file.c
 * @brief Files written whole or not at all (pcs_atomic_file, persist.h) and
 *        bounded opens of files that come from users (safe_file.h).
 *
 * A writer never opens its target path. It creates a new temporary beside it
 * with O_CREAT|O_EXCL|O_NOFOLLOW under a name of its own ("<path>.tmp-<pid>-<n>",
 * n from a process-wide counter; a name that exists is skipped, never opened),
 * writes and fsyncs it, renames it over the target and fsyncs the directory.
 * So a symlink or file already at or beside the path is never followed,
 * truncated or deleted, two writers (threads or processes) never share a
 * temporary, and the target holds the old file or the new one, whole. A write
 * that fails removes its own temporary; a writer killed mid-way can only leave
 * its own uniquely named one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/safe_file.h"
#include "pcsim/persist.h"

struct pcs_atomic_file {
    FILE *f;
    char *path; /* the target */
    char *tmp;  /* our temporary, in the target's directory */
    char *dir;  /* the target's directory, to fsync after the rename */
};

static atomic_uint tmp_serial;

/* "<what>: <OS reason>"; returns its constant (see persist.c's io_error for why). */
__attribute__((format(printf, 2, 3))) static pcs_status fail_io(int err, const char *fmt, ...)
{
    char what[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    pcs_error_set(PCS_E_IO, "%s: %s", what, strerror(err));
    return PCS_E_IO;
}

static void dir_of(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, n, ".");
    else if (slash == path)
        snprintf(dir, n, "/");
    else
        snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* What is at the target is replaced by the rename: only a regular file (or a
 * symlink, which the rename replaces, not follows) may be. A device, FIFO or
 * socket there is the user's, and a rename as root would put a regular file
 * in place of, say, /dev/null; a directory fails the rename only at the end,
 * after all the work. lstat, not stat: a symlink is never followed. */
static pcs_status check_target(const char *path, mode_t *keep_mode)
{
    struct stat s;
    *keep_mode = 0;
    if (lstat(path, &s) != 0)
        return PCS_OK; /* nothing there (or unreadable: create or rename says why) */
    if (S_ISREG(s.st_mode))
        *keep_mode = s.st_mode & 07777; /* the replacement keeps the file's permissions */
    if (S_ISREG(s.st_mode) || S_ISLNK(s.st_mode))
        return PCS_OK;
    pcs_error_set(PCS_E_IO,
                  "'%s' is %s, not a regular file; only a regular file at the path is "
                  "replaced",
                  path, kind_of(s.st_mode));
    return PCS_E_IO;
}

/* O_EXCL creates the name or fails: an existing file or symlink is never opened. */
static int create_tmp(pcs_atomic_file *a, size_t tmp_len)
{
    for (int tries = 0; tries < 64; tries++) {
        unsigned serial = atomic_fetch_add(&tmp_serial, 1u);
        snprintf(a->tmp, tmp_len, "%s.tmp-%ld-%u", a->path, (long)getpid(), serial);
        int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1; /* errno is EEXIST */
}

pcs_status pcs_atomic_file_create(const char *path, pcs_atomic_file **out)
{
    if (!path || !path[0] || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_atomic_file_create: path or out is NULL/empty");
    size_t n = strlen(path), tmp_len = n + 48;
    if (n > 4000)
        return pcs_error_set(PCS_E_INVAL, "'%.64s...': path is longer than 4000 bytes", path);
    pcs_atomic_file *a = calloc(1, sizeof *a + (n + 1) * 2 + tmp_len);
    if (!a)
        return pcs_error_set(PCS_E_NOMEM, "no memory to write '%s'", path);
    a->path = (char *)(a + 1);
    a->dir = a->path + n + 1;
    a->tmp = a->dir + n + 1;
    memcpy(a->path, path, n + 1);
    dir_of(path, a->dir, n + 1);
    mode_t keep_mode;
    pcs_status target = check_target(a->path, &keep_mode);
    if (target != PCS_OK) {
        free(a);
        return target;
    }
    int fd = create_tmp(a, tmp_len);
    if (fd >= 0 && keep_mode && fchmod(fd, keep_mode) != 0) {
        pcs_status st = fail_io(errno, "cannot set mode %o on '%s'", (unsigned)keep_mode, a->tmp);
        close(fd);
        unlink(a->tmp);
        free(a);
        return st;
    }
    if (fd < 0) {
        pcs_status st =
            fail_io(errno, "cannot create a temporary file in '%s' for '%s'", a->dir, a->path);
        free(a);
        return st;
    }
    if (!(a->f = fdopen(fd, "wb"))) {
        pcs_status st = fail_io(errno, "cannot write '%s' (temporary '%s')", a->path, a->tmp);
        close(fd);
        unlink(a->tmp);
        free(a);
        return st;
    }
    *out = a;
    return PCS_OK;
}

FILE *pcs_atomic_file_stream(pcs_atomic_file *a)
{
    return a ? a->f : NULL;
}

void pcs_atomic_file_discard(pcs_atomic_file *a)
{
    if (!a)
        return;
    fclose(a->f);
    unlink(a->tmp); /* ours: created with O_EXCL above */
    free(a);
}

/* The rename is durable only once the directory entry is on disk. A directory
 * we may not open for reading, or a file system without directory fsync
 * (EINVAL), cannot be synced: the file is in place all the same. */
static pcs_status sync_dir(const pcs_atomic_file *a)
{
    int d = open(a->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0)
        return PCS_OK;
    pcs_status st = PCS_OK;
    if (fsync(d) != 0 && errno != EINVAL)
        st = fail_io(errno, "'%s' was written, but syncing its directory '%s' failed", a->path,
                     a->dir);
    close(d);
    return st;
}

pcs_status pcs_atomic_file_commit(pcs_atomic_file *a)
{
    if (!a)
        return pcs_error_set(PCS_E_INVAL, "pcs_atomic_file_commit: file is NULL");
    int err = 0;
    errno = 0;
    if (fflush(a->f) != 0 || ferror(a->f))
        err = errno ? errno : EIO; /* an earlier buffered write failed */
    else if (fsync(fileno(a->f)) != 0)
        err = errno;
    if (fclose(a->f) != 0 && !err)
        err = errno;
    a->f = NULL;
    pcs_status st = PCS_OK;
    mode_t unused;
    if (err)
        st = fail_io(err, "cannot write '%s' (temporary '%s')", a->path, a->tmp);
    else
        st = check_target(a->path,
                          &unused); /* something else may have taken the path since create */
    if (st == PCS_OK && rename(a->tmp, a->path) != 0)
        st = fail_io(errno, "cannot rename '%s' to '%s'", a->tmp, a->path);
    if (st != PCS_OK)
        unlink(a->tmp); /* what was at the path stays */
    else
        st = sync_dir(a);
    free(a);
    return st;
}

pcs_status pcs_open_regular(const char *path, const char *what, int *fd_out, uint64_t *size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return fail_io(errno, "%s '%s': cannot open", what, path);
    struct stat s;
    if (fstat(fd, &s) != 0) {
        pcs_status st = fail_io(errno, "%s '%s': cannot stat", what, path);
        close(fd);
        return st;
    }
    if (!S_ISREG(s.st_mode)) {
        close(fd);
        pcs_error_set(PCS_E_IO, "%s '%s': is %s, not a regular file", what, path,
                      kind_of(s.st_mode));
        return PCS_E_IO;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        pcs_status st = fail_io(errno, "%s '%s': cannot clear O_NONBLOCK", what, path);
        close(fd);
        return st;
    }
    *fd_out = fd;
    *size = (uint64_t)s.st_size;
    return PCS_OK;
}

pcs_status pcs_read_upto(int fd, void *buf, size_t cap, size_t *got, const char *what,
                         const char *path)
{
    size_t n = 0;
    while (n < cap) {
        ssize_t r = read(fd, (unsigned char *)buf + n, cap - n);
        if (r == 0)
            break;
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return fail_io(errno, "%s '%s': cannot read", what, path);
        n += (size_t)r;
    }
    *got = n;
    return PCS_OK;
}
