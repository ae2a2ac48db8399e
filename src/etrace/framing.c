/* E-Trace framing.
 *
 * encap:  the RISC-V Unformatted Trace & Diagnostic Data Packet
 *         Encapsulation: header byte (length:5, flow:2, extend:1), srcID
 *         (0..16 bits), optional timestamp (T bytes), payload (type field,
 *         then the te_inst bits), padded to whole bytes.  Null packets are
 *         single header bytes with length 0 (0x00 idle, 0x80 alignment); a
 *         run of N = 31 + T + S idles and one alignment lets a decoder find
 *         packet boundaries anywhere in a buffer.
 * refraw: the reference flow's .te_inst_raw: header byte
 *         (msg_type << 5 | payload length), then the payload LSB first.
 */
#include "etrace/etrace.h"

#include <string.h>

#define REFRAW_TE_INST 2
#define REFRAW_TE_DATA 3
#define REFRAW_TE_SUPPORT_026 0

#define ENCAP_TYPE_INST 0
#define ENCAP_TYPE_DATA 1
#define ENCAP_TYPE_SUPPORT_026 2

static void bw_put(uint8_t *buf, unsigned *pos, uint64_t v, unsigned w)
{
    for (unsigned i = 0; i < w; i++, (*pos)++)
        if ((v >> i) & 1u)
            buf[*pos / 8] |= (uint8_t)(1u << (*pos % 8));
}

static uint64_t br_get(const uint8_t *buf, unsigned *pos, unsigned w)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < w; i++, (*pos)++)
        v |= (uint64_t)((buf[*pos / 8] >> (*pos % 8)) & 1u) << i;
    return v;
}

/* Largest frame: header, 2 srcID bytes, 8 timestamp bytes, 31 payload bytes. */
#define ET_FRAME_MAX 48

static unsigned encap_sync_len(const struct et_params *p)
{
    return 31 + p->ts_bytes + p->src_bits / 8;
}

/* ---- output ---------------------------------------------------------------- */

void et_framer_init(struct et_framer *fr, const struct et_params *p, const struct rvt_byte_sink *sink)
{
    memset(fr, 0, sizeof *fr);
    fr->p = p;
    fr->sink = *sink;
}

static long sink_write(struct et_framer *fr, const uint8_t *b, size_t n, struct rvt_diag *d)
{
    long w = fr->sink.write(fr->sink.ctx, b, n);
    if (w < 0)
        return rvt_fail(d, (enum rvt_err)(-w), "etrace: output sink failed: %s", rvt_errstr((int)w));
    return (size_t)w > n ? (long)n : w;
}

/* Produce n bytes: write them unless holding.  A short write starts the
 * hold; the part of a cut frame the sink did not take is kept (written
 * first when the sink takes bytes again). */
static int produce(struct et_framer *fr, const uint8_t *b, size_t n, struct rvt_diag *d)
{
    fr->bytes += n;
    fr->since_sync += n;
    if (fr->hold) {
        fr->lost += n;
        return 0;
    }
    long w = sink_write(fr, b, n, d);
    if (w < 0)
        return (int)w;
    if ((size_t)w < n) {
        fr->lost += n - (size_t)w;
        fr->hold = true;
        fr->ntail = w ? n - (size_t)w : 0; /* (nothing of a frame refused whole is in the stream) */
        fr->tail_offered = false;
        if (fr->ntail)
            memcpy(fr->tail, b + w, fr->ntail);
    }
    return 0;
}

/* Write what is left of a cut frame; true once nothing is. */
static int flush_tail(struct et_framer *fr, bool *done, struct rvt_diag *d)
{
    *done = true;
    if (!fr->ntail)
        return 0;
    long w = sink_write(fr, fr->tail, fr->ntail, d);
    if (w < 0)
        return (int)w;
    fr->lost -= (uint64_t)w; /* in the sink after all */
    fr->ntail -= (size_t)w;
    memmove(fr->tail, fr->tail + w, fr->ntail);
    *done = fr->ntail == 0;
    return 0;
}

int et_framer_sync(struct et_framer *fr, struct rvt_diag *d)
{
    if (fr->p->framing != ET_FRAME_ENCAP)
        return 0;
    uint8_t seq[64];
    unsigned n = encap_sync_len(fr->p);
    memset(seq, 0, n);
    seq[n] = 0x80; /* null.alignment: length 0, extend 1 */
    int rc = produce(fr, seq, n + 1, d);
    fr->since_sync = 0;
    return rc;
}

/* The frame of one packet (without synchronisation sequence). */
static int frame(struct et_framer *fr, const struct et_bits *b, uint8_t msg, uint64_t time, uint8_t *out,
                 size_t *len, struct rvt_diag *d)
{
    const struct et_params *p = fr->p;
    unsigned keep = et_bits_compressed_len(b);
    unsigned sign = keep ? (unsigned)(b->w[(keep - 1) / 64] >> ((keep - 1) % 64)) & 1u : 0;
    memset(out, 0, ET_FRAME_MAX);

    if (p->framing == ET_FRAME_REFRAW) {
        unsigned nbytes = (keep + 7) / 8;
        if (nbytes > 31)
            return rvt_fail(d, RVT_ERR_OVERFLOW,
                            "etrace: packet of %u bytes does not fit the reference raw header (max 31)", nbytes);
        unsigned mt = msg == ET_MSG_TE_SUPPORT ? REFRAW_TE_SUPPORT_026 : msg == ET_MSG_TE_DATA ? REFRAW_TE_DATA : REFRAW_TE_INST;
        out[0] = (uint8_t)(mt << 5 | nbytes);
        unsigned pos = 8;
        for (unsigned i = 0; i < nbytes * 8; i++) {
            unsigned bit = i < keep ? (unsigned)(b->w[i / 64] >> (i % 64)) & 1u : sign;
            bw_put(out, &pos, bit, 1);
        }
        *len = 1 + nbytes;
        return 0;
    }

    unsigned type = msg == ET_MSG_TE_SUPPORT ? ENCAP_TYPE_SUPPORT_026 : msg == ET_MSG_TE_DATA ? ENCAP_TYPE_DATA : ENCAP_TYPE_INST;
    if (msg == ET_MSG_TE_DATA && p->type_bits == 0)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: data trace packets need an encapsulation type field (encap-type-bits >= 1)");
    bool extend = p->ts_bytes > 0;
    unsigned src_rem = p->src_bits % 8, S = p->src_bits / 8;
    unsigned body = p->type_bits + keep;
    unsigned length = (body + src_rem + 7) / 8;
    if (length > 31)
        return rvt_fail(d, RVT_ERR_OVERFLOW, "etrace: packet payload of %u bits does not fit an encapsulation "
                        "packet (max 31 bytes)", body);
    unsigned total = 1 + S + (extend ? p->ts_bytes : 0) + length;
    out[0] = (uint8_t)(length | (p->flow << 5) | (extend ? 0x80u : 0u));
    unsigned pos = 8;
    bw_put(out, &pos, p->src_id, p->src_bits);
    if (extend)
        bw_put(out, &pos, time, p->ts_bytes * 8);
    bw_put(out, &pos, type, p->type_bits);
    for (unsigned i = 0; i < keep; i++)
        bw_put(out, &pos, (b->w[i / 64] >> (i % 64)) & 1u, 1);
    while (pos < total * 8)
        bw_put(out, &pos, sign, 1);
    *len = total;
    return 0;
}

int et_framer_put(struct et_framer *fr, const struct et_bits *b, uint8_t msg, uint64_t time, struct rvt_diag *d)
{
    const struct et_params *p = fr->p;
    uint8_t out[ET_FRAME_MAX];
    size_t n;
    int rc = frame(fr, b, msg, time, out, &n, d);
    if (rc < 0)
        return rc;
    if (p->framing == ET_FRAME_ENCAP) {
        if (!fr->started) {
            fr->started = true;
            rc = et_framer_sync(fr, d);
        } else if (p->sync_period && p->sync_period != ~0u && fr->since_sync >= p->sync_period) {
            rc = et_framer_sync(fr, d);
        }
        if (rc < 0)
            return rc;
    }
    return produce(fr, out, n, d);
}

int et_framer_offer(struct et_framer *fr, const struct et_bits *b, uint8_t msg, uint64_t time, bool *taken,
                    struct rvt_diag *d)
{
    *taken = false;
    if (fr->ntail) {
        bool offered = fr->tail_offered, done;
        int rc = flush_tail(fr, &done, d);
        if (rc < 0 || !done)
            return rc;
        if (offered) { /* the rest of the offered packet: it is whole now */
            *taken = true;
            return 0;
        }
    }
    uint8_t out[ET_FRAME_MAX];
    size_t n;
    int rc = frame(fr, b, msg, time, out, &n, d);
    if (rc < 0)
        return rc;
    long w = sink_write(fr, out, n, d);
    if (w <= 0)
        return (int)w; /* refused: not produced */
    fr->bytes += n;
    fr->since_sync += n;
    if ((size_t)w < n) {
        fr->lost += n - (size_t)w;
        fr->ntail = n - (size_t)w;
        fr->tail_offered = true;
        memcpy(fr->tail, out + w, fr->ntail);
        return 0;
    }
    *taken = true;
    return 0;
}

/* ---- input ------------------------------------------------------------------ */

void et_deframer_init(struct et_deframer *df, const struct et_params *p, const uint8_t *buf, size_t len)
{
    df->p = p;
    df->buf = buf;
    df->len = len;
    df->pos = 0;
    df->only_src = false; /* callers that split a funnel's stream set it after init */
}

size_t et_encap_find_sync(const struct et_params *p, const uint8_t *buf, size_t len, size_t pos)
{
    size_t need = encap_sync_len(p) + 1, run = 0;
    for (size_t i = pos; i < len; i++) {
        if ((buf[i] & 0x1f) == 0) {
            run++;
            continue;
        }
        if (run >= need)
            return i;
        run = 0;
    }
    return len;
}

bool et_deframer_resync(struct et_deframer *df)
{
    if (df->pos >= df->len)
        return false;
    if (df->p->framing == ET_FRAME_ENCAP) {
        df->pos = et_encap_find_sync(df->p, df->buf, df->len, df->pos + 1);
    } else {
        df->pos++;
    }
    return df->pos < df->len;
}

/* (fr is zeroed: et_deframer_next) */
static void fill_bits(struct et_frame *fr, const uint8_t *src, unsigned start_bit, unsigned nbits)
{
    if (start_bit % 8 == 0) { /* the usual case: whole bytes */
        const uint8_t *p = src + start_bit / 8;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(fr->bits.w, p, (nbits + 7) / 8); /* the words are the bytes, least significant first */
#else
        for (unsigned i = 0; i < (nbits + 7) / 8; i++)
            fr->bits.w[i / 8] |= (uint64_t)p[i] << (8 * (i % 8));
#endif
        if (nbits % 64)
            fr->bits.w[nbits / 64] &= (1ull << (nbits % 64)) - 1;
        fr->bits.n = nbits;
        return;
    }
    unsigned pos = start_bit;
    for (unsigned i = 0; i < nbits; i++) {
        uint64_t bit = br_get(src, &pos, 1);
        fr->bits.w[i / 64] |= bit << (i % 64);
    }
    fr->bits.n = nbits;
}

int et_deframer_next(struct et_deframer *df, struct et_frame *fr, struct rvt_diag *d)
{
    const struct et_params *p = df->p;
    memset(fr, 0, sizeof *fr);
    if (df->pos >= df->len)
        return 0;
    const uint8_t *b = df->buf + df->pos;
    size_t avail = df->len - df->pos;
    fr->offset = df->pos;
    uint8_t h = b[0];

    if (p->framing == ET_FRAME_REFRAW) {
        unsigned n = h & 0x1f, mt = (h >> 5) & 3;
        if (h & 0x80)
            return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%zx: raw header 0x%02x has bit 7 set (expected 0)",
                            df->pos, h);
        if (n == 0)
            return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%zx: raw header 0x%02x with payload length 0", df->pos,
                            h);
        if (1 + (size_t)n > avail) {
            df->pos = df->len;
            return rvt_fail(d, RVT_ERR_TRUNCATED,
                            "offset 0x%llx: packet of %u payload bytes, only %zu bytes left",
                            (unsigned long long)fr->offset, n, avail - 1);
        }
        fr->size = 1 + n;
        fr->type = (uint8_t)mt;
        if (mt == REFRAW_TE_DATA) {
            fr->is_data = true;
            fr->msg = ET_MSG_TE_DATA;
        }
        else if (mt == REFRAW_TE_INST)
            fr->msg = ET_MSG_TE_INST;
        else if (mt == REFRAW_TE_SUPPORT_026 && p->version == ET_V0_026)
            fr->msg = ET_MSG_TE_SUPPORT;
        else
            return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%zx: raw header 0x%02x: unknown msg_type %u", df->pos, h,
                            mt);
        fr->payload_bytes = b + 1;
        fr->sign_padded = true;
        fill_bits(fr, b + 1, 0, n * 8);
        df->pos += fr->size;
        return 1;
    }

    /* encap */
    unsigned length = h & 0x1f;
    fr->flow = (uint8_t)((h >> 5) & 3);
    if (length == 0) {
        fr->is_null = true;
        fr->is_align = (h & 0x80) != 0;
        fr->size = 1;
        df->pos++;
        return 1;
    }
    bool extend = (h & 0x80) != 0;
    if (extend && p->ts_bytes == 0)
        return rvt_fail(d, RVT_ERR_FORMAT,
                        "offset 0x%zx: encapsulation header 0x%02x has extend set but no timestamp is configured",
                        df->pos, h);
    unsigned S = p->src_bits / 8;
    size_t total = 1 + S + (extend ? p->ts_bytes : 0) + length;
    if (total > avail) {
        df->pos = df->len;
        return rvt_fail(d, RVT_ERR_TRUNCATED, "offset 0x%llx: packet of %zu bytes, only %zu bytes left",
                        (unsigned long long)fr->offset, total, avail);
    }
    fr->size = total;
    unsigned pos = 8;
    fr->src_id = (unsigned)br_get(b, &pos, p->src_bits);
    if (df->only_src && p->src_bits && fr->src_id != p->src_id) {
        fr->is_other = true; /* another hart's packet through the funnel */
        df->pos += total;
        return 1;
    }
    /* flow "can be used to direct packets to a particular sink"
     * (encapsulation.adoc): a source sends its packets with one flow value
     * (--flow), so a packet with another is not this trace's (a damaged
     * header).  Null packets are exempt: "when generated at a sink, the flow
     * field value is unimportant". */
    if (fr->flow != p->flow)
        return rvt_fail(d, RVT_ERR_FORMAT,
                        "offset 0x%zx: encapsulation header 0x%02x has flow %u, but the trace's packets carry flow %u "
                        "(--flow)",
                        df->pos, h, fr->flow, p->flow);
    if (extend) {
        fr->timestamp = br_get(b, &pos, p->ts_bytes * 8);
        fr->has_ts = true;
    }
    fr->type = (uint8_t)br_get(b, &pos, p->type_bits);
    unsigned end = (unsigned)total * 8;
    if (end <= pos)
        return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%zx: encapsulated packet has no payload bits", df->pos);
    if (p->type_bits && fr->type == ENCAP_TYPE_DATA) {
        fr->is_data = true;
        fr->msg = ET_MSG_TE_DATA;
    } else if (p->type_bits && fr->type == ENCAP_TYPE_SUPPORT_026 && p->version == ET_V0_026) {
        fr->msg = ET_MSG_TE_SUPPORT;
    } else if (fr->type != ENCAP_TYPE_INST) {
        return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%zx: encapsulation payload type %u is not instruction trace",
                        df->pos, fr->type);
    }
    fill_bits(fr, b, pos, end - pos);
    fr->lead_bits = (uint8_t)(p->src_bits % 8 + p->type_bits);
    fr->sign_padded = fr->lead_bits % 8 == 0;
    if (pos % 8 == 0)
        fr->payload_bytes = b + pos / 8;
    df->pos += total;
    return 1;
}
