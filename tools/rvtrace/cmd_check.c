/* rvtrace check: an ingress stream against the program, every transition. */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What the records of each hart held (rvt_ingflow_run follows each hart
 * with an engine of its own). */
struct counts {
    bool seen;
    uint64_t records, insns, itypes[16], priv_changes;
    uint8_t last_priv;
};
struct tally {
    struct counts all, hart[RVT_INGFLOW_MAX_HARTS];
};

static void count(struct counts *c, const struct rvt_ing_rec *r)
{
    if (c->seen && r->priv != c->last_priv)
        c->priv_changes++;
    c->seen = true;
    c->last_priv = r->priv;
    c->records++;
    c->itypes[r->itype & 15]++;
}

static void after(void *ctx, unsigned hart, const struct rvt_ing_rec *r, const struct rvt_flow *f)
{
    struct tally *t = ctx;
    if (!r) { /* the hart's end: its instructions, the last one's included */
        t->hart[hart].insns = rvt_flow_insns(f);
        t->all.insns += t->hart[hart].insns;
        return;
    }
    const uint64_t before = t->hart[hart].priv_changes;
    count(&t->hart[hart], r);
    t->all.records++;
    t->all.itypes[r->itype & 15]++;
    t->all.priv_changes += t->hart[hart].priv_changes - before; /* (each hart's own changes) */
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
    struct tally *t = NULL;
    if (!CLI_HAS_IMAGE(&o)) {
        rc = cli_fail("check", "--elf PROG is required");
        goto out;
    }
    if ((rc = cli_load_image(&o)) || (rc = cli_open_input(&o, &in)))
        goto out;
    if (!(t = calloc(1, sizeof *t))) {
        rc = cli_fail("check", "out of memory");
        goto out;
    }
    struct rvt_flow_config fc = {.size = sizeof fc,
                                 .image = o.img,
                                 .xlen = rvt_ing_xlen(in),
                                 .ecall = o.ecall == RVT_FLOW_ECALL_TRAP ? RVT_FLOW_ECALL_TRAP : RVT_FLOW_ECALL_SEQUENTIAL};
    struct rvt_diag d = {0};
    double t0 = cli_now();
    if (rvt_ingflow_run(in, &fc, NULL, after, t, &d) < 0) {
        rc = cli_fail("check", "%s: %s", o.input, d.msg);
        goto out;
    }
    double t1 = cli_now();
    unsigned harts = 0;
    for (unsigned h = 0; h < RVT_INGFLOW_MAX_HARTS; h++)
        harts += t->hart[h].seen;
    printf("%s: %" PRIu64 " records, %" PRIu64 " instructions, all consistent with %s\n", o.input, t->all.records,
           t->all.insns, o.elf ? o.elf : "the code");
    print_counts("  ", t->all.itypes, t->all.priv_changes);
    for (unsigned h = 0; harts > 1 && h < RVT_INGFLOW_MAX_HARTS; h++) {
        if (!t->hart[h].seen)
            continue;
        printf("  hart %u: %" PRIu64 " records, %" PRIu64 " instructions\n", h, t->hart[h].records, t->hart[h].insns);
        print_counts("    ", t->hart[h].itypes, t->hart[h].priv_changes);
    }
    if (o.verbose)
        printf("  %.1f M instructions/s\n", (double)t->all.insns / (t1 - t0 > 0 ? t1 - t0 : 1e-9) / 1e6);
out:
    free(t);
    rvt_ing_close(in);
    cli_free(&o);
    return rc;
}
