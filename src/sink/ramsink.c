/* Trace RAM sink (TCI chapter "Trace RAM Sink"): a circular buffer of
 * trace words in dedicated SRAM or in system memory, with the trRam*
 * register block a debugger uses to set it up and read it out. */
#include "sink/sink_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Register offsets in the RAM sink block. */
enum {
    RAM_CONTROL = 0x000,
    RAM_IMPL = 0x004,
    RAM_START_LOW = 0x010,
    RAM_START_HIGH = 0x014,
    RAM_LIMIT_LOW = 0x018,
    RAM_LIMIT_HIGH = 0x01C,
    RAM_WP_LOW = 0x020,
    RAM_WP_HIGH = 0x024,
    RAM_RP_LOW = 0x028,
    RAM_RP_HIGH = 0x02C,
    RAM_DATA = 0x040
};

#define MAX_WORD_BYTES 128u

struct rvt_ramsink {
    struct rvt_diag diag;
    /* Implementation. */
    bool has_sram, has_smem, sram_limit_fixed;
    uint8_t impl_vendor;
    unsigned wbytes;          /* trace word size in bytes */
    uint8_t pad;
    uint8_t *sram;
    uint64_t sram_bytes;
    uint8_t *mem;             /* SMEM backing memory */
    uint64_t mem_base, mem_len;
    bool mem_owned;
    /* Registers. */
    bool active, enabled, stop_on_wrap;
    enum rvt_ram_mode mode;
    uint64_t sram_limit;      /* trRamLimit in SRAM mode (start is 0) */
    uint64_t smem_start, smem_limit;
    uint64_t wp, rp;
    bool wrap;
    /* Word assembly: bytes of the word being filled. */
    uint8_t word[MAX_WORD_BYTES];
    unsigned pending;
    /* Counters. */
    uint64_t origin, accepted, written, padded, dropped;
};

static uint64_t cur_start(const struct rvt_ramsink *s)
{
    return s->mode == RVT_RAM_SRAM ? 0 : s->smem_start;
}

static uint64_t cur_limit(const struct rvt_ramsink *s)
{
    return s->mode == RVT_RAM_SRAM ? s->sram_limit : s->smem_limit;
}

/* One past the buffer's last byte. */
static uint64_t cur_end(const struct rvt_ramsink *s)
{
    return cur_limit(s) + 4;
}

/* The storage byte at bus address a (a within the current buffer). */
static uint8_t *at(const struct rvt_ramsink *s, uint64_t a)
{
    return s->mode == RVT_RAM_SRAM ? s->sram + a : s->mem + (a - s->mem_base);
}

/* Region the current mode may place its buffer in: [lo, hi). */
static void region(const struct rvt_ramsink *s, uint64_t *lo, uint64_t *hi)
{
    if (s->mode == RVT_RAM_SRAM) {
        *lo = 0;
        *hi = s->sram_bytes;
    } else {
        uint64_t w = s->wbytes;
        *lo = (s->mem_base + w - 1) / w * w;
        *hi = s->mem_base + s->mem_len;
    }
}

/* trRamLimit WARL: the address written selects the trace word holding it;
 * the register then reads the last 32-bit word of that trace word, kept
 * between the first word after start and the end of the region. */
static uint64_t legal_limit(const struct rvt_ramsink *s, uint64_t start, uint64_t a)
{
    uint64_t lo, hi, w = s->wbytes;
    region(s, &lo, &hi);
    uint64_t last_word = start + (hi - start) / w * w - w; /* region holds at least one word after start */
    uint64_t word = a <= start ? start : start + (a - start) / w * w;
    if (word > last_word)
        word = last_word;
    return word + w - 4;
}

/* trRamStart WARL (SMEM): aligned down to the trace word, within the memory. */
static uint64_t legal_start(const struct rvt_ramsink *s, uint64_t a)
{
    uint64_t lo, hi, w = s->wbytes;
    region(s, &lo, &hi);
    a = a / w * w;
    if (a < lo)
        a = lo;
    if (a > hi - w)
        a = (hi - w) / w * w;
    return a;
}

/* trRamWP WARL: a trace word address inside the buffer. */
static uint64_t legal_wp(const struct rvt_ramsink *s, uint64_t a)
{
    uint64_t w = s->wbytes, st = cur_start(s), end = cur_end(s);
    if (a < st)
        return st;
    a = st + (a - st) / w * w;
    if (a >= end)
        a = end - w;
    return a;
}

/* trRamRP WARL: any 32-bit aligned address inside the buffer. */
static uint64_t legal_rp(const struct rvt_ramsink *s, uint64_t a)
{
    uint64_t st = cur_start(s), lim = cur_limit(s);
    a &= ~(uint64_t)3;
    if (a < st)
        return st;
    if (a > lim)
        return lim;
    return a;
}

/* Store whole words from p at WP, wrapping at the end of the buffer. */
static void store_words(struct rvt_ramsink *s, const uint8_t *p, size_t nwords)
{
    uint64_t w = s->wbytes, end = cur_end(s);
    while (nwords) {
        uint64_t room = (end - s->wp) / w;
        size_t k = nwords < room ? nwords : (size_t)room;
        memcpy(at(s, s->wp), p, (size_t)(k * w));
        s->wp += k * w;
        s->written += k * w;
        p += k * w;
        nwords -= k;
        if (s->wp == end) {
            /* "After a trace word write occurs while trRamWP = trRamLimit,
             * trRamWP is set to trRamStart"; trRamWrap records it. */
            s->wp = cur_start(s);
            s->wrap = true;
            if (s->stop_on_wrap) {
                s->enabled = false;
                return;
            }
        }
    }
}

long rvt_ramsink_write(struct rvt_ramsink *s, const uint8_t *p, size_t n)
{
    if (!n)
        return 0;
    if (!s->active || !s->enabled) {
        s->dropped += n;
        return 0;
    }
    size_t take = n;
    if (s->stop_on_wrap) {
        /* Stops when the word at the limit has been written. */
        uint64_t room = cur_end(s) - s->wp - s->pending;
        if (take > room)
            take = (size_t)room;
    }
    size_t i = 0;
    unsigned w = s->wbytes;
    if (s->pending) {
        size_t k = w - s->pending;
        if (k > take)
            k = take;
        memcpy(s->word + s->pending, p, k);
        s->pending += (unsigned)k;
        i = k;
        if (s->pending == w) {
            s->pending = 0;
            store_words(s, s->word, 1);
        }
    }
    size_t whole = (take - i) / w;
    if (whole) {
        store_words(s, p + i, whole);
        i += whole * w;
    }
    if (i < take) {
        memcpy(s->word, p + i, take - i);
        s->pending = (unsigned)(take - i);
    }
    s->accepted += take;
    s->dropped += n - take;
    return (long)take;
}

static long ramsink_write_cb(void *ctx, const uint8_t *p, size_t n)
{
    return rvt_ramsink_write(ctx, p, n);
}

struct rvt_byte_sink rvt_ramsink_sink(struct rvt_ramsink *s)
{
    struct rvt_byte_sink bs = {ramsink_write_cb, s};
    return bs;
}

void rvt_ramsink_flush(struct rvt_ramsink *s)
{
    if (!s->pending)
        return;
    unsigned fill = s->wbytes - s->pending;
    memset(s->word + s->pending, s->pad, fill);
    s->pending = 0;
    s->padded += fill;
    /* In stop mode the room check counted the partial word, so its whole
     * word fits (and may be the last one, stopping the sink). */
    store_words(s, s->word, 1);
}

int rvt_ramsink_new(const struct rvt_ramsink_config *cfg, struct rvt_ramsink **out, struct rvt_diag *diag)
{
    *out = NULL;
    if (!cfg || cfg->size < sizeof *cfg)
        return rvt_fail(diag, RVT_ERR_INVAL, "ramsink: config size %zu, expected %zu", cfg ? cfg->size : 0,
                        sizeof *cfg);
    unsigned bits = cfg->width_bits ? cfg->width_bits : 32;
    if (!rvt_sk_width_ok(bits))
        return rvt_fail(diag, RVT_ERR_INVAL, "ramsink: trace word width %u bits, expected 32, 64, 128, 256, 512 or 1024",
                        bits);
    if (cfg->mode != RVT_RAM_SRAM && cfg->mode != RVT_RAM_SMEM)
        return rvt_fail(diag, RVT_ERR_INVAL, "ramsink: mode %d, expected 0 (SRAM) or 1 (SMEM)", (int)cfg->mode);
    unsigned w = bits / 8;
    bool has_sram = cfg->has_sram || cfg->has_smem ? cfg->has_sram != 0 : cfg->mode == RVT_RAM_SRAM;
    bool has_smem = cfg->has_sram || cfg->has_smem ? cfg->has_smem != 0 : cfg->mode == RVT_RAM_SMEM;
    if ((cfg->mode == RVT_RAM_SRAM && !has_sram) || (cfg->mode == RVT_RAM_SMEM && !has_smem))
        return rvt_fail(diag, RVT_ERR_INVAL, "ramsink: mode %s is not among the implemented modes",
                        cfg->mode == RVT_RAM_SRAM ? "SRAM" : "SMEM");
    if (has_sram && (cfg->sram_bytes < w || cfg->sram_bytes % w || cfg->sram_bytes > ((uint64_t)1 << 32) ||
                     cfg->sram_bytes > SIZE_MAX))
        return rvt_fail(diag, RVT_ERR_INVAL,
                        "ramsink: SRAM size %" PRIu64 " bytes, expected a multiple of the %u-byte trace word, at most 4 GiB",
                        cfg->sram_bytes, w);
    if (has_smem) {
        if (cfg->mem_base % 4)
            return rvt_fail(diag, RVT_ERR_INVAL, "ramsink: system memory base 0x%" PRIx64 " is not 32-bit aligned",
                            cfg->mem_base);
        if (cfg->mem_len > SIZE_MAX || cfg->mem_base + cfg->mem_len < cfg->mem_base)
            return rvt_fail(diag, RVT_ERR_INVAL, "ramsink: system memory 0x%" PRIx64 "+0x%" PRIx64 " does not fit",
                            cfg->mem_base, cfg->mem_len);
        uint64_t lo = (cfg->mem_base + w - 1) / w * w;
        if (lo + w > cfg->mem_base + cfg->mem_len || lo < cfg->mem_base)
            return rvt_fail(diag, RVT_ERR_INVAL,
                            "ramsink: system memory 0x%" PRIx64 "+0x%" PRIx64 " holds no aligned %u-byte trace word",
                            cfg->mem_base, cfg->mem_len, w);
    }

    struct rvt_ramsink *s = calloc(1, sizeof *s);
    if (!s)
        return rvt_fail(diag, RVT_ERR_NOMEM, "ramsink: out of memory");
    s->has_sram = has_sram;
    s->has_smem = has_smem;
    s->sram_limit_fixed = cfg->sram_limit_fixed != 0;
    s->impl_vendor = cfg->impl_vendor;
    s->wbytes = w;
    s->pad = cfg->pad_byte;
    if (has_sram) {
        s->sram_bytes = cfg->sram_bytes;
        s->sram = calloc(1, (size_t)cfg->sram_bytes);
        s->sram_limit = cfg->sram_bytes - 4;
    }
    if (has_smem) {
        s->mem_base = cfg->mem_base;
        s->mem_len = cfg->mem_len;
        if (cfg->mem) {
            s->mem = cfg->mem;
        } else {
            s->mem = calloc(1, (size_t)cfg->mem_len);
            s->mem_owned = true;
        }
    }
    if ((has_sram && !s->sram) || (has_smem && !s->mem)) {
        rvt_ramsink_free(s);
        return rvt_fail(diag, RVT_ERR_NOMEM, "ramsink: cannot allocate the trace memory");
    }
    if (has_smem) {
        enum rvt_ram_mode m = s->mode;
        s->mode = RVT_RAM_SMEM;
        uint64_t lo, hi;
        region(s, &lo, &hi);
        if (cfg->start == 0 && cfg->limit == 0) {
            s->smem_start = lo;
            s->smem_limit = legal_limit(s, lo, hi);
        } else {
            s->smem_start = legal_start(s, cfg->start);
            s->smem_limit = legal_limit(s, s->smem_start, cfg->limit);
            if (s->smem_start != cfg->start || s->smem_limit != cfg->limit) {
                int rc = rvt_fail(diag, RVT_ERR_INVAL,
                                  "ramsink: buffer start 0x%" PRIx64 " limit 0x%" PRIx64
                                  " is not a whole number of %u-byte trace words inside memory 0x%" PRIx64
                                  "+0x%" PRIx64 " (nearest legal: start 0x%" PRIx64 " limit 0x%" PRIx64 ")",
                                  cfg->start, cfg->limit, w, cfg->mem_base, cfg->mem_len, s->smem_start,
                                  s->smem_limit);
                rvt_ramsink_free(s);
                return rc;
            }
        }
        s->mode = m;
    }
    s->mode = cfg->mode;
    s->stop_on_wrap = cfg->stop_on_wrap != 0;
    s->wp = s->rp = s->origin = cur_start(s);
    s->active = s->enabled = !cfg->power_on_reset;
    *out = s;
    return 0;
}

void rvt_ramsink_free(struct rvt_ramsink *s)
{
    if (!s)
        return;
    free(s->sram);
    if (s->mem_owned)
        free(s->mem);
    free(s);
}

void rvt_ramsink_state(const struct rvt_ramsink *s, struct rvt_ramsink_state *st)
{
    memset(st, 0, sizeof *st);
    st->mode = s->mode;
    st->active = s->active;
    st->enabled = s->enabled;
    st->empty = s->pending == 0;
    st->stop_on_wrap = s->stop_on_wrap;
    st->width_bits = s->wbytes * 8;
    st->start = cur_start(s);
    st->limit = cur_limit(s);
    st->size = cur_end(s) - cur_start(s);
    st->wp = s->wp;
    st->wrap = s->wrap;
    st->rp = s->rp;
    st->origin = s->origin;
    st->accepted = s->accepted;
    st->written = s->written;
    st->padded = s->padded;
    st->dropped = s->dropped;
    st->pending = s->pending;
    st->pad_byte = s->pad;
}

const uint8_t *rvt_ramsink_buffer(const struct rvt_ramsink *s, size_t *len)
{
    *len = (size_t)(cur_end(s) - cur_start(s));
    return at(s, cur_start(s));
}

void rvt_ramsink_info(const struct rvt_ramsink *s, struct rvt_sink_info *info)
{
    rvt_sink_info_init(info);
    info->known = RVT_SINFO_MODE | RVT_SINFO_POLICY | RVT_SINFO_WIDTH | RVT_SINFO_SIZE | RVT_SINFO_START |
                  RVT_SINFO_BASE | RVT_SINFO_ORIGIN | RVT_SINFO_WP | RVT_SINFO_WRAP | RVT_SINFO_WRITTEN |
                  RVT_SINFO_DROPPED | RVT_SINFO_PAD;
    info->mode = s->mode;
    info->stop_on_wrap = s->stop_on_wrap;
    info->width_bits = s->wbytes * 8;
    info->start = info->base = cur_start(s);
    info->size = cur_end(s) - info->start;
    info->origin = s->origin;
    info->wp = s->wp;
    info->wrap = s->wrap;
    info->written = s->written;
    info->dropped = s->dropped;
    info->pad_byte = s->pad;
}

int rvt_ramsink_linear(const struct rvt_ramsink *s, uint8_t **buf, size_t *len, uint64_t *lost)
{
    struct rvt_sink_info info;
    struct rvt_sink_image img;
    size_t n;
    const uint8_t *b = rvt_ramsink_buffer(s, &n);
    rvt_ramsink_info(s, &info);
    int rc = rvt_sink_linearize(b, n, &info, &img, NULL);
    if (rc < 0)
        return rc;
    *buf = img.data;
    *len = img.len;
    if (lost)
        *lost = img.lost;
    return 0;
}

const char *rvt_ramsink_error(const struct rvt_ramsink *s)
{
    return s->diag.msg;
}

/* ---- registers ----------------------------------------------------------- */

/* Values after trRamActive goes 0 -> 1: "all WARL fields set to defaults". */
static void activate(struct rvt_ramsink *s)
{
    s->active = true;
    s->enabled = false;
    s->mode = s->has_sram ? RVT_RAM_SRAM : RVT_RAM_SMEM;
    s->stop_on_wrap = false;
    s->wp = legal_wp(s, s->wp);
    s->rp = legal_rp(s, s->rp);
}

int rvt_ramsink_reg_read(struct rvt_ramsink *s, uint32_t off, uint32_t *val)
{
    *val = 0;
    if (off % 4 || off >= 0x1000)
        return -RVT_ERR_INVAL;
    if (off == RAM_CONTROL) {
        if (!s->active) {
            *val = 1u << 3; /* in reset: disabled, empty; the other fields are Undef */
            return 0;
        }
        *val = 1u | (uint32_t)s->enabled << 1 | (uint32_t)(s->pending == 0) << 3 | (uint32_t)s->mode << 4 |
               (uint32_t)s->stop_on_wrap << 8;
        /* trRamMemFormat (10:9) and trRamAsyncFreq (14:12): only 0, plain
         * bytes without alignment packets, is implemented. */
        return 0;
    }
    /* Other registers are inaccessible while the sink is held in reset. */
    if (!s->active)
        return 0;
    switch (off) {
    case RAM_IMPL:
        *val = 1u | 0u << 4 | (uint32_t)RVT_TCI_RAMSINK << 8 | (uint32_t)s->has_sram << 12 |
               (uint32_t)s->has_smem << 13 | (uint32_t)s->impl_vendor << 24;
        break;
    case RAM_START_LOW:
        *val = (uint32_t)cur_start(s);
        break;
    case RAM_START_HIGH:
        *val = (uint32_t)(cur_start(s) >> 32);
        break;
    case RAM_LIMIT_LOW:
        *val = (uint32_t)cur_limit(s);
        break;
    case RAM_LIMIT_HIGH:
        *val = (uint32_t)(cur_limit(s) >> 32);
        break;
    case RAM_WP_LOW:
        *val = ((uint32_t)s->wp & ~3u) | (uint32_t)s->wrap;
        break;
    case RAM_WP_HIGH:
        *val = (uint32_t)(s->wp >> 32);
        break;
    case RAM_RP_LOW:
        *val = (uint32_t)s->rp;
        break;
    case RAM_RP_HIGH:
        *val = (uint32_t)(s->rp >> 32);
        break;
    case RAM_DATA:
        /* 32 bits at RP, LSB first; RP then advances, from the limit back
         * to the start. */
        *val = rvt_sk_get32(at(s, s->rp));
        s->rp = s->rp == cur_limit(s) ? cur_start(s) : s->rp + 4;
        break;
    default:
        break;
    }
    return 0;
}

static uint64_t set_low(uint64_t v, uint32_t low)
{
    return (v & ~(uint64_t)0xFFFFFFFFu) | low;
}

static uint64_t set_high(uint64_t v, uint32_t high)
{
    return (v & 0xFFFFFFFFu) | (uint64_t)high << 32;
}

static void write_control(struct rvt_ramsink *s, uint32_t val)
{
    bool act = val & 1;
    if (!s->active) {
        if (act)
            activate(s);
        return;
    }
    if (!act) {
        /* Into reset: what was buffered is flushed first. */
        rvt_ramsink_flush(s);
        s->active = s->enabled = false;
        return;
    }
    bool en = (val >> 1) & 1;
    /* trRamMode: only while disabled, and only an implemented mode. */
    enum rvt_ram_mode m = (val >> 4) & 1 ? RVT_RAM_SMEM : RVT_RAM_SRAM;
    if (!s->enabled && m != s->mode && (m == RVT_RAM_SRAM ? s->has_sram : s->has_smem)) {
        s->mode = m;
        s->wp = legal_wp(s, s->wp);
        s->rp = legal_rp(s, s->rp);
        s->origin = s->wp;
        s->written = 0;
    }
    s->stop_on_wrap = (val >> 8) & 1;
    if (s->enabled && !en)
        rvt_ramsink_flush(s); /* "Setting trRamEnable to 0 flushes" */
    s->enabled = en;
}

int rvt_ramsink_reg_write(struct rvt_ramsink *s, uint32_t off, uint32_t val)
{
    if (off % 4 || off >= 0x1000)
        return -RVT_ERR_INVAL;
    if (off == RAM_CONTROL) {
        write_control(s, val);
        return 0;
    }
    if (!s->active)
        return 0;
    /* Start, limit and WP are fixed while the sink is enabled ("the trace
     * tool should NOT write" them); RP and data stay accessible. */
    bool locked = s->enabled || s->pending;
    switch (off) {
    case RAM_START_LOW:
    case RAM_START_HIGH:
        if (locked || s->mode == RVT_RAM_SRAM)
            break; /* SRAM: trRamStart is fixed at 0 */
        s->smem_start = legal_start(s, off == RAM_START_LOW ? set_low(s->smem_start, val & ~3u)
                                                            : set_high(s->smem_start, val));
        s->smem_limit = legal_limit(s, s->smem_start, s->smem_limit);
        s->wp = legal_wp(s, s->wp);
        s->rp = legal_rp(s, s->rp);
        break;
    case RAM_LIMIT_LOW:
    case RAM_LIMIT_HIGH:
        if (locked)
            break;
        if (s->mode == RVT_RAM_SRAM) {
            /* No trRamLimitHigh for SRAM ("not practical to have more than 4GB"). */
            if (off == RAM_LIMIT_HIGH || s->sram_limit_fixed)
                break;
            s->sram_limit = legal_limit(s, 0, val & ~3u);
        } else {
            s->smem_limit = legal_limit(s, s->smem_start, off == RAM_LIMIT_LOW ? set_low(s->smem_limit, val & ~3u)
                                                                               : set_high(s->smem_limit, val));
        }
        s->wp = legal_wp(s, s->wp);
        s->rp = legal_rp(s, s->rp);
        break;
    case RAM_WP_LOW:
    case RAM_WP_HIGH:
        if (locked)
            break;
        if (off == RAM_WP_LOW) {
            s->wp = legal_wp(s, set_low(s->wp, val & ~3u));
            s->wrap = val & 1; /* the only way trRamWrap changes besides wrapping */
        } else {
            s->wp = legal_wp(s, set_high(s->wp, val));
        }
        /* A new write position starts a new recording. */
        s->origin = s->wp;
        s->written = 0;
        break;
    case RAM_RP_LOW:
        s->rp = legal_rp(s, set_low(s->rp, val & ~3u));
        break;
    case RAM_RP_HIGH:
        s->rp = legal_rp(s, set_high(s->rp, val));
        break;
    case RAM_DATA:
        rvt_sk_put32(at(s, s->rp), val);
        s->rp = s->rp == cur_limit(s) ? cur_start(s) : s->rp + 4;
        break;
    default:
        break; /* read-only or reserved */
    }
    return 0;
}

/* ---- saving --------------------------------------------------------------- */

int rvt_ramsink_save(struct rvt_ramsink *s, const char *path, struct rvt_diag *diag)
{
    rvt_ramsink_flush(s);
    size_t n;
    const uint8_t *b = rvt_ramsink_buffer(s, &n);
    FILE *f = fopen(path, "wb");
    if (!f)
        return rvt_fail(diag, RVT_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    if (fwrite(b, 1, n, f) != n || fclose(f) != 0) {
        int e = errno;
        return rvt_fail(diag, RVT_ERR_IO, "%s: write failed: %s", path, strerror(e));
    }
    size_t pl = strlen(path);
    char *side = malloc(pl + 6);
    if (!side)
        return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory", path);
    memcpy(side, path, pl);
    memcpy(side + pl, ".sink", 6);
    f = fopen(side, "w");
    if (!f) {
        int rc = rvt_fail(diag, RVT_ERR_IO, "%s: cannot create: %s", side, strerror(errno));
        free(side);
        return rc;
    }
    struct rvt_sink_info info;
    rvt_ramsink_info(s, &info);
    int rc = rvt_sink_info_write(f, &info);
    if (fclose(f) != 0 || rc < 0) {
        rc = rvt_fail(diag, RVT_ERR_IO, "%s: write failed: %s", side, strerror(errno));
        free(side);
        return rc;
    }
    free(side);
    return 0;
}
