/* The decoder contract through the CLI, for every family (docs/decoding.md):
 * exit statuses (whole, damaged, truncated, nothing decodable, usage), the
 * empty trace, 100 KB of random bytes (bounded, printable stderr), the
 * instruction limit, hints for another family or framing, and a wrong ELF
 * naming the address where code and trace disagree. */
#include "testlib.h"

#include "rvtrace/rvtrace.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *const g_families[] = {"ntrace", "etrace", "cdl", "dbg"};
static char g_dir[600];
static char g_cli[600];

/* Run "rvtrace ARGS" with stdout/stderr in files; the exit status. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static int
cli(const char *fmt, ...)
{
    char args[2000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    /* timeout: a decoder that does not end is a failure, not a hung suite */
    return rvt_test_sh("cd '%s' && timeout 120 '%s' %s >out.txt 2>err.txt", g_dir, g_cli, args);
}

static char *slurp(const char *name, size_t *len)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = NULL;
    size_t n = 0, cap = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (n + 1 >= cap) {
            cap = cap ? 2 * cap : 4096;
            b = realloc(b, cap);
        }
        b[n++] = (char)c;
    }
    fclose(f);
    if (!b)
        b = calloc(1, 1);
    else
        b[n] = 0;
    if (len)
        *len = n;
    return b;
}

static bool err_has(const char *s)
{
    char *e = slurp("err.txt", NULL);
    bool ok = e && strstr(e, s);
    free(e);
    return ok;
}

static size_t lines(const char *name)
{
    size_t n = 0, len = 0;
    char *b = slurp(name, &len);
    for (size_t i = 0; b && i < len; i++)
        n += b[i] == '\n';
    free(b);
    return n;
}

static void write_bytes(const char *name, const uint8_t *p, size_t n)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "wb");
    if (f) {
        if (n)
            fwrite(p, 1, n, f);
        fclose(f);
    }
}

static uint8_t *read_bytes(const char *name, size_t *n)
{
    return (uint8_t *)slurp(name, n);
}

#define EXPECT_STATUS(fam, what, got, want)                                                                            \
    CHECK_MSG((got) == (want), "%s: %s: exit status %d, expected %d; stderr: %.600s", fam, what, got, want, last_err())

static const char *last_err(void)
{
    static char buf[700];
    char *e = slurp("err.txt", NULL);
    snprintf(buf, sizeof buf, "%s", e ? e : "");
    free(e);
    return buf;
}

/* Contract item 5, library side: an empty trace makes dec_run return 0
 * having emitted nothing (the CLI does not even call it). */
static int count_block(void *ctx, const struct rvt_block *b)
{
    (void)b;
    ++*(uint64_t *)ctx;
    return 0;
}

static int count_note(void *ctx, const struct rvt_note *n)
{
    (void)n;
    ++*(uint64_t *)ctx;
    return 0;
}

static void empty_library(const char *fam)
{
    const struct rvt_codec *c = rvt_codec_find(fam);
    struct rvt_image *img = rvt_img_new();
    char elf[700];
    snprintf(elf, sizeof elf, "%s/g.elf", g_dir);
    REQUIRE(rvt_img_load_elf(img, elf) == 0);
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    REQUIRE(c->cfg_finish(cfg, rvt_img_xlen(img), img, &d) == 0);
    uint64_t events = 0;
    struct rvt_flow_sink s = {.block = count_block, .note = count_note, .ctx = &events};
    static const uint8_t none[1];
    int rc = rvt_decode(c, cfg, img, NULL, none, 0, &s, &d);
    CHECK_MSG(rc == 0 && events == 0, "%s: dec_run on an empty trace: rc %d, %llu blocks and notes (%s)", fam, rc,
              (unsigned long long)events, rc < 0 ? d.msg : "");
    rvt_codec_cfg_free(cfg);
    rvt_img_free(img);
}

static void per_family(const char *fam)
{
    /* The generated program traps on ecall; its RV64 code at the top of the
     * address space needs cdl's 9-byte data fields (docs/cdl.md). */
    const char *ecall = strcmp(fam, "cdl") == 0 ? "--ecall trap --cdl-data wide" : "--ecall trap";
    char trace[64];
    snprintf(trace, sizeof trace, "t.%s", fam);
    REQUIRE(cli("encode --format %s %s --elf g.elf --input g.ing -o %s", fam, ecall, trace) == 0);
    size_t len = 0;
    uint8_t *bytes = read_bytes(trace, &len);
    REQUIRE(bytes && len > 64);

    /* Whole: status 0 with every output kind, the instructions on stdout. */
    static const char *const kinds[] = {"pcs", "insn", "blocks", "count"};
    for (int k = 0; k < 4; k++)
        EXPECT_STATUS(fam, kinds[k],
                      cli("decode --format %s %s --elf g.elf %s --output %s", fam, ecall, trace, kinds[k]), 0);
    CHECK(cli("decode --format %s %s --elf g.elf %s", fam, ecall, trace) == 0);
    CHECK_MSG(rvt_test_sh("cmp -s '%s/out.txt' '%s/g.pcs'", g_dir, g_dir) == 0, "%s: decoded PCs differ", fam);
    EXPECT_STATUS(fam, "dump", cli("dump --format %s %s %s", fam, strcmp(fam, "cdl") == 0 ? "--cdl-data wide" : "",
                                   trace),
                  0);

    /* Empty: nothing decodable, said so, for decode and dump alike. */
    write_bytes("empty", NULL, 0);
    for (int k = 0; k < 4; k += 3) {
        EXPECT_STATUS(fam, "empty trace",
                      cli("decode --format %s %s --elf g.elf empty --output %s", fam, ecall, kinds[k]),
                      RVT_DECODE_NOTHING);
        CHECK_MSG(err_has("the trace is empty"), "%s: empty trace: %s", fam, last_err());
        CHECK_MSG(lines("err.txt") == 1, "%s: the empty trace reports more than one line: %s", fam, last_err());
    }
    EXPECT_STATUS(fam, "dump of an empty trace", cli("dump --format %s empty", fam), RVT_DECODE_NOTHING);
    empty_library(fam);

    /* Nothing decodable: the first 3 bytes of the trace (no whole sync). */
    write_bytes("head3", bytes, 3);
    EXPECT_STATUS(fam, "3 bytes", cli("decode --format %s %s --elf g.elf head3", fam, ecall), RVT_DECODE_NOTHING);

    /* Truncated: the first half.  Status 1 and the end reported. */
    write_bytes("half", bytes, len / 2 + 1);
    EXPECT_STATUS(fam, "truncated", cli("decode --format %s %s --elf g.elf half --output count", fam, ecall),
                  RVT_DECODE_DAMAGED);
    EXPECT_STATUS(fam, "truncated, pcs", cli("decode --format %s %s --elf g.elf half --output pcs", fam, ecall),
                  RVT_DECODE_DAMAGED);
    CHECK_MSG(rvt_test_sh("cd '%s' && head -n $(wc -l < out.txt) g.pcs | cmp -s - out.txt", g_dir) == 0,
              "%s: the truncated decode is not a prefix of the execution", fam);

    /* Damaged: 64 bytes in the middle overwritten.  Status 1. */
    uint8_t *dmg = malloc(len);
    memcpy(dmg, bytes, len);
    uint64_t s = 0x1234567;
    for (size_t i = len / 2; i < len / 2 + 64 && i < len; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        dmg[i] = (uint8_t)(s >> 56);
    }
    write_bytes("damaged", dmg, len);
    free(dmg);
    EXPECT_STATUS(fam, "damaged", cli("decode --format %s %s --elf g.elf damaged --output count", fam, ecall),
                  RVT_DECODE_DAMAGED);
    CHECK_MSG(err_has("trace offset 0x"), "%s: the damage is reported without an offset: %s", fam, last_err());

    /* 100 KB of random bytes: ends, bounded stderr (100 reports off a
     * terminal, then a count), nothing but printable text, status 1 or 3. */
    uint8_t *rnd = malloc(100000);
    s = 42;
    for (size_t i = 0; i < 100000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        rnd[i] = (uint8_t)(s >> 56);
    }
    write_bytes("random", rnd, 100000);
    free(rnd);
    int st = cli("decode --format %s %s --elf g.elf random", fam, ecall);
    CHECK_MSG(st == RVT_DECODE_DAMAGED || st == RVT_DECODE_NOTHING, "%s: random bytes: exit status %d: %s", fam, st,
              last_err());
    size_t el = 0;
    char *e = slurp("err.txt", &el);
    size_t nl = lines("err.txt");
    CHECK_MSG(nl <= 100 + 4, "%s: random bytes: %zu lines on stderr", fam, nl);
    for (size_t i = 0; e && i < el; i++)
        if (!(e[i] == '\n' || (e[i] >= 0x20 && e[i] < 0x7f))) {
            CHECK_MSG(0, "%s: random bytes: stderr holds byte 0x%02x at %zu", fam, (unsigned char)e[i], i);
            break;
        }
    free(e);
    st = cli("decode -v --format %s %s --elf g.elf random --output count", fam, ecall);
    CHECK_MSG(st == RVT_DECODE_DAMAGED || st == RVT_DECODE_NOTHING, "%s: random bytes -v: exit status %d", fam, st);
    st = cli("dump --format %s random", fam);
    CHECK_MSG(st == RVT_DECODE_DAMAGED || st == RVT_DECODE_NOTHING, "%s: dump of random bytes: exit status %d", fam,
              st);

    /* A wrapped trace RAM: its overwritten part is not damage; if no sync
     * point survived, the message says how much was searched and which
     * option makes sync points. */
    REQUIRE(cli("encode --format %s %s --elf g.elf --input g.ing --sink sram:1024:wrap -o ram", fam, ecall) == 0);
    st = cli("decode --format %s %s --elf g.elf ram", fam, ecall);
    /* (dbg decoded with another buffer size than the encoder's finds no
     * sync fields where it expects them: damage, named with the option.) */
    CHECK_MSG(st == 0 || st == RVT_DECODE_NOTHING ||
                  (st == RVT_DECODE_DAMAGED && strcmp(fam, "dbg") == 0 && err_has("trace offset 0x")),
              "%s: wrapped RAM: exit status %d: %s", fam, st, last_err());
    if (st == RVT_DECODE_NOTHING && err_has("no synchronisation point")) {
        const struct rvt_codec *c = rvt_codec_find(fam);
        CHECK_MSG(err_has("no synchronisation point found in the 1024 bytes searched") && c->sync_hint &&
                      err_has(c->sync_hint),
                  "%s: wrapped RAM without a sync point: %s", fam, last_err());
    } else if (st == RVT_DECODE_NOTHING) { /* (dbg: sync points at another spacing than the decoder's) */
        CHECK_MSG(err_has("trace offset 0x"), "%s: wrapped RAM: nothing decoded, nothing said: %s", fam, last_err());
    }

    /* The instruction limit: exactly N instructions, a prefix, status 1;
     * the exact count is still whole. */
    uint64_t total = lines("g.pcs");
    EXPECT_STATUS(fam, "--max-instructions 1000",
                  cli("decode --format %s %s --elf g.elf %s --max-instructions 1000", fam, ecall, trace),
                  RVT_DECODE_DAMAGED);
    CHECK_MSG(lines("out.txt") == 1000, "%s: --max-instructions 1000 printed %zu", fam, lines("out.txt"));
    CHECK_MSG(rvt_test_sh("cd '%s' && head -n 1000 g.pcs | cmp -s - out.txt", g_dir) == 0,
              "%s: the limited decode is not the first 1000 instructions", fam);
    CHECK_MSG(err_has("instruction limit reached") && err_has("--max-instructions"), "%s: limit message: %s", fam,
              last_err());
    EXPECT_STATUS(fam, "--max-instructions = all",
                  cli("decode --format %s %s --elf g.elf %s --max-instructions %" PRIu64, fam, ecall, trace, total), 0);
    EXPECT_STATUS(fam, "--max-instructions all - 1",
                  cli("decode --format %s %s --elf g.elf %s --max-instructions %" PRIu64 " --output count", fam, ecall,
                      trace, total - 1),
                  RVT_DECODE_DAMAGED);

    /* Usage errors: 2. */
    EXPECT_STATUS(fam, "bad option", cli("decode --format %s --elf g.elf %s --no-such-option", fam, trace), 2);
    EXPECT_STATUS(fam, "missing trace", cli("decode --format %s --elf g.elf no-such-file", fam), 2);
    EXPECT_STATUS(fam, "unreadable ELF", cli("decode --format %s --elf %s %s", fam, trace, trace), 2);
    EXPECT_STATUS(fam, "--max-instructions 0",
                  cli("decode --format %s --elf g.elf %s --max-instructions 0", fam, trace), 2);
    EXPECT_STATUS(fam, "dump, missing trace", cli("dump --format %s no-such-file", fam), 2);

    /* A wrong ELF: the first report names an address (a code address has
     * more hex digits than any offset into this trace). */
    st = cli("decode --format %s %s --elf h.elf %s --output count", fam, ecall, trace);
    CHECK_MSG(st != 0, "%s: decoding with another program's ELF succeeded", fam);
    e = slurp("err.txt", NULL);
    bool named = false;
    for (const char *p = e; p && (p = strstr(p, "0x")) != NULL && !named; p += 2)
        named = strspn(p + 2, "0123456789abcdefABCDEF") >= 6;
    CHECK_MSG(named, "%s: wrong ELF: no address named: %s", fam, e ? e : "");
    free(e);

    /* Another family's trace: a hint naming the right one. */
    const char *other = strcmp(fam, "ntrace") == 0 ? "etrace" : "ntrace";
    cli("decode --format %s --ecall trap --elf g.elf %s", other, trace);
    char want[64];
    snprintf(want, sizeof want, "try --format %s", fam);
    CHECK_MSG(err_has(want), "%s decoded as %s: no hint: %s", fam, other, last_err());
    free(bytes);
}

/* A damaged start looks like a wrapped RAM: a decoder cannot tell the
 * bytes before its first sync point apart.  The caller can: a trace file
 * starts where tracing started, so there they are damage (status 1, the
 * offset named); the same bytes as a wrapped RAM (--wp, --wrap 1) are its
 * overwritten part (status 0).  First the tail of a trace (what a wrapped
 * RAM keeps), then each of the first bytes damaged in turn (all 8 bits;
 * each bit of the first 8 bytes): every damage the wrapped decode reports
 * as overwritten trace must be a damaged start in the file (families that
 * check their sync points report most as errors anyway). */
static void damaged_start(const char *fam)
{
    const char *opts = strcmp(fam, "cdl") == 0 ? "--ecall trap --cdl-data wide" : "--ecall trap";
    /* Options that make later sync points to decode from. */
    const char *sync = strcmp(fam, "ntrace") == 0 ? "--sync-period 2000"
                       : strcmp(fam, "etrace") == 0 ? "--resync-max 0"
                                                    : "";
    REQUIRE(cli("encode --format %s %s --elf g.elf --input g.ing %s -o lead", fam, opts, sync) == 0);
    size_t len = 0;
    uint8_t *bytes = read_bytes("lead", &len);
    REQUIRE(bytes && len > 64);

    /* (A cut inside the stream, not in an idle or null run: a buffer that
     * starts at a synchronisation sequence is a whole trace to look at.) */
    size_t cut = len / 3;
    while (cut + 64 < len) {
        bool quiet = false;
        for (size_t k = cut - 1; k < cut + 8; k++)
            quiet |= (bytes[k] & 0x1f) == 0;
        if (!quiet)
            break;
        cut++;
    }
    write_bytes("lead.tail", bytes + cut, len - cut);
    int st = cli("decode --format %s %s --elf g.elf lead.tail --output count", fam, opts);
    EXPECT_STATUS(fam, "the tail of a trace as a file", st, RVT_DECODE_DAMAGED);
    CHECK_MSG(err_has("damaged start") && err_has("trace offset 0x"), "%s: the tail of a trace as a file: %s", fam,
              last_err());
    st = cli("decode --format %s %s --elf g.elf lead.tail --output count --wp %zu --wrap 1", fam, opts, len - cut);
    EXPECT_STATUS(fam, "the tail of a trace as a wrapped RAM", st, 0);
    CHECK_MSG(err_has("older trace was overwritten"), "%s: the tail of a trace as a wrapped RAM: %s", fam, last_err());

    uint8_t *d = malloc(len);
    REQUIRE(d);
    unsigned leading = 0;
    for (size_t i = 0; i < 48; i++)
        for (unsigned m = 0; m < 9; m++) {
            uint8_t x = m == 8 ? 0xff : (uint8_t)(1u << m);
            if (m < 8 && i >= 8)
                continue;
            memcpy(d, bytes, len);
            d[i] ^= x;
            write_bytes("lead.bad", d, len);
            int w = cli("decode --format %s %s --elf g.elf lead.bad --output count --wp %zu --wrap 1", fam, opts,
                        len);
            if (!err_has("older trace was overwritten"))
                continue;
            leading++;
            char wrapped_err[700];
            snprintf(wrapped_err, sizeof wrapped_err, "%s", last_err());
            int p = cli("decode --format %s %s --elf g.elf lead.bad --output count", fam, opts);
            CHECK_MSG(p == RVT_DECODE_DAMAGED && err_has("damaged start") && err_has("trace offset 0x"),
                      "%s: byte 0x%zx ^ 0x%02x: as a wrapped RAM the start is overwritten trace (status %d: %.300s), "
                      "as a file status %d: %.400s",
                      fam, i, x, w, wrapped_err, p, last_err());
        }
    printf("  %s: %u damaged starts a wrapped RAM would take for its overwritten part\n", fam, leading);
    free(d);
    free(bytes);
}

static void framing_hint(void)
{
    /* An encapsulated E-Trace file read as the reference flow's raw file. */
    REQUIRE(cli("encode --format etrace --ecall trap --elf g.elf --input g.ing -o t.encap") == 0);
    cli("decode --format etrace --ecall trap --framing refraw --elf g.elf t.encap");
    CHECK_MSG(err_has("try --framing encap"), "no framing hint: %s", last_err());
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "%s", rvt_test_tmpdir());
    snprintf(g_cli, sizeof g_cli, "%s", rvt_test_cli());
    /* A program with traps, interrupts and privilege changes, and another
     * one for the wrong-ELF case. */
    int rc = rvt_test_sh("cd '%s' && '%s' gen --seed 3 --insns 30000 --traps --interrupts --priv --elf g.elf "
                         "-o g.ing --pcs g.pcs && '%s' gen --seed 4 --insns 100 --traps --interrupts --priv "
                         "--elf h.elf -o h.ing",
                         g_dir, g_cli, g_cli);
    if (rc != 0) {
        CHECK_MSG(0, "rvtrace gen failed");
        return rvt_test_summary("test_contract");
    }
    const char *only = getenv("RVT_CONTRACT_FAMILY");
    for (size_t i = 0; i < sizeof g_families / sizeof g_families[0]; i++)
        if (!only || strcmp(only, g_families[i]) == 0) {
            unsigned long before = rvt_test_failures;
            per_family(g_families[i]);
            damaged_start(g_families[i]);
            printf("  %s: %s\n", g_families[i], rvt_test_failures == before ? "ok" : "FAILED");
        }
    if (!only || strcmp(only, "etrace") == 0)
        framing_hint();
    return rvt_test_summary("test_contract");
}
