/* rvtrace CLI — shared declarations.  Each subcommand lives in its own
 * cmd_<name>.c and is listed in main.c's table.  argv[0] is the subcommand
 * name; a subcommand returns the process exit status (0 ok, 1 error,
 * 2 usage). */
#ifndef RVT_CLI_H
#define RVT_CLI_H

#include "rvtrace/rvtrace.h"

#include <stdbool.h>

int cmd_encode(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);

/* Print "rvtrace <cmd>: message" to stderr; returns 1. */
int cli_fail(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Parse an unsigned number (decimal, 0x hex); false if malformed. */
bool cli_parse_u64(const char *s, uint64_t *out);

#endif
