/* Periodic synchronisation for a sink that keeps only the newest bytes.
 *
 * A wrapping trace RAM keeps the last `window` bytes; a decoder can only
 * start at a synchronisation point inside them.  Each family sets its
 * periodic synchronisation in its own unit (N-Trace messages, E-Trace
 * packets, CDL nybbles, debug-trace buffer eighths); this file turns a
 * window in bytes into a period in that unit, from the largest number of
 * bytes one unit can take, so that any `window` consecutive bytes of the
 * stream hold a whole sync point.  The sizes below are the families'
 * worst cases (cited where they are defined): the largest period whose
 * worst-case distance from one sync point's start to the next one's end
 * fits in the window (less an eighth, for the padding of the last trace
 * word) is chosen, or the family's default if that fits. */
#include "rvtrace/codec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum fam { F_NTRACE, F_ETRACE, F_CDL, F_DBG, F_NONE };

static enum fam family_of(const struct rvt_codec *c)
{
    static const char *const names[] = {"ntrace", "etrace", "cdl", "dbg"};
    for (int i = 0; i < 4; i++)
        if (strcmp(c->name, names[i]) == 0)
            return (enum fam)i;
    return F_NONE;
}

/* N-Trace: the largest message the encoder produces (NT_MSG_MAX in
 * src/ntrace/ntrace.h: all fields at 64 bits and a 12-bit SRC is 52
 * bytes).  The sync replaces the message due at the first record boundary
 * after the count is reached; before it a record can still send a few
 * messages (ResourceFull for I-CNT or HIST, the held-back RepeatBranch),
 * and an Ownership message follows it. */
#define NT_MSG_BYTES 64u
#define NT_SLACK_MSGS 8u
/* E-Trace: the largest frame (ET_FRAME_MAX in src/etrace/framing.c: header,
 * 2 srcID bytes, 8 timestamp bytes, 31 payload bytes) and the
 * e-trace-encap synchronisation sequence sent before a resync (31 + 8 + 2
 * null bytes and one alignment byte).  The format 3 goes out at the first
 * instruction after the counter passes the maximum, after at most a
 * branch-map packet and one packet for a mispredicted return. */
#define ET_PKT_BYTES 48u
#define ET_SYNCSEQ_BYTES 42u
#define ET_SLACK_PKTS 4u
/* CDL: a sync mark goes between cycles once the interval is reached; one
 * cycle's fields (sequential count, reason, PC data, register data,
 * tracepoint) are at most 4 x CDL_MAX_FIELD_NYBBLES (src/cdl/cdl.h) and
 * the mark carries a full PC field. */
#define CDL_CYCLE_NYB 80u
#define CDL_PC_NYB 20u
/* Debug-spec trace: sync points sit on a grid of buffer/8 bytes (Nops pad
 * up to them); the sync fields (Trace Enabled, privilege, a 64-bit PC
 * value sequence) take well under 64 bytes. */
#define DBG_SYNC_BYTES 64u
#define DBG_BUFFER_DEFAULT 4096u
#define DBG_BUFFER_MIN 1024u
#define DBG_GRID_POINTS 3u

static const char *given_val(const char *const *names, const char *const *vals, unsigned n, const char *name)
{
    const char *v = NULL;
    for (unsigned i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            v = vals[i] ? vals[i] : "1";
    return v;
}

static bool is_zero(const char *v)
{
    char *end;
    unsigned long long x = strtoull(v, &end, 0);
    return *v && !*end && x == 0;
}

const char *rvt_codec_sync_hint(const struct rvt_codec *c)
{
    switch (family_of(c)) {
    case F_NTRACE:
        return "--sync-msgs N or --sync-period N (periodic synchronisation every N messages or N instruction "
               "half-words; off by default)";
    case F_ETRACE:
        return "--resync-max N (a format 3 synchronisation packet every 2^(N+4) packets; default 6)";
    case F_CDL:
        return "--cdl-sync-interval N (a sync mark every N nybbles; default 128)";
    case F_DBG:
        return "--dbg-buffer BYTES (a sync point every BYTES/8 bytes; default 4096; decode with the same value)";
    default:
        return NULL;
    }
}

static int set_opt(const struct rvt_codec *c, void *cfg, const char *name, const char *val, struct rvt_diag *d)
{
    struct rvt_diag e = {0};
    if (c->cfg_set(cfg, name, val, &e) < 0)
        return rvt_fail(d, RVT_ERR_INVAL, "%s: --%s %s: %s", c->name, name, val, e.msg);
    return 0;
}

/* The chosen or default period of each family, as (option, value, gap
 * bound, description).  budget: the largest gap allowed, in bytes. */
struct plan {
    const char *option;
    char value[32];
    uint64_t gap;
    char what[96];   /* "every 512 messages" */
    char regs[64];   /* the Trace Control Interface fields, if they can express it */
    bool possible;
};

static void plan_ntrace(uint64_t budget, struct plan *p)
{
    /* Periods trTeInstSyncMode 1 can express, 2^(trTeInstSyncMax+4)
     * messages; below 16 messages (a small RAM) any count. */
    p->option = "sync-msgs";
    uint64_t most = budget / NT_MSG_BYTES;
    if (most <= NT_SLACK_MSGS)
        return;
    uint64_t n = most - NT_SLACK_MSGS;
    int k = -1;
    if (n >= 16) {
        k = 0;
        while (k < 15 && ((uint64_t)1 << (k + 5)) <= n)
            k++;
        n = (uint64_t)1 << (k + 4);
    }
    snprintf(p->value, sizeof p->value, "%" PRIu64, n);
    snprintf(p->what, sizeof p->what, "every %" PRIu64 " messages", n);
    if (k >= 0)
        snprintf(p->regs, sizeof p->regs, "; trTeInstSyncMode 1, trTeInstSyncMax %d", k);
    p->gap = (n + NT_SLACK_MSGS) * NT_MSG_BYTES;
    p->possible = true;
}

static uint64_t et_gap(unsigned k)
{
    return (((uint64_t)1 << (k + 4)) + ET_SLACK_PKTS) * ET_PKT_BYTES + ET_SYNCSEQ_BYTES;
}

static void plan_etrace(uint64_t budget, bool keep_default, struct plan *p)
{
    p->option = "resync-max";
    for (int k = keep_default ? 6 : 40; k >= 0; k--) {
        if (et_gap((unsigned)k) <= budget) {
            snprintf(p->value, sizeof p->value, "%d", k);
            snprintf(p->what, sizeof p->what, "every %" PRIu64 " packets", (uint64_t)1 << (k + 4));
            snprintf(p->regs, sizeof p->regs, "; trTeInstSyncMode 1, trTeInstSyncMax %d", k);
            p->gap = et_gap((unsigned)k);
            p->possible = true;
            return;
        }
        if (keep_default)
            return;
    }
}

static uint64_t cdl_gap(uint64_t interval, uint64_t mark)
{
    return (interval + CDL_CYCLE_NYB + mark + CDL_PC_NYB + 1) / 2;
}

static void plan_cdl(uint64_t budget, uint64_t mark, bool keep_default, struct plan *p)
{
    p->option = "cdl-sync-interval";
    uint64_t interval = 128;
    if (!keep_default || cdl_gap(interval, mark) > budget) {
        if (keep_default)
            return;
        uint64_t fixed = CDL_CYCLE_NYB + mark + CDL_PC_NYB + 1;
        if (budget * 2 < fixed + mark)
            return;
        interval = budget * 2 - fixed;
        if (interval > 0x7fffffff)
            interval = 0x7fffffff;
    }
    snprintf(p->value, sizeof p->value, "%" PRIu64, interval);
    snprintf(p->what, sizeof p->what, "every %" PRIu64 " nybbles", interval);
    p->gap = cdl_gap(interval, mark);
    p->possible = true;
}

static void plan_dbg(uint64_t budget, bool keep_default, struct plan *p)
{
    /* The decoder of a buffer that does not start at a sync point finds
     * the grid's phase from the sync fields it sees (src/dbg/decoder.c,
     * find_phase): keep DBG_GRID_POINTS of them in the window. */
    p->option = "dbg-buffer";
    uint64_t buf = DBG_BUFFER_DEFAULT;
    if (DBG_GRID_POINTS * (buf / 8) + DBG_SYNC_BYTES > budget) {
        if (keep_default || budget < DBG_SYNC_BYTES)
            return;
        buf = (budget - DBG_SYNC_BYTES) / DBG_GRID_POINTS * 8 / 32 * 32;
        if (buf < DBG_BUFFER_MIN)
            return;
    }
    snprintf(p->value, sizeof p->value, "%" PRIu64, buf);
    snprintf(p->what, sizeof p->what, "every %" PRIu64 " bytes (8 sync points per %" PRIu64 "-byte buffer)",
             buf / 8, buf);
    p->gap = buf / 8 + DBG_SYNC_BYTES;
    p->possible = true;
}

int rvt_codec_wrap_sync(const struct rvt_codec *c, void *cfg, uint64_t window, const char *const *names,
                        const char *const *vals, unsigned n, const struct rvt_te_settings *regs,
                        struct rvt_wrap_sync *out, size_t out_size, struct rvt_diag *d)
{
    struct rvt_wrap_sync ws;
    memset(&ws, 0, sizeof ws);
    ws.size = sizeof ws;
    const enum fam fam = family_of(c);
    /* The gap bounds include the sync point itself; an eighth of the
     * window is left for the padding of the last trace word. */
    const uint64_t budget = window - window / 8;
    const char *hint = rvt_codec_sync_hint(c);
    int rc = 0;
    struct plan p;
    memset(&p, 0, sizeof p);

    /* What the caller set: options, or registers (--regs). */
    static const char *const nt_opts[] = {"sync-period", "sync-msgs", NULL};
    static const char *const et_opts[] = {"resync-max", "ucf", NULL};
    static const char *const cdl_opts[] = {"cdl-sync-interval", NULL};
    static const char *const dbg_opts[] = {"dbg-buffer", "dbg-tbufstart", "dbg-tbufend", NULL};
    const char *const *own = fam == F_NTRACE ? nt_opts
                             : fam == F_ETRACE ? et_opts
                             : fam == F_CDL    ? cdl_opts
                             : fam == F_DBG    ? dbg_opts
                                               : NULL;
    bool given = false, all_off = true;
    const char *off_opt = NULL, *off_val = "";
    for (const char *const *o = own; o && *o; o++) {
        const char *v = given_val(names, vals, n, *o);
        if (!v)
            continue;
        given = true;
        bool off = (fam == F_NTRACE && is_zero(v)) || (fam == F_CDL && is_zero(v)) ||
                   (fam == F_ETRACE && strcmp(*o, "resync-max") == 0 &&
                    (!strcmp(v, "off") || !strcmp(v, "none") || !strcmp(v, "-1")));
        if (off && !off_opt) {
            off_opt = *o;
            off_val = v;
        }
        all_off = all_off && off;
    }
    if (regs && (fam == F_NTRACE || fam == F_ETRACE)) {
        given = true;
        all_off = regs->sync_mode == RVT_TE_SYNC_OFF;
        off_opt = all_off ? "trTeInstSyncMode 0" : NULL;
    }

    if (fam == F_NONE) {
        ws.kind = RVT_WRAP_SYNC_GIVEN;
        snprintf(ws.text, sizeof ws.text, "the %s family has no periodic synchronisation this library knows", c->name);
    } else if (given && all_off && off_opt) {
        ws.kind = RVT_WRAP_SYNC_OFF;
        snprintf(ws.text, sizeof ws.text,
                 "warning: periodic synchronisation is off (%s%s%s%s): once the buffer wraps, the %" PRIu64
                 " bytes of trace it keeps hold no synchronisation point and will not be decodable; give %s",
                 regs ? "" : "--", off_opt, regs ? "" : " ", off_val, window, hint);
    } else if (given) {
        ws.kind = RVT_WRAP_SYNC_GIVEN;
        snprintf(ws.text, sizeof ws.text, "periodic synchronisation as configured");
    } else {
        switch (fam) {
        case F_NTRACE:
            plan_ntrace(budget, &p);
            break;
        case F_ETRACE:
            plan_etrace(budget, true, &p);
            if (!p.possible)
                plan_etrace(budget, false, &p);
            break;
        case F_CDL: {
            const char *m = given_val(names, vals, n, "cdl-sync-nybbles");
            uint64_t mark = m ? strtoull(m, NULL, 0) : 4;
            plan_cdl(budget, mark, true, &p);
            if (!p.possible) {
                memset(&p, 0, sizeof p);
                plan_cdl(budget, mark, false, &p);
            }
            break;
        }
        case F_DBG:
            plan_dbg(budget, true, &p);
            if (!p.possible)
                plan_dbg(budget, false, &p);
            break;
        default:
            break;
        }
        bool is_default = p.possible && ((fam == F_ETRACE && strcmp(p.value, "6") == 0) ||
                                         (fam == F_CDL && strcmp(p.value, "128") == 0) ||
                                         (fam == F_DBG && strcmp(p.value, "4096") == 0));
        if (!p.possible) {
            ws.kind = RVT_WRAP_SYNC_TOO_SMALL;
            snprintf(ws.text, sizeof ws.text,
                     "warning: %" PRIu64 " bytes of trace are too few to be sure of holding a synchronisation "
                     "point once the buffer wraps; set %s",
                     window, hint);
        } else {
            ws.kind = is_default ? RVT_WRAP_SYNC_DEFAULT : RVT_WRAP_SYNC_CHOSEN;
            ws.option = p.option;
            snprintf(ws.value, sizeof ws.value, "%s", p.value);
            ws.max_gap = p.gap;
            if (!is_default && (rc = set_opt(c, cfg, p.option, p.value, d)) < 0)
                return rc;
            snprintf(ws.text, sizeof ws.text,
                     "a wrapping buffer keeps only the newest %" PRIu64 " bytes of trace: periodic synchronisation %s "
                     "(--%s %s%s%s), at most %" PRIu64 " bytes apart, so the bytes kept hold a synchronisation point%s",
                     window, p.what, p.option, p.value, is_default ? ", the default" : "", p.regs, p.gap,
                     fam == F_DBG && !is_default ? "; decode with the same --dbg-buffer" : "");
        }
    }
    size_t k = out_size < sizeof ws ? out_size : sizeof ws;
    memcpy(out, &ws, k);
    if (k >= sizeof(size_t))
        out->size = k;
    return rc;
}
