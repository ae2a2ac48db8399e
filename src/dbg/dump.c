/* Debug-spec trace module dump: one line per packet with its byte offset
 * (".0"/".1" = low/high nybble), values rebuilt with the "missing bits"
 * rules, synchronisation points and Nop padding shown. */
#include "dbg/dbg.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int dbg_dump(const struct dbg_cfg *cfg, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d)
{
    struct dbg_cfg c = *cfg;
    if (c.regs_path[0]) {
        struct dbg_regs r;
        int rc = dbg_regs_read(c.regs_path, &r, d);
        if (rc < 0)
            return rc;
        c.regs = r;
        c.have_tbufwrite = true;
    }
    uint8_t *nyb;
    size_t n;
    uint64_t base;
    int rc = dbg_order_stream(&c, buf, len, &nyb, &n, &base, d);
    if (rc < 0)
        return rc;
    uint64_t total = 2 * (uint64_t)len, spacing = dbg_cfg_sync_spacing(&c);
    unsigned shift = dbg_pc_shift(c.rvc), pcw = c.xlen - shift;
    uint64_t pc = 0, la = 0, sa = 0, ts = 0;
    bool hpc = false, hla = false, hsa = false, hts = false;
    uint64_t packets = 0, errors = 0;
    char first[sizeof d->msg] = ""; /* the first damage, returned after the listing (the decoder contract) */
    enum rvt_err first_code = RVT_OK;
    fprintf(out, "# dbg: %zu bytes, xlen %u, sync points every %" PRIu64 " bytes\n", len, c.xlen, spacing / 2);
    size_t pos = (size_t)((spacing - base % spacing) % spacing);
    if (pos)
        fprintf(out, "%08" PRIx64 ".%u  (%zu nybbles before the first sync point)\n", (base % total) / 2,
                (unsigned)(base & 1), pos < n ? pos : n);
    while (pos < n) {
        uint64_t raw = (base + pos) % (total ? total : 1);
        bool sync = (base + pos) % spacing == 0;
        if (nyb[pos] == 0) {
            size_t s = pos;
            while (pos < n && nyb[pos] == 0 && (pos == s || (base + pos) % spacing != 0))
                pos++;
            fprintf(out, "%08" PRIx64 ".%u  %snop x%zu\n", raw / 2, (unsigned)(raw & 1), sync ? "[sync] " : "",
                    pos - s);
            continue;
        }
        struct dbg_packet p;
        int k = dbg_packet_decode(nyb + pos, n - pos, c.custom, &p, d);
        fprintf(out, "%08" PRIx64 ".%u  %s", raw / 2, (unsigned)(raw & 1), sync ? "[sync] " : "");
        if (k == 0) {
            fprintf(out, "truncated packet (%zu nybbles left)\n", n - pos);
            if (!first[0]) {
                snprintf(first, sizeof first, "dbg: trace ends inside a packet at offset 0x%" PRIx64, raw / 2);
                first_code = RVT_ERR_TRUNCATED;
            }
            break;
        }
        if (k < 0) {
            errors++;
            fprintf(out, "error: %s\n", d->msg);
            if (!first[0]) {
                snprintf(first, sizeof first, "dbg: offset 0x%" PRIx64 ": %.400s", raw / 2, d->msg);
                first_code = RVT_ERR_FORMAT;
            }
            pos++;
            while (pos < n && (base + pos) % spacing != 0)
                pos++;
            continue;
        }
        char text[160];
        dbg_packet_format(&p, text, sizeof text);
        fprintf(out, "%s", text);
        uint64_t m = dbg_mask(4u * p.nval);
        switch (p.hdr) {
        case DBG_PC:
            if (hpc || 4u * p.nval >= pcw) {
                pc = (pc & ~m) | (p.bits & m);
                hpc = true;
                fprintf(out, " -> pc 0x%" PRIx64, (pc << shift) & dbg_mask(c.xlen));
            }
            break;
        case DBG_LOAD_ADDR:
        case DBG_STORE_ADDR: {
            uint64_t *v = p.hdr == DBG_LOAD_ADDR ? &la : &sa;
            bool *h = p.hdr == DBG_LOAD_ADDR ? &hla : &hsa;
            if (*h || 4u * p.nval >= c.xlen) {
                *v = ((*v & ~m) | (p.bits & m)) & dbg_mask(c.xlen);
                *h = true;
                fprintf(out, " -> 0x%" PRIx64, *v);
            }
            break;
        }
        case DBG_LOAD_DATA:
        case DBG_STORE_DATA:
            fprintf(out, " -> 0x%" PRIx64, dbg_fill_signed(p.bits, p.nval, c.xlen));
            break;
        case DBG_TIMESTAMP:
            if (hts || p.nval == 16) {
                ts = (ts & ~m) | (p.bits & m);
                hts = true;
                fprintf(out, " -> %" PRIu64, ts);
            }
            break;
        default:
            break;
        }
        fputc('\n', out);
        packets++;
        pos += (size_t)k;
    }
    fprintf(out, "# %" PRIu64 " packets, %" PRIu64 " errors\n", packets, errors);
    free(nyb);
    if (first[0])
        return rvt_fail(d, first_code, "%s (%" PRIu64 " damaged packets)", first, errors);
    return 0;
}
