/* Trace Control Interface discovery: what a debugger learns about a trace
 * component through its registers alone, following the TCI's "Reset and
 * Discovery" ("Read tr??Impl and compare tr??ComType ... Set some WARL
 * fields and read back to discover supported component configuration")
 * and, for RAM sinks, "Accessing and Detecting RAM Sink Registers"
 * ("Detection of valid ranges of each trRamStart?? and trRamLimit??
 * registers should be performed by writing 0 and 0xFFFFFFFF").  Only the
 * register interface is used, so the result is what a real tool would
 * see; the probe leaves the component in reset. */
#include "sink/sink_internal.h"

#include <inttypes.h>
#include <string.h>

static uint32_t rd(struct rvt_tci *t, enum rvt_tci_comp k, unsigned i, uint32_t off)
{
    uint32_t v = 0;
    rvt_tci_comp_read(t, k, i, off, &v);
    return v;
}

static void wr(struct rvt_tci *t, enum rvt_tci_comp k, unsigned i, uint32_t off, uint32_t v)
{
    rvt_tci_comp_write(t, k, i, off, v);
}

/* Write v to a WARL field (register off, bits lsb..lsb+width) with `base`
 * in the rest of the register; true if it reads back. */
static bool takes(struct rvt_tci *t, enum rvt_tci_comp k, unsigned i, uint32_t off, uint32_t base, unsigned lsb,
                  unsigned width, uint32_t v)
{
    uint32_t m = (width >= 32 ? 0xFFFFFFFFu : (1u << width) - 1) << lsb;
    wr(t, k, i, off, (base & ~m) | (v << lsb & m));
    return (rd(t, k, i, off) & m) == (v << lsb & m);
}

static unsigned popcount32(uint32_t v)
{
    unsigned n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Reset, then release from reset: the defaults. */
static uint32_t reset_release(struct rvt_tci *t, enum rvt_tci_comp k, unsigned i)
{
    wr(t, k, i, 0x000, 0);
    wr(t, k, i, 0x000, 1);
    return rd(t, k, i, 0x000);
}

static void discover_encoder(struct rvt_tci *t, unsigned i, struct rvt_tci_discovery *o)
{
    const enum rvt_tci_comp k = RVT_TCI_ENCODER;
    o->format = (o->control_reset >> 24) & 7;
    o->protocol_major = (o->impl >> 16) & 15;
    o->protocol_minor = (o->impl >> 20) & 15;
    for (unsigned m = 0; m < 8; m++)
        if (takes(t, k, i, 0x000, 1, 4, 3, m))
            o->inst_modes |= (uint8_t)(1u << m);
    for (unsigned m = 0; m < 4; m++)
        if (takes(t, k, i, 0x000, 1, 16, 2, m))
            o->sync_modes |= (uint8_t)(1u << m);
    wr(t, k, i, 0x000, 1);
    o->sync_max_min = (rd(t, k, i, 0x000) >> 20) & 15;
    wr(t, k, i, 0x000, 1 | 15u << 20);
    o->sync_max_max = (rd(t, k, i, 0x000) >> 20) & 15;
    o->has_context = takes(t, k, i, 0x000, 1, 9, 1, 1);
    o->has_trig_enable = takes(t, k, i, 0x000, 1, 11, 1, 1);
    o->has_stall = takes(t, k, i, 0x000, 1, 13, 1, 1);
    o->has_inhibit_src = takes(t, k, i, 0x000, 1, 15, 1, 1);
    wr(t, k, i, 0x000, 1);
    /* trTeInstFeatures: each bit alone, then the enumerated and range fields. */
    static const unsigned bits[] = {0, 1, 2, 3, 4, 5, 8, 9, 10};
    for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++)
        if (takes(t, k, i, 0x008, 0, bits[b], 1, 1))
            o->features |= (uint16_t)(1u << bits[b]);
    for (unsigned m = 0; m < 4; m++)
        if (takes(t, k, i, 0x008, 1u << 3, 6, 2, m))
            o->implicit_return_modes |= (uint8_t)(1u << m);
    wr(t, k, i, 0x008, 0xFFFu << 16);
    o->src_id_bits = popcount32(rd(t, k, i, 0x008) >> 16 & 0xFFF);
    wr(t, k, i, 0x008, 15u << 28);
    o->src_bits_max = rd(t, k, i, 0x008) >> 28;
    wr(t, k, i, 0x008, 0);
    wr(t, k, i, 0x00C, 0xFFFF);
    o->n_filters = popcount32(rd(t, k, i, 0x00C));
    wr(t, k, i, 0x00C, 0);
    for (unsigned j = 0; j < 8; j++) {
        wr(t, k, i, 0x600 + 0x20 * j, 0xFFFFFFFF);
        if (rd(t, k, i, 0x600 + 0x20 * j))
            o->n_comparators++;
        wr(t, k, i, 0x600 + 0x20 * j, 0);
    }
    o->has_data_trace = rd(t, k, i, 0x010) & 1;
    /* The timestamp unit: present if trTsActive can be set. */
    wr(t, k, i, 0x040, 1);
    uint32_t ts = rd(t, k, i, 0x040);
    o->has_ts = ts & 1;
    if (o->has_ts) {
        o->ts_width = (ts >> 24) & 63;
        for (unsigned m = 0; m < 8; m++)
            if (takes(t, k, i, 0x040, 1, 4, 3, m))
                o->ts_modes |= (uint8_t)(1u << m);
        o->ts_prescale = takes(t, k, i, 0x040, 1, 8, 2, 3);
        o->ts_enable = takes(t, k, i, 0x040, 1 | 1u << 4, 15, 1, 1);
        wr(t, k, i, 0x040, 0);
    }
    wr(t, k, i, 0x050, 0xFFFFFFFF);
    o->trig_dbg_mask = rd(t, k, i, 0x050);
    wr(t, k, i, 0x050, 0);
    wr(t, k, i, 0x054, 0x22222222);
    for (uint32_t v = rd(t, k, i, 0x054); v; v >>= 4)
        o->n_ext_trig_in += (v & 15) == 2;
    wr(t, k, i, 0x054, 0);
    wr(t, k, i, 0x058, 0x11111111);
    for (uint32_t v = rd(t, k, i, 0x058); v; v >>= 4)
        o->n_ext_trig_out += (v & 15) == 1;
    wr(t, k, i, 0x058, 0);
}

static void discover_ramsink(struct rvt_tci *t, unsigned i, struct rvt_tci_discovery *o)
{
    const enum rvt_tci_comp k = RVT_TCI_RAMSINK;
    o->has_sram = o->impl >> 12 & 1;
    o->has_smem = o->impl >> 13 & 1;
    o->stop_on_wrap = takes(t, k, i, 0x000, 1, 8, 1, 1);
    for (unsigned m = 0; m < 4; m++)
        if (takes(t, k, i, 0x000, 1, 9, 2, m))
            o->mem_formats |= (uint8_t)(1u << m);
    for (unsigned m = 0; m < 8; m++)
        if (takes(t, k, i, 0x000, 1, 12, 3, m))
            o->async_freqs |= (uint8_t)(1u << m);
    for (unsigned mode = 0; mode < 2; mode++) {
        struct rvt_tci_ram_range *r = &o->ram[mode];
        if (!takes(t, k, i, 0x000, 1, 4, 1, mode))
            continue;
        r->present = 1;
        /* High halves first: "the trace tool should always set trRamStart??
         * registers first" and a 64-bit address is legal once both are. */
        uint32_t lo[2], hi[2];
        for (unsigned e = 0; e < 2; e++) {
            uint32_t v = e ? 0xFFFFFFFFu : 0;
            wr(t, k, i, 0x014, v);
            wr(t, k, i, 0x010, v);
            hi[e] = rd(t, k, i, 0x014);
            lo[e] = rd(t, k, i, 0x010);
        }
        r->start_min = (uint64_t)hi[0] << 32 | lo[0];
        r->start_max = (uint64_t)hi[1] << 32 | lo[1];
        r->has_start_high = hi[1] != 0;
        wr(t, k, i, 0x014, (uint32_t)(r->start_min >> 32));
        wr(t, k, i, 0x010, (uint32_t)r->start_min);
        for (unsigned e = 0; e < 2; e++) {
            uint32_t v = e ? 0xFFFFFFFFu : 0;
            wr(t, k, i, 0x01C, v);
            wr(t, k, i, 0x018, v);
            hi[e] = rd(t, k, i, 0x01C);
            lo[e] = rd(t, k, i, 0x018);
        }
        r->limit_min = (uint64_t)hi[0] << 32 | lo[0];
        r->limit_max = (uint64_t)hi[1] << 32 | lo[1];
        r->has_limit_high = hi[1] != 0;
        wr(t, k, i, 0x01C, hi[1]);
        wr(t, k, i, 0x018, lo[1]);
        /* The trace word: WP is "fixed to a natural boundary". */
        unsigned w = 4;
        while (w < 128 && r->start_min + w <= r->limit_max) {
            wr(t, k, i, 0x024, (uint32_t)((r->start_min + w) >> 32));
            wr(t, k, i, 0x020, (uint32_t)(r->start_min + w));
            uint64_t wp = (uint64_t)rd(t, k, i, 0x024) << 32 | (rd(t, k, i, 0x020) & ~3u);
            if (wp == r->start_min + w)
                break;
            w *= 2;
        }
        r->word_bytes = w;
        /* "the tool should try to set trRamRP?? to the same value as
         * trRamLimit??. If it is settable, ... trRamData should be used" */
        wr(t, k, i, 0x02C, hi[1]);
        wr(t, k, i, 0x028, lo[1]);
        r->has_rp = ((uint64_t)rd(t, k, i, 0x02C) << 32 | rd(t, k, i, 0x028)) == r->limit_max;
    }
}

int rvt_tci_discover(struct rvt_tci *t, enum rvt_tci_comp kind, unsigned idx, struct rvt_tci_discovery *out,
                     size_t out_size)
{
    if (idx >= rvt_tci_count(t, kind))
        return -RVT_ERR_INVAL;
    struct rvt_tci_discovery o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.kind = kind;
    rvt_tci_get_base(t, kind, idx, &o.base);
    o.control_reset = reset_release(t, kind, idx);
    o.active = o.control_reset & 1;
    o.impl = rd(t, kind, idx, 0x004);
    o.ver_major = o.impl & 15;
    o.ver_minor = (o.impl >> 4) & 15;
    o.comp_type = (o.impl >> 8) & 15;
    o.vendor = o.impl >> 24;
    switch (kind) {
    case RVT_TCI_ENCODER:
        discover_encoder(t, idx, &o);
        break;
    case RVT_TCI_RAMSINK:
        discover_ramsink(t, idx, &o);
        break;
    case RVT_TCI_FUNNEL:
        wr(t, kind, idx, 0x008, 0xFFFF);
        o.n_inputs = popcount32(rd(t, kind, idx, 0x008));
        wr(t, kind, idx, 0x008, 0);
        break;
    case RVT_TCI_ATBBRIDGE:
        for (unsigned m = 0; m < 8; m++)
            if (takes(t, kind, idx, 0x004, 0, 12, 3, m))
                o.async_freqs |= (uint8_t)(1u << m);
        wr(t, kind, idx, 0x000, 1 | 0x7Fu << 8);
        o.id_bits = popcount32(rd(t, kind, idx, 0x000) >> 8 & 0x7F);
        break;
    default:
        break;
    }
    wr(t, kind, idx, 0x000, 0);
    size_t n = out_size < sizeof o ? out_size : sizeof o;
    memcpy(out, &o, n);
    if (n >= sizeof(size_t))
        out->size = n;
    return 0;
}

static void values(FILE *f, unsigned mask, unsigned n)
{
    bool any = false;
    for (unsigned v = 0; v < n; v++)
        if (mask >> v & 1) {
            fprintf(f, "%s%u", any ? " " : "", v);
            any = true;
        }
    if (!any)
        fputs("none", f);
}

static const char *yes(int v)
{
    return v ? "implemented" : "not implemented (reads 0)";
}

static void line(FILE *f, const char *name)
{
    fprintf(f, "  %-28s ", name);
}

static void version(FILE *f, const struct rvt_tci_discovery *d, const char *prefix)
{
    fprintf(f, "  %sImpl 0x%08" PRIx32 ": %sVerMajor.%sVerMinor %u.%u, %sCompType 0x%x, vendor bits 0x%02x\n", prefix,
            d->impl, prefix, prefix, d->ver_major, d->ver_minor, prefix, d->comp_type, d->vendor);
    fprintf(f, "  %sControl after release from reset: 0x%08" PRIx32 "%s\n", prefix, d->control_reset,
            d->active ? "" : " (the component did not leave reset)");
}

int rvt_tci_discovery_print(const struct rvt_tci_discovery *d, unsigned idx, FILE *f)
{
    static const char *const feat[11] = {"trTeInstNoAddrDiff",         "trTeInstNoTrapAddr",
                                         "trTeInstEnSequentialJump",   "trTeInstEnImplicitReturn",
                                         "trTeInstEnBranchPrediction", "trTeInstEnJumpTargetCache",
                                         NULL,
                                         NULL,
                                         "trTeInstEnRepeatedHistory",  "trTeInstEnAllJumps",
                                         "trTeInstExtendAddrMSB"};
    switch (d->kind) {
    case RVT_TCI_ENCODER:
        fprintf(f, "encoder%u @ 0x%08" PRIx64 ": trace encoder\n", idx, d->base);
        version(f, d, "trTe");
        line(f, "trTeProtocolMajor.Minor");
        fprintf(f, "%u.%u\n", d->protocol_major, d->protocol_minor);
        line(f, "trTeFormat");
        fprintf(f, "%u (%s)\n", d->format, d->format == 0 ? "E-Trace" : d->format == 1 ? "N-Trace" : "other");
        line(f, "trTeInstMode");
        values(f, d->inst_modes, 8);
        fputs(" (values that read back)\n", f);
        line(f, "trTeInstSyncMode");
        values(f, d->sync_modes, 4);
        fputs(" (0 off, 1 messages/packets, 2 cycles, 3 half-words)\n", f);
        line(f, "trTeInstSyncMax");
        fprintf(f, "%u..%u (a period of 2^%u..2^%u units)\n", d->sync_max_min, d->sync_max_max, d->sync_max_min + 4,
                d->sync_max_max + 4);
        line(f, "trTeContext");
        fprintf(f, "%s\n", yes(d->has_context));
        line(f, "trTeInstTrigEnable");
        fprintf(f, "%s\n", yes(d->has_trig_enable));
        line(f, "trTeInstStallEna");
        fprintf(f, "%s\n", yes(d->has_stall));
        line(f, "trTeInhibitSrc");
        fprintf(f, "%s\n", yes(d->has_inhibit_src));
        for (unsigned b = 0; b < 11; b++) {
            if (!feat[b])
                continue;
            line(f, feat[b]);
            fprintf(f, "%s\n", yes(d->features >> b & 1));
        }
        line(f, "trTeInstImplicitReturnMode");
        values(f, d->implicit_return_modes, 4);
        fputs(" (1 counting, 2 partial addresses, 3 full addresses)\n", f);
        line(f, "trTeSrcID");
        fprintf(f, "%u bits\n", d->src_id_bits);
        line(f, "trTeSrcBits");
        fprintf(f, "0..%u\n", d->src_bits_max);
        line(f, "trTeInstFilters");
        fprintf(f, "%u filter units (trTeFilter0..%d)\n", d->n_filters, (int)d->n_filters - 1);
        line(f, "trTeComp");
        fprintf(f, "%u comparator units\n", d->n_comparators);
        line(f, "trTeDataImplemented");
        fprintf(f, "%u\n", d->has_data_trace);
        line(f, "trTeTrigDbgControl");
        fprintf(f, "writable bits 0x%08" PRIx32 "\n", d->trig_dbg_mask);
        line(f, "trTeTrigExtIn/OutControl");
        fprintf(f, "%u inputs, %u outputs\n", d->n_ext_trig_in, d->n_ext_trig_out);
        line(f, "trTsControl");
        if (d->has_ts) {
            fprintf(f, "timestamp unit: trTsWidth %u, trTsMode ", d->ts_width);
            values(f, d->ts_modes, 8);
            fprintf(f, ", trTsPrescale %s, trTsEnable %s\n", d->ts_prescale ? "0..3" : "0",
                    d->ts_enable ? "settable" : "reads 0");
        } else {
            fputs("no timestamp unit\n", f);
        }
        break;
    case RVT_TCI_FUNNEL:
        fprintf(f, "funnel%u @ 0x%08" PRIx64 ": trace funnel\n", idx, d->base);
        version(f, d, "trFunnel");
        line(f, "trFunnelDisInput");
        if (d->n_inputs)
            fprintf(f, "%u inputs\n", d->n_inputs);
        else
            fputs("not implemented (reads 0): inputs cannot be counted\n", f);
        break;
    case RVT_TCI_RAMSINK:
        fprintf(f, "ramsink%u @ 0x%08" PRIx64 ": trace RAM sink\n", idx, d->base);
        version(f, d, "trRam");
        line(f, "trRamHasSRAM / trRamHasSMEM");
        fprintf(f, "%u / %u\n", d->has_sram, d->has_smem);
        line(f, "trRamStopOnWrap");
        fprintf(f, "%s\n", yes(d->stop_on_wrap));
        line(f, "trRamMemFormat");
        values(f, d->mem_formats, 4);
        fputs(" (0 plain bytes)\n", f);
        line(f, "trRamAsyncFreq");
        values(f, d->async_freqs, 8);
        fputs("\n", f);
        for (unsigned m = 0; m < 2; m++) {
            const struct rvt_tci_ram_range *r = &d->ram[m];
            if (!r->present)
                continue;
            fprintf(f, "  %s mode (trRamMode %u):\n", m ? "SMEM" : "SRAM", m);
            line(f, "  trRamStart");
            fprintf(f, "0x%" PRIx64 "..0x%" PRIx64 "%s\n", r->start_min, r->start_max,
                    r->start_min == r->start_max ? " (fixed)" : "");
            line(f, "  trRamLimit");
            fprintf(f, "0x%" PRIx64 "..0x%" PRIx64 "%s: at most %" PRIu64 " bytes\n", r->limit_min, r->limit_max,
                    r->limit_min == r->limit_max ? " (fixed)" : "", r->limit_max + 4 - r->start_min);
            line(f, "  trRamStartHigh/LimitHigh");
            fprintf(f, "%s / %s\n", r->has_start_high ? "implemented" : "not implemented",
                    r->has_limit_high ? "implemented" : "not implemented");
            line(f, "  trace word");
            fprintf(f, "%u bytes (trRamWP alignment)\n", r->word_bytes);
            line(f, "  trRamRP, trRamData");
            fprintf(f, "%s\n", r->has_rp ? "settable: read the trace through trRamData"
                                         : "not settable: read the memory directly");
        }
        break;
    case RVT_TCI_ATBBRIDGE:
        fprintf(f, "atb%u @ 0x%08" PRIx64 ": ATB bridge\n", idx, d->base);
        version(f, d, "trAtbBridge");
        line(f, "trAtbBridgeAsyncFreq");
        values(f, d->async_freqs, 8);
        fputs("\n", f);
        line(f, "trAtbBridgeID");
        fprintf(f, "%u bits\n", d->id_bits);
        break;
    default:
        break;
    }
    return ferror(f) ? -RVT_ERR_IO : 0;
}
