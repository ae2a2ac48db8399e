/* CDL compressed trace: options, recorder state file, and the codec table. */
#include "cdl/cdl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void cdl_cfg_defaults(struct cdl_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->pack = CDL_PACK_FLOW | CDL_PACK_TRAPS;
    c->pc_mode = CDL_PC_ALL;
    c->sync_interval = 128; /* the seed's example: 4 zero nybbles every 128 nybbles */
    c->sync_nybbles = 4;
    c->overflow = CDL_OVF_WRAP;
    c->image_kind = CDL_IMAGE_ORDERED;
    c->code = CDL_CODE_AUTO;
    c->ecall = RVT_FLOW_ECALL_SEQUENTIAL; /* the CLI's default */
}

static const struct rvt_codec_opt g_opts[] = {
    {"xlen", "32|64", "register width of the traced hart (default: from the input or the ELF)"},
    {"cdl-pack", "LIST",
     "what the packed trace holds, comma-separated: flow (sequential counts, non-sequential reasons and "
     "PCs), rfw (committed register-file writes), traps, tracepoints; default flow,traps"},
    {"cdl-data", "seed|wide",
     "data field lengths: seed (length code NNN = NNN bytes, at most 7: values that need more are refused, "
     "default) or wide (an rvtrace extension: code 7 = 9 bytes, for 64-bit register values and PCs above "
     "2^56; a decoder must be given the same)"},
    {"cdl-pc", "all|uninferable",
     "PC data after every non-sequential field (all: decodable without the ELF, default) or only after "
     "jalr, traps and trap returns (uninferable: needs the ELF)"},
    {"cdl-sync-interval", "N", "insert a sync mark between cycles once N nybbles were written since the last "
                               "one (default 128; 0: only at the start and after lost data)"},
    {"cdl-sync-nybbles", "N", "zero nybbles in a sync mark (default 4, at least 4)"},
    {"cdl-buffer", "BYTES", "record into a circular buffer of BYTES (multiple of 4; 0: unbounded stream)"},
    {"cdl-overflow", "halt|wrap", "when the buffer is full: stop recording, or overwrite the oldest data "
                                  "(default wrap)"},
    {"cdl-image", "ordered|raw",
     "buffer output: contents oldest first (default), or the memory as is (decode then needs "
     "--cdl-write-offset/--cdl-wrapped or --cdl-state)"},
    {"cdl-write-offset", "BYTES", "raw buffer image: offset of the next word the recorder would have written"},
    {"cdl-wrapped", NULL, "raw buffer image: the recorder has wrapped (data before the write offset is newest)"},
    {"cdl-state", "FILE", "recorder state file: the encoder writes the write offset, wrap and halt flags, the "
                          "decoder reads them"},
    {"cdl-code", "auto|elf|none",
     "decode by walking the ELF, or rebuild the flow from recorded counts and PCs only (needs cdl-pc all); "
     "auto: walk when an ELF is loaded"},
    {"ecall", "sequential|trap|uninferable",
     "how ecall/ebreak behaved in the traced run: fell through (user-mode emulation, default), raised an "
     "exception (system), or an uninferable call (the N-Trace reference tool's view)"},
    {"cdl-histogram", NULL, "dump: print how many times each PC was set (PC data fields) after the listing"},
    {"strict", NULL, "stop at the first decode error instead of resynchronising"},
    {NULL, NULL, NULL}};

static int parse_u64(const char *s, uint64_t *v)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno || *end || s[0] == '-')
        return -1;
    *v = x;
    return 0;
}

static int parse_pack(const char *val, unsigned *out, struct rvt_diag *d)
{
    unsigned flags = 0;
    const char *p = val;
    while (*p) {
        size_t n = strcspn(p, ",+");
        if (n == 4 && strncmp(p, "flow", 4) == 0)
            flags |= CDL_PACK_FLOW | CDL_PACK_TRAPS;
        else if (n == 3 && strncmp(p, "rfw", 3) == 0)
            flags |= CDL_PACK_RFW;
        else if (n == 5 && strncmp(p, "traps", 5) == 0)
            flags |= CDL_PACK_TRAPS;
        else if (n == 11 && strncmp(p, "tracepoints", 11) == 0)
            flags |= CDL_PACK_TRACEPOINTS;
        else if (n == 3 && strncmp(p, "all", 3) == 0)
            flags |= CDL_PACK_FLOW | CDL_PACK_TRAPS | CDL_PACK_RFW | CDL_PACK_TRACEPOINTS;
        else
            return rvt_fail(d, RVT_ERR_INVAL,
                            "--cdl-pack: unknown item '%.*s' in '%s', expected flow, rfw, traps, tracepoints or all",
                            (int)n, p, val);
        p += n;
        if (*p)
            p++;
    }
    if (!flags)
        return rvt_fail(d, RVT_ERR_INVAL, "--cdl-pack: empty list, expected flow, rfw, traps and/or tracepoints");
    *out = flags;
    return 0;
}

static int cdl_cfg_set(void *cfgp, const char *key, const char *val, struct rvt_diag *d)
{
    struct cdl_cfg *c = cfgp;
    uint64_t v;
    if (strcmp(key, "xlen") == 0) {
        if (parse_u64(val, &v) || (v != 32 && v != 64))
            return rvt_fail(d, RVT_ERR_INVAL, "--xlen: expected 32 or 64, got '%s'", val);
        c->xlen = (unsigned)v;
    } else if (strcmp(key, "cdl-pack") == 0) {
        return parse_pack(val, &c->pack, d);
    } else if (strcmp(key, "cdl-data") == 0) {
        if (strcmp(val, "seed") == 0)
            c->wide = false;
        else if (strcmp(val, "wide") == 0)
            c->wide = true;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--cdl-data: expected seed or wide, got '%s'", val);
    } else if (strcmp(key, "cdl-pc") == 0) {
        if (strcmp(val, "all") == 0)
            c->pc_mode = CDL_PC_ALL;
        else if (strcmp(val, "uninferable") == 0)
            c->pc_mode = CDL_PC_UNINFERABLE;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--cdl-pc: expected all or uninferable, got '%s'", val);
    } else if (strcmp(key, "cdl-sync-interval") == 0) {
        if (parse_u64(val, &v) || v > 0x7fffffff)
            return rvt_fail(d, RVT_ERR_INVAL, "--cdl-sync-interval: expected a nybble count, got '%s'", val);
        c->sync_interval = (unsigned)v;
    } else if (strcmp(key, "cdl-sync-nybbles") == 0) {
        if (parse_u64(val, &v) || v < 4 || v > 4096)
            return rvt_fail(d, RVT_ERR_INVAL, "--cdl-sync-nybbles: expected 4..4096, got '%s'", val);
        c->sync_nybbles = (unsigned)v;
    } else if (strcmp(key, "cdl-buffer") == 0) {
        if (parse_u64(val, &v) || (v && (v % 4 || v < 16 || v > (1ull << 32))))
            return rvt_fail(d, RVT_ERR_INVAL,
                            "--cdl-buffer: expected 0 or a multiple of 4 between 16 and 4 GiB, got '%s'", val);
        c->buffer = v;
    } else if (strcmp(key, "cdl-overflow") == 0) {
        if (strcmp(val, "wrap") == 0)
            c->overflow = CDL_OVF_WRAP;
        else if (strcmp(val, "halt") == 0)
            c->overflow = CDL_OVF_HALT;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--cdl-overflow: expected halt or wrap, got '%s'", val);
    } else if (strcmp(key, "cdl-image") == 0) {
        if (strcmp(val, "ordered") == 0)
            c->image_kind = CDL_IMAGE_ORDERED;
        else if (strcmp(val, "raw") == 0)
            c->image_kind = CDL_IMAGE_RAW;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--cdl-image: expected ordered or raw, got '%s'", val);
    } else if (strcmp(key, "cdl-write-offset") == 0) {
        if (parse_u64(val, &v) || v % 4)
            return rvt_fail(d, RVT_ERR_INVAL, "--cdl-write-offset: expected a byte offset (multiple of 4), got '%s'",
                            val);
        c->write_offset = v;
        c->have_write_offset = true;
    } else if (strcmp(key, "cdl-wrapped") == 0) {
        c->wrapped = strcmp(val, "0") != 0;
    } else if (strcmp(key, "cdl-state") == 0) {
        if (strlen(val) >= sizeof c->state_path)
            return rvt_fail(d, RVT_ERR_INVAL, "--cdl-state: path too long");
        strcpy(c->state_path, val);
    } else if (strcmp(key, "cdl-code") == 0) {
        if (strcmp(val, "auto") == 0)
            c->code = CDL_CODE_AUTO;
        else if (strcmp(val, "elf") == 0)
            c->code = CDL_CODE_ELF;
        else if (strcmp(val, "none") == 0)
            c->code = CDL_CODE_NONE;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--cdl-code: expected auto, elf or none, got '%s'", val);
    } else if (strcmp(key, "ecall") == 0) {
        if (strcmp(val, "trap") == 0)
            c->ecall = RVT_FLOW_ECALL_TRAP;
        else if (strcmp(val, "sequential") == 0)
            c->ecall = RVT_FLOW_ECALL_SEQUENTIAL;
        else if (strcmp(val, "uninferable") == 0)
            c->ecall = RVT_FLOW_ECALL_UNINFERABLE;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--ecall: expected sequential, trap or uninferable, got '%s'",
                            val);
    } else if (strcmp(key, "cdl-histogram") == 0) {
        c->histogram = strcmp(val, "0") != 0;
    } else if (strcmp(key, "strict") == 0) {
        c->strict = strcmp(val, "0") != 0;
    } else {
        return rvt_fail(d, RVT_ERR_INVAL, "cdl: unknown option --%s", key);
    }
    return 0;
}

static void cdl_cfg_init(void *cfg)
{
    cdl_cfg_defaults(cfg);
}

static int cdl_cfg_finish(void *cfgp, unsigned xlen, const struct rvt_image *img, struct rvt_diag *d)
{
    struct cdl_cfg *c = cfgp;
    if (!c->xlen)
        c->xlen = xlen ? xlen : (img ? rvt_img_xlen(img) : 32);
    if (c->xlen != 32 && c->xlen != 64)
        return rvt_fail(d, RVT_ERR_INVAL, "cdl: xlen must be 32 or 64 (got %u)", c->xlen);
    c->image = img;
    if (c->sync_interval && c->sync_interval < c->sync_nybbles)
        return rvt_fail(d, RVT_ERR_INVAL, "cdl: --cdl-sync-interval %u is shorter than the %u-nybble sync mark",
                        c->sync_interval, c->sync_nybbles);
    if (c->have_write_offset && c->buffer && c->write_offset > c->buffer)
        return rvt_fail(d, RVT_ERR_INVAL, "cdl: --cdl-write-offset %" PRIu64 " is beyond the %" PRIu64 "-byte buffer",
                        c->write_offset, c->buffer);
    return 0;
}

static void cdl_flow_config(const void *cfgp, struct rvt_flow_config *fc)
{
    const struct cdl_cfg *c = cfgp;
    fc->ecall = (enum rvt_flow_ecall)c->ecall;
    fc->callstack_depth = 0;
    fc->sijump = false;
    if (!fc->xlen)
        fc->xlen = c->xlen;
}

/* ---- recorder state file ------------------------------------------------- */

int cdl_state_write(const char *path, const struct cdl_state *st, struct rvt_diag *d)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return rvt_fail(d, RVT_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    fprintf(f, "# rvtrace cdl recorder state\n");
    fprintf(f, "buffer=%" PRIu64 "\n", st->buffer);
    fprintf(f, "write_offset=%" PRIu64 "\n", st->write_offset);
    fprintf(f, "wrapped=%d\n", st->wrapped ? 1 : 0);
    fprintf(f, "halted=%d\n", st->halted ? 1 : 0);
    fprintf(f, "lost_nybbles=%" PRIu64 "\n", st->lost_nybbles);
    if (fclose(f) != 0)
        return rvt_fail(d, RVT_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return 0;
}

int cdl_state_read(const char *path, struct cdl_state *st, struct rvt_diag *d)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return rvt_fail(d, RVT_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    memset(st, 0, sizeof *st);
    char line[256];
    unsigned lineno = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char *eq = strchr(line, '=');
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        uint64_t v;
        if (!eq || parse_u64(eq + 1, &v)) {
            rc = rvt_fail(d, RVT_ERR_FORMAT, "%s: line %u: expected key=number, got '%s'", path, lineno, line);
            break;
        }
        *eq = 0;
        if (strcmp(line, "buffer") == 0)
            st->buffer = v;
        else if (strcmp(line, "write_offset") == 0)
            st->write_offset = v;
        else if (strcmp(line, "wrapped") == 0)
            st->wrapped = v != 0;
        else if (strcmp(line, "halted") == 0)
            st->halted = v != 0;
        else if (strcmp(line, "lost_nybbles") == 0)
            st->lost_nybbles = v;
        else {
            rc = rvt_fail(d, RVT_ERR_FORMAT, "%s: line %u: unknown key '%s'", path, lineno, line);
            break;
        }
    }
    fclose(f);
    return rc;
}

/* ---- codec table ---------------------------------------------------------- */

static int enc_new(void **enc, const void *cfg, const struct rvt_byte_sink *out, struct rvt_diag *d)
{
    struct cdl_enc *e;
    int r = cdl_enc_new(&e, cfg, out, d);
    *enc = e;
    return r;
}
static int enc_put(void *enc, const struct rvt_ing_rec *r)
{
    return cdl_enc_put(enc, r);
}
static size_t enc_put_plain(void *enc, const struct rvt_ing_rec *rs, size_t n)
{
    return cdl_enc_put_plain(enc, rs, n);
}

static size_t enc_put_short(void *enc, const struct rvt_ing_fast *f, size_t n, uint8_t priv, uint64_t context)
{
    return cdl_enc_put_short(enc, f, n, priv, context);
}
static int enc_finish(void *enc)
{
    return cdl_enc_finish(enc);
}
static void enc_stats(const void *enc, struct rvt_codec_stats *st)
{
    cdl_enc_stats(enc, st);
}
static const char *enc_error(const void *enc)
{
    return cdl_enc_error(enc);
}
static void enc_free(void *enc)
{
    cdl_enc_free(enc);
}
static int dec_new(void **dec, const void *cfg, struct rvt_flow *flow, struct rvt_diag *d)
{
    struct cdl_dec *x;
    int r = cdl_dec_new(&x, cfg, flow, d);
    *dec = x;
    return r;
}
static int dec_run(void *dec, const uint8_t *buf, size_t len)
{
    return cdl_dec_run(dec, buf, len);
}
static int dec_run_segment(void *dec, const uint8_t *buf, size_t len, size_t from, size_t until)
{
    return cdl_dec_run_segment(dec, buf, len, from, until);
}
static int sync_points(const void *cfg, const uint8_t *buf, size_t len, size_t from,
                       int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d)
{
    return cdl_sync_points(cfg, buf, len, from, fn, ctx, d);
}
static const char *dec_error(const void *dec)
{
    return cdl_dec_error(dec);
}
static void dec_free(void *dec)
{
    cdl_dec_free(dec);
}
static int dump(const void *cfg, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d)
{
    return cdl_dump(cfg, buf, len, out, d);
}

static int info(const void *cfgp, FILE *out, struct rvt_diag *d)
{
    (void)d;
    const struct cdl_cfg *c = cfgp;
    fprintf(out, "format: cdl (CDL RISC-V compressed nybble trace, seed 000)\n");
    fprintf(out, "xlen: %u\n", c->xlen);
    fprintf(out, "pack: %s%s%s%s\n", (c->pack & CDL_PACK_FLOW) ? "flow " : "", (c->pack & CDL_PACK_RFW) ? "rfw " : "",
            (c->pack & CDL_PACK_TRAPS) ? "traps " : "", (c->pack & CDL_PACK_TRACEPOINTS) ? "tracepoints" : "");
    fprintf(out, "data: %s\n", c->wide ? "wide (extension: length code 7 = 9 bytes)"
                                        : "seed (length code NNN = NNN bytes, at most 7)");
    fprintf(out, "pc: %s\n", c->pc_mode == CDL_PC_ALL ? "all non-sequential targets" : "uninferable targets");
    fprintf(out, "sync: %u zero nybbles every %u nybbles\n", c->sync_nybbles, c->sync_interval);
    if (c->buffer)
        fprintf(out, "buffer: %" PRIu64 " bytes, %s on overflow\n", c->buffer,
                c->overflow == CDL_OVF_WRAP ? "wrap" : "halt");
    else
        fprintf(out, "buffer: none (stream)\n");
    return 0;
}

/* The flow's register writes and tracepoints name their instruction; the
 * seed has no privilege, time or memory data. */
static unsigned traced(const void *cfgp)
{
    const struct cdl_cfg *c = cfgp;
    unsigned t = 0;
    if (c->pack & CDL_PACK_RFW)
        t |= RVT_TRACED_REG_WRITE;
    if (c->pack & CDL_PACK_TRACEPOINTS)
        t |= RVT_TRACED_TRACEPOINT;
    if (c->pack & CDL_PACK_FLOW)
        t |= RVT_TRACED_DATA_INDEX;
    return t;
}

/* A stream with 9-byte data fields (64-bit values) reads only with them. */
static const char *const g_probe_options[] = {"cdl-data=wide", NULL};

const struct rvt_codec rvt_codec_cdl = {
    .name = "cdl",
    .summary = "CDL RISC-V compressed trace: nybble stream of sequential counts, non-sequential reasons, "
               "PC/register-write data and tracepoints (seed 000)",
    .options = g_opts,
    .cfg_size = sizeof(struct cdl_cfg),
    .cfg_init = cdl_cfg_init,
    .cfg_set = cdl_cfg_set,
    .cfg_finish = cdl_cfg_finish,
    .flow_config = cdl_flow_config,
    .enc_new = enc_new,
    .enc_put = enc_put,
    .enc_finish = enc_finish,
    .enc_stats = enc_stats,
    .enc_error = enc_error,
    .enc_free = enc_free,
    .enc_put_plain = enc_put_plain,
    .enc_put_short = enc_put_short,
    .dec_new = dec_new,
    .dec_run = dec_run,
    .dec_run_segment = dec_run_segment,
    .sync_points = sync_points,
    .dec_error = dec_error,
    .dec_free = dec_free,
    .dump = dump,
    .sync_hint = "CDL sync marks come from --cdl-sync-interval N (a mark once N nybbles were written)",
    .info = info,
    .traced = traced,
    .probe_options = g_probe_options,
};
