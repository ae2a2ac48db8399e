/* E-Trace dump: one line per packet with its byte offset, frame, kind and
 * every field (differential addresses also resolved to absolute ones). */
#include "etrace/etrace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A te_data packet: its fields, and the access they give. */
static void dump_data(const struct et_params *p, struct et_ddec *dd, const struct et_frame *fr, FILE *out)
{
    struct et_dpkt k;
    struct rvt_diag fd = {0};
    if (et_dpkt_unpack(&p->d, &fr->bits, dd->lrid_size, &k, &fd) < 0) {
        fprintf(out, "0x%08" PRIx64 "  ERROR %s\n", fr->offset, fd.msg);
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

int et_dump(const struct et_params *p, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d)
{
    struct et_deframer df;
    et_deframer_init(&df, p, buf, len);
    df.only_src = p->src_id_set; /* one hart of a funnelled trace */
    struct et_params cur = *p; /* the support packet may switch modes (full address ...) */
    uint64_t npk = 0, nnull = 0, null_at = 0;
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
            fprintf(out, "0x%08" PRIx64 "  ERROR %s\n", (uint64_t)fr.offset, fd.msg);
            if (!et_deframer_resync(&df))
                break;
            fprintf(out, "0x%08zx  (resynchronised)\n", df.pos);
            continue;
        }
        if (fr.is_null) {
            if (!nnull)
                null_at = fr.offset;
            nnull++;
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
            nnull = 0;
        }
        if (fr.is_data) {
            npk++;
            dump_data(&cur, &dd[slot], &fr, out);
            continue;
        }
        struct et_packet k;
        char fields[700];
        if (et_pkt_unpack_bits(&cur, fr.msg, &fr.bits, &k, &fd) < 0) {
            fprintf(out, "0x%08" PRIx64 "  ERROR %s\n", fr.offset, fd.msg);
            continue;
        }
        npk++;
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
            if (k.denable) {
                struct rvt_diag od = {0};
                if (et_apply_doptions(&cur.d, k.doptions, cur.doptions_width, &od) < 0)
                    fprintf(out, "0x%08" PRIx64 "  ERROR %s\n", fr.offset, od.msg);
            }
        }
        if (k.msg == ET_MSG_TE_INST && k.format == ET_F3)
            et_ddec_reset(&dd[slot]); /* the data compression state restarts at every format 3 packet */
        char extra[64] = "";
        if (p->framing == ET_FRAME_ENCAP) {
            int n = p->src_bits ? snprintf(extra, sizeof extra, " src=%u flow=%u", fr.src_id, fr.flow)
                                : snprintf(extra, sizeof extra, " flow=%u", fr.flow);
            if (fr.has_ts && n > 0)
                snprintf(extra + n, sizeof extra - (size_t)n, " ts=0x%" PRIx64, fr.timestamp);
        }
        fprintf(out, "0x%08" PRIx64 "  %-10s len=%-2zu%s%s%s\n", fr.offset, et_pkt_name(&k), fr.size, extra, fields,
                absbuf);
    }
    if (nnull)
        fprintf(out, "0x%08" PRIx64 "  null x%" PRIu64 "\n", null_at, nnull);
    fprintf(out, "# %" PRIu64 " packets, %zu bytes\n", npk, len);
    free(dd);
    return 0;
}
