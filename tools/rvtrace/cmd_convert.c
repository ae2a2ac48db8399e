/* rvtrace convert: ingress between formats. */
#include "cli.h"
#include "ingress/refcsv.h"
#include "ingress/refdata.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

struct expand {
    FILE *f;
    const struct rvt_image *img;
    bool with_bits;
    unsigned digits;
};

static int put_insn(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    (void)b;
    struct expand *e = ctx;
    if (!e->with_bits)
        return fprintf(e->f, "0x%0*" PRIX64 "\n", e->digits, pc) < 0 ? -RVT_ERR_IO : 0;
    struct rvt_insn in;
    if (rvt_img_insn(e->img, pc, &in) < 0)
        return -RVT_ERR_NOCODE;
    if (in.len == 2)
        return fprintf(e->f, "%0*" PRIx64 " %04" PRIx32 "\n", e->digits, pc, in.bits & 0xffff) < 0 ? -RVT_ERR_IO : 0;
    return fprintf(e->f, "%0*" PRIx64 " %08" PRIx32 "\n", e->digits, pc, in.bits) < 0 ? -RVT_ERR_IO : 0;
}

int cmd_convert(int argc, char **argv)
{
    static const char *const extra[] = {"to", "hart", NULL};
    struct cli_opts o;
    const unsigned allowed = CLI_ELF | CLI_INPUT | CLI_OUTPUT | CLI_ECALL | CLI_XLEN;
    int rc = cli_parse(&o, "convert", allowed, extra, argc, argv);
    if (rc || o.help) {
        if (o.help) {
            printf("usage: rvtrace convert --input IN [--input-format F] --to ingress|pclist|pcinsn|refcsv|refdata -o OUT [--elf PROG]\n\n"
                   "Convert an ingress stream.  pclist/pcinsn output and PC-list input need the ELF.  A PC list\n"
                   "cannot hold traps or privilege; they are counted and reported.\n\n"
                   "  --to F                output format\n");
            cli_help_common(stdout, allowed, NULL);
        }
        cli_free(&o);
        return rc;
    }
    const char *to = cli_extra(&o, "to");
    struct rvt_ing_reader *in = NULL;
    struct rvt_ing_writer *w = NULL;
    struct rvt_bcache *bc = NULL;
    FILE *f = NULL;
    if (!to || !o.output) {
        rc = cli_fail("convert", "--to FORMAT and -o OUT are required");
        goto out;
    }
    int kind = rvt_ing_format_parse(to);
    if (kind != RVT_ING_FMT_NATIVE && kind != RVT_ING_FMT_PCLIST && kind != RVT_ING_FMT_PCINSN &&
        kind != RVT_ING_FMT_REFCSV && kind != RVT_ING_FMT_REFDATA) {
        rc = cli_fail("convert", "--to expects ingress, pclist, pcinsn, refcsv or refdata");
        goto out;
    }
    if ((rc = cli_load_image(&o)) || (rc = cli_open_input(&o, &in)))
        goto out;
    unsigned xlen = rvt_ing_xlen(in);
    if ((kind == RVT_ING_FMT_PCLIST || kind == RVT_ING_FMT_PCINSN) && !o.img) {
        rc = cli_fail("convert", "--to %s needs --elf to know instruction sizes and bits", to);
        goto out;
    }
    struct rvt_diag d = {0};
    if (kind == RVT_ING_FMT_NATIVE) {
        if (rvt_ing_writer_open(&w, o.output, xlen, &d) < 0) {
            rc = cli_fail("convert", "%s", d.msg);
            goto out;
        }
    } else {
        const char *const inputs[] = {o.input, o.elf};
        if (!(f = rvt_output_file_open(o.output, inputs, 2, &d))) {
            rc = cli_fail("convert", "%s", d.msg);
            goto out;
        }
        if ((kind == RVT_ING_FMT_REFCSV && rvt_refcsv_write_header(f) < 0) ||
            (kind == RVT_ING_FMT_REFDATA && rvt_refdata_write_header(f) < 0)) {
            rc = cli_fail("convert", "%s: write failed", o.output);
            goto out;
        }
    }
    if (o.img)
        bc = rvt_bcache_new(o.img, 0);
    struct expand ex = {f, o.img, kind == RVT_ING_FMT_PCINSN, xlen == 32 ? 8 : 16};
    uint64_t records = 0, dropped = 0, no_sc = 0;
    struct rvt_ing_rec r;
    int n;
    while ((n = rvt_ing_next(in, &r)) > 0) {
        records++;
        int wrc = 0;
        if (kind == RVT_ING_FMT_NATIVE) {
            wrc = rvt_ing_write(w, &r);
        } else if (kind == RVT_ING_FMT_REFCSV) {
            wrc = rvt_refcsv_write(f, &r);
        } else if (kind == RVT_ING_FMT_REFDATA) {
            wrc = rvt_refdata_write(f, &r, &no_sc); /* (only the data accesses) */
        } else if (r.iretire == 0) {
            dropped++;
        } else {
            uint64_t cnt;
            if (rvt_ing_count_insns(&r, bc, &cnt) < 0) {
                rc = cli_fail("convert", "record %" PRIu64 " at 0x%" PRIx64 ": its instructions do not match the code",
                              records - 1, r.iaddr);
                goto out;
            }
            struct rvt_block b = {.start = r.iaddr, .ninsns = cnt};
            wrc = rvt_block_insns(bc, xlen, &b, put_insn, &ex);
        }
        if (wrc < 0) {
            rc = cli_fail("convert", "%s: writing record %" PRIu64 " failed: %s", o.output, records - 1,
                          w ? rvt_ing_writer_error(w) : rvt_errstr(wrc));
            goto out;
        }
    }
    if (n < 0) {
        rc = cli_fail("convert", "%s", rvt_ing_error(in));
        goto out;
    }
    if (dropped)
        fprintf(stderr, "rvtrace convert: %" PRIu64 " trap records cannot be represented in %s and were left out\n",
                dropped, to);
    if (no_sc)
        fprintf(stderr, "rvtrace convert: %" PRIu64 " failed store-conditionals (dtype 15) cannot be represented in "
                        "refdata and were left out\n", no_sc);
    if (o.verbose)
        fprintf(stderr, "rvtrace convert: %" PRIu64 " records\n", records);
out:
    if (w && rvt_ing_writer_close(w) < 0 && !rc)
        rc = cli_fail("convert", "%s: write failed", o.output);
    if (rvt_output_file_close(f) < 0 && !rc)
        rc = cli_fail("convert", "%s: write failed: %s", o.output, strerror(errno));
    rvt_bcache_free(bc);
    rvt_ing_close(in);
    cli_free(&o);
    return rc;
}
