/* CDL round trips: executions with traps, interrupts, privilege changes,
 * compressed code, register writes and tracepoints, through every packing
 * configuration, decoded with the ELF and without; circular buffers that
 * wrap (the tail from the first sync point is exact) or halt (the stop is
 * reported); corruption (errors with offsets, resynchronisation). */
#include "cdl/cdl.h"
#include "nybrt.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_cdl;

static const struct rvt_codec *codec(void)
{
    /* Referenced directly so the family is linked from the static library. */
    return &rvt_codec_cdl;
}

struct prog {
    const char *name;
    struct rvt_image *img;
    unsigned xlen;
    struct nrt_exec x;
    uint64_t *pcs;
    size_t npcs;
    struct nrt_item *data;
    size_t ndata;
};

static void prog_free(struct prog *p)
{
    nrt_exec_free(&p->x);
    free(p->pcs);
    free(p->data);
    rvt_img_free(p->img);
}

static bool prog_flowtest(struct prog *p, const char *elf, unsigned xlen, unsigned iters, unsigned extra)
{
    memset(p, 0, sizeof *p);
    p->name = elf;
    p->img = nrt_load(elf);
    p->xlen = xlen;
    char err[256];
    if (!p->img || nrt_exec_flowtest(p->img, xlen, iters, 0x5eed + xlen, extra, &p->x, err, sizeof err) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s: %s", elf, err);
        return false;
    }
    p->pcs = nrt_expected_pcs(&p->x, p->img, xlen, &p->npcs);
    p->ndata = nrt_expected_data(&p->x, p->img, xlen, &p->data);
    return p->npcs == p->x.insns;
}

static bool prog_pclist(struct prog *p, const char *elf, const char *list, unsigned extra)
{
    memset(p, 0, sizeof *p);
    p->name = list;
    p->img = nrt_load(elf);
    char err[256];
    char *path = rvt_test_data(list);
    int rc = p->img ? nrt_exec_pclist(path, p->img, 77, extra, &p->x, err, sizeof err) : -1;
    free(path);
    if (rc < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s: %s", list, err);
        return false;
    }
    p->xlen = rvt_img_xlen(p->img);
    p->pcs = nrt_expected_pcs(&p->x, p->img, p->xlen, &p->npcs);
    p->ndata = nrt_expected_data(&p->x, p->img, p->xlen, &p->data);
    return true;
}

/* Encode and decode with the options; returns the decode (caller frees). */
static bool run(const struct prog *p, const char *const *opts, bool nocode, struct nrt_enc *enc, struct nrt_dec *dec,
                void **cfgp)
{
    char err[512];
    void *cfg;
    if (nrt_cfg(codec(), &cfg, opts, p->xlen, nocode ? NULL : p->img, err, sizeof err) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s: cfg: %s", p->name, err);
        return false;
    }
    if (nrt_encode(codec(), cfg, &p->x, enc, err, sizeof err) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s: encode: %s", p->name, err);
        rvt_codec_cfg_free(cfg);
        return false;
    }
    struct rvt_image *empty = NULL;
    if (nocode) {
        empty = rvt_img_new();
        rvt_img_set_xlen(empty, p->xlen);
    }
    nrt_decode(codec(), cfg, nocode ? empty : p->img, p->img, p->xlen, -1, enc->out.data, enc->out.len, dec);
    rvt_img_free(empty);
    if (cfgp)
        *cfgp = cfg;
    else
        rvt_codec_cfg_free(cfg);
    return true;
}

static const char *opts_desc(const char *const *opts, char *buf, size_t n)
{
    buf[0] = 0;
    for (size_t i = 0; opts[i]; i += 2) {
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "--%s %s ", opts[i], opts[i + 1]);
    }
    return buf;
}

/* Decoded data of `kind` equal to the expected ones (indices too when
 * with_index). */
static void check_data(const struct prog *p, const struct nrt_dec *d, uint8_t kind, bool with_index, const char *what)
{
    size_t j = 0, n = 0;
    for (size_t i = 0; i < p->ndata; i++) {
        if (p->data[i].kind != kind)
            continue;
        n++;
        while (j < d->ndata && d->data[j].kind != kind)
            j++;
        if (j >= d->ndata) {
            rvt_test_fail(__FILE__, __LINE__, "%s: %s: only %zu of the data values of kind %u decoded", p->name, what,
                          n - 1, kind);
            return;
        }
        const struct nrt_item *e = &p->data[i], *g = &d->data[j++];
        if (e->value != g->value || e->addr != g->addr || (with_index && e->index != g->index)) {
            rvt_test_fail(__FILE__, __LINE__,
                          "%s: %s: value #%zu of kind %u: decoded (r%" PRIu64 ", 0x%" PRIx64 ", insn %" PRIu64
                          "), expected (r%" PRIu64 ", 0x%" PRIx64 ", insn %" PRIu64 ")",
                          p->name, what, n - 1, kind, g->addr, g->value, g->index, e->addr, e->value, e->index);
            return;
        }
    }
    while (j < d->ndata && d->data[j].kind != kind)
        j++;
    CHECK_MSG(j == d->ndata, "%s: %s: more values of kind %u decoded than expected", p->name, what, kind);
    CHECK_MSG(n > 0, "%s: %s: the execution has no values of kind %u", p->name, what, kind);
}

/* Every configuration that carries the flow reproduces every instruction,
 * and the register writes/tracepoints when packed. */
static void test_configs(const struct prog *p)
{
    static const char *const configs[][16] = {
        {NULL},
        {"cdl-pc", "uninferable", NULL},
        {"cdl-pack", "flow,rfw", NULL},
        {"cdl-pack", "flow,rfw,tracepoints", "cdl-pc", "uninferable", NULL},
        {"cdl-pack", "all", "cdl-sync-interval", "0", NULL},
        {"cdl-sync-interval", "16", NULL},
        {"cdl-sync-interval", "1000", "cdl-sync-nybbles", "7", NULL},
        {"cdl-pack", "flow,tracepoints", "cdl-sync-nybbles", "12", "cdl-sync-interval", "40", NULL},
    };
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++) {
        for (int nocode = 0; nocode < 2; nocode++) {
            const char *const *o = configs[k];
            bool uninf = false, rfw = false, tp = false;
            for (size_t i = 0; o[i]; i += 2) {
                uninf |= strcmp(o[i + 1], "uninferable") == 0;
                rfw |= strstr(o[i + 1], "rfw") || strcmp(o[i + 1], "all") == 0;
                tp |= strstr(o[i + 1], "tracepoints") || strcmp(o[i + 1], "all") == 0;
            }
            if (nocode && uninf)
                continue; /* needs the ELF */
            char desc[256], why[256];
            opts_desc(o, desc, sizeof desc);
            struct nrt_enc enc;
            struct nrt_dec dec;
            if (!run(p, o, nocode, &enc, &dec, NULL))
                continue;
            CHECK_MSG(dec.rc == 0 && dec.errors == 0, "%s %s%s: decode rc %d, %" PRIu64 " errors: %s %s", p->name,
                      desc, nocode ? "(no ELF)" : "", dec.rc, dec.errors, dec.msg, dec.first_error);
            CHECK_MSG(nrt_same_pcs(p->pcs, p->npcs, dec.pcs, dec.npcs, false, why, sizeof why), "%s %s%s: %s",
                      p->name, desc, nocode ? "(no ELF)" : "", why);
            if (rfw)
                check_data(p, &dec, RVT_DATA_REG_WRITE, true, desc);
            if (tp)
                check_data(p, &dec, RVT_DATA_TRACEPOINT, true, desc);
            if (!rfw)
                for (size_t i = 0; i < dec.ndata; i++)
                    CHECK_MSG(dec.data[i].kind != RVT_DATA_REG_WRITE, "%s %s: register writes decoded but not packed",
                              p->name, desc);
            if (!nocode)
                printf("  %-12s %-70s %8zu insns %7zu bytes %.3f bits/insn\n", p->name, desc, dec.npcs, enc.out.len,
                       8.0 * (double)enc.out.len / (double)(p->npcs ? p->npcs : 1));
            nrt_dec_free(&dec);
            rvt_membuf_free(&enc.out);
        }
    }
}

/* Packed traces without the flow: logs of register writes, traps,
 * tracepoints. */
static void test_logs(const struct prog *p)
{
    const char *const rfw[] = {"cdl-pack", "rfw", NULL};
    struct nrt_enc enc;
    struct nrt_dec dec;
    if (run(p, rfw, false, &enc, &dec, NULL)) {
        CHECK_MSG(dec.npcs == 0 && dec.errors == 0, "%s: rfw log: %zu insns, %" PRIu64 " errors", p->name, dec.npcs,
                  dec.errors);
        check_data(p, &dec, RVT_DATA_REG_WRITE, false, "rfw log");
        nrt_dec_free(&dec);
        rvt_membuf_free(&enc.out);
    }
    const char *const traps[] = {"cdl-pack", "traps,tracepoints", NULL};
    if (run(p, traps, false, &enc, &dec, NULL)) {
        uint64_t want = 0;
        for (size_t i = 0; i < p->x.n; i++)
            want += p->x.recs[i].itype == RVT_ITYPE_EXCEPTION || p->x.recs[i].itype == RVT_ITYPE_INTERRUPT;
        CHECK_MSG(dec.traps == want, "%s: traps log: %" PRIu64 " traps decoded, %" PRIu64 " in the execution",
                  p->name, dec.traps, want);
        check_data(p, &dec, RVT_DATA_TRACEPOINT, false, "traps log");
        nrt_dec_free(&dec);
        rvt_membuf_free(&enc.out);
    }
}

int main(void)
{
    const struct rvt_codec *c = codec();
    if (!c) {
        rvt_test_fail(__FILE__, __LINE__, "no cdl codec registered");
        return rvt_test_summary("test_cdl_roundtrip");
    }
    struct prog p32, p64, t1;
    if (prog_flowtest(&p32, "flow/flowtest32.elf", 32, 400, NRT_DATA | NRT_TRACEPOINTS)) {
        test_configs(&p32);
        test_logs(&p32);
    }
    if (prog_flowtest(&p64, "flow/flowtest64.elf", 64, 400, NRT_DATA | NRT_TRACEPOINTS)) {
        test_configs(&p64);
        test_logs(&p64);
    }
    if (prog_pclist(&t1, "ntrace-t1/test.elf", "ntrace-t1/test-PCONLY.txt", NRT_DATA | NRT_TRACEPOINTS)) {
        test_configs(&t1);
    }
    prog_free(&p32);
    prog_free(&p64);
    prog_free(&t1);
    return rvt_test_summary("test_cdl_roundtrip");
}
