/**
 * @file fork_child.c
 * @brief fork_child_run: the child reports through a pipe.
 */
#include "tests/fork_child.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

fork_child_out fork_child_run(void (*fn)(void *ctx, fork_child_out *out), void *ctx)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
    fork_child_out r;
    memset(&r, 0, sizeof r);
    if (pid == 0) {
        close(fds[0]);
        fn(ctx, &r);
        _exit(write(fds[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fds[1]);
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t n = read(fds[0], (char *)&r + got, sizeof r - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        cr_assert_eq(errno, EINTR, "waitpid: %s", strerror(errno));
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0 && got == sizeof r,
              "forked child: wait status %#x, %zu of %zu bytes reported", (unsigned)status, got,
              sizeof r);
    return r;
}
