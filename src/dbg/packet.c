/* Debug-spec trace module: 4-bit packets, value sequences, packing. */
#include "dbg/dbg.h"

#include <inttypes.h>
#include <string.h>

const char *dbg_hdr_name(unsigned hdr)
{
    static const char *const n[16] = {"nop",           "pc",         "branch-taken", "branch-not-taken",
                                      "trace-enabled", "trace-disabled", "priv",     "change-hart",
                                      "load-addr",     "store-addr", "load-data",    "store-data",
                                      "timestamp",     "reserved",   "custom-e",     "custom-f"};
    return n[hdr & 15];
}

bool dbg_has_value(unsigned hdr, unsigned custom)
{
    switch (hdr) {
    case DBG_PC:
    case DBG_HART:
    case DBG_LOAD_ADDR:
    case DBG_STORE_ADDR:
    case DBG_LOAD_DATA:
    case DBG_STORE_DATA:
    case DBG_TIMESTAMP:
        return true;
    case DBG_CUSTOM0:
    case DBG_CUSTOM1:
        return custom == DBG_CUSTOM_VALUE;
    default:
        return false;
    }
}

unsigned dbg_packet_len(const uint8_t *nyb, size_t avail)
{
    if (!avail)
        return 0;
    unsigned hdr = nyb[0] & 0xf;
    if (hdr == DBG_TRACE_ENABLED || hdr == DBG_PRIV)
        return 2;
    if (!dbg_has_value(hdr, DBG_CUSTOM_VALUE))
        return 1;
    return avail < 2 ? 0 : 3 + (nyb[1] & 0xfu);
}

unsigned dbg_packet_encode(const struct dbg_packet *p, uint8_t *nyb)
{
    nyb[0] = p->hdr & 0xf;
    if (p->hdr == DBG_TRACE_ENABLED || p->hdr == DBG_PRIV) {
        nyb[1] = p->arg & 0xf;
        return 2;
    }
    if (!dbg_has_value(p->hdr, DBG_CUSTOM_VALUE))
        return 1;
    unsigned n = p->nval ? p->nval : 1;
    if (n > 16)
        n = 16;
    /* Size packet N, then N+1 value packets, bits 3:0 first. */
    nyb[1] = (uint8_t)(n - 1);
    for (unsigned i = 0; i < n; i++)
        nyb[2 + i] = (uint8_t)((p->bits >> (4 * i)) & 0xf);
    return 2 + n;
}

int dbg_packet_decode(const uint8_t *nyb, size_t avail, unsigned custom, struct dbg_packet *p, struct rvt_diag *d)
{
    if (!avail)
        return 0;
    memset(p, 0, sizeof *p);
    p->hdr = nyb[0] & 0xf;
    if (p->hdr == DBG_RESERVED)
        return rvt_fail(d, RVT_ERR_FORMAT, "reserved header 1101 (reserved for future standards)");
    if ((p->hdr == DBG_CUSTOM0 || p->hdr == DBG_CUSTOM1) && custom == DBG_CUSTOM_REJECT)
        return rvt_fail(d, RVT_ERR_FORMAT, "custom header 0x%X (custom trace data is not accepted: --dbg-custom)",
                        p->hdr);
    if (p->hdr == DBG_TRACE_ENABLED || p->hdr == DBG_PRIV) {
        if (avail < 2)
            return 0;
        p->arg = nyb[1] & 0xf;
        return 2;
    }
    if (!dbg_has_value(p->hdr, custom))
        return 1;
    if (avail < 2)
        return 0;
    unsigned n = (nyb[1] & 0xf) + 1u;
    if (avail < 2 + (size_t)n)
        return 0;
    p->nval = (uint8_t)n;
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)(nyb[2 + i] & 0xf) << (4 * i);
    p->bits = v;
    return (int)(2 + n);
}

unsigned dbg_nyb_from_last(uint64_t v, uint64_t last)
{
    for (unsigned n = 1; n < 16; n++)
        if ((v >> (4 * n)) == (last >> (4 * n)))
            return n;
    return 16;
}

static uint64_t sext(uint64_t v, unsigned bits)
{
    if (bits >= 64)
        return v;
    uint64_t m = 1ull << (bits - 1);
    v &= dbg_mask(bits);
    return (v ^ m) - m;
}

unsigned dbg_nyb_signed(uint64_t v, unsigned width)
{
    uint64_t sv = sext(v, width);
    for (unsigned n = 1; n < 16; n++)
        if (sext(sv, 4 * n) == sv)
            return n;
    return 16;
}

unsigned dbg_nyb_zero(uint64_t v)
{
    unsigned n = 1;
    while (n < 16 && (v >> (4 * n)))
        n++;
    return n;
}

uint64_t dbg_fill_from_last(uint64_t sent, unsigned nval, uint64_t last)
{
    uint64_t m = dbg_mask(4 * nval);
    return (last & ~m) | (sent & m);
}

uint64_t dbg_fill_signed(uint64_t sent, unsigned nval, unsigned width)
{
    return sext(sent, 4 * nval) & dbg_mask(width);
}

int dbg_packet_format(const struct dbg_packet *p, char *buf, size_t size)
{
    const char *name = dbg_hdr_name(p->hdr);
    if (p->hdr == DBG_TRACE_ENABLED)
        return snprintf(buf, size, "%s version %u", name, p->arg);
    if (p->hdr == DBG_PRIV) {
        static const char *const prv[4] = {"U", "S", "H", "M"};
        return snprintf(buf, size, "%s %s prv=%s ie=%u", name, (p->arg & 8) ? "interrupt" : "other",
                        prv[(p->arg >> 1) & 3], p->arg & 1);
    }
    if (p->nval)
        return snprintf(buf, size, "%s 0x%" PRIx64 " (%u nybbles)", name, p->bits, p->nval);
    return snprintf(buf, size, "%s", name);
}
