/* RAM sink images on disk: the command-line sink description, the sidecar
 * file `<image>.sink` (format in docs/sinks.md), and the linear
 * oldest-first view a decoder reads. */
#include "sink/sink_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- "sram:<bytes>:wrap|stop[:<width>]" ---------------------------------- */

/* Split text at ':' into at most max fields. */
static unsigned split_colon(const char *text, const char *f[], size_t fn[], unsigned max)
{
    unsigned k = 0;
    const char *p = text;
    for (;;) {
        const char *c = strchr(p, ':');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (k == max)
            return max + 1;
        f[k] = p;
        fn[k] = n;
        k++;
        if (!c)
            return k;
        p = c + 1;
    }
}

int rvt_sink_spec_parse(const char *text, struct rvt_sink_spec *spec, struct rvt_diag *diag)
{
    memset(spec, 0, sizeof *spec);
    const char *f[6];
    size_t fn[6];
    char q[64];
    unsigned k = split_colon(text, f, fn, 5);
    bool smem = fn[0] == 4 && memcmp(f[0], "smem", 4) == 0;
    bool sram = fn[0] == 4 && memcmp(f[0], "sram", 4) == 0;
    if (!sram && !smem)
        return rvt_fail(diag, RVT_ERR_INVAL,
                        "sink '%s': expected sram:<bytes>:wrap|stop[:<width>] or smem:<start>:<bytes>:wrap|stop[:<width>]",
                        text);
    unsigned need = smem ? 4 : 3;
    if (k < need || k > need + 1)
        return rvt_fail(diag, RVT_ERR_INVAL, "sink '%s': expected %s", text,
                        smem ? "smem:<start>:<bytes>:wrap|stop[:<width>]" : "sram:<bytes>:wrap|stop[:<width>]");
    unsigned i = 1;
    spec->mode = smem ? RVT_RAM_SMEM : RVT_RAM_SRAM;
    if (smem) {
        if (!rvt_sk_parse_u64(f[i], fn[i], false, &spec->start))
            return rvt_fail(diag, RVT_ERR_INVAL, "sink '%s': start address '%s' is not a number", text,
                            rvt_sk_quote(f[i], fn[i], q, sizeof q));
        i++;
    }
    if (!rvt_sk_parse_u64(f[i], fn[i], true, &spec->bytes))
        return rvt_fail(diag, RVT_ERR_INVAL, "sink '%s': size '%s' is not a number of bytes (k, m suffixes allowed)",
                        text, rvt_sk_quote(f[i], fn[i], q, sizeof q));
    i++;
    if (fn[i] == 4 && memcmp(f[i], "wrap", 4) == 0)
        spec->stop_on_wrap = 0;
    else if (fn[i] == 4 && memcmp(f[i], "stop", 4) == 0)
        spec->stop_on_wrap = 1;
    else
        return rvt_fail(diag, RVT_ERR_INVAL, "sink '%s': mode '%s', expected wrap or stop", text,
                        rvt_sk_quote(f[i], fn[i], q, sizeof q));
    i++;
    spec->width_bits = 32;
    if (i < k) {
        uint64_t wb;
        if (!rvt_sk_parse_u64(f[i], fn[i], false, &wb) || wb > 1024 || !rvt_sk_width_ok((unsigned)wb))
            return rvt_fail(diag, RVT_ERR_INVAL,
                            "sink '%s': trace word width '%s', expected 32, 64, 128, 256, 512 or 1024 (bits)", text,
                            rvt_sk_quote(f[i], fn[i], q, sizeof q));
        spec->width_bits = (unsigned)wb;
    }
    uint64_t w = spec->width_bits / 8;
    if (spec->bytes < w || spec->bytes % w)
        return rvt_fail(diag, RVT_ERR_INVAL, "sink '%s': size %" PRIu64 " is not a positive multiple of the %" PRIu64
                        "-byte trace word", text, spec->bytes, w);
    if (spec->mode == RVT_RAM_SRAM && spec->bytes > ((uint64_t)1 << 32))
        return rvt_fail(diag, RVT_ERR_INVAL, "sink '%s': an SRAM sink holds at most 4 GiB", text);
    if (spec->start % w || spec->start + spec->bytes < spec->start)
        return rvt_fail(diag, RVT_ERR_INVAL, "sink '%s': start 0x%" PRIx64 " is not aligned to the %" PRIu64
                        "-byte trace word or the buffer passes the end of the address space", text, spec->start, w);
    return 0;
}

int rvt_ramsink_from_spec(const struct rvt_sink_spec *spec, uint8_t pad_byte, struct rvt_ramsink **out,
                          struct rvt_diag *diag)
{
    struct rvt_ramsink_config c = {.size = sizeof c,
                                   .mode = spec->mode,
                                   .stop_on_wrap = spec->stop_on_wrap,
                                   .width_bits = spec->width_bits,
                                   .pad_byte = pad_byte};
    if (spec->mode == RVT_RAM_SRAM) {
        c.sram_bytes = spec->bytes;
    } else {
        c.mem_base = spec->start;
        c.mem_len = spec->bytes;
        c.start = spec->start;
        c.limit = spec->start + spec->bytes - 4;
    }
    return rvt_ramsink_new(&c, out, diag);
}

/* ---- sidecar ----------------------------------------------------------------- */

#define SIDECAR_MAGIC "rvtrace-sink"

void rvt_sink_info_init(struct rvt_sink_info *info)
{
    memset(info, 0, sizeof *info);
    info->width_bits = 32;
}

int rvt_sink_info_write(FILE *f, const struct rvt_sink_info *i)
{
    int r = fprintf(f, SIDECAR_MAGIC " 1\n# RAM sink image description (see docs/sinks.md)\n");
    if (i->known & RVT_SINFO_MODE)
        r |= fprintf(f, "sink = %s\n", i->mode == RVT_RAM_SMEM ? "smem" : "sram");
    if (i->known & RVT_SINFO_POLICY)
        r |= fprintf(f, "mode = %s\n", i->stop_on_wrap ? "stop" : "wrap");
    if (i->known & RVT_SINFO_WIDTH)
        r |= fprintf(f, "width = %u\n", i->width_bits);
    if (i->known & RVT_SINFO_SIZE)
        r |= fprintf(f, "size = %" PRIu64 "\n", i->size);
    if (i->known & RVT_SINFO_START)
        r |= fprintf(f, "start = 0x%" PRIx64 "\n", i->start);
    if (i->known & RVT_SINFO_BASE)
        r |= fprintf(f, "base = 0x%" PRIx64 "\n", i->base);
    if (i->known & RVT_SINFO_ORIGIN)
        r |= fprintf(f, "origin = 0x%" PRIx64 "\n", i->origin);
    if (i->known & RVT_SINFO_WP)
        r |= fprintf(f, "wp = 0x%" PRIx64 "\n", i->wp);
    if (i->known & RVT_SINFO_WRAP)
        r |= fprintf(f, "wrap = %d\n", i->wrap ? 1 : 0);
    if (i->known & RVT_SINFO_WRITTEN)
        r |= fprintf(f, "written = %" PRIu64 "\n", i->written);
    if (i->known & RVT_SINFO_DROPPED)
        r |= fprintf(f, "dropped = %" PRIu64 "\n", i->dropped);
    if (i->known & RVT_SINFO_PAD)
        r |= fprintf(f, "pad = 0x%02x\n", i->pad_byte);
    return r < 0 || ferror(f) ? -RVT_ERR_IO : 0;
}

static bool tok_is(const char *t, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(t, word, n) == 0;
}

int rvt_sink_info_parse(const char *text, size_t len, const char *name, struct rvt_sink_info *info,
                        struct rvt_diag *diag)
{
    static const struct {
        const char *key;
        unsigned bit;
    } keys[] = {
        {"sink", RVT_SINFO_MODE},     {"mode", RVT_SINFO_POLICY},   {"width", RVT_SINFO_WIDTH},
        {"size", RVT_SINFO_SIZE},     {"start", RVT_SINFO_START},   {"base", RVT_SINFO_BASE},
        {"origin", RVT_SINFO_ORIGIN}, {"wp", RVT_SINFO_WP},         {"wrap", RVT_SINFO_WRAP},
        {"written", RVT_SINFO_WRITTEN}, {"dropped", RVT_SINFO_DROPPED}, {"pad", RVT_SINFO_PAD},
    };
    rvt_sink_info_init(info);
    size_t pos = 0;
    unsigned lineno = 0;
    bool seen_magic = false;
    struct rvt_sk_line l;
    char q[64], q2[64];
    while (rvt_sk_next_line(text, len, &pos, &lineno, &l)) {
        if (!l.n)
            continue;
        const char *k, *v;
        size_t kn, vn;
        rvt_sk_token(&l, &k, &kn);
        if (!seen_magic) {
            if (!tok_is(k, kn, SIDECAR_MAGIC) || !rvt_sk_token(&l, &v, &vn))
                return rvt_fail(diag, RVT_ERR_FORMAT, "%s:%u: expected '" SIDECAR_MAGIC " 1' first, found '%s'",
                                name, l.lineno, rvt_sk_quote(k, kn, q, sizeof q));
            if (!tok_is(v, vn, "1") || l.n)
                return rvt_fail(diag, RVT_ERR_UNSUPPORTED, "%s:%u: sidecar version '%s', this rvtrace reads version 1",
                                name, l.lineno, rvt_sk_quote(v, vn, q, sizeof q));
            seen_magic = true;
            continue;
        }
        /* "key = value" (the '=' may be left out). */
        size_t eq = 0;
        while (eq < kn && k[eq] != '=')
            eq++;
        if (eq < kn) {
            /* "key=value" in one token */
            v = k + eq + 1;
            vn = kn - eq - 1;
            kn = eq;
            if (!vn && !rvt_sk_token(&l, &v, &vn))
                vn = 0;
        } else {
            if (!rvt_sk_token(&l, &v, &vn))
                vn = 0;
            if (vn && v[0] == '=') {
                if (vn == 1) {
                    if (!rvt_sk_token(&l, &v, &vn))
                        vn = 0;
                } else {
                    v++;
                    vn--;
                }
            }
        }
        if (!vn)
            return rvt_fail(diag, RVT_ERR_FORMAT, "%s:%u: '%s' has no value", name, l.lineno,
                            rvt_sk_quote(k, kn, q, sizeof q));
        if (l.n)
            return rvt_fail(diag, RVT_ERR_FORMAT, "%s:%u: unexpected '%s' after the value", name, l.lineno,
                            rvt_sk_quote(l.p, l.n, q, sizeof q));
        unsigned bit = 0;
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            if (tok_is(k, kn, keys[i].key))
                bit = keys[i].bit;
        if (!bit)
            return rvt_fail(diag, RVT_ERR_FORMAT,
                            "%s:%u: unknown key '%s' (expected sink, mode, width, size, start, base, origin, wp, wrap, "
                            "written, dropped or pad)",
                            name, l.lineno, rvt_sk_quote(k, kn, q, sizeof q));
        if (info->known & bit)
            return rvt_fail(diag, RVT_ERR_FORMAT, "%s:%u: '%s' given twice", name, l.lineno,
                            rvt_sk_quote(k, kn, q, sizeof q));
        uint64_t num = 0;
        bool numeric = bit != RVT_SINFO_MODE && bit != RVT_SINFO_POLICY;
        if (numeric && !rvt_sk_parse_u64(v, vn, false, &num))
            return rvt_fail(diag, RVT_ERR_FORMAT, "%s:%u: %s: '%s' is not a number", name, l.lineno,
                            rvt_sk_quote(k, kn, q, sizeof q), rvt_sk_quote(v, vn, q2, sizeof q2));
        switch (bit) {
        case RVT_SINFO_MODE:
            if (tok_is(v, vn, "sram"))
                info->mode = RVT_RAM_SRAM;
            else if (tok_is(v, vn, "smem"))
                info->mode = RVT_RAM_SMEM;
            else
                return rvt_fail(diag, RVT_ERR_FORMAT, "%s:%u: sink '%s', expected sram or smem", name, l.lineno,
                                rvt_sk_quote(v, vn, q, sizeof q));
            break;
        case RVT_SINFO_POLICY:
            if (tok_is(v, vn, "wrap"))
                info->stop_on_wrap = 0;
            else if (tok_is(v, vn, "stop"))
                info->stop_on_wrap = 1;
            else
                return rvt_fail(diag, RVT_ERR_FORMAT, "%s:%u: mode '%s', expected wrap or stop", name, l.lineno,
                                rvt_sk_quote(v, vn, q, sizeof q));
            break;
        case RVT_SINFO_WIDTH:
            if (num < 8 || num > 1024 || (num & (num - 1)))
                return rvt_fail(diag, RVT_ERR_FORMAT, "%s:%u: width %" PRIu64 ", expected a power of two from 8 to 1024 bits",
                                name, l.lineno, num);
            info->width_bits = (unsigned)num;
            break;
        case RVT_SINFO_SIZE:
            if (!num)
                return rvt_fail(diag, RVT_ERR_FORMAT, "%s:%u: size 0", name, l.lineno);
            info->size = num;
            break;
        case RVT_SINFO_START:
            info->start = num;
            break;
        case RVT_SINFO_BASE:
            info->base = num;
            break;
        case RVT_SINFO_ORIGIN:
            info->origin = num;
            break;
        case RVT_SINFO_WP:
            info->wp = num;
            break;
        case RVT_SINFO_WRAP:
            if (num > 1)
                return rvt_fail(diag, RVT_ERR_FORMAT, "%s:%u: wrap %" PRIu64 ", expected 0 or 1", name, l.lineno, num);
            info->wrap = (int)num;
            break;
        case RVT_SINFO_WRITTEN:
            info->written = num;
            break;
        case RVT_SINFO_DROPPED:
            info->dropped = num;
            break;
        case RVT_SINFO_PAD:
            if (num > 0xFF)
                return rvt_fail(diag, RVT_ERR_FORMAT, "%s:%u: pad 0x%" PRIx64 " is not a byte", name, l.lineno, num);
            info->pad_byte = (uint8_t)num;
            break;
        }
        info->known |= bit;
    }
    if (!seen_magic)
        return rvt_fail(diag, RVT_ERR_FORMAT, "%s: empty, expected '" SIDECAR_MAGIC " 1'", name);
    return 0;
}

int rvt_sink_info_read(const char *path, struct rvt_sink_info *info, struct rvt_diag *diag)
{
    uint8_t *data;
    size_t len;
    int rc = rvt_read_file(path, &data, &len, diag);
    if (rc < 0)
        return rc;
    rc = rvt_sink_info_parse((const char *)data, len, path, info, diag);
    free(data);
    return rc;
}

/* ---- linear view ----------------------------------------------------------------- */

int rvt_sink_linearize(const uint8_t *img, size_t img_len, const struct rvt_sink_info *in,
                       struct rvt_sink_image *out, struct rvt_diag *diag)
{
    memset(out, 0, sizeof *out);
    struct rvt_sink_info i = *in;
    /* Defaults: the image starts at the buffer, which fills the image. */
    if (!(i.known & RVT_SINFO_START))
        i.start = (i.known & RVT_SINFO_BASE) ? i.base : 0;
    if (!(i.known & RVT_SINFO_BASE))
        i.base = i.start;
    if (i.start < i.base || i.start - i.base > img_len)
        return rvt_fail(diag, RVT_ERR_INVAL,
                        "sink image: buffer start 0x%" PRIx64 " is outside the image (0x%zx bytes from 0x%" PRIx64 ")",
                        i.start, img_len, i.base);
    uint64_t skip = i.start - i.base;
    if (!(i.known & RVT_SINFO_SIZE))
        i.size = img_len - skip;
    if (i.size > img_len - skip)
        return rvt_fail(diag, RVT_ERR_TRUNCATED,
                        "sink image: the description gives a %" PRIu64 "-byte buffer at 0x%" PRIx64
                        " but the image holds only 0x%" PRIx64 " bytes from there",
                        i.size, i.start, (uint64_t)img_len - skip);
    if (i.known & RVT_SINFO_WIDTH) {
        uint64_t w = i.width_bits / 8;
        if (w && i.size % w)
            return rvt_fail(diag, RVT_ERR_INVAL,
                            "sink image: buffer size %" PRIu64 " is not a multiple of the %u-bit trace word", i.size,
                            i.width_bits);
    }
    const uint8_t *b = img + skip;
    uint64_t end = i.start + i.size;
    bool described = (i.known & RVT_SINFO_WP) != 0;
    if (!described) {
        if ((i.known & RVT_SINFO_WRAP) && i.wrap)
            return rvt_fail(diag, RVT_ERR_INVAL, "sink image: the wrap flag is set but no write pointer is given");
        i.wp = end;
        i.wrap = 0;
    } else if (i.wp < i.start || i.wp > end) {
        return rvt_fail(diag, RVT_ERR_INVAL,
                        "sink image: write pointer 0x%" PRIx64 " is outside the buffer 0x%" PRIx64 "..0x%" PRIx64,
                        i.wp, i.start, end);
    }
    if (!(i.known & RVT_SINFO_WRAP))
        i.wrap = 0;
    if (!(i.known & RVT_SINFO_ORIGIN))
        i.origin = i.start;
    uint64_t off = i.wp - i.start, avail;
    if (!i.wrap) {
        if (i.origin < i.start || i.origin > i.wp)
            return rvt_fail(diag, RVT_ERR_INVAL,
                            "sink image: origin 0x%" PRIx64 " is not between the buffer start 0x%" PRIx64
                            " and the write pointer 0x%" PRIx64 " of an unwrapped buffer",
                            i.origin, i.start, i.wp);
        avail = i.wp - i.origin;
        out->lost = 0;
        out->lost_known = 1;
    } else {
        avail = i.size;
        if (i.known & RVT_SINFO_WRITTEN) {
            if (i.written < avail)
                avail = i.written;
            out->lost = i.written - avail;
            out->lost_known = 1;
        }
        if (off == i.size)
            off = 0;
    }
    out->data = malloc(avail ? (size_t)avail : 1);
    if (!out->data)
        return rvt_fail(diag, RVT_ERR_NOMEM, "sink image: out of memory for %" PRIu64 " bytes", avail);
    /* The avail bytes that end at WP, circularly. */
    uint64_t first = (off + i.size - avail) % (i.size ? i.size : 1);
    uint64_t n1 = avail;
    if (first + n1 > i.size)
        n1 = i.size - first;
    memcpy(out->data, b + first, (size_t)n1);
    memcpy(out->data + n1, b, (size_t)(avail - n1));
    out->len = (size_t)avail;
    out->stopped = i.wrap && (i.known & RVT_SINFO_POLICY) && i.stop_on_wrap;
    out->wrapped = i.wrap && !out->stopped;
    out->described = described;
    i.known |= RVT_SINFO_START | RVT_SINFO_BASE | RVT_SINFO_SIZE | RVT_SINFO_ORIGIN;
    out->info = i;
    return 0;
}

int rvt_sink_image_load(const char *path, const struct rvt_sink_info *override, struct rvt_sink_image *out,
                        struct rvt_diag *diag)
{
    memset(out, 0, sizeof *out);
    uint8_t *img;
    size_t len;
    int rc = rvt_read_file(path, &img, &len, diag);
    if (rc < 0)
        return rc;
    struct rvt_sink_info info;
    rvt_sink_info_init(&info);
    if (strcmp(path, "-") != 0) {
        size_t pl = strlen(path);
        char *side = malloc(pl + 6);
        if (!side) {
            free(img);
            return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory", path);
        }
        memcpy(side, path, pl);
        memcpy(side + pl, ".sink", 6);
        FILE *f = fopen(side, "rb");
        if (f) {
            fclose(f);
            rc = rvt_sink_info_read(side, &info, diag);
        } else if (errno != ENOENT) {
            rc = rvt_fail(diag, RVT_ERR_IO, "%s: cannot open: %s", side, strerror(errno));
        }
        free(side);
        if (rc < 0) {
            free(img);
            return rc;
        }
    }
    if (override) {
        const struct rvt_sink_info *o = override;
        unsigned k = o->known;
        if (k & RVT_SINFO_MODE)
            info.mode = o->mode;
        if (k & RVT_SINFO_POLICY)
            info.stop_on_wrap = o->stop_on_wrap;
        if (k & RVT_SINFO_WIDTH)
            info.width_bits = o->width_bits;
        if (k & RVT_SINFO_SIZE)
            info.size = o->size;
        if (k & RVT_SINFO_START)
            info.start = o->start;
        if (k & RVT_SINFO_BASE)
            info.base = o->base;
        if (k & RVT_SINFO_ORIGIN)
            info.origin = o->origin;
        if (k & RVT_SINFO_WP)
            info.wp = o->wp;
        if (k & RVT_SINFO_WRAP)
            info.wrap = o->wrap;
        if (k & RVT_SINFO_WRITTEN)
            info.written = o->written;
        if (k & RVT_SINFO_DROPPED)
            info.dropped = o->dropped;
        if (k & RVT_SINFO_PAD)
            info.pad_byte = o->pad_byte;
        info.known |= k;
    }
    rc = rvt_sink_linearize(img, len, &info, out, diag);
    if (rc < 0 && diag)
        rvt_fail_from(diag, diag, "%s", path);
    free(img);
    return rc;
}

void rvt_sink_image_free(struct rvt_sink_image *img)
{
    free(img->data);
    img->data = NULL;
    img->len = 0;
}

int rvt_sink_info_describe(const struct rvt_sink_info *i, int decoding, char *buf, size_t n)
{
    const unsigned k = i->known;
    const bool wrap = (k & RVT_SINFO_WRAP) && i->wrap;
    const bool written_known = (k & RVT_SINFO_WRITTEN) != 0;
    const bool stop = (k & RVT_SINFO_POLICY) && i->stop_on_wrap;
    const bool policy = (k & RVT_SINFO_POLICY) != 0;
    char size[48] = "";
    if (k & RVT_SINFO_SIZE)
        snprintf(size, sizeof size, " of %" PRIu64 " bytes", i->size);
    char refused[96] = "";
    if ((k & RVT_SINFO_DROPPED) && i->dropped)
        snprintf(refused, sizeof refused, "; %" PRIu64 " bytes were refused while it was disabled", i->dropped);
    if (!wrap) {
        if (!(k & RVT_SINFO_WP))
            return snprintf(buf, n, "trace image taken as linear and complete (no write pointer given)");
        uint64_t origin = (k & RVT_SINFO_ORIGIN) ? i->origin : (k & RVT_SINFO_START) ? i->start : 0;
        return snprintf(buf, n, "trace RAM%s%s: it holds all %" PRIu64 " bytes written (not wrapped)%s", size,
                        stop ? " (stop mode)" : policy ? " (wrap mode)" : "", i->wp >= origin ? i->wp - origin : 0,
                        refused);
    }
    uint64_t kept = (k & RVT_SINFO_SIZE) ? i->size : 0;
    if (written_known && (!(k & RVT_SINFO_SIZE) || i->written < kept))
        kept = i->written;
    if (stop) {
        /* TCI trRamStopOnWrap: "Disable storing trace to RAM when the
         * circular buffer gets full"; the wrap flag is set, nothing is
         * overwritten, and the trace ends where the buffer did. */
        char after[128];
        if (k & RVT_SINFO_DROPPED)
            snprintf(after, sizeof after, "%" PRIu64 " bytes offered after it stopped were refused", i->dropped);
        else
            snprintf(after, sizeof after, "bytes offered after it stopped were refused (how many is not known)");
        return snprintf(buf, n,
                        "trace RAM%s filled and stopped (stop mode): it holds the first %" PRIu64
                        " bytes of the trace, nothing was overwritten; %s%s",
                        size, kept, after,
                        decoding ? "; decoding them from the start (the last message may be incomplete)" : "");
    }
    const char *from = decoding ? "; decoding from the oldest synchronisation point in the bytes kept" : "";
    if (!written_known)
        return snprintf(buf, n,
                        "trace RAM%s wrapped%s: it holds the newest %" PRIu64
                        " bytes; how many older bytes were overwritten is not known%s",
                        size, policy ? " (wrap mode)" : "", kept, from);
    uint64_t lost = i->written - kept;
    if (!lost)
        return snprintf(buf, n, "trace RAM%s is exactly full (wrap flag set): it holds all %" PRIu64
                                " bytes written, nothing was overwritten",
                        size, kept);
    return snprintf(buf, n,
                    "trace RAM%s wrapped%s: it holds the newest %" PRIu64 " of %" PRIu64 " bytes written; the %" PRIu64
                    " older bytes were overwritten%s",
                    size, policy ? " (wrap mode)" : "", kept, i->written, lost, from);
}
