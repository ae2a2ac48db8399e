/* rvtrace dump: trace bytes -> one line per packet/message. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cmd_dump(int argc, char **argv)
{
    struct cli_opts o;
    const unsigned allowed = CLI_FORMAT | CLI_OUTPUT | CLI_TRACE | CLI_XLEN | CLI_ECALL;
    int rc = cli_parse(&o, "dump", allowed, NULL, argc, argv);
    if (rc || o.help) {
        if (o.help) {
            printf("usage: rvtrace dump --format F TRACE [-o FILE] [options]\n\n"
                   "List every packet/message with its byte offset, name and every field.\n\n");
            cli_help_common(stdout, allowed, o.codec);
        }
        cli_free(&o);
        return rc;
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    FILE *f = NULL;
    struct rvt_diag d = {0};
    if (!o.trace) {
        rc = cli_fail("dump", "no TRACE file given");
        goto done;
    }
    if ((rc = cli_finish_codec(&o, o.xlen ? o.xlen : 64)))
        goto done;
    if (rvt_read_file(o.trace, &buf, &len, &d) < 0) {
        rc = cli_fail("dump", "%s", d.msg);
        goto done;
    }
    f = !o.output || strcmp(o.output, "-") == 0 ? stdout : fopen(o.output, "w");
    if (!f) {
        rc = cli_fail("dump", "%s: cannot create: %s", o.output, strerror(errno));
        goto done;
    }
    if (o.codec->dump(o.ccfg, buf, len, f, &d) < 0)
        rc = cli_fail("dump", "%s: %s", o.trace, d.msg);
    if (fflush(f) != 0 && !rc)
        rc = cli_fail("dump", "write failed: %s", strerror(errno));
done:
    if (f && f != stdout)
        fclose(f);
    free(buf);
    cli_free(&o);
    return rc;
}
