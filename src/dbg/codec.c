/* Debug-spec trace module: options, the trace register model, the codec
 * table. */
#include "dbg/dbg.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void dbg_cfg_defaults(struct dbg_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->rvc = true;
    /* Off-chip stream, stalling, PC + branch + privilege events: the
     * flow is exact with the ELF.  The buffer size sets the sync spacing. */
    c->regs.trace = DBG_TRACE_SUPPORTED | DBG_TRACE_STALL | (DBG_DEST_OFFCHIP << DBG_TRACE_DEST_SHIFT) |
                    DBG_TRACE_EMITPC | DBG_TRACE_EMITBRANCH | DBG_TRACE_EMITPRIV;
    c->regs.tbufstart = 0;
    c->regs.tbufend = 4096;
    c->custom = DBG_CUSTOM_REJECT; /* the encoder never writes custom packets: one is damage */
    c->code = DBG_CODE_AUTO;
    c->ecall = RVT_FLOW_ECALL_SEQUENTIAL; /* the CLI's default */
}

static const struct rvt_codec_opt g_opts[] = {
    {"xlen", "32|64", "register width of the traced hart (default: from the input or the ELF)"},
    {"dbg-rvc", "on|off", "the C extension is supported: PC packets hold PC[XLEN-1:1] (on, default) or PC[XLEN-1:2]"},
    {"dbg-emit", "LIST",
     "trace events to emit (the emit* bits of the trace register), comma-separated: pc, branch, priv, loadaddr, "
     "storeaddr, loaddata, storedata, timestamp, all, none; default pc,branch,priv"},
    {"dbg-trace", "VALUE", "the whole trace CSR (0x728) value: emit bits, stall, destination, fullaction"},
    {"dbg-destination", "ram|sysram|offchip",
     "trace destination: on-core RAM, system RAM [tbufstart,tbufend) (both: the output is the RAM image), or an "
     "off-chip interface (an unbounded stream; default)"},
    {"dbg-fullaction", "wrap|stop|exception", "when the RAM buffer is full: wrap and overwrite (default), turn "
                                              "trace off, or raise a trace-full exception (recording stops)"},
    {"dbg-buffer", "BYTES", "trace buffer size (tbufend - tbufstart; default 4096, a multiple of 32, at least "
                            "1024); 8 sync points are spaced evenly in it"},
    {"dbg-tbufstart", "ADDR", "tbufstart (0x729): buffer start address (keeps the buffer size)"},
    {"dbg-tbufend", "ADDR", "tbufend (0x72a): buffer end address (exclusive)"},
    {"dbg-tbufwrite", "ADDR", "tbufwrite (0x72b) read from the hart: where the next packet would be written"},
    {"dbg-wrapped", NULL, "the trace register's wrapped bit was set (decoding a RAM image)"},
    {"stream-offset", "BYTES", "decoder: the off-chip stream's byte position of the trace's first byte (a wrapped "
                               "trace RAM: bytes written - bytes kept; rvtrace decode sets it from the sink "
                               "sidecar): the sync grid is then known, not guessed from the content"},
    {"dbg-regs", "FILE", "trace register file: the encoder writes trace/tbufstart/tbufend/tbufwrite there when it "
                         "finishes, the decoder reads them"},
    {"dbg-stall", "0|1", "stall the hart rather than drop packets (1, default) or drop whole packet groups when "
                         "the FIFO is full (0; needs --dbg-fifo)"},
    {"dbg-fifo", "NYBBLES", "FIFO model for --dbg-stall 0: capacity in nybbles"},
    {"dbg-drain", "NYBBLES", "FIFO model: nybbles drained per retired instruction (default 2)"},
    {"dbg-trap-pc", "seed|epc",
     "the first PC of a trap: seed (default: an interrupt names the last instruction executed, ecall/ebreak "
     "themselves, as seed 004's event table says) or epc (every trap names the instruction that did not "
     "complete; rvtrace's older form, ambiguous without emitpriv); encoder and decoder must agree"},
    {"dbg-custom", "value|none|reject",
     "what follows a custom header (1110, 1111): a value sequence, nothing, or reject it as an error (default: "
     "rvtrace never writes them, so one is damage)"},
    {"dbg-nops", "padding|anywhere",
     "decoder: Nops only pad up to a synchronisation point (default, as rvtrace's encoder writes them; others are "
     "an error) or may appear anywhere (another trace source's idle fill)"},
    {"dbg-values", "fewest|any",
     "decoder: a PC outside sync fields has the fewest nybbles that rebuild it from the last PC, or all of them "
     "(default, as rvtrace's encoder writes them; others are an error), or any number (another encoder)"},
    {"dbg-code", "auto|elf|none", "decode by walking the ELF, or from PC pairs only (needs emit pc without "
                                  "branch); auto: walk when an ELF is loaded"},
    {"ecall", "sequential|trap|uninferable",
     "how ecall/ebreak behaved in the traced run: fell through (user-mode emulation, default), raised an "
     "exception (system), or an uninferable call (the N-Trace reference tool's view)"},
    {"strict", NULL, "stop at the first decode error instead of resynchronising"},
    {NULL, NULL, NULL}};

static int parse_u64(const char *s, uint64_t *v)
{
    if (!s || !*s || s[0] == '-')
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    *v = x;
    return 0;
}

static int parse_emit(const char *val, uint32_t *bits, struct rvt_diag *d)
{
    static const struct {
        const char *name;
        uint32_t bit;
    } names[] = {{"pc", DBG_TRACE_EMITPC},
                 {"branch", DBG_TRACE_EMITBRANCH},
                 {"priv", DBG_TRACE_EMITPRIV},
                 {"loadaddr", DBG_TRACE_EMITLOADADDR},
                 {"storeaddr", DBG_TRACE_EMITSTOREADDR},
                 {"loaddata", DBG_TRACE_EMITLOADDATA},
                 {"storedata", DBG_TRACE_EMITSTOREDATA},
                 {"timestamp", DBG_TRACE_EMITTIMESTAMP},
                 {"all", DBG_TRACE_EMIT_MASK},
                 {"none", 0}};
    uint32_t b = 0;
    const char *p = val;
    while (*p) {
        size_t n = strcspn(p, ",+");
        size_t i;
        for (i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == n && strncmp(p, names[i].name, n) == 0)
                break;
        if (i == sizeof names / sizeof names[0])
            return rvt_fail(d, RVT_ERR_INVAL,
                            "--dbg-emit: unknown event '%.*s' in '%s', expected pc, branch, priv, loadaddr, "
                            "storeaddr, loaddata, storedata, timestamp, all or none",
                            (int)n, p, val);
        b |= names[i].bit;
        p += n;
        if (*p)
            p++;
    }
    *bits = b;
    return 0;
}

static int dbg_cfg_set(void *cfgp, const char *key, const char *val, struct rvt_diag *d)
{
    struct dbg_cfg *c = cfgp;
    uint64_t v;
    uint32_t *t = &c->regs.trace;
    if (strcmp(key, "xlen") == 0) {
        if (parse_u64(val, &v) || (v != 32 && v != 64))
            return rvt_fail(d, RVT_ERR_INVAL, "--xlen: expected 32 or 64, got '%s'", val);
        c->xlen = (unsigned)v;
    } else if (strcmp(key, "dbg-nops") == 0) {
        if (strcmp(val, "padding") == 0)
            c->nops_anywhere = false;
        else if (strcmp(val, "anywhere") == 0)
            c->nops_anywhere = true;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-nops: expected padding or anywhere, got '%s'", val);
    } else if (strcmp(key, "dbg-values") == 0) {
        if (strcmp(val, "fewest") == 0)
            c->values_any = false;
        else if (strcmp(val, "any") == 0)
            c->values_any = true;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-values: expected fewest or any, got '%s'", val);
    } else if (strcmp(key, "dbg-trap-pc") == 0) {
        if (strcmp(val, "seed") == 0)
            c->trap_pc = DBG_TRAP_PC_SEED;
        else if (strcmp(val, "epc") == 0)
            c->trap_pc = DBG_TRAP_PC_EPC;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-trap-pc: expected seed or epc, got '%s'", val);
    } else if (strcmp(key, "dbg-rvc") == 0) {
        if (strcmp(val, "on") == 0 || strcmp(val, "1") == 0)
            c->rvc = true;
        else if (strcmp(val, "off") == 0 || strcmp(val, "0") == 0)
            c->rvc = false;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-rvc: expected on or off, got '%s'", val);
    } else if (strcmp(key, "dbg-emit") == 0) {
        uint32_t bits = 0;
        int r = parse_emit(val, &bits, d);
        if (r < 0)
            return r;
        *t = (*t & ~DBG_TRACE_EMIT_MASK) | bits;
    } else if (strcmp(key, "dbg-trace") == 0) {
        if (parse_u64(val, &v) || v > 0xffffffffu || (v & ~(uint64_t)DBG_TRACE_DEFINED))
            return rvt_fail(d, RVT_ERR_INVAL,
                            "--dbg-trace: expected a trace register value using only bits 0x%08x, got '%s'",
                            DBG_TRACE_DEFINED, val);
        *t = (uint32_t)v | DBG_TRACE_SUPPORTED;
    } else if (strcmp(key, "dbg-destination") == 0) {
        unsigned dst;
        if (strcmp(val, "ram") == 0)
            dst = DBG_DEST_CORE_RAM;
        else if (strcmp(val, "sysram") == 0)
            dst = DBG_DEST_SYS_RAM;
        else if (strcmp(val, "offchip") == 0)
            dst = DBG_DEST_OFFCHIP;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-destination: expected ram, sysram or offchip, got '%s'", val);
        *t = (*t & ~(3u << DBG_TRACE_DEST_SHIFT)) | dst << DBG_TRACE_DEST_SHIFT;
    } else if (strcmp(key, "dbg-fullaction") == 0) {
        unsigned fa;
        if (strcmp(val, "wrap") == 0)
            fa = DBG_FULL_WRAP;
        else if (strcmp(val, "stop") == 0)
            fa = DBG_FULL_STOP;
        else if (strcmp(val, "exception") == 0)
            fa = DBG_FULL_EXCEPTION;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-fullaction: expected wrap, stop or exception, got '%s'", val);
        *t = (*t & ~(3u << DBG_TRACE_FULLACTION_SHIFT)) | fa << DBG_TRACE_FULLACTION_SHIFT;
    } else if (strcmp(key, "dbg-buffer") == 0) {
        if (parse_u64(val, &v) || v % 32 || v < 1024 || v > (1ull << 32))
            return rvt_fail(d, RVT_ERR_INVAL,
                            "--dbg-buffer: expected a multiple of 32 bytes between 1024 and 4 GiB, got '%s'", val);
        c->regs.tbufend = c->regs.tbufstart + v;
    } else if (strcmp(key, "dbg-tbufstart") == 0) {
        if (parse_u64(val, &v) || v % 4)
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-tbufstart: expected a word-aligned address, got '%s'", val);
        uint64_t size = dbg_cfg_buffer(c);
        c->regs.tbufstart = v;
        c->regs.tbufend = v + size;
    } else if (strcmp(key, "dbg-tbufend") == 0) {
        if (parse_u64(val, &v) || v % 4)
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-tbufend: expected a word-aligned address, got '%s'", val);
        c->regs.tbufend = v;
    } else if (strcmp(key, "stream-offset") == 0) {
        if (parse_u64(val, &v))
            return rvt_fail(d, RVT_ERR_INVAL, "--stream-offset: expected a byte count, got '%s'", val);
        c->stream_offset = v;
        c->have_stream_offset = true;
    } else if (strcmp(key, "dbg-tbufwrite") == 0) {
        if (parse_u64(val, &v) || v % 4)
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-tbufwrite: expected a word-aligned address, got '%s'", val);
        c->regs.tbufwrite = v;
        c->have_tbufwrite = true;
    } else if (strcmp(key, "dbg-wrapped") == 0) {
        if (strcmp(val, "0") == 0)
            *t &= ~(uint32_t)DBG_TRACE_WRAPPED;
        else
            *t |= DBG_TRACE_WRAPPED;
    } else if (strcmp(key, "dbg-regs") == 0) {
        if (strlen(val) >= sizeof c->regs_path)
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-regs: path too long");
        strcpy(c->regs_path, val);
    } else if (strcmp(key, "dbg-stall") == 0) {
        if (strcmp(val, "1") == 0)
            *t |= DBG_TRACE_STALL;
        else if (strcmp(val, "0") == 0)
            *t &= ~(uint32_t)DBG_TRACE_STALL;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-stall: expected 0 or 1, got '%s'", val);
    } else if (strcmp(key, "dbg-fifo") == 0) {
        if (parse_u64(val, &v))
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-fifo: expected a nybble count, got '%s'", val);
        c->fifo = v;
    } else if (strcmp(key, "dbg-drain") == 0) {
        if (parse_u64(val, &v))
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-drain: expected nybbles per instruction, got '%s'", val);
        c->drain = v;
    } else if (strcmp(key, "dbg-custom") == 0) {
        if (strcmp(val, "value") == 0)
            c->custom = DBG_CUSTOM_VALUE;
        else if (strcmp(val, "none") == 0)
            c->custom = DBG_CUSTOM_NONE;
        else if (strcmp(val, "reject") == 0)
            c->custom = DBG_CUSTOM_REJECT;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-custom: expected value, none or reject, got '%s'", val);
    } else if (strcmp(key, "dbg-code") == 0) {
        if (strcmp(val, "auto") == 0)
            c->code = DBG_CODE_AUTO;
        else if (strcmp(val, "elf") == 0)
            c->code = DBG_CODE_ELF;
        else if (strcmp(val, "none") == 0)
            c->code = DBG_CODE_NONE;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "--dbg-code: expected auto, elf or none, got '%s'", val);
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
    } else if (strcmp(key, "strict") == 0) {
        c->strict = strcmp(val, "0") != 0;
    } else {
        return rvt_fail(d, RVT_ERR_INVAL, "dbg: unknown option --%s", key);
    }
    return 0;
}

static void dbg_cfg_init(void *cfg)
{
    dbg_cfg_defaults(cfg);
}

static int dbg_check_regs(const struct dbg_cfg *c, struct rvt_diag *d)
{
    uint64_t size = c->regs.tbufend - c->regs.tbufstart;
    if (c->regs.tbufend <= c->regs.tbufstart || size % 32 || size < 1024)
        return rvt_fail(d, RVT_ERR_INVAL,
                        "dbg: tbufstart 0x%" PRIx64 " / tbufend 0x%" PRIx64
                        " must give a buffer of a multiple of 32 bytes, at least 1024",
                        c->regs.tbufstart, c->regs.tbufend);
    if (dbg_regs_fullaction(&c->regs) == 3)
        return rvt_fail(d, RVT_ERR_INVAL, "dbg: trace.fullaction = 3 is reserved");
    if (dbg_regs_dest(&c->regs) == 3)
        return rvt_fail(d, RVT_ERR_INVAL, "dbg: trace.destination = 3 is reserved");
    if (c->have_tbufwrite && (c->regs.tbufwrite < c->regs.tbufstart || c->regs.tbufwrite > c->regs.tbufend))
        return rvt_fail(d, RVT_ERR_INVAL, "dbg: tbufwrite 0x%" PRIx64 " is outside [0x%" PRIx64 ", 0x%" PRIx64 "]",
                        c->regs.tbufwrite, c->regs.tbufstart, c->regs.tbufend);
    return 0;
}

static int dbg_cfg_finish(void *cfgp, unsigned xlen, const struct rvt_image *img, struct rvt_diag *d)
{
    struct dbg_cfg *c = cfgp;
    if (!c->xlen)
        c->xlen = xlen ? xlen : (img ? rvt_img_xlen(img) : 32);
    if (c->xlen != 32 && c->xlen != 64)
        return rvt_fail(d, RVT_ERR_INVAL, "dbg: xlen must be 32 or 64 (got %u)", c->xlen);
    c->image = img;
    if (c->fifo && !c->drain)
        c->drain = 2;
    return dbg_check_regs(c, d);
}

static void dbg_flow_config(const void *cfgp, struct rvt_flow_config *fc)
{
    const struct dbg_cfg *c = cfgp;
    fc->ecall = (enum rvt_flow_ecall)c->ecall;
    fc->callstack_depth = 0;
    fc->sijump = false;
    if (!fc->xlen)
        fc->xlen = c->xlen;
}

/* ---- register file ---------------------------------------------------------- */

int dbg_regs_format(const struct dbg_regs *r, FILE *out)
{
    return fprintf(out,
                   "trace=0x%08" PRIx32 "\n"
                   "tbufstart=0x%" PRIx64 "\n"
                   "tbufend=0x%" PRIx64 "\n"
                   "tbufwrite=0x%" PRIx64 "\n",
                   r->trace, r->tbufstart, r->tbufend, r->tbufwrite);
}

int dbg_regs_write(const char *path, const struct dbg_regs *r, struct rvt_diag *d)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return rvt_fail(d, RVT_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    fprintf(f, "# rvtrace dbg trace registers (debug spec trace module, CSRs 0x728-0x72b)\n");
    dbg_regs_format(r, f);
    if (fclose(f) != 0)
        return rvt_fail(d, RVT_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return 0;
}

int dbg_regs_read(const char *path, struct dbg_regs *r, struct rvt_diag *d)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return rvt_fail(d, RVT_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char line[256];
    unsigned lineno = 0, seen = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        if (line[0] == '#' || line[0] == 0)
            continue;
        char *eq = strchr(line, '=');
        uint64_t v;
        if (!eq || parse_u64(eq + 1, &v)) {
            rc = rvt_fail(d, RVT_ERR_FORMAT, "%s: line %u: expected name=value, got '%s'", path, lineno, line);
            break;
        }
        *eq = 0;
        if (strcmp(line, "trace") == 0 && v <= 0xffffffffu) {
            r->trace = (uint32_t)v;
            seen |= 1;
        } else if (strcmp(line, "tbufstart") == 0) {
            r->tbufstart = v;
            seen |= 2;
        } else if (strcmp(line, "tbufend") == 0) {
            r->tbufend = v;
            seen |= 4;
        } else if (strcmp(line, "tbufwrite") == 0) {
            r->tbufwrite = v;
            seen |= 8;
        } else {
            rc = rvt_fail(d, RVT_ERR_FORMAT, "%s: line %u: unknown register '%s' (trace, tbufstart, tbufend, tbufwrite)",
                          path, lineno, line);
            break;
        }
    }
    fclose(f);
    if (!rc && seen != 15)
        rc = rvt_fail(d, RVT_ERR_FORMAT, "%s: expected trace, tbufstart, tbufend and tbufwrite", path);
    return rc;
}

/* ---- codec table -------------------------------------------------------------- */

static int enc_new(void **enc, const void *cfg, const struct rvt_byte_sink *out, struct rvt_diag *d)
{
    struct dbg_enc *e;
    int r = dbg_enc_new(&e, cfg, out, d);
    *enc = e;
    return r;
}
static int enc_put(void *enc, const struct rvt_ing_rec *r)
{
    return dbg_enc_put(enc, r);
}
static size_t enc_put_plain(void *enc, const struct rvt_ing_rec *rs, size_t n)
{
    return dbg_enc_put_plain(enc, rs, n);
}
static int enc_finish(void *enc)
{
    return dbg_enc_finish(enc);
}
static void enc_stats(const void *enc, struct rvt_codec_stats *st)
{
    dbg_enc_stats(enc, st);
}
static const char *enc_error(const void *enc)
{
    return dbg_enc_error(enc);
}
static void enc_free(void *enc)
{
    dbg_enc_free(enc);
}
static int dec_new(void **dec, const void *cfg, struct rvt_flow *flow, struct rvt_diag *d)
{
    struct dbg_dec *x;
    int r = dbg_dec_new(&x, cfg, flow, d);
    *dec = x;
    return r;
}
static int dec_run(void *dec, const uint8_t *buf, size_t len)
{
    return dbg_dec_run(dec, buf, len);
}
static int dec_run_segment(void *dec, const uint8_t *buf, size_t len, size_t from, size_t until)
{
    return dbg_dec_run_segment(dec, buf, len, from, until);
}
static int sync_points(const void *cfg, const uint8_t *buf, size_t len, size_t from,
                       int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d)
{
    return dbg_sync_points(cfg, buf, len, from, fn, ctx, d);
}
static const char *dec_error(const void *dec)
{
    return dbg_dec_error(dec);
}
static void dec_free(void *dec)
{
    dbg_dec_free(dec);
}
static int dump(const void *cfg, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d)
{
    return dbg_dump(cfg, buf, len, out, d);
}

static int info(const void *cfgp, FILE *out, struct rvt_diag *d)
{
    (void)d;
    const struct dbg_cfg *c = cfgp;
    static const char *const dest[4] = {"on-core RAM", "system RAM", "off-chip interface", "reserved"};
    static const char *const full[4] = {"wrap", "stop", "exception", "reserved"};
    fprintf(out, "format: dbg (debug specification trace module, seed 004)\n");
    fprintf(out, "xlen: %u, PC packets hold PC[%u:%u]\n", c->xlen, c->xlen - 1, c->rvc ? 1 : 2);
    fprintf(out, "emit:%s%s%s%s%s%s%s%s\n", dbg_emits(c, DBG_TRACE_EMITPC) ? " pc" : "",
            dbg_emits(c, DBG_TRACE_EMITBRANCH) ? " branch" : "", dbg_emits(c, DBG_TRACE_EMITPRIV) ? " priv" : "",
            dbg_emits(c, DBG_TRACE_EMITLOADADDR) ? " loadaddr" : "",
            dbg_emits(c, DBG_TRACE_EMITSTOREADDR) ? " storeaddr" : "",
            dbg_emits(c, DBG_TRACE_EMITLOADDATA) ? " loaddata" : "",
            dbg_emits(c, DBG_TRACE_EMITSTOREDATA) ? " storedata" : "",
            dbg_emits(c, DBG_TRACE_EMITTIMESTAMP) ? " timestamp" : "");
    fprintf(out, "trap pc: %s\n", c->trap_pc == DBG_TRAP_PC_SEED ? "seed (interrupts: the last instruction executed)"
                                                                 : "epc (every trap: the instruction that did not "
                                                                   "complete)");
    fprintf(out, "destination: %s, fullaction: %s, stall: %u\n", dest[dbg_regs_dest(&c->regs)],
            full[dbg_regs_fullaction(&c->regs)], (c->regs.trace & DBG_TRACE_STALL) ? 1 : 0);
    fprintf(out, "buffer: %" PRIu64 " bytes, sync points every %" PRIu64 " bytes\n", dbg_cfg_buffer(c),
            dbg_cfg_buffer(c) / 8);
    dbg_regs_format(&c->regs, out);
    return 0;
}

/* The emit bits say what the packets carry: Privilege Level (U/S/M),
 * timestamps, load/store addresses and data (CSR values as data), and
 * always Change Hart. */
static unsigned traced(const void *cfgp)
{
    const struct dbg_cfg *c = cfgp;
    unsigned t = RVT_TRACED_HART;
    if (dbg_emits(c, DBG_TRACE_EMITPRIV))
        t |= RVT_TRACED_PRIV | RVT_TRACED_PRIV_UMS;
    if (dbg_emits(c, DBG_TRACE_EMITTIMESTAMP))
        t |= RVT_TRACED_TIME;
    if (dbg_emits(c, DBG_TRACE_EMITLOADADDR))
        t |= RVT_TRACED_LOAD_ADDR;
    if (dbg_emits(c, DBG_TRACE_EMITSTOREADDR))
        t |= RVT_TRACED_STORE_ADDR;
    if (dbg_emits(c, DBG_TRACE_EMITLOADDATA))
        t |= RVT_TRACED_LOAD_VALUE | RVT_TRACED_CSR_VALUES;
    if (dbg_emits(c, DBG_TRACE_EMITSTOREDATA))
        t |= RVT_TRACED_STORE_VALUE | RVT_TRACED_CSR_VALUES;
    /* Without emitpc no packet names an address of the code (the sync
     * points' PC is "soon after" them only in PC packets, seed 004): the
     * trace has no instruction flow to decode, only its data; the
     * privilege, time and hart belong to instructions. */
    if (!dbg_emits(c, DBG_TRACE_EMITPC))
        t = RVT_TRACED_NO_INSNS | (t & ~(unsigned)(RVT_TRACED_PRIV | RVT_TRACED_PRIV_UMS | RVT_TRACED_TIME |
                                                   RVT_TRACED_HART));
    return t;
}

const struct rvt_codec rvt_codec_dbg = {
    .name = "dbg",
    .summary = "debug specification trace module: 4-bit packets with value sequences, 8 sync points per buffer, "
               "emit-* events (seed 004)",
    .options = g_opts,
    .cfg_size = sizeof(struct dbg_cfg),
    .cfg_init = dbg_cfg_init,
    .cfg_set = dbg_cfg_set,
    .cfg_finish = dbg_cfg_finish,
    .flow_config = dbg_flow_config,
    .enc_new = enc_new,
    .enc_put = enc_put,
    .enc_finish = enc_finish,
    .enc_stats = enc_stats,
    .enc_error = enc_error,
    .enc_free = enc_free,
    .enc_put_plain = enc_put_plain,
    .dec_new = dec_new,
    .dec_run = dec_run,
    .dec_run_segment = dec_run_segment,
    .sync_points = sync_points,
    .dec_error = dec_error,
    .dec_free = dec_free,
    .dump = dump,
    .sync_hint = "dbg sync points are at every eighth of the trace buffer: --dbg-buffer BYTES (and "
                 "--dbg-tbufstart/--dbg-tbufwrite for a RAM image) must describe the buffer the trace was recorded in",
    .nothing_traced_hint = "give --dbg-emit pc, or data to trace (loadaddr, storeaddr, loaddata, storedata)",
    .info = info,
    .traced = traced,
};
