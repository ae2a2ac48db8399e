/* filter_expect: what a decoder must reconstruct from a filtered trace.
 *
 *   filter_expect --elf PROG --input IN [--merge-blocks] [--filter SPEC]...
 *                 [--trigger SPEC]... [--sideband SPEC]... [--filter-file F]
 *
 * Runs the library's filter over IN and prints the qualified instructions'
 * addresses, one "0x%08X" (RV32) / "0x%016X" (RV64) per line as
 * `rvtrace decode --output pcs` does, then on stderr "off N on M notify K
 * traced T of I": the gaps a decoder must report.  Used by cli_filter.sh. */
#include "rvtrace/rvtrace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct out {
    const struct rvt_image *img;
    unsigned xlen;
    int err;
};

static int print_rec(void *ctx, const struct rvt_ing_rec *r)
{
    struct out *o = ctx;
    if (r->flags & RVT_ING_UNQUALIFIED)
        return 0;
    uint64_t pc = r->iaddr, end = rvt_ing_next_addr(r);
    while (pc < end) {
        uint8_t b[2] = {0, 0};
        unsigned len = rvt_img_read(o->img, pc, b, 2) == 2 ? rvt_isa_length((uint16_t)(b[0] | b[1] << 8)) : 0;
        if (!len) {
            fprintf(stderr, "filter_expect: no code at 0x%" PRIx64 "\n", pc);
            o->err = 1;
            return -RVT_ERR_NOCODE;
        }
        if (o->xlen == 32)
            printf("0x%08" PRIX64 "\n", pc);
        else
            printf("0x%016" PRIX64 "\n", pc);
        pc += len;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *elf = NULL, *input = NULL;
    bool merge = false;
    struct rvt_filter_config cfg;
    rvt_filter_config_init(&cfg);
    struct rvt_image *img = rvt_img_new();
    struct rvt_diag d = {0};
    /* First pass: the ELF (symbols are needed to parse specs). */
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--elf") == 0)
            elf = argv[i + 1];
    if (!elf || rvt_img_load_elf(img, elf) < 0) {
        fprintf(stderr, "filter_expect: --elf PROG: %s\n", elf ? rvt_img_error(img) : "missing");
        return 2;
    }
    cfg.image = img;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--merge-blocks") == 0) {
            merge = true;
            continue;
        }
        if (strncmp(a, "--", 2) != 0 || i + 1 >= argc) {
            fprintf(stderr, "filter_expect: bad argument '%s'\n", a);
            return 2;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--elf") == 0)
            continue;
        if (strcmp(a, "--input") == 0) {
            input = v;
            continue;
        }
        int rc = rvt_filter_option(&cfg, a + 2, v, &d);
        if (rc < 0) {
            fprintf(stderr, "filter_expect: %s\n", d.msg);
            return 2;
        }
        if (rc == 0) {
            fprintf(stderr, "filter_expect: unknown option '%s'\n", a);
            return 2;
        }
    }
    if (!input) {
        fprintf(stderr, "filter_expect: --input IN is required\n");
        return 2;
    }
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .image = img, .merge_blocks = merge};
    struct rvt_ing_reader *in;
    struct rvt_filter *f;
    if (rvt_ing_open(&in, input, &rc, &d) < 0 || rvt_filter_new(&f, &cfg, &d) < 0) {
        fprintf(stderr, "filter_expect: %s\n", d.msg);
        return 1;
    }
    struct out o = {img, rvt_img_xlen(img), 0};
    struct rvt_ing_rec r;
    int n;
    while ((n = rvt_ing_next(in, &r)) > 0)
        if (rvt_filter_put(f, &r, print_rec, &o) < 0) {
            fprintf(stderr, "filter_expect: %s\n", rvt_filter_error(f));
            return 1;
        }
    if (n < 0) {
        fprintf(stderr, "filter_expect: %s\n", rvt_ing_error(in));
        return 1;
    }
    rvt_filter_finish(f);
    struct rvt_filter_stats st;
    rvt_filter_get_stats(f, &st, sizeof st);
    fprintf(stderr, "off %" PRIu64 " on %" PRIu64 " notify %" PRIu64 " traced %" PRIu64 " of %" PRIu64 "\n",
            st.off_transitions, st.on_transitions, st.notifies, st.insns_traced, st.insns);
    rvt_filter_free(f);
    rvt_ing_close(in);
    rvt_img_free(img);
    return o.err || fflush(stdout) != 0;
}
