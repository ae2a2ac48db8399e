/* N-Trace dump: one line per message — byte offset, message name and every
 * field with its spec name, plus the address an F-ADDR/U-ADDR field
 * resolves to (the dump follows the U-ADDR chain from the last F-ADDR). */
#include "ntrace/ntrace.h"

#include <inttypes.h>
#include <string.h>

struct out {
    char *p;
    size_t size, len;
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(struct out *o, const char *fmt, ...)
{
    if (o->len >= o->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->p + o->len, o->size - o->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len = o->len + (size_t)n < o->size ? o->len + (size_t)n : o->size - 1;
}

static const char *priv_name(uint8_t priv)
{
    switch (priv) {
    case RVT_PRIV_U: return "U";
    case RVT_PRIV_S: return "S";
    case RVT_PRIV_M: return "M";
    case RVT_PRIV_D: return "D";
    case RVT_PRIV_VU: return "VU";
    case RVT_PRIV_VS: return "VS";
    default: return "?";
    }
}

/* Outcomes in a HIST value: bits below the stop bit. */
static unsigned hist_outcomes(uint64_t hist)
{
    return hist ? 63u - (unsigned)__builtin_clzll(hist) : 0u;
}

void nt_msg_format(const struct nt_cfg *c, const struct nt_msg *m, uint64_t *last_addr, char *buf, size_t size)
{
    struct out o = {buf, size, 0};
    buf[0] = 0;
    uint64_t mask = nt_addr_mask(c->xlen ? c->xlen : 64);
    put(&o, "%-22s", nt_tcode_name(m->tcode));
    if (!nt_tcode_known(m->tcode))
        put(&o, " TCODE=%u", m->tcode);
    if (nt_has(m, NT_F_SRC))
        put(&o, " SRC=%" PRIu64, m->v[NT_F_SRC]);
    for (unsigned f = NT_F_SYNC; f < NT_F__COUNT; f++) {
        if (!nt_has(m, (enum nt_field)f))
            continue;
        uint64_t v = m->v[f];
        const char *name = nt_field_name(f);
        switch (f) {
        case NT_F_SYNC: put(&o, " %s=%" PRIu64 " (%s)", name, v, nt_sync_name((unsigned)v)); break;
        case NT_F_BTYPE: put(&o, " %s=%" PRIu64 " (%s)", name, v, nt_btype_name((unsigned)v)); break;
        case NT_F_RCODE: put(&o, " %s=%" PRIu64 " (%s)", name, v, nt_rcode_name((unsigned)v)); break;
        case NT_F_EVCODE: put(&o, " %s=%" PRIu64 " (%s)", name, v, nt_evcode_name((unsigned)v)); break;
        case NT_F_ETYPE: put(&o, " %s=%" PRIu64 "%s", name, v, v == NT_ETYPE_OVERRUN ? " (FIFO overrun)" : ""); break;
        case NT_F_ECODE:
            put(&o, " %s=0x%" PRIx64 "%s%s", name, v, (v & NT_ECODE_PROGRAM_LOST) ? " (program trace lost)" : "",
                (v & NT_ECODE_OWNERSHIP_LOST) ? " (ownership lost)" : "");
            break;
        case NT_F_ICNT: put(&o, " %s=%" PRIu64, name, v); break;
        case NT_F_FADDR:
            *last_addr = (v << 1) & mask;
            put(&o, " %s=0x%" PRIx64 " -> 0x%" PRIx64 "%s", name, v, *last_addr, m->addr_extended ? " (extended)" : "");
            break;
        case NT_F_UADDR:
            *last_addr = (*last_addr ^ (v << 1)) & mask;
            put(&o, " %s=0x%" PRIx64 " -> 0x%" PRIx64 "%s", name, v, *last_addr, m->addr_extended ? " (extended)" : "");
            break;
        case NT_F_HIST: put(&o, " %s=0x%" PRIx64 " (%u outcomes)", name, v, hist_outcomes(v)); break;
        case NT_F_RDATA:
            if (m->v[NT_F_RCODE] == NT_RCODE_ICNT)
                put(&o, " %s=%" PRIu64 " (I-CNT)", name, v);
            else if (m->v[NT_F_RCODE] <= NT_RCODE_HIST_REPEAT)
                put(&o, " %s=0x%" PRIx64 " (HIST, %u outcomes)", name, v, hist_outcomes(v));
            else
                put(&o, " %s=0x%" PRIx64, name, v);
            break;
        case NT_F_PROCESS: {
            uint8_t priv;
            uint64_t ctx;
            bool has_ctx;
            if (!nt_process_decode(v, &priv, &ctx, &has_ctx))
                put(&o, " %s=0x%" PRIx64 " (reserved FORMAT 1)", name, v);
            else if (has_ctx)
                put(&o, " %s=0x%" PRIx64 " (FORMAT=%u priv=%s %s=0x%" PRIx64 ")", name, v, (unsigned)(v & 3u),
                    priv_name(priv), (v & 3u) == 3 ? "hcontext" : "scontext", ctx);
            else
                put(&o, " %s=0x%" PRIx64 " (FORMAT=0 priv=%s)", name, v, priv_name(priv));
            break;
        }
        default: put(&o, " %s=%" PRIu64, name, v); break;
        }
    }
}

int nt_dump(const struct nt_cfg *c, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d)
{
    struct nt_wire wire;
    nt_cfg_wire(c, &wire);
    struct rvt_diag local;
    rvt_diag_clear(&local);
    int first_err = 0;
    uint64_t last_addr = 0, messages = 0, errors = 0;
    size_t pos = 0;
    char line[1024];
    for (;;) {
        size_t start = 0, n = 0;
        int rc = nt_frame_next(buf, len, &pos, &start, &n, &local);
        if (rc == 0)
            break;
        bool shown = false;
        if (rc > 0) {
            struct nt_msg m;
            rc = nt_msg_decode(&wire, buf + start, n, start, &m, &local);
            if (rc == 0) {
                nt_msg_format(c, &m, &last_addr, line, sizeof line);
                /* What N-Trace cannot produce is shown, and is an error. */
                rc = nt_msg_check(c, &m, start, &local);
                if (rc == 0)
                    fprintf(out, "0x%08zx  %s", start, line);
                else
                    fprintf(out, "0x%08zx  ERROR %s: %s", start, local.msg, line);
                shown = true;
                messages++;
            }
        }
        if (rc < 0) {
            if (!shown)
                fprintf(out, "0x%08zx  ERROR %s", start, local.msg);
            errors++;
            if (!first_err) {
                first_err = rc;
                if (d)
                    *d = local;
            }
        }
        if (c->dump_bytes && shown) {
            fputs("  [", out);
            for (size_t i = 0; i < n; i++)
                fprintf(out, i ? " %02x" : "%02x", buf[start + i]);
            fputc(']', out);
        }
        fputc('\n', out);
    }
    fprintf(out, "# %zu bytes, %llu messages, %llu errors\n", len, (unsigned long long)messages,
            (unsigned long long)errors);
    if (ferror(out))
        return rvt_fail(d, RVT_ERR_IO, "ntrace dump: write error");
    return first_err;
}
