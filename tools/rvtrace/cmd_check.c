/* rvtrace check: an ingress stream against the program, every transition. */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* One hart's records through a flow engine of its own: the harts of a
 * multi-hart stream run at once, each its own flow. */
struct hart_check {
    uint16_t hart;
    struct rvt_flow *f;
    struct rvt_ingflow *x;
    uint64_t records, itypes[16], priv_changes;
    uint8_t last_priv;
};

static struct hart_check *hart_of(struct hart_check **hs, size_t *n, uint16_t hart, const struct rvt_flow_config *fc)
{
    for (size_t i = 0; i < *n; i++)
        if ((*hs)[i].hart == hart)
            return &(*hs)[i];
    struct hart_check *m = realloc(*hs, (*n + 1) * sizeof **hs);
    if (!m)
        return NULL;
    *hs = m;
    struct hart_check *h = &m[*n];
    memset(h, 0, sizeof *h);
    h->hart = hart;
    h->last_priv = 0xff;
    h->f = rvt_flow_new(fc);
    h->x = h->f ? rvt_ingflow_new(h->f) : NULL;
    (*n)++;
    return h->x ? h : NULL;
}

static void print_counts(const char *indent, const uint64_t *itypes, uint64_t priv_changes)
{
    printf("%sbranches taken %" PRIu64 ", not taken %" PRIu64 "\n", indent, itypes[5], itypes[4]);
    printf("%scalls %" PRIu64 " (uninferable %" PRIu64 "), returns %" PRIu64 ", jumps %" PRIu64 " (uninferable %" PRIu64
           "), co-routine swaps %" PRIu64 ", other %" PRIu64 "\n",
           indent, itypes[8] + itypes[9], itypes[8], itypes[13], itypes[10] + itypes[11], itypes[10], itypes[12],
           itypes[14] + itypes[15]);
    printf("%sexceptions %" PRIu64 ", interrupts %" PRIu64 ", trap returns %" PRIu64 ", privilege changes %" PRIu64 "\n",
           indent, itypes[1], itypes[2], itypes[3], priv_changes);
}

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
                   "branch target and jump must agree with the code; each hart of a multi-hart stream is\n"
                   "followed on its own.  No trace family is involved.\n\n");
            cli_help_common(stdout, allowed, NULL);
        }
        cli_free(&o);
        return rc;
    }
    struct rvt_ing_reader *in = NULL;
    struct hart_check *hs = NULL;
    size_t nh = 0;
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
    uint64_t records = 0, itypes[16] = {0}, priv_changes = 0;
    struct rvt_ing_rec r;
    double t0 = cli_now();
    int n;
    while ((n = rvt_ing_next(in, &r)) > 0) {
        struct hart_check *h = hart_of(&hs, &nh, r.hart, &fc);
        if (!h) {
            rc = cli_fail("check", "cannot create a flow engine for hart %u", r.hart);
            goto out;
        }
        if (rvt_ingflow_put(h->x, &r) < 0) {
            /* (the engine counts the hart's own records) */
            rc = nh > 1 ? cli_fail("check", "%s: hart %u's %s (the input's record %" PRIu64 ")", o.input, r.hart,
                                   rvt_ingflow_error(h->x), records)
                        : cli_fail("check", "%s: %s", o.input, rvt_ingflow_error(h->x));
            goto out;
        }
        records++;
        h->records++;
        h->itypes[r.itype & 15]++;
        itypes[r.itype & 15]++;
        if (h->last_priv != 0xff && r.priv != h->last_priv) {
            h->priv_changes++;
            priv_changes++;
        }
        h->last_priv = r.priv;
    }
    if (n < 0) {
        rc = cli_fail("check", "%s", rvt_ing_error(in));
        goto out;
    }
    uint64_t insns = 0;
    for (size_t i = 0; i < nh; i++) {
        if (rvt_ingflow_finish(hs[i].x) < 0) {
            rc = nh > 1 ? cli_fail("check", "%s: hart %u: %s", o.input, hs[i].hart, rvt_ingflow_error(hs[i].x))
                        : cli_fail("check", "%s: %s", o.input, rvt_ingflow_error(hs[i].x));
            goto out;
        }
        insns += rvt_flow_insns(hs[i].f);
    }
    double t1 = cli_now();
    printf("%s: %" PRIu64 " records, %" PRIu64 " instructions, all consistent with %s\n", o.input, records, insns,
           o.elf ? o.elf : "the code");
    print_counts("  ", itypes, priv_changes);
    for (size_t i = 0; nh > 1 && i < nh; i++) {
        printf("  hart %u: %" PRIu64 " records, %" PRIu64 " instructions\n", hs[i].hart, hs[i].records,
               rvt_flow_insns(hs[i].f));
        print_counts("    ", hs[i].itypes, hs[i].priv_changes);
    }
    if (o.verbose)
        printf("  %.1f M instructions/s\n", (double)insns / (t1 - t0 > 0 ? t1 - t0 : 1e-9) / 1e6);
out:
    for (size_t i = 0; i < nh; i++) {
        rvt_ingflow_free(hs[i].x);
        rvt_flow_free(hs[i].f);
    }
    free(hs);
    rvt_ing_close(in);
    cli_free(&o);
    return rc;
}
