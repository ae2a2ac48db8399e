/* rvtrace check: an ingress stream against the program, every transition. */
#include "cli.h"

#include <inttypes.h>
#include <string.h>

int cmd_check(int argc, char **argv)
{
    static const char *const extra[] = {"hart", NULL};
    struct cli_opts o;
    const unsigned allowed = CLI_ELF | CLI_INPUT | CLI_ECALL | CLI_XLEN;
    int rc = cli_parse(&o, "check", allowed, extra, argc, argv);
    if (rc || o.help) {
        if (o.help) {
            printf("usage: rvtrace check --elf PROG --input IN [options]\n\n"
                   "Follow the ingress stream through the program's code with the flow engine: every block\n"
                   "must start where the previous one went, every itype must match its instruction, every\n"
                   "branch target and jump must agree with the code.  No trace family is involved.\n\n");
            cli_help_common(stdout, allowed, NULL);
        }
        cli_free(&o);
        return rc;
    }
    struct rvt_ing_reader *in = NULL;
    struct rvt_flow *f = NULL;
    struct rvt_ingflow *x = NULL;
    if (!o.elf && !o.nraw) {
        rc = cli_fail("check", "--elf PROG is required");
        goto out;
    }
    if ((rc = cli_load_image(&o)) || (rc = cli_open_input(&o, &in)))
        goto out;
    struct rvt_flow_config fc = {.size = sizeof fc,
                                 .image = o.img,
                                 .xlen = rvt_ing_xlen(in),
                                 .ecall = o.ecall == RVT_FLOW_ECALL_TRAP ? RVT_FLOW_ECALL_TRAP : RVT_FLOW_ECALL_SEQUENTIAL};
    f = rvt_flow_new(&fc);
    x = f ? rvt_ingflow_new(f) : NULL;
    if (!x) {
        rc = cli_fail("check", "cannot create the flow engine");
        goto out;
    }
    uint64_t records = 0, itypes[16] = {0}, priv_changes = 0;
    uint8_t last_priv = 0xff;
    struct rvt_ing_rec r;
    double t0 = cli_now();
    int n;
    while ((n = rvt_ing_next(in, &r)) > 0) {
        if (rvt_ingflow_put(x, &r) < 0) {
            rc = cli_fail("check", "%s: %s", o.input, rvt_ingflow_error(x));
            goto out;
        }
        records++;
        itypes[r.itype & 15]++;
        if (last_priv != 0xff && r.priv != last_priv)
            priv_changes++;
        last_priv = r.priv;
    }
    if (n < 0) {
        rc = cli_fail("check", "%s", rvt_ing_error(in));
        goto out;
    }
    if (rvt_ingflow_finish(x) < 0) {
        rc = cli_fail("check", "%s: %s", o.input, rvt_ingflow_error(x));
        goto out;
    }
    double t1 = cli_now();
    uint64_t insns = rvt_flow_insns(f);
    printf("%s: %" PRIu64 " records, %" PRIu64 " instructions, all consistent with %s\n", o.input, records, insns,
           o.elf ? o.elf : "the code");
    printf("  branches taken %" PRIu64 ", not taken %" PRIu64 "\n", itypes[5], itypes[4]);
    printf("  calls %" PRIu64 " (uninferable %" PRIu64 "), returns %" PRIu64 ", jumps %" PRIu64 " (uninferable %" PRIu64
           "), co-routine swaps %" PRIu64 ", other %" PRIu64 "\n",
           itypes[8] + itypes[9], itypes[8], itypes[13], itypes[10] + itypes[11], itypes[10], itypes[12],
           itypes[14] + itypes[15]);
    printf("  exceptions %" PRIu64 ", interrupts %" PRIu64 ", trap returns %" PRIu64 ", privilege changes %" PRIu64 "\n",
           itypes[1], itypes[2], itypes[3], priv_changes);
    if (o.verbose)
        printf("  %.1f M instructions/s\n", (double)insns / (t1 - t0 > 0 ? t1 - t0 : 1e-9) / 1e6);
out:
    rvt_ingflow_free(x);
    rvt_flow_free(f);
    rvt_ing_close(in);
    cli_free(&o);
    return rc;
}
