/**
 * @file cli_capture.c
 * @brief A host command's stdout as text (cli_capture.h).
 */
#include "tests/cli_capture.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

char *cli_capture(int (*cmd)(int, char **), int argc, char **argv, const char *what)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    cr_assert(saved >= 0);
    cr_assert(dup2(fileno(f), STDOUT_FILENO) >= 0);
    int rc = cmd(argc, argv);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    cr_assert_eq(rc, 0, "%s exited %d", what, rc);
    long n = ftell(f);
    cr_assert(n > 0);
    char *text = calloc((size_t)n + 1, 1);
    cr_assert_not_null(text);
    rewind(f);
    cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return text;
}
