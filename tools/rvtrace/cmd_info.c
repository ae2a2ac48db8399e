/* rvtrace info: a family's parameters and discovery information. */
#include "cli.h"

#include <string.h>

static void help(const struct cli_opts *o, unsigned allowed)
{
    printf("usage: rvtrace info --format F [options] [--regs FILE]\n\n"
           "Print the family's configuration (parameters, field widths, discovery values), then what a\n"
           "debugger discovers through the Trace Control Interface registers of the system `encode --regs`\n"
           "models (an encoder of the family, a funnel, an SRAM sink): every trTe/trTs/trFunnel/trRam field's\n"
           "implemented values, found by the TCI's reset-and-discovery procedure.\n\n");
    printf("  --regs FILE           apply a register-setting file (docs/sinks.md) first: the family configuration\n"
           "                        is encoder0's, and every component out of reset is listed with its fields\n"
           "  --sram-bytes N        size of the SRAM sink (default 1048576)\n");
    cli_help_common(stdout, allowed, o->codec);
}

int cmd_info(int argc, char **argv)
{
    static const char *const extra[] = {"regs", "sram-bytes", NULL};
    struct cli_opts o;
    const unsigned allowed = CLI_FORMAT | CLI_XLEN | CLI_ELF;
    int rc = cli_parse(&o, "info", allowed, extra, argc, argv);
    if (rc || o.help) {
        if (o.help)
            help(&o, allowed);
        cli_free(&o);
        return rc;
    }
    struct rvt_tci *regs = NULL, *probe = NULL;
    const char *regfile = cli_extra(&o, "regs");
    struct rvt_diag d = {0};
    if ((rc = cli_load_image(&o)))
        goto done;
    if (regfile) {
        if ((rc = cli_regs_load(&o, regfile, &regs)))
            goto done;
        if (cli_regs_apply(&o, regs, 0, o.ccfg, &d) < 0) {
            rc = cli_fail("info", "%s: %s", regfile, d.msg);
            goto done;
        }
    }
    if ((rc = cli_finish_codec(&o, o.img ? rvt_img_xlen(o.img) : o.xlen ? o.xlen : 64)))
        goto done;
    if (o.codec->info && o.codec->info(o.ccfg, stdout, &d) < 0) {
        rc = cli_fail("info", "%s", d.msg);
        goto done;
    }

    /* Discovery runs on a system of its own: probing resets what it probes. */
    if ((rc = cli_regs_system(&o, &probe)))
        goto done;
    printf("\nTrace Control Interface discovery (TCI \"Reset and Discovery\": tr??Impl read, WARL fields written and "
           "read back)\n");
    if (!rvt_tci_count(probe, RVT_TCI_ENCODER))
        printf("the %s family is not a Trace Control Interface encoder: only the sink and funnel are shown\n",
               o.codec->name);
    static const enum rvt_tci_comp kinds[] = {RVT_TCI_ENCODER, RVT_TCI_FUNNEL, RVT_TCI_RAMSINK, RVT_TCI_ATBBRIDGE};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        /* The encoders of this system are identical: one stands for all. */
        unsigned n = rvt_tci_count(probe, kinds[k]);
        if (n > 1 && kinds[k] == RVT_TCI_ENCODER)
            printf("(%u identical encoders, encoder0..%u; encoder0 shown)\n", n, n - 1);
        for (unsigned i = 0; i < n && (i == 0 || kinds[k] != RVT_TCI_ENCODER); i++) {
            struct rvt_tci_discovery disc;
            if (rvt_tci_discover(probe, kinds[k], i, &disc, sizeof disc) < 0 ||
                rvt_tci_discovery_print(&disc, i, stdout) < 0) {
                rc = cli_fail("info", "discovery of component type 0x%x number %u failed", (unsigned)kinds[k], i);
                goto done;
            }
        }
    }
    if (regs) {
        printf("\nRegisters after %s (components out of reset)\n", regfile);
        unsigned shown = 0;
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            for (unsigned i = 0; i < rvt_tci_count(regs, kinds[k]); i++) {
                uint32_t ctl = 0;
                rvt_tci_comp_read(regs, kinds[k], i, 0, &ctl);
                if (!(ctl & 1))
                    continue;
                rvt_tci_dump_comp(regs, kinds[k], i, stdout);
                shown++;
            }
        if (!shown)
            printf("(every component is in reset)\n");
    }
done:
    rvt_tci_free(regs);
    rvt_tci_free(probe);
    cli_free(&o);
    return rc;
}
