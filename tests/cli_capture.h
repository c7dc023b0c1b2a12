/**
 * @file cli_capture.h
 * @brief Run one of the host program's commands (cmd_run, cmd_info, ...) in
 *        the test process with its stdout in a file, and get the text back.
 */
#ifndef PCS_TESTS_CLI_CAPTURE_H
#define PCS_TESTS_CLI_CAPTURE_H

/**
 * Call @p cmd (argc, argv) with stdout redirected to a temporary file and
 * return what it printed (malloc'd, NUL-terminated; the caller frees it).
 * Asserts (Criterion) that the command returns 0 and prints something;
 * @p what names the command in the failure message.
 */
char *cli_capture(int (*cmd)(int, char **), int argc, char **argv, const char *what);

#endif
