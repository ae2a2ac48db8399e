/* rvtrace dump: trace bytes -> one line per packet/message.  Exit status as
 * for decode (docs/decoding.md): 0 every unit well formed, 1 damaged units
 * or a cut last unit (each marked in the listing), 2 usage or I/O error,
 * 3 nothing to list (empty trace, no synchronisation point). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cmd_dump(int argc, char **argv)
{
    struct cli_opts o;
    const unsigned allowed = CLI_FORMAT | CLI_OUTPUT | CLI_TRACE | CLI_XLEN | CLI_ECALL | CLI_ELF;
    int rc = cli_parse(&o, "dump", allowed, NULL, argc, argv);
    if (rc || o.help) {
        if (o.help) {
            printf("usage: rvtrace dump --format F TRACE [-o FILE] [options]\n\n"
                   "List every packet/message with its byte offset, name and every field; damaged units are\n"
                   "listed as errors in place.  Exit status: 0 every unit well formed; 1 damaged units or a\n"
                   "trace that ends inside one; 2 usage or I/O error; 3 nothing to list (empty trace, no\n"
                   "synchronisation point).\n\n");
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
        cli_fail("dump", "no TRACE file given");
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    /* The address width: --xlen, else the program's (--elf), else 64. */
    if (cli_load_image(&o) ||
        cli_finish_codec(&o, o.xlen ? o.xlen : o.img ? rvt_img_xlen(o.img) : 64) ||
        rvt_read_file(o.trace, &buf, &len, &d) < 0) {
        if (d.code)
            cli_fail("dump", "%s", d.msg);
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    const char *const inputs[] = {o.trace};
    if (!(f = rvt_output_file_open(o.output ? o.output : "-", inputs, 1, &d))) {
        cli_fail("dump", "%s", d.msg);
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    /* The family lists everything, then returns the first damage (if any)
     * with its offset: RVT_ERR_NOSYNC when it found no unit at all. */
    int drc = len ? o.codec->dump(o.ccfg, buf, len, f, &d) : 0; /* empty: the same for every family */
    char msg[sizeof d.msg * 4];
    cli_printable(d.msg, msg, sizeof msg);
    if (fflush(f) != 0 || d.code == RVT_ERR_IO) {
        cli_fail("dump", "write failed: %s", d.code == RVT_ERR_IO ? d.msg : strerror(errno));
        rc = CLI_EXIT_USAGE;
    } else if (len == 0) {
        cli_fail("dump", "%s: the trace is empty (0 bytes): nothing to list", o.trace);
        rc = RVT_DECODE_NOTHING;
    } else if (drc < 0 && d.code == RVT_ERR_NOSYNC) {
        cli_fail("dump", "%s: no synchronisation point found in the %zu bytes searched (%s); %s", o.trace, len, msg,
                 o.codec->sync_hint ? o.codec->sync_hint : "the encoder must emit synchronisation points");
        rc = RVT_DECODE_NOTHING;
    } else if (drc < 0) {
        cli_fail("dump", "%s: %s (the listing marks every damaged unit)", o.trace, msg);
        rc = RVT_DECODE_DAMAGED;
    }
done:
    if (rvt_output_file_close(f) < 0 && rc == 0) {
        cli_fail("dump", "write failed: %s", strerror(errno));
        rc = CLI_EXIT_USAGE;
    }
    free(buf);
    cli_free(&o);
    return rc;
}
