/* rvtrace info: a family's parameters and discovery information. */
#include "cli.h"

int cmd_info(int argc, char **argv)
{
    struct cli_opts o;
    const unsigned allowed = CLI_FORMAT | CLI_XLEN | CLI_ELF;
    int rc = cli_parse(&o, "info", allowed, NULL, argc, argv);
    if (rc || o.help) {
        if (o.help) {
            printf("usage: rvtrace info --format F [options]\n\n"
                   "Print the family's configuration: parameters, field widths and discovery values.\n\n");
            cli_help_common(stdout, allowed, o.codec);
        }
        cli_free(&o);
        return rc;
    }
    if ((rc = cli_load_image(&o)) || (rc = cli_finish_codec(&o, o.img ? rvt_img_xlen(o.img) : o.xlen ? o.xlen : 64)))
        goto done;
    if (!o.codec->info) {
        rc = cli_fail("info", "the %s family has no discovery information", o.codec->name);
        goto done;
    }
    struct rvt_diag d = {0};
    if (o.codec->info(o.ccfg, stdout, &d) < 0)
        rc = cli_fail("info", "%s", d.msg);
done:
    cli_free(&o);
    return rc;
}
