/* E-Trace dump: one line per packet with its byte offset, frame, kind and
 * every field (differential addresses also resolved to absolute ones). */
#include "etrace/etrace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Remember the first damage (returned at the end) and list it in place. */
static void damage(FILE *out, uint64_t offset, const char *msg, struct rvt_diag *d, enum rvt_err code)
{
    fprintf(out, "0x%08" PRIx64 "  ERROR %s\n", offset, msg);
    if (!d->code)
        rvt_fail(d, code, "%s", msg);
}

/* A te_data packet: its fields, and the access they give. */
static void dump_data(const struct et_params *p, struct et_ddec *dd, const struct et_frame *fr, FILE *out,
                      struct rvt_diag *d)
{
    struct et_dpkt k;
    struct rvt_diag fd = {0};
    if (et_dpkt_unpack(&p->d, &fr->bits, dd->lrid_size, &k, &fd) < 0) {
        damage(out, fr->offset, fd.msg, d, RVT_ERR_FORMAT);
        return;
    }
    char fields[400], acc[160] = "";
    et_dpkt_format_fields(&p->d, &k, fields, sizeof fields);
    struct et_access a;
    uint32_t lrid;
    int rc = et_ddec_packet(dd, &k, &a, &lrid, &fd);
    if (rc == ET_DR_ACCESS || rc == ET_DR_REQUEST || rc == ET_DR_RESPONSE) {
        int n = snprintf(acc, sizeof acc, " -> ");
        et_access_format(&a, acc + n, sizeof acc - (size_t)n);
    } else if (dd->valid) {
        snprintf(acc, sizeof acc, " (%.150s)", fd.msg);
    }
    fprintf(out, "0x%08" PRIx64 "  %-10s len=%-2zu %s%s\n", fr->offset, et_dpkt_name(&k), fr->size, fields, acc);
}

/* Returns 0 when every unit is well formed; otherwise, after listing
 * everything, the first damage (RVT_ERR_TRUNCATED for a trace that ends
 * inside a packet), or RVT_ERR_NOSYNC when no packet was found at all. */
int et_dump(const struct et_params *p, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d)
{
    rvt_diag_clear(d);
    struct et_deframer df;
    et_deframer_init(&df, p, buf, len);
    df.only_src = p->src_id_set; /* one hart of a funnelled trace */
    struct et_params cur = *p; /* the support packet may switch modes (full address ...) */
    uint64_t npk = 0, nnull = 0, null_at = 0;
    bool last_align = true, any = false, data_on = p->d.mode != ET_DATA_OFF, noted_width = false;
    /* the differential address base, per source (a funnel merges harts) */
    enum { NSRC = 64 };
    uint64_t lasts[NSRC] = {0};
    unsigned last_id[NSRC];
    bool have_lasts[NSRC] = {false};
    uint64_t amask = cur.iaddress_width_p >= 64 ? ~0ull : ((1ull << cur.iaddress_width_p) - 1);
    /* te_data: each packet resolved to its access, per source */
    struct et_ddec *dd = calloc(NSRC, sizeof *dd);
    if (!dd)
        return rvt_fail(d, RVT_ERR_NOMEM, "out of memory");
    for (unsigned i = 0; i < NSRC; i++)
        et_ddec_init(&dd[i], &cur.d);
    for (;;) {
        struct et_frame fr;
        struct rvt_diag fd = {0};
        int rc = et_deframer_next(&df, &fr, &fd);
        if (rc == 0)
            break;
        if (rc < 0) {
            damage(out, fr.offset, fd.msg, d, (enum rvt_err)-rc);
            if (!et_deframer_resync(&df))
                break;
            fprintf(out, "0x%08zx  (resynchronised)\n", df.pos);
            continue;
        }
        if (fr.is_null) {
            if (!nnull)
                null_at = fr.offset;
            nnull++;
            last_align = fr.is_align;
            continue;
        }
        if (fr.is_other)
            continue;
        unsigned slot = fr.src_id % NSRC;
        if (have_lasts[slot] && last_id[slot] != fr.src_id)
            have_lasts[slot] = false;
        last_id[slot] = fr.src_id;
        uint64_t last = lasts[slot];
        bool have_last = have_lasts[slot];
        if (nnull) {
            fprintf(out, "0x%08" PRIx64 "  null x%" PRIu64 "\n", null_at, nnull);
            if (!last_align && any) {
                char m[160];
                snprintf(m, sizeof m, "the null packets before offset 0x%" PRIx64 " do not end with a "
                         "null.alignment (0x80)", fr.offset);
                damage(out, fr.offset - 1, m, d, RVT_ERR_FORMAT);
            }
            nnull = 0;
        }
        any = true;
        if (fr.is_data) {
            npk++;
            if (!data_on)
                damage(out, fr.offset, "a data trace packet, but no support packet enabled data trace (denable)", d,
                       RVT_ERR_FORMAT);
            else
                dump_data(&cur, &dd[slot], &fr, out, d);
            continue;
        }
        struct et_packet k;
        char fields[700];
        if (et_pkt_unpack_bits(&cur, fr.msg, &fr.bits, &k, &fd) < 0) {
            damage(out, fr.offset, fd.msg, d, RVT_ERR_FORMAT);
            continue;
        }
        npk++;
        if ((fr.sign_padded && et_pkt_check_padding(&fr.bits, &k, p->version == ET_V0_026, &fd) < 0) ||
            (!cur.partial_compression && et_pkt_check_compressed(&fr.bits, &k, fr.lead_bits, p->version == ET_V0_026, &fd) < 0))
            damage(out, fr.offset, fd.msg, d, RVT_ERR_FORMAT);
        else if (et_pkt_check_irdepth(&cur, &k, &fd) < 0)
            damage(out, fr.offset, fd.msg, d, RVT_ERR_FORMAT);
        et_pkt_format_fields(&cur, &k, fields, sizeof fields);
        char absbuf[48] = "";
        bool v026 = cur.version == ET_V0_026;
        bool full = cur.full_address || (v026 && k.format == ET_F0);
        if (k.has_address) {
            uint64_t a;
            if (k.format == ET_F3 || full) {
                a = (k.address << cur.iaddress_lsb_p) & amask;
            } else {
                a = (last + (et_addr_field_sext(&cur, k.address) << cur.iaddress_lsb_p)) & amask;
                if (have_last)
                    snprintf(absbuf, sizeof absbuf, " -> 0x%" PRIx64, a);
            }
            lasts[slot] = a;
            have_lasts[slot] = true;
        }
        if (k.msg == ET_MSG_TE_INST && k.format == ET_F3 && k.subformat == ET_SF_SUPPORT) {
            et_apply_ioptions(&cur, k.ioptions);
            data_on = (cur.denable_p && k.denable) || p->d.mode != ET_DATA_OFF;
            if (k.denable) {
                struct rvt_diag od = {0};
                if (et_apply_doptions(&cur.d, k.doptions, cur.doptions_width, &od) < 0)
                    damage(out, fr.offset, od.msg, d, RVT_ERR_FORMAT);
            }
        }
        if (k.msg == ET_MSG_TE_INST && k.format == ET_F3)
            et_ddec_reset(&dd[slot]); /* the data compression state restarts at every format 3 packet */
        if (k.has_address && (k.format == ET_F3 || full || have_last) && cur.iaddress_width_p == 64 && !noted_width) {
            /* Bits 63:57 equal to bit 56 in every address an RV64 hart
             * fetches from (Sv57; Sv48, Sv39 and physical addresses are
             * narrower): an RV32 trace read with 64-bit address fields
             * gives addresses such as 0x7ffff3267ffff326. */
            uint64_t a = lasts[slot], top = a >> 56;
            if (top != 0 && top != 0xff) {
                fprintf(out, "# note: address 0x%" PRIx64 " at offset 0x%" PRIx64 " is no RV64 instruction address "
                             "(bits 63:57 differ from bit 56): an RV32 trace? dump it with --xlen 32 (or its --elf)\n",
                        a, fr.offset);
                noted_width = true;
            }
        }
        char extra[64] = "";
        if (p->framing == ET_FRAME_ENCAP) {
            int n = p->src_bits ? snprintf(extra, sizeof extra, " src=%u flow=%u", fr.src_id, fr.flow)
                                : snprintf(extra, sizeof extra, " flow=%u", fr.flow);
            if (fr.has_ts && n > 0)
                snprintf(extra + n, sizeof extra - (size_t)n, " ts=0x%" PRIx64, fr.timestamp);
        }
        fprintf(out, "0x%08" PRIx64 "  %-10s len=%-2zu%s%s%s\n", fr.offset, et_pkt_name(&k, p->version == ET_V0_026), fr.size, extra, fields,
                absbuf);
    }
    if (nnull)
        fprintf(out, "0x%08" PRIx64 "  null x%" PRIu64 "\n", null_at, nnull);
    fprintf(out, "# %" PRIu64 " packets, %zu bytes\n", npk, len);
    if (!npk && len && !d->code)
        rvt_fail(d, RVT_ERR_NOSYNC, "no E-Trace packet in the %zu bytes", len);
    free(dd);
    return d->code ? -(int)d->code : 0;
}
