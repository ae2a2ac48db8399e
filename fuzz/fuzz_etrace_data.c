/* Fuzz the E-Trace data trace: te_data packets and the decoder that ties
 * them to instructions.  The first byte picks the framing, xlen and the
 * data options; the second the packet-level parameters.  Every payload
 * that parses as a te_data packet must pack again to bits that parse the
 * same; the whole input is then decoded (with data trace on, with the code
 * of fuzz_decode.h; and alone) and dumped.  Errors are fine; crashes,
 * hangs, out-of-bounds reads and notes without their reason are not. */
#include "driver/fuzz_decode.h"
#include "etrace/etrace.h"

extern const struct rvt_codec rvt_codec_etrace;

static void configure(const struct rvt_codec *c, void *cfg, uint8_t sel, struct rvt_diag *d)
{
    c->cfg_set(cfg, "framing", (sel & 2) ? "refraw" : "encap", d);
    c->cfg_set(cfg, "data-trace", (sel & 4) ? "only" : "on", d);
    switch ((sel >> 3) & 7) {
    case 1: c->cfg_set(cfg, "data-no-value", "1", d); break;
    case 2: c->cfg_set(cfg, "data-no-address", "1", d); break;
    case 3:
        c->cfg_set(cfg, "data-full-address", "1", d);
        c->cfg_set(cfg, "data-full-value", "1", d);
        break;
    case 4:
        c->cfg_set(cfg, "data_split_p", "1", d);
        c->cfg_set(cfg, "lrid_width_p", "2", d);
        break;
    case 5: c->cfg_set(cfg, "data-compress", "best", d); break;
    case 6: c->cfg_set(cfg, "data-model-compat", "1", d); break;
    default: break;
    }
    if (sel & 64)
        c->cfg_set(cfg, "data-trim", "1", d);
    if (sel & 128)
        c->cfg_set(cfg, "data_width_p", "32", d);
}

static size_t g_len;

/* Errors and lost data say why, at an offset inside the trace. */
static int on_note(void *ctx, const struct rvt_note *n)
{
    (void)ctx;
    if (n->kind == RVT_NOTE_ERROR || (n->kind == RVT_NOTE_DATA && n->reason == RVT_DATA_LOST))
        rvt_fuzz_check(n->text != NULL && n->offset <= g_len);
    return 0;
}

/* A payload parsed as a te_data packet packs again to the same fields. */
static void packet_roundtrip(uint8_t sel, const uint8_t *p, size_t len)
{
    struct et_params ep;
    et_params_default(&ep);
    ep.d.mode = ET_DATA_ON;
    ep.d.no_data = (sel & 3) == 1;
    ep.d.no_address = (sel & 3) == 2;
    ep.d.data_split_p = (sel >> 2) & 1;
    ep.d.lrid_width_p = 1 + ((sel >> 3) & 3);
    ep.d.dtype_width_p = (sel & 32) ? 1 : 4;
    ep.d.model_compat = (sel >> 6) & 1;
    if (ep.d.data_split_p && ep.d.no_address)
        ep.d.no_address = false;
    unsigned tb = 1;
    struct rvt_diag d = {0};
    if (et_dparams_finish(&ep.d, (sel & 128) ? 64 : 32, ep.doptions_width, &tb, false, &d) < 0)
        return;
    struct et_bits b;
    memset(&b, 0, sizeof b);
    if (len > 64)
        len = 64;
    for (size_t i = 0; i < len; i++)
        b.w[i / 8] |= (uint64_t)p[i] << (8 * (i % 8));
    b.n = (unsigned)len * 8;
    uint8_t sizes[ET_DMAX_LRID];
    memset(sizes, 2, sizeof sizes);
    struct et_dpkt k, k2;
    if (et_dpkt_unpack(&ep.d, &b, sizes, &k, &d) < 0)
        return;
    char text[400];
    et_dpkt_format_fields(&ep.d, &k, text, sizeof text);
    struct et_bits again;
    struct et_dpkt kk = k;
    if (et_dpkt_bits(&ep.d, &kk, &again, &d) < 0)
        return;
    rvt_fuzz_check(et_dpkt_unpack(&ep.d, &again, sizes, &k2, &d) == 0);
    rvt_fuzz_check(k2.format == k.format && k2.size == k.size && k2.diff == k.diff && k2.data == k.data &&
                   k2.address == k.address && k2.operand == k.operand && k2.csr == k.csr && k2.lrid == k.lrid);
    /* and decodes without trouble from a fresh state */
    struct et_ddec x;
    et_ddec_init(&x, &ep.d);
    et_ddec_reset(&x);
    struct et_access a;
    uint32_t lrid;
    et_ddec_packet(&x, &k, &a, &lrid, &d);
}

/* Well formed, and a bound on the work per input (a damaged count can
 * walk a loop until the default instruction limit): 1,000 blocks are more
 * than the packets of a 4 KiB input produce otherwise. */
static int on_block(void *ctx, const struct rvt_block *b)
{
    rvt_fuzz_on_block(NULL, b);
    return ++*(unsigned long *)ctx > 1000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    packet_roundtrip(data[1], data + 2, size - 2);
    /* the decoder, with and without its code (bit 0: xlen) */
    const struct rvt_codec *c = &rvt_codec_etrace;
    uint8_t sel = data[0];
    unsigned xlen = (sel & 1) ? 64 : 32;
    struct rvt_image *img = rvt_img_new();
    if (!img)
        return 0;
    rvt_img_set_xlen(img, xlen);
    if (xlen == 32)
        rvt_img_add_raw(img, 0xfffff000u, rvt_fuzz_code32, sizeof rvt_fuzz_code32, "flowtest32");
    else
        rvt_img_add_raw(img, 0x10000u, rvt_fuzz_code64, sizeof rvt_fuzz_code64, "flowtest64");
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    configure(c, cfg, sel, &d);
    if (c->cfg_finish(cfg, xlen, img, &d) == 0) {
        g_len = size - 2;
        unsigned long blocks = 0;
        struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = &blocks};
        int rc = rvt_decode_buffer(c, cfg, img, -1, data + 2, size - 2, &sink, &d);
        if (rc < 0)
            rvt_fuzz_check(d.msg[0] != 0);
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull) {
            c->dump(cfg, data + 2, size - 2, devnull, &d);
            fclose(devnull);
        }
    }
    rvt_codec_cfg_free(cfg);
    rvt_img_free(img);
    return 0;
}
