/* E-Trace data trace against the public reference data encoder model
 * (riscv-trace-spec referenceFlow/scripts/data_encoder_model.py): golden
 * vectors in tests/data/etrace-data (README there), and one test for each
 * place where the model disagrees with dataTracePayload.adoc.
 *
 *  - With --data-model-compat rvtrace's packets are byte-identical to the
 *    model's for every option set, RV32 and RV64, and its decoder reads
 *    them back to the model's input accesses.
 *  - By default rvtrace follows the spec; in the model's full-address-and-
 *    data mode its packets then differ only where the model's atomic
 *    subtype numbers do (and by the support packet that ends the trace).
 */
#include "drt.h"
#include "etrace/etrace.h"
#include "ingress/refdata.h"
#include "rt.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct recs {
    struct rvt_ing_rec *r;
    size_t n, cap;
};

static int put_rec(void *ctx, const struct rvt_ing_rec *r)
{
    struct recs *v = ctx;
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 1024;
        v->r = realloc(v->r, v->cap * sizeof *v->r);
        if (!v->r)
            abort();
    }
    v->r[v->n++] = *r;
    return 0;
}

static bool load_csv(const char *rel, struct recs *out)
{
    char *path = rvt_test_data(rel);
    uint8_t *text = NULL;
    size_t len = 0;
    struct rvt_diag d = {0};
    bool ok = rvt_read_file(path, &text, &len, &d) == 0 &&
              rvt_refdata_parse_mem((const char *)text, len, rel, put_rec, out, &d) > 0;
    CHECK_MSG(ok, "%s: %s", rel, d.msg);
    free(text);
    free(path);
    return ok;
}

static uint8_t *load_bin(const char *rel, size_t *len)
{
    char *path = rvt_test_data(rel);
    uint8_t *b = NULL;
    struct rvt_diag d = {0};
    if (rvt_read_file(path, &b, len, &d) < 0)
        CHECK_MSG(0, "%s: %s", rel, d.msg);
    free(path);
    return b;
}

/* A configuration from the vector's files plus options. */
static void *vector_cfg(unsigned xlen, const char *set, bool compat, char *err, size_t errlen)
{
    char scf[64], ucf[96];
    snprintf(scf, sizeof scf, "etrace-data/rv%u/hw.scf", xlen);
    snprintf(ucf, sizeof ucf, "etrace-data/rv%u/%s/encoder.ucf", xlen, set);
    char *ps = rvt_test_data(scf), *pu = rvt_test_data(ucf);
    const char *opts[] = {"scf", ps, "ucf", pu, "framing", "refraw", "data-trace", "only",
                          "data-model-compat", compat ? "1" : "0", NULL};
    void *cfg = rt_config(opts, xlen, NULL, err, errlen);
    free(ps);
    free(pu);
    return cfg;
}

static const char *const sets[] = {"debug", "basic", "noaddr", "nodata", "fulldata"};

/* Byte-identical encode and decode back to the input, per vector. */
static void golden(unsigned xlen, const char *input, const char *set)
{
    char rel[128], err[700];
    struct recs in = {0};
    snprintf(rel, sizeof rel, "etrace-data/rv%u/%s.csv", xlen, input);
    if (!load_csv(rel, &in))
        return;
    snprintf(rel, sizeof rel, "etrace-data/rv%u/%s/%s.te_data_raw", xlen, set, input);
    size_t glen = 0;
    uint8_t *gold = load_bin(rel, &glen);
    void *cfg = vector_cfg(xlen, set, true, err, sizeof err);
    CHECK_MSG(cfg, "%s: %s", rel, err);
    struct rvt_image *img = rvt_img_new();
    rvt_img_set_xlen(img, xlen);
    if (cfg && gold) {
        struct rt_result enc = {0};
        if (rt_encode(cfg, in.r, in.n, &enc, err, sizeof err) < 0) {
            CHECK_MSG(0, "%s: encode: %s", rel, err);
        } else {
            size_t at = 0;
            while (at < enc.nbytes && at < glen && enc.bytes[at] == gold[at])
                at++;
            CHECK_MSG(enc.nbytes == glen && at == glen, "%s: compat encode differs at byte %zu (%zu vs %zu bytes)",
                      rel, at, enc.nbytes, glen);
        }
        rt_free(&enc);
        /* the model's packets decode to its input */
        struct drt_notes got = {0}, want = {0};
        CHECK(drt_expect(cfg, in.r, in.n, img, &want) == 0);
        if (drt_decode(cfg, img, -1, gold, glen, &got, err, sizeof err) < 0) {
            CHECK_MSG(0, "%s: %s", rel, err);
        } else {
            char why[400] = "";
            size_t k = drt_compare(&got, &want, why, sizeof why);
            CHECK_MSG(k == want.n && got.n == want.n && !got.lost && !got.errors, "%s: decode: %s%s%s", rel, why,
                      got.lost ? "; lost: " : "", got.first_lost);
        }
        drt_free(&got);
        drt_free(&want);
    }
    rvt_img_free(img);
    rvt_codec_cfg_free(cfg);
    free(gold);
    free(in.r);
}

/* The model's atomic subtypes for xor, max and min are 5, 6, 7; the
 * spec's table says 100 XOR, 101 MAX, 110 MIN, 111 conditional store
 * failure (which has no data: the model's min reads as a damaged one). */
static unsigned spec_dtype_of_model(unsigned dtype)
{
    return dtype == RVT_DTYPE_AMO_XOR ? RVT_DTYPE_AMO_MAX
           : dtype == RVT_DTYPE_AMO_MAX ? RVT_DTYPE_AMO_MIN
           : dtype == RVT_DTYPE_AMO_MIN ? RVT_DTYPE_SC_FAIL
                                        : dtype;
}

/* Full address and data: the spec default decodes the model's packets to
 * its input, but for the atomic subtypes; it encodes the same bytes when
 * there are no xor/max/min atomics, plus the final support packet. */
static void full_mode(unsigned xlen, const char *input)
{
    char rel[128], err[700];
    struct recs in = {0};
    snprintf(rel, sizeof rel, "etrace-data/rv%u/%s.csv", xlen, input);
    if (!load_csv(rel, &in))
        return;
    snprintf(rel, sizeof rel, "etrace-data/rv%u/debug/%s.te_data_raw", xlen, input);
    size_t glen = 0;
    uint8_t *gold = load_bin(rel, &glen);
    void *cfg = vector_cfg(xlen, "debug", false, err, sizeof err);
    CHECK_MSG(cfg, "%s", err);
    struct rvt_image *img = rvt_img_new();
    rvt_img_set_xlen(img, xlen);
    bool has_xmm = false;
    for (size_t i = 0; i < in.n; i++) {
        unsigned t = in.r[i].dtype;
        has_xmm |= t == RVT_DTYPE_AMO_XOR || t == RVT_DTYPE_AMO_MAX || t == RVT_DTYPE_AMO_MIN;
    }
    if (cfg && gold) {
        struct drt_notes got = {0}, want = {0};
        struct recs spec = in;
        spec.r = malloc(in.n * sizeof *in.r);
        spec.n = 0;
        unsigned mins = 0;
        for (size_t i = 0; i < in.n; i++) {
            uint8_t t = (uint8_t)spec_dtype_of_model(in.r[i].dtype);
            if (t == RVT_DTYPE_SC_FAIL && in.r[i].mem_value) {
                mins++; /* reported lost: "failed store-conditional with data" */
                continue;
            }
            spec.r[spec.n] = in.r[i];
            spec.r[spec.n++].dtype = t;
        }
        CHECK(drt_expect(cfg, spec.r, spec.n, img, &want) == 0);
        if (drt_decode(cfg, img, -1, gold, glen, &got, err, sizeof err) == 0) {
            char why[400] = "";
            size_t k = drt_compare(&got, &want, why, sizeof why);
            CHECK_MSG(k == want.n && got.n == want.n && got.lost == mins, "%s spec decode: %s (%u lost, %u amomin with data)",
                      rel, why, got.lost, mins);
        }
        /* (the notes carry no dtype: the remapped atomics show through the
         * encode below and the unit test of the subtype table) */
        struct rt_result enc = {0};
        if (rt_encode(cfg, in.r, in.n, &enc, err, sizeof err) == 0) {
            bool prefix = enc.nbytes == glen + 4 && memcmp(enc.bytes, gold, glen) == 0;
            if (has_xmm)
                CHECK_MSG(!prefix, "%s: spec encode equals the model's despite xor/max/min atomics", rel);
            else
                CHECK_MSG(prefix, "%s: spec encode is not the model's bytes + the final support packet", rel);
            /* the last 4 bytes: support packet, ienable 0, denable 0 */
            if (enc.nbytes >= 4) {
                struct et_params p = ((struct et_config *)cfg)->p;
                struct et_bits b = {0};
                const uint8_t *t = enc.bytes + enc.nbytes - 4;
                CHECK_EQ(t[0] >> 5, 2); /* refraw msg_type te_inst */
                for (unsigned i = 0; i < 24; i++)
                    b.w[0] |= (uint64_t)((t[1 + i / 8] >> (i % 8)) & 1) << i;
                b.n = 24;
                struct et_packet k;
                struct rvt_diag d = {0};
                CHECK(et_pkt_unpack_bits(&p, ET_MSG_TE_INST, &b, &k, &d) == 0);
                CHECK(k.format == ET_F3 && k.subformat == ET_SF_SUPPORT && !k.ienable && !k.denable);
            }
        } else {
            CHECK_MSG(0, "%s: %s", rel, err);
        }
        rt_free(&enc);
        free(spec.r);
        drt_free(&got);
        drt_free(&want);
    }
    rvt_img_free(img);
    rvt_codec_cfg_free(cfg);
    free(gold);
    free(in.r);
}

/* ---- the disagreements, one by one -------------------------------------------- */

static struct et_params mkparams(unsigned xlen, bool compat, bool no_addr, bool no_data, bool full_data,
                                 unsigned data_width)
{
    struct et_params p;
    et_params_default(&p);
    p.xlen = xlen;
    p.iaddress_width_p = xlen;
    p.d.mode = ET_DATA_ONLY;
    p.d.model_compat = compat;
    p.d.no_address = no_addr;
    p.d.no_data = no_data;
    p.d.full_data = full_data;
    p.d.data_width_p = data_width;
    unsigned tb = 0;
    struct rvt_diag d = {0};
    CHECK_MSG(et_dparams_finish(&p.d, xlen, p.doptions_width, &tb, false, &d) == 0, "%s", d.msg);
    return p;
}

static int pkt(struct et_denc *e, const struct et_access *a, struct et_dpkt *k)
{
    unsigned n = 0;
    struct rvt_diag d = {0};
    int rc = et_denc_access(e, a, k, &n, &d);
    return rc < 0 ? rc : (int)n;
}

static void disagreements(void)
{
    struct et_dpkt k[2];
    /* (1) default (differential) mode: the model subtracts but labels the
     * diff field 01 ("Differential address, XOR-compressed data"); the spec's
     * code for a difference is 11 ("Differential address, differential
     * data").  (2) the first access of a size: the model labels it 01 too;
     * "00: Full address and data (sync)". */
    struct et_params ps = mkparams(64, false, false, false, false, 64), pc = mkparams(64, true, false, false, false, 64);
    struct et_denc es, ec;
    et_denc_init(&es, &ps.d);
    et_denc_init(&ec, &pc.d);
    struct et_access a1 = {.addr = 0x80001000, .data = 100, .dtype = RVT_DTYPE_LOAD, .size = 2, .has_addr = true,
                           .has_data = true};
    struct et_access a2 = a1;
    a2.addr += 4;
    a2.data = 103;
    CHECK(pkt(&es, &a1, k) == 1 && k[0].diff == 0 && k[0].data == 100);
    CHECK(pkt(&ec, &a1, k) == 1 && k[0].diff == 1 && k[0].data == 100);
    CHECK(pkt(&es, &a2, k) == 1 && k[0].diff == 3 && k[0].data == 3 && k[0].address == 1);
    CHECK(pkt(&ec, &a2, k) == 1 && k[0].diff == 1 && k[0].data == 3 && k[0].address == 1);

    /* (3) the operand: "Uncompressed" (payload, operand field); the model
     * compresses it against the last value of its size. */
    struct et_access amo = {.addr = 0x80001008, .data = 7, .operand = 105, .dtype = RVT_DTYPE_AMO_ADD, .size = 2,
                            .has_addr = true, .has_data = true, .has_operand = true};
    CHECK(pkt(&es, &amo, k) == 1 && k[0].operand == 105);
    CHECK(pkt(&ec, &amo, k) == 1 && k[0].operand == 105 - 103);

    /* (4) atomic subtypes: the spec's table 000 swap .. 100 XOR, 101 MAX,
     * 110 MIN, 111 (address only) conditional store failure; the model's
     * XOR/MAX/MIN are 5/6/7 (its 7 collides with the failure code). */
    static const unsigned spec_sub[7] = {0, 1, 2, 3, 4, 5, 6}, model_sub[7] = {0, 1, 2, 3, 5, 6, 7};
    for (unsigned i = 0; i < 7; i++) {
        amo.dtype = (uint8_t)(RVT_DTYPE_AMO_SWAP + i);
        CHECK(pkt(&es, &amo, k) == 1 && k[0].format == ET_DF_ATOMIC && k[0].subtype == spec_sub[i]);
        CHECK(pkt(&ec, &amo, k) == 1 && k[0].subtype == model_sub[i]);
    }
    struct et_access scf = amo;
    scf.dtype = RVT_DTYPE_SC_FAIL;
    CHECK(pkt(&es, &scf, k) == 1 && k[0].subtype == 7);
    CHECK(pkt(&ec, &scf, k) < 0); /* no encoding in the model */

    /* (7) full data with differential addresses: the model labels CSR
     * packets 10, which the CSR table reserves ("10: reserved"); the spec
     * default sends 00 (full data) there, and rejects 10 unless compat. */
    struct et_params pds = mkparams(64, false, false, false, true, 64), pdc = mkparams(64, true, false, false, true, 64);
    et_denc_init(&es, &pds.d);
    et_denc_init(&ec, &pdc.d);
    struct et_access csr = {.addr = 0x300, .data = 0x1800, .operand = 0x800, .dtype = RVT_DTYPE_CSR_RS, .size = 3,
                            .has_addr = true, .has_data = true, .has_operand = true};
    CHECK(pkt(&es, &csr, k) == 1 && k[0].format == ET_DF_CSR && k[0].diff == 0);
    CHECK(pkt(&ec, &csr, k) == 1 && k[0].format == ET_DF_CSR && k[0].diff == 2);
    {
        struct et_bits b;
        struct et_dpkt u;
        struct rvt_diag d = {0};
        CHECK(et_dpkt_bits(&pdc.d, &k[0], &b, &d) == 0);
        CHECK(et_dpkt_unpack(&pdc.d, &b, NULL, &u, &d) == 0);
        CHECK(et_dpkt_unpack(&pds.d, &b, NULL, &u, &d) < 0);
    }

    /* (6) RV32, 32-bit data_width_p, an 8-byte FP load without addresses:
     * the spec's data field is data_width_p bits, so the access does not fit
     * (set data_width_p = 64); the model drops the upper half. */
    struct et_params p32s = mkparams(32, false, true, false, false, 32), p32c = mkparams(32, true, true, false, false, 32);
    struct et_denc e32s, e32c;
    et_denc_init(&e32s, &p32s.d);
    et_denc_init(&e32c, &p32c.d);
    struct et_access fld = {.addr = 0x80002000, .data = 0x1122334455667788ull, .dtype = RVT_DTYPE_LOAD, .size = 3,
                            .has_addr = true, .has_data = true};
    CHECK(pkt(&e32s, &fld, k) < 0);
    CHECK(pkt(&e32c, &fld, k) == 1 && k[0].data == 0x55667788);
    struct et_params p32w = mkparams(32, false, true, false, false, 64);
    struct et_denc e32w;
    et_denc_init(&e32w, &p32w.d);
    CHECK(pkt(&e32w, &fld, k) == 1 && k[0].data == 0x1122334455667788ull);

    /* the full-address-and-data mode agrees but for the subtypes: diff 00 */
    struct et_params pfs = mkparams(64, false, false, false, true, 64), pfc = mkparams(64, true, false, false, true, 64);
    pfs.d.full_address = pfc.d.full_address = true;
    et_denc_init(&es, &pfs.d);
    et_denc_init(&ec, &pfc.d);
    CHECK(pkt(&es, &a1, k) == 1 && k[0].diff == 0);
    CHECK(pkt(&es, &a2, k) == 1 && k[0].diff == 0 && k[0].data == 103 && k[0].address == (a2.addr >> 2));
    CHECK(pkt(&ec, &a1, k) == 1 && k[0].diff == 0);
    CHECK(pkt(&ec, &a2, k) == 1 && k[0].diff == 0 && k[0].data == 103 && k[0].address == (a2.addr >> 2));
}

/* (5) the model never sends the support packet that ends the trace ("When
 * tracing ceases for any reason ... in order to inform the decoder"):
 * without compat the stream ends with one, with compat it does not. */
static void final_support(void)
{
    char err[700];
    struct rvt_ing_rec r = {.flags = RVT_ING_HAS_MEM | RVT_ING_HAS_MEMVAL, .mem_addr = 0x1000, .mem_size = 4,
                            .mem_value = 5};
    for (int compat = 0; compat < 2; compat++) {
        const char *opts[] = {"framing", "refraw", "data-trace", "only", "data-model-compat", compat ? "1" : "0",
                              "ioptions_width", "5", "doptions_width", "4", NULL};
        void *cfg = rt_config(opts, 64, NULL, err, sizeof err);
        CHECK_MSG(cfg, "%s", err);
        if (!cfg)
            continue;
        struct rt_result enc = {0};
        CHECK(rt_encode(cfg, &r, 1, &enc, err, sizeof err) == 0);
        /* support (4 bytes), the load, and without compat another support */
        unsigned supports = 0;
        for (size_t i = 0; i < enc.nbytes; i += 1 + (enc.bytes[i] & 31))
            supports += (enc.bytes[i] >> 5) == 2;
        CHECK_EQ(supports, compat ? 1 : 2);
        rt_free(&enc);
        rvt_codec_cfg_free(cfg);
    }
}

int main(void)
{
    static const char *const inputs32[] = {"g32", "k32"}, *const inputs64[] = {"g64", "k64"};
    for (unsigned i = 0; i < 2; i++)
        for (unsigned s = 0; s < sizeof sets / sizeof sets[0]; s++) {
            golden(32, inputs32[i], sets[s]);
            golden(64, inputs64[i], sets[s]);
        }
    for (unsigned i = 0; i < 2; i++) {
        full_mode(32, inputs32[i]);
        full_mode(64, inputs64[i]);
    }
    disagreements();
    final_support();
    return rvt_test_summary("test_et_data_model");
}
