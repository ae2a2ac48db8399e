/* dbg round trips: every emit configuration on executions with traps,
 * interrupts, privilege changes, compressed code, loads/stores/CSR data,
 * timestamps and hart changes; with the ELF and, for PC pairs, without. */
#include "dbg/dbg.h"
#include "nybrt.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_dbg;
static const struct rvt_codec *codec(void)
{
    return &rvt_codec_dbg;
}

/* The data a dbg trace carries for an execution (the seed's event table):
 * loads/stores by emit bit, CSR reads as Load Data, hart changes. */
static size_t expected(const struct nrt_prog *p, struct nrt_item **out)
{
    struct nrt_item *v = NULL;
    size_t n = 0, cap = 0;
    uint64_t mask = p->xlen == 32 ? 0xffffffffull : ~0ull;
    uint16_t hart = 0;
    for (size_t i = 0; i < p->x.n; i++) {
        const struct rvt_ing_rec *r = &p->x.recs[i];
        if (n + 4 > cap) {
            cap = cap ? 2 * cap : 1024;
            v = realloc(v, cap * sizeof *v);
        }
        if (r->hart != hart) {
            hart = r->hart;
            v[n++] = (struct nrt_item){RVT_DATA_HART, 0, hart, 0, 0};
        }
        if (!r->iretire)
            continue;
        struct rvt_insn in;
        bool csr = rvt_img_insn(p->img, rvt_ing_last_addr(r), &in) == 0 && (in.flags & RVT_IF_CSR);
        if (csr) {
            if (r->flags & RVT_ING_HAS_RD)
                v[n++] = (struct nrt_item){RVT_DATA_LOAD_VALUE, 0, r->rd_value & mask, 0, 0};
        } else if (r->flags & RVT_ING_HAS_MEM) {
            bool st = r->flags & RVT_ING_MEM_STORE;
            v[n++] = (struct nrt_item){st ? RVT_DATA_STORE_ADDR : RVT_DATA_LOAD_ADDR, 0, r->mem_addr & mask, 0, 0};
            v[n++] = (struct nrt_item){st ? RVT_DATA_STORE_VALUE : RVT_DATA_LOAD_VALUE, 0, r->mem_value, 0, r->mem_size};
        }
    }
    *out = v;
    return n;
}

static void check_values(const struct nrt_prog *p, const struct nrt_dec *d, const char *what, uint8_t kind)
{
    struct nrt_prog q = *p;
    q.ndata = expected(p, &q.data);
    nrt_check_data(&q, d, kind, false, what);
    free(q.data);
}

static void check_times(const struct nrt_prog *p, const struct nrt_dec *d, const char *what)
{
    uint64_t last = 0, n = 0;
    size_t j = 0;
    for (size_t i = 0; i < d->ndata; i++) {
        if (d->data[i].kind != NRT_KIND_TIME)
            continue;
        uint64_t t = d->data[i].value;
        CHECK_MSG(t > last, "%s: %s: timestamp %" PRIu64 " after %" PRIu64, p->name, what, t, last);
        /* It is the time of one of the records, in order. */
        while (j < p->x.n && p->x.recs[j].time != t)
            j++;
        CHECK_MSG(j < p->x.n, "%s: %s: timestamp %" PRIu64 " is no record's time", p->name, what, t);
        last = t;
        n++;
    }
    CHECK_MSG(n > 0, "%s: %s: no timestamps decoded", p->name, what);
}

static bool has_traps(const struct nrt_prog *p)
{
    for (size_t i = 0; i < p->x.n; i++)
        if (p->x.recs[i].itype == RVT_ITYPE_EXCEPTION || p->x.recs[i].itype == RVT_ITYPE_INTERRUPT)
            return true;
    return false;
}

static void test_configs(const struct nrt_prog *p0, bool rvc_free, bool has_data)
{
    static const char *const configs[][12] = {
        {NULL},
        {"dbg-emit", "pc,branch", NULL},
        {"dbg-emit", "pc,priv", NULL},
        {"dbg-emit", "pc", NULL},
        {"dbg-emit", "all", NULL},
        {"dbg-emit", "pc,priv,loadaddr,loaddata,storeaddr,storedata", "dbg-buffer", "1024", NULL},
        {"dbg-emit", "pc,branch,priv,timestamp", "dbg-buffer", "65536", NULL},
    };
    /* Without Privilege Level packets a trap at an indirect jump reads as
     * that jump (docs/dbg.md): those runs use executions whose only traps
     * are ecalls. */
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++) {
        const struct nrt_prog *p = p0;
        const char *const *o = configs[k];
        bool branch = true, data = false, ts = false, norvc = false, priv = true;
        for (size_t i = 0; o[i]; i += 2) {
            if (strcmp(o[i], "dbg-emit") == 0) {
                branch = strstr(o[i + 1], "branch") || strcmp(o[i + 1], "all") == 0;
                data = strstr(o[i + 1], "load") || strcmp(o[i + 1], "all") == 0;
                ts = strstr(o[i + 1], "timestamp") || strcmp(o[i + 1], "all") == 0;
                priv = strstr(o[i + 1], "priv") || strcmp(o[i + 1], "all") == 0;
            }
            norvc |= strcmp(o[i], "dbg-rvc") == 0;
        }
        if (norvc && !rvc_free)
            continue;
        if (!priv && !branch && p->alt)
            p = p->alt;
        for (int nocode = 0; nocode < 2; nocode++) {
            if (nocode && (branch || (!priv && has_traps(p))))
                continue; /* branch outcomes, and traps without Privilege Level packets, need the code */
            char desc[256], why[256];
            nrt_opts_desc(o, desc, sizeof desc);
            struct nrt_enc enc;
            struct nrt_dec dec;
            if (!nrt_run(codec(), p, o, nocode, &enc, &dec, NULL))
                continue;
            CHECK_MSG(dec.rc == 0 && dec.errors == 0, "%s %s%s: decode rc %d, %" PRIu64 " errors: %s %s", p->name,
                      desc, nocode ? "(no ELF)" : "", dec.rc, dec.errors, dec.msg, dec.first_error);
            CHECK_MSG(nrt_same_pcs(p->pcs, p->npcs, dec.pcs, dec.npcs, false, why, sizeof why), "%s %s%s: %s",
                      p->name, desc, nocode ? "(no ELF)" : "", why);
            if (nocode && !norvc)
                CHECK_MSG(dec.nocount_blocks == dec.blocks, "%s %s: blocks without code must not claim a count",
                          p->name, desc);
            if (data && has_data) {
                check_values(p, &dec, desc, RVT_DATA_LOAD_ADDR);
                check_values(p, &dec, desc, RVT_DATA_LOAD_VALUE);
                check_values(p, &dec, desc, RVT_DATA_STORE_ADDR);
                check_values(p, &dec, desc, RVT_DATA_STORE_VALUE);
            }
            if (ts && p->x.n && (p->x.recs[0].flags & RVT_ING_HAS_TIME))
                check_times(p, &dec, desc);
            if (!nocode)
                printf("  %-12s %-70s %8zu insns %7zu bytes %.3f bits/insn\n", p->name, desc, dec.npcs, enc.out.len,
                       8.0 * (double)enc.out.len / (double)(p->npcs ? p->npcs : 1));
            nrt_dec_free(&dec);
            rvt_membuf_free(&enc.out);
        }
    }
}

/* Hart changes become Change Hart sequences (also after sync points). */
static void test_harts(const struct nrt_prog *p)
{
    const char *const o[] = {"dbg-buffer", "1024", NULL};
    struct nrt_enc enc;
    struct nrt_dec dec;
    if (!nrt_run(codec(), p, o, false, &enc, &dec, NULL))
        return;
    char why[256];
    CHECK_MSG(dec.errors == 0, "%s harts: %s", p->name, dec.first_error);
    CHECK_MSG(nrt_same_pcs(p->pcs, p->npcs, dec.pcs, dec.npcs, false, why, sizeof why), "%s harts: %s", p->name, why);
    /* Distinct consecutive hart values decoded = the changes. */
    struct nrt_item *exp;
    size_t ne = expected(p, &exp), j = 0;
    uint64_t cur = 0;
    for (size_t i = 0; i < dec.ndata; i++) {
        if (dec.data[i].kind != RVT_DATA_HART || dec.data[i].value == cur)
            continue;
        cur = dec.data[i].value;
        while (j < ne && exp[j].kind != RVT_DATA_HART)
            j++;
        CHECK_MSG(j < ne && exp[j].value == cur, "%s harts: change to %" PRIu64 " not expected", p->name, cur);
        j++;
    }
    while (j < ne && exp[j].kind != RVT_DATA_HART)
        j++;
    CHECK_MSG(j == ne, "%s harts: a hart change was not decoded", p->name);
    free(exp);
    nrt_dec_free(&dec);
    rvt_membuf_free(&enc.out);
}

/* An encoder told the C extension is absent refuses 2-byte aligned PCs. */
static void test_rvc_off_refused(const struct nrt_prog *p)
{
    const char *const o[] = {"dbg-rvc", "off", "ecall", "trap", NULL};
    void *cfg;
    char err[256];
    struct nrt_enc enc;
    REQUIRE(nrt_cfg(codec(), &cfg, o, p->xlen, p->img, err, sizeof err) == 0);
    CHECK(nrt_encode(codec(), cfg, &p->x, &enc, err, sizeof err) < 0);
    CHECK_MSG(strstr(err, "not 4-byte aligned") != NULL, "%s", err);
    rvt_membuf_free(&enc.out);
    rvt_codec_cfg_free(cfg);
}

int main(void)
{
    struct nrt_prog p32, p64, t1, h, q32, q64, real;
    if (nrt_prog_flowtest(&q32, "flow/flowtest32.elf", 32, 400, NRT_TIME | NRT_NO_INTERRUPTS) &&
        nrt_prog_flowtest(&p32, "flow/flowtest32.elf", 32, 400, NRT_TIME)) {
        p32.alt = &q32;
        test_configs(&p32, false, false);
        test_rvc_off_refused(&p32);
    }
    if (nrt_prog_flowtest(&q64, "flow/flowtest64.elf", 64, 400, NRT_TIME | NRT_NO_INTERRUPTS) &&
        nrt_prog_flowtest(&p64, "flow/flowtest64.elf", 64, 400, NRT_TIME)) {
        p64.alt = &q64;
        test_configs(&p64, false, false);
    }
    if (nrt_prog_pclist(&t1, "ntrace-t1/test.elf", "ntrace-t1/test-PCONLY.txt", NRT_DATA | NRT_TIME))
        test_configs(&t1, true, true);
    if (nrt_prog_flowtest(&h, "flow/flowtest64.elf", 64, 200, NRT_HARTS))
        test_harts(&h);
    if (nrt_prog_real(&real))
        test_configs(&real, false, false);
    nrt_prog_free(&real);
    nrt_prog_free(&p32);
    nrt_prog_free(&p64);
    nrt_prog_free(&t1);
    nrt_prog_free(&h);
    nrt_prog_free(&q32);
    nrt_prog_free(&q64);
    return rvt_test_summary("test_dbg_roundtrip");
}
