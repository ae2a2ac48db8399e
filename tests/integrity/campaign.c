/* The corruption campaign (issue 10): damage real and generated traces of
 * every family and main option set, decode them, and classify what the
 * decoder made of each damaged copy.
 *
 *   rvt_campaign [--trials N] [--seed S] [--sets FILE] [--family F] [--set TEXT]
 *                [--inputs real,gen] [--real-insns N] [--gen-insns N] [--timeout SEC]
 *                [--kinds flip1,flip8,trunc,insert,delete] [--out DIR] [--markdown] [--expect-clean]
 *                [--only SET/INPUT/TRIAL] [--expect CLASS] [--verbose]
 *
 * Inputs: "real" is the bundled capture (tests/data/real: bzip2 -9, RV64GC,
 * 1.47 M instructions; --real-insns keeps a prefix), "gen" a generated
 * program with traps, interrupts, privilege changes and context switches
 * (rvt_gen; ecall traps there).  Option sets come from
 * tests/integrity/campaign-sets.txt ("label|--format F --option value ...").  Every set first round-trips
 * cleanly; then each trial damages a copy of the encoded bytes — one bit
 * flipped, one byte's 8 bits flipped, truncated, 1-16 random bytes
 * inserted, or 1-16 bytes deleted, at a random offset — and decodes it in a
 * child process (so a crash or a hang is a result, not the end of the run)
 * with an instruction limit of 4x the clean decode plus 2^20.
 *
 * A decode is compared with the clean one as a sequence of tokens: each
 * retired instruction (address, privilege, context), each trap (cause,
 * tval, handler), timestamp, data value and trace-off gap.  Damage reports
 * are the notes that make the exit status non-zero (errors, lost trace, an
 * unexpected end, the limit) or a decode with no instruction.  Classes:
 *
 *   crash, timeout
 *   unaffected       nothing reported, output identical (e.g. an idle byte)
 *   exact            reported; the output is the clean one with parts left
 *                    out (before the first report a prefix, after it a tail)
 *   back on track    reported; wrong or displaced instructions, then the
 *                    output ends like the clean one
 *   not back         reported; the output never returns to the clean tail
 *   silent inherent  nothing reported, output differs, and re-encoding the
 *                    decoded instructions with the same options gives the
 *                    damaged bytes exactly (or bytes the family's dump lists
 *                    identically, unit by unit and field by field: they
 *                    differ only in bits that carry nothing; or the same
 *                    units with other filler between them: E-Trace null
 *                    packets, which the trace sink inserts, CDL skip
 *                    nybbles, which the seed ignores anywhere): no
 *                    decoder could tell
 *   SILENT BUG       nothing reported, output differs, not inherent
 * plus "late": reported, but wrong instructions came before the first
 * report; and, for truncations, whether the cut was reported.
 *
 * --expect-clean: exit status 1 if any crash, timeout, silent bug or
 * unreported truncation, or a set whose clean decode does not re-encode to
 * its own bytes (the inherence check would not work there) (the short
 * ctest run), and with --expect-back KINDS
 * also any "not back" after those kinds of damage (a family that must
 * resynchronise after them); --out DIR writes a reproducer for each bug
 * (damaged trace, the ELF, the rvtrace command); --expect CLASS: exit
 * status 1 unless every trial run is of that class (with --only: a test
 * that one damage is classified so). */
#include "roundtrip.h"
#include "testlib.h"

#include "rvtrace/rvtrace.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- small helpers --------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return mix(mix(mix(mix(a) ^ b) ^ c) ^ d);
}

/* Bounded copy that always terminates (texts are cut, not overflowed). */
static void cpy(char *dst, size_t n, const char *src)
{
    size_t k = strlen(src);
    if (k >= n)
        k = n - 1;
    memcpy(dst, src, k);
    dst[k] = 0;
}

struct rng {
    uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
    r->s += 0x9e3779b97f4a7c15ull;
    return mix(r->s);
}

static uint64_t rnd_below(struct rng *r, uint64_t n)
{
    return n ? rnd(r) % n : 0;
}

struct u64vec {
    uint64_t *v;
    size_t n, cap;
};

static void vec_push(struct u64vec *v, uint64_t x)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 4096;
        uint64_t *p = realloc(v->v, cap * sizeof *p);
        if (!p) {
            fprintf(stderr, "rvt_campaign: out of memory\n");
            exit(2);
        }
        v->v = p;
        v->cap = cap;
    }
    v->v[v->n++] = x;
}

/* ---- inputs and option sets ---------------------------------------------- */

struct input {
    const char *name;
    char elf[600];
    struct rvt_image *img;
    struct rvt_recs recs;
    int ecall; /* enum rvt_flow_ecall the execution needs */
};

#define MAX_OPTS 48
struct optset {
    char label[200];
    const struct rvt_codec *codec;
    const char *opt[MAX_OPTS]; /* name, value pairs (flags "1"), as parsed */
    char cmdline[600];         /* the options as given, for reproducers */
    unsigned index;            /* the set's number within its family (reproducer names) */
    char *storage;
};

static int load_sets(const char *path, struct optset **out, size_t *n_out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "rvt_campaign: %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct optset *sets = NULL;
    size_t n = 0;
    char line[1200];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        char *bar = strchr(line, '|');
        if (!bar || line[0] == '#')
            continue;
        *bar = 0;
        struct optset s;
        memset(&s, 0, sizeof s);
        cpy(s.label, sizeof s.label, line);
        cpy(s.cmdline, sizeof s.cmdline, bar + 1);
        s.storage = strdup(bar + 1);
        /* words: --format F, then --name [value] */
        char *words[MAX_OPTS * 2];
        size_t nw = 0;
        for (char *t = strtok(s.storage, " "); t && nw < MAX_OPTS * 2; t = strtok(NULL, " "))
            words[nw++] = t;
        size_t k = 0;
        for (size_t i = 0; i < nw; i++) {
            if (strcmp(words[i], "--format") == 0 && i + 1 < nw) {
                s.codec = rvt_codec_find(words[++i]);
                continue;
            }
            if (strncmp(words[i], "--", 2) != 0 || k + 2 >= MAX_OPTS)
                continue;
            const char *name = words[i] + 2, *val = "1";
            if (i + 1 < nw && strncmp(words[i + 1], "--", 2) != 0)
                val = words[++i];
            s.opt[k++] = name;
            s.opt[k++] = val;
        }
        if (!s.codec) {
            fprintf(stderr, "rvt_campaign: %s: no known --format in '%s'\n", path, s.label);
            free(s.storage);
            continue;
        }
        for (size_t i = 0; i < n; i++)
            s.index += sets[i].codec == s.codec;
        sets = realloc(sets, (n + 1) * sizeof *sets);
        sets[n++] = s;
    }
    fclose(f);
    *out = sets;
    *n_out = n;
    return 0;
}

static bool codec_has_opt(const struct rvt_codec *c, const char *name)
{
    for (const struct rvt_codec_opt *o = c->options; o && o->name; o++)
        if (strcmp(o->name, name) == 0)
            return true;
    return false;
}

/* The set's configuration for an input (plus the ecall the input needs). */
static void *make_cfg(const struct optset *s, const struct input *in, char *err, size_t errlen)
{
    const struct rvt_codec *c = s->codec;
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    for (size_t k = 0; s->opt[k]; k += 2)
        if (c->cfg_set(cfg, s->opt[k], s->opt[k + 1], &d) < 0) {
            snprintf(err, errlen, "--%s %s: %s", s->opt[k], s->opt[k + 1], d.msg);
            goto fail;
        }
    if (in->ecall == RVT_FLOW_ECALL_TRAP && codec_has_opt(c, "ecall") && c->cfg_set(cfg, "ecall", "trap", &d) < 0) {
        snprintf(err, errlen, "--ecall trap: %s", d.msg);
        goto fail;
    }
    if (c->cfg_finish && c->cfg_finish(cfg, rvt_img_xlen(in->img), in->img, &d) < 0) {
        snprintf(err, errlen, "options: %s", d.msg);
        goto fail;
    }
    return cfg;
fail:
    rvt_codec_cfg_free(cfg);
    return NULL;
}

/* starts (optional, recs->n + 1 entries): the output length before each
 * record was put, and at the end. */
static int encode_where(const struct rvt_codec *c, const void *cfg, const struct rvt_recs *recs, struct rvt_membuf *mb,
                        size_t *starts, char *err, size_t errlen)
{
    struct rvt_byte_sink sink = rvt_membuf_sink(mb);
    void *enc = NULL;
    struct rvt_diag d = {0};
    if (c->enc_new(&enc, cfg, &sink, &d) < 0) {
        snprintf(err, errlen, "encoder: %s", d.msg);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < recs->n && rc >= 0; i++) {
        if (starts)
            starts[i] = mb->len;
        if ((rc = c->enc_put(enc, &recs->r[i])) < 0)
            snprintf(err, errlen, "encode record %zu: %s", i, c->enc_error(enc));
    }
    if (starts)
        starts[recs->n] = mb->len;
    if (rc >= 0 && (rc = c->enc_finish(enc)) < 0)
        snprintf(err, errlen, "encode finish: %s", c->enc_error(enc));
    c->enc_free(enc);
    return rc < 0 ? -1 : 0;
}

static int encode(const struct rvt_codec *c, const void *cfg, const struct rvt_recs *recs, struct rvt_membuf *mb,
                  char *err, size_t errlen)
{
    return encode_where(c, cfg, recs, mb, NULL, err, errlen);
}

/* ---- a decode as tokens ------------------------------------------------------ */

struct decoded {
    struct u64vec tok;
    uint64_t insns;
    uint64_t reports;      /* damage notes */
    size_t first_report;   /* tokens before the first damage note */
    uint64_t first_offset; /* its trace offset */
    uint8_t first_reason;
    bool end_reported; /* RVT_GAP_END seen */
    char first_text[200];
};

struct tok_ctx {
    struct decoded *d;
    struct rvt_bcache *bc;
    unsigned xlen;
    uint64_t priv, context;
};

static int tok_insn(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    struct tok_ctx *t = ctx;
    vec_push(&t->d->tok, hash4(1, pc, b->priv, b->context));
    return 0;
}

static int tok_block(void *ctx, const struct rvt_block *b)
{
    struct tok_ctx *t = ctx;
    t->d->insns += b->ninsns;
    if ((b->flags & (RVT_BLK_COUNT_UNKNOWN | RVT_BLK_LAST_UNKNOWN)) ||
        rvt_block_insns(t->bc, t->xlen, b, tok_insn, t) < 0)
        vec_push(&t->d->tok, hash4(2, b->start, b->last, b->ninsns ^ ((uint64_t)b->flags << 56)));
    if (b->end == RVT_END_TRAP)
        vec_push(&t->d->tok, hash4(3, b->cause | (uint64_t)(b->flags & RVT_BLK_INTERRUPT) << 40, b->tval, b->next));
    return 0;
}

static int tok_note(void *ctx, const struct rvt_note *n)
{
    struct tok_ctx *t = ctx;
    struct decoded *d = t->d;
    switch (n->kind) {
    case RVT_NOTE_TRAP:
        vec_push(&d->tok, hash4(4, n->value, n->addr, n->reason ^ mix(n->tval)));
        break;
    case RVT_NOTE_DATA:
        vec_push(&d->tok, hash4(5, n->reason, n->addr, n->value));
        break;
    case RVT_NOTE_TIME:
        vec_push(&d->tok, hash4(6, n->value, 0, 0));
        break;
    case RVT_NOTE_GAP:
    case RVT_NOTE_ERROR: {
        unsigned r = n->kind == RVT_NOTE_ERROR ? RVT_GAP_ERROR : n->reason;
        if (!rvt_gap_is_damage(r)) {
            vec_push(&d->tok, hash4(7, r, 0, 0));
            break;
        }
        if (r == RVT_GAP_END)
            d->end_reported = true;
        if (!d->reports++) {
            d->first_report = d->tok.n;
            d->first_offset = n->offset;
            d->first_reason = (uint8_t)r;
            cpy(d->first_text, sizeof d->first_text, n->text ? n->text : "");
        }
        break;
    }
    default:
        break;
    }
    return 0;
}

static int decode_tokens(const struct rvt_codec *c, const void *cfg, const struct input *in, const uint8_t *buf,
                         size_t len, uint64_t max_insns, struct decoded *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct tok_ctx t = {.d = out, .bc = rvt_bcache_new(in->img, 0), .xlen = rvt_img_xlen(in->img)};
    struct rvt_flow_sink sink = {.block = tok_block, .note = tok_note, .ctx = &t};
    /* The damaged copies are trace files: they start where tracing started
     * (a damaged start is damage, docs/decoding.md). */
    struct rvt_decode_options o = {
        .size = sizeof o, .ecall = in->ecall, .max_insns = max_insns, .starts_at_trace_start = true};
    struct rvt_diag d = {0};
    int rc = rvt_decode(c, cfg, in->img, &o, buf, len, &sink, &d);
    if (rc < 0) {
        snprintf(err, errlen, "%s", d.msg);
        /* The decoder gave up: that is a report too (exit status 1). */
        if (!out->reports++) {
            out->first_report = out->tok.n;
            cpy(out->first_text, sizeof out->first_text, d.msg);
        }
    }
    rvt_bcache_free(t.bc);
    return rc;
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        if (n)
            fwrite(p, 1, n, f);
        fclose(f);
    }
}

/* ---- is a silently different decode what the encoder makes of it? --------- */

struct rebuild {
    struct rvt_ing_builder *b;
    struct rvt_recs recs;
    const struct rvt_image *img;
    unsigned xlen;
    struct rvt_bcache *bc;
    bool have_time;
    uint64_t time;
    int err;
    int trap_priv; /* >= 0: the privilege of the trap record being built */
};

/* The builder's records into r->recs.  A trap taken before any instruction
 * retired after a privilege change the trace reported (an xRET straight
 * into an interrupt) is taken at that privilege: the builder would give
 * the trap record the last retired instruction's. */
static int rb_emit(void *ctx, const struct rvt_ing_rec *rec)
{
    struct rebuild *r = ctx;
    struct rvt_ing_rec x = *rec;
    if (r->trap_priv >= 0 && !x.iretire &&
        (x.itype == RVT_ITYPE_EXCEPTION || x.itype == RVT_ITYPE_INTERRUPT))
        x.priv = (uint8_t)r->trap_priv;
    return rvt_recs_push(&r->recs, &x);
}

static int rb_insn(void *ctx, uint64_t pc, const struct rvt_block *blk)
{
    struct rebuild *r = ctx;
    struct rvt_ing_extra x = {0};
    if (r->have_time) {
        x.flags = RVT_ING_HAS_TIME;
        x.time = r->time;
    }
    if (rvt_ing_builder_insn(r->b, pc, -1, blk->priv, blk->context, &x) < 0)
        r->err = 1;
    return 0;
}

/* Where an exception after block b was raised: the successor of its last
 * instruction as far as the code tells. */
static uint64_t epc_after(struct rebuild *r, const struct rvt_block *b)
{
    struct rvt_insn in;
    uint64_t next = b->last + b->last_len;
    if (rvt_img_insn(r->img, b->last, &in) == 0 && rvt_cf_inferable_jump(in.cf))
        return in.target;
    return r->xlen == 32 ? next & 0xffffffffu : next;
}

static int rb_block(void *ctx, const struct rvt_block *b)
{
    struct rebuild *r = ctx;
    if (rvt_block_insns(r->bc, r->xlen, b, rb_insn, r) < 0)
        r->err = 1;
    if (b->end == RVT_END_TRAP &&
        rvt_ing_builder_trap(r->b, (b->flags & RVT_BLK_INTERRUPT) != 0, b->cause, b->tval, epc_after(r, b)) < 0)
        r->err = 1;
    return 0;
}

static int rb_note(void *ctx, const struct rvt_note *n)
{
    struct rebuild *r = ctx;
    if (n->kind == RVT_NOTE_TIME) {
        r->have_time = true;
        r->time = n->value;
    } else if (n->kind == RVT_NOTE_TRAP) {
        r->trap_priv = n->priv;
        if (rvt_ing_builder_trap(r->b, n->reason != 0, (uint32_t)n->value, n->tval, n->addr) < 0)
            r->err = 1;
        r->trap_priv = -1;
    }
    return 0;
}

/* RVT_CAMPAIGN_DEBUG=DIR: where a re-encode departs from the bytes (and, on
 * a clean trace, the rebuilt records from the original ones); both byte
 * streams are written to DIR. */
static void print_rec(const char *tag, size_t k, const struct rvt_ing_rec *a)
{
    fprintf(stderr,
            "  %s %zu: iaddr %" PRIx64 " iretire %u itype %u ilast %u cause %u tval %" PRIx64 " priv %u ctx %" PRIx64
            " flags %x ctype %u\n",
            tag, k, a->iaddr, a->iretire, a->itype, a->ilastsize, a->cause, a->tval, a->priv, a->context, a->flags,
            a->ctype);
}

static void explain_reencode(const struct rvt_recs *got, const struct rvt_recs *orig, const struct rvt_membuf *mb,
                             const uint8_t *buf, size_t len)
{
    size_t i = 0, fb = 0;
    while (i < got->n && i < orig->n && memcmp(&got->r[i], &orig->r[i], sizeof got->r[i]) == 0)
        i++;
    while (fb < mb->len && fb < len && mb->data[fb] == buf[fb])
        fb++;
    fprintf(stderr,
            "re-encode: %zu records (original %zu), first difference at record %zu; %zu bytes (original %zu), first "
            "difference at byte 0x%zx\n",
            got->n, orig->n, i, mb->len, len, fb);
    const char *dir = getenv("RVT_CAMPAIGN_DEBUG");
    char path[700];
    snprintf(path, sizeof path, "%s/reencoded.bin", dir);
    write_file(path, mb->data, mb->len);
    snprintf(path, sizeof path, "%s/damaged.bin", dir);
    write_file(path, buf, len);
    fprintf(stderr, "  (both in %s)\n", dir);
    for (size_t k = i; k < i + 2; k++) {
        if (k < got->n)
            print_rec("rebuilt ", k, &got->r[k]);
        if (k < orig->n)
            print_rec("original", k, &orig->r[k]);
    }
}

/* A trap the ingress builder reports as its own record (nothing retired,
 * at the faulting address) after a record whose last instruction needs no
 * report (no branch outcome, no call, no uninferable target): the E-Trace
 * ingress may as well report it in that record ("an exception that traps
 * occurred following the final retired instruction in the block"), the
 * same execution.  An encoder may then place a periodic sync differently
 * (at the boundary before the trap record, or with the trap's message).
 * Merge record t into t - 1 if that is such a pair. */
static bool merge_trap(struct rvt_recs *v, size_t t)
{
    if (t == 0 || t >= v->n)
        return false;
    struct rvt_ing_rec *a = &v->r[t - 1], *b = &v->r[t];
    bool plain = a->itype == RVT_ITYPE_NONE || a->itype == RVT_ITYPE_JUMP_INF || a->itype == RVT_ITYPE_OTHER_INF;
    if (b->iretire || (b->itype != RVT_ITYPE_EXCEPTION && b->itype != RVT_ITYPE_INTERRUPT) || !a->iretire || !plain)
        return false;
    a->itype = b->itype;
    a->cause = b->cause;
    a->tval = b->tval;
    memmove(b, b + 1, (v->n - t - 1) * sizeof *b);
    v->n--;
    return true;
}

/* Re-encode the records; if the bytes differ where a trap record could
 * have been reported in the record before it, do so and try again. */
static int reencode_matches(const struct rvt_codec *c, const void *cfg, struct rvt_recs *recs, const uint8_t *buf,
                            size_t len, struct rvt_membuf *mb)
{
    size_t *starts = malloc((recs->n + 1) * sizeof *starts);
    int res = -1;
    char err[700];
    for (int round = 0; starts && round < 16; round++) {
        rvt_membuf_free(mb);
        rvt_membuf_init(mb);
        if (encode_where(c, cfg, recs, mb, starts, err, sizeof err) < 0)
            break;
        size_t fb = 0;
        while (fb < mb->len && fb < len && mb->data[fb] == buf[fb])
            fb++;
        if (mb->len == len && fb == len) {
            res = 1;
            break;
        }
        res = 0;
        /* The record whose put wrote the first differing byte. */
        size_t i = 0;
        while (i < recs->n && starts[i + 1] <= fb)
            i++;
        if (!merge_trap(recs, i) && !merge_trap(recs, i + 1))
            break;
    }
    free(starts);
    return res;
}

/* The family's listing of a trace (every unit and field), NULL when the
 * family has no dump or the listing reports damage. */
static char *listing(const struct rvt_codec *c, const void *cfg, const uint8_t *buf, size_t len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = c->dump ? open_memstream(&text, &n) : NULL;
    if (!f)
        return NULL;
    struct rvt_diag d = {0};
    int rc = c->dump(cfg, buf, len, f, &d);
    fclose(f);
    if (rc < 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Do two traces list the same (the family's dump: every unit and field,
 * with its offset)?  Bytes that differ but list the same differ only in
 * bits that carry nothing, such as the unused bits of an E-Trace branch
 * map ("wasted bits", payload.adoc), which an encoder may fill as it likes
 * and no decoder may read. */
static bool same_listing(const struct rvt_codec *c, const void *cfg, const uint8_t *a, size_t alen, const uint8_t *b,
                         size_t blen)
{
    char *la = listing(c, cfg, a, alen), *lb = la ? listing(c, cfg, b, blen) : NULL;
    bool same = la && lb && strcmp(la, lb) == 0;
    free(la);
    free(lb);
    return same;
}

/* A listing without its offsets, summary lines and filler: the units in
 * order.  The filler carries nothing about the execution:
 *  - E-Trace null packets: "Insertion of null packets typically occurs at
 *    a trace sink" and "a sufficiently long run of null packets (due to a
 *    lack of normal packets to send) may also serve as an 'opportunistic'
 *    synchronization sequence" (e-trace-encap, encapsulation.adoc): how
 *    many nulls stand between two normal packets ("M-1 null.idles and 1
 *    null.alignment (M > 0)", which the decoder checks) is the sink's
 *    choice;
 *  - CDL skip nybbles: "a nybble of 0 is ignored" (seed 000) wherever it
 *    stands (a run as long as a sync mark lists as the mark, and stays). */
static char *units_only(char *text)
{
    char *out = text, *line = text;
    while (*line) {
        char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
        char *body = line;
        if (*body != '#') {
            body += strspn(body, "0x123456789abcdef.");
            body += strspn(body, " ");
        }
        size_t skip = (size_t)(body - line);
        if (*body != '#' && strncmp(body, "null ", 5) != 0 && strncmp(body, "skip ", 5) != 0) {
            memmove(out, body, n - skip);
            out += n - skip;
        }
        line += n;
    }
    *out = 0;
    return text;
}

/* Do two E-Trace or CDL traces hold the same units, differing only in the
 * filler between them (units_only)? */
static bool same_units(const struct rvt_codec *c, const void *cfg, const uint8_t *a, size_t alen, const uint8_t *b,
                       size_t blen)
{
    if (strcmp(c->name, "etrace") != 0 && strcmp(c->name, "cdl") != 0)
        return false;
    char *la = listing(c, cfg, a, alen), *lb = la ? listing(c, cfg, b, blen) : NULL;
    bool same = la && lb && strcmp(units_only(la), units_only(lb)) == 0;
    free(la);
    free(lb);
    return same;
}

/* 1 inherent, 0 not, -1 could not tell (counted as not). */
static int inherent(const struct rvt_codec *c, const void *cfg, const struct input *in, const uint8_t *buf, size_t len,
                    uint64_t max_insns)
{
    struct rebuild r = {.img = in->img, .xlen = rvt_img_xlen(in->img), .trap_priv = -1};
    r.bc = rvt_bcache_new(in->img, 0);
    struct rvt_ing_builder_config bc = {.size = sizeof bc,
                                        .image = in->img,
                                        .xlen = r.xlen,
                                        .ecall_mode = RVT_ECALL_SEQUENTIAL,
                                        .merge_blocks = true,
                                        .emit = rb_emit,
                                        .emit_ctx = &r};
    r.b = rvt_ing_builder_new(&bc);
    struct rvt_flow_sink sink = {.block = rb_block, .note = rb_note, .ctx = &r};
    struct rvt_decode_options o = {
        .size = sizeof o, .ecall = in->ecall, .max_insns = max_insns, .starts_at_trace_start = true};
    struct rvt_diag d = {0};
    int res = -1;
    if (r.b && rvt_decode(c, cfg, in->img, &o, buf, len, &sink, &d) == 0 && !r.err &&
        rvt_ing_builder_finish(r.b) == 0) {
        struct rvt_membuf mb;
        rvt_membuf_init(&mb);
        res = reencode_matches(c, cfg, &r.recs, buf, len, &mb);
        if (res == 0 && (same_listing(c, cfg, mb.data, mb.len, buf, len) ||
                         same_units(c, cfg, mb.data, mb.len, buf, len)))
            res = 1;
        if (getenv("RVT_CAMPAIGN_DEBUG") && res != 1)
            explain_reencode(&r.recs, &in->recs, &mb, buf, len);
        rvt_membuf_free(&mb);
    }
    rvt_ing_builder_free(r.b);
    rvt_bcache_free(r.bc);
    rvt_recs_free(&r.recs);
    return res;
}

/* ---- damage --------------------------------------------------------------------- */

enum kind { K_FLIP1, K_FLIP8, K_TRUNC, K_INSERT, K_DELETE, K__N };
static const char *const kind_name[K__N] = {"flip1", "flip8", "trunc", "insert", "delete"};

struct damage {
    enum kind kind;
    size_t at;    /* byte offset */
    unsigned bit; /* flip1 */
    size_t run;   /* insert/delete length */
    char text[120];
};

/* Damage a copy of b into *out (malloc'd). */
static size_t apply_damage(const uint8_t *b, size_t len, struct rng *g, unsigned kinds, struct damage *dm,
                           uint8_t **out)
{
    enum kind k;
    do
        k = (enum kind)rnd_below(g, K__N);
    while (!(kinds >> k & 1));
    memset(dm, 0, sizeof *dm);
    dm->kind = k;
    uint8_t *p = malloc(len + 32);
    memcpy(p, b, len);
    size_t n = len;
    switch (k) {
    case K_FLIP1:
        dm->at = rnd_below(g, len);
        dm->bit = (unsigned)rnd_below(g, 8);
        p[dm->at] ^= (uint8_t)(1u << dm->bit);
        snprintf(dm->text, sizeof dm->text, "flip bit %u of byte 0x%zx", dm->bit, dm->at);
        break;
    case K_FLIP8:
        dm->at = rnd_below(g, len);
        p[dm->at] ^= 0xff;
        snprintf(dm->text, sizeof dm->text, "flip all 8 bits of byte 0x%zx", dm->at);
        break;
    case K_TRUNC:
        dm->at = rnd_below(g, len); /* keep [0, at) */
        n = dm->at;
        snprintf(dm->text, sizeof dm->text, "truncate to 0x%zx bytes (of 0x%zx)", dm->at, len);
        break;
    case K_INSERT: {
        dm->at = rnd_below(g, len + 1);
        dm->run = 1 + rnd_below(g, 16);
        memmove(p + dm->at + dm->run, p + dm->at, len - dm->at);
        char hex[40] = "";
        for (size_t i = 0; i < dm->run; i++) {
            p[dm->at + i] = (uint8_t)rnd(g);
            if (i < 16)
                snprintf(hex + 2 * i, sizeof hex - 2 * i, "%02x", p[dm->at + i]);
        }
        n = len + dm->run;
        snprintf(dm->text, sizeof dm->text, "insert %zu bytes %s at 0x%zx", dm->run, hex, dm->at);
        break;
    }
    case K_DELETE:
        dm->at = rnd_below(g, len);
        dm->run = 1 + rnd_below(g, 16);
        if (dm->run > len - dm->at)
            dm->run = len - dm->at;
        memmove(p + dm->at, p + dm->at + dm->run, len - dm->at - dm->run);
        n = len - dm->run;
        snprintf(dm->text, sizeof dm->text, "delete %zu bytes at 0x%zx", dm->run, dm->at);
        break;
    default:
        break;
    }
    *out = p;
    return n;
}

/* ---- classification ---------------------------------------------------------- */

enum cls { C_CRASH, C_TIMEOUT, C_UNAFFECTED, C_EXACT, C_BACK, C_NOTBACK, C_INHERENT, C_BUG, C__N };
static const char *const cls_name[C__N] = {"crash",         "timeout",  "unaffected",      "exact",
                                           "back on track", "not back", "silent inherent", "SILENT BUG"};

struct result {
    int cls;
    bool late;           /* wrong instructions before the first report */
    bool trunc_reported; /* K_TRUNC: the cut was reported */
    uint64_t insns, reports, first_offset;
    size_t prefix; /* tokens equal to the clean decode's from the start */
    char first_text[200];
    char err[200];
};

static int classify(const struct decoded *o, const struct decoded *d, struct result *r)
{
    size_t P = 0, S = 0;
    size_t no = o->tok.n, nd = d->tok.n;
    while (P < no && P < nd && o->tok.v[P] == d->tok.v[P])
        P++;
    while (S < no && S < nd && o->tok.v[no - 1 - S] == d->tok.v[nd - 1 - S])
        S++;
    r->prefix = P;
    bool reported = d->reports > 0 || d->insns == 0;
    if (!reported)
        return (P == no && nd == no) ? C_UNAFFECTED : C_BUG; /* C_BUG until the inherent check */
    size_t fr = d->reports ? d->first_report : 0;
    r->late = fr > P;
    if (P == nd || (!r->late && nd - fr <= S))
        return C_EXACT;
    return S > 0 ? C_BACK : C_NOTBACK;
}

/* ---- the run ---------------------------------------------------------------------- */

struct opts {
    unsigned trials;
    uint64_t seed;
    const char *sets;
    const char *family;
    const char *set;
    bool real, gen;
    uint64_t real_insns, gen_insns;
    unsigned timeout;
    unsigned kinds;
    const char *out;
    bool markdown, expect_clean, verbose;
    unsigned expect_back; /* damage kinds after which the output must come back (bit per enum kind) */
    const char *only;
    int expect_cls; /* --expect: every trial of this class (-1: any) */
};

struct tally {
    uint64_t n, cls[C__N], late, trunc, trunc_reported;
};

/* One trial in a child process; the result comes back through a pipe. */
static void run_trial(const struct opts *op, const struct optset *s, const void *cfg, const struct input *in,
                      const uint8_t *clean, size_t clen, const struct decoded *o, unsigned trial, struct result *res,
                      struct damage *dm, uint8_t **dbuf, size_t *dlen)
{
    /* Each trial's damage depends only on the seed, the set, the input and
     * the trial number, so one can be replayed alone (--only). */
    struct rng g = {hash4(op->seed, trial, 0, 0)};
    for (const char *c = s->label; *c; c++)
        g.s = mix(g.s ^ (uint8_t)*c);
    for (const char *c = in->name; *c; c++)
        g.s = mix(g.s ^ (uint8_t)*c);
    *dlen = apply_damage(clean, clen, &g, op->kinds, dm, dbuf);
    memset(res, 0, sizeof *res);
    int fd[2];
    if (pipe(fd) < 0) {
        perror("pipe");
        exit(2);
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    uint64_t max_insns = 4 * o->insns + (1u << 20);
    if (pid == 0) {
        close(fd[0]);
        alarm(op->timeout);
        struct decoded d;
        struct result r;
        memset(&r, 0, sizeof r);
        decode_tokens(s->codec, cfg, in, *dbuf, *dlen, max_insns, &d, r.err, sizeof r.err);
        r.cls = classify(o, &d, &r);
        if (r.cls == C_BUG && inherent(s->codec, cfg, in, *dbuf, *dlen, max_insns) == 1)
            r.cls = C_INHERENT;
        r.insns = d.insns;
        r.reports = d.reports;
        r.first_offset = d.first_offset;
        /* A decode with no instruction is reported too ("nothing decodable",
         * exit status 3: e.g. a cut inside the leading sync sequence). */
        r.trunc_reported = d.end_reported || d.reports || d.insns == 0;
        cpy(r.first_text, sizeof r.first_text, d.first_text);
        ssize_t w = write(fd[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 3);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], res, sizeof *res);
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st) || got != (ssize_t)sizeof *res) {
        memset(res, 0, sizeof *res);
        res->cls = WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM ? C_TIMEOUT : C_CRASH;
        snprintf(res->err, sizeof res->err, "%s",
                 WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "the child exited without a result");
    }
}

static void reproducer(const struct opts *op, const struct optset *s, const struct input *in, unsigned trial,
                       const struct damage *dm, const uint8_t *p, size_t n, const struct result *r)
{
    char base[800];
    snprintf(base, sizeof base, "%s/%s%u-%s-%s-%u", op->out ? op->out : ".", s->codec->name, s->index, in->name,
             kind_name[dm->kind], trial);
    for (char *c = base + strlen(op->out ? op->out : "."); *c; c++)
        if (*c == ' ' || *c == ',' || *c == '(' || *c == ')')
            *c = '_';
    char path[900];
    snprintf(path, sizeof path, "%s.bin", base);
    if (op->out)
        write_file(path, p, n);
    printf("  %s: set '%s' input %s trial %u (seed %" PRIu64 "): %s -> %" PRIu64 " instructions, %" PRIu64
           " damage reports, first difference at token %zu%s%s%s%s\n",
           cls_name[r->cls], s->label, in->name, trial, op->seed, dm->text, r->insns, r->reports, r->prefix,
           r->first_text[0] ? "; first report: " : "", r->first_text, r->err[0] ? "; " : "", r->err);
    if (op->out)
        printf("    rvtrace decode %s%s --elf %s %s --output count\n", s->cmdline,
               in->ecall == RVT_FLOW_ECALL_TRAP ? " --ecall trap" : "", in->elf, path);
}

static int run(const struct opts *op, struct input *inputs, size_t nin, struct optset *sets, size_t nsets)
{
    int bad = 0;
    if (op->markdown) {
        printf("| set | input | bytes | trials | crash | timeout | unaffected | exact | back on track | not back | "
               "late | silent inherent | SILENT BUG | truncations reported |\n");
        printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    }
    struct tally fam[8];
    memset(fam, 0, sizeof fam);
    for (size_t si = 0; si < nsets; si++) {
        const struct optset *s = &sets[si];
        if (op->family && strcmp(op->family, s->codec->name) != 0)
            continue;
        if (op->set && !strstr(s->label, op->set))
            continue;
        for (size_t ii = 0; ii < nin; ii++) {
            struct input *in = &inputs[ii];
            char err[600] = "";
            void *cfg = make_cfg(s, in, err, sizeof err);
            struct rvt_membuf mb;
            rvt_membuf_init(&mb);
            struct decoded o;
            memset(&o, 0, sizeof o);
            if (!cfg || encode(s->codec, cfg, &in->recs, &mb, err, sizeof err) < 0 ||
                decode_tokens(s->codec, cfg, in, mb.data, mb.len, RVT_DECODE_UNLIMITED, &o, err, sizeof err) < 0 ||
                o.reports || o.insns == 0) {
                printf("%s%s | %s | clean round trip fails: %s%s\n", op->markdown ? "| " : "", s->label, in->name,
                       err[0] ? err : o.first_text, op->markdown ? " |" : "");
                bad = 1;
                goto next;
            }
            /* The inherence test re-encodes a decode: on the clean bytes it
             * must give them back, or its verdicts mean nothing here. */
            bool reenc = inherent(s->codec, cfg, in, mb.data, mb.len, RVT_DECODE_UNLIMITED) == 1;
            if (!reenc) {
                printf("  (%s, %s: re-encoding the clean decode does not give the clean bytes back: silent results "
                       "count as bugs unchecked)\n",
                       s->label, in->name);
                bad = 1; /* the decode lost something the trace carries, or the check cannot work */
            }
            struct tally t;
            memset(&t, 0, sizeof t);
            for (unsigned trial = 0; trial < op->trials; trial++) {
                if (op->only) {
                    char want[300];
                    snprintf(want, sizeof want, "%s/%s/%u", s->label, in->name, trial);
                    if (strcmp(want, op->only) != 0)
                        continue;
                }
                struct result r;
                struct damage dm;
                uint8_t *db = NULL;
                size_t dl = 0;
                run_trial(op, s, cfg, in, mb.data, mb.len, &o, trial, &r, &dm, &db, &dl);
                t.n++;
                t.cls[r.cls]++;
                t.late += r.late;
                if (dm.kind == K_TRUNC) {
                    t.trunc++;
                    t.trunc_reported += r.trunc_reported || r.cls == C_INHERENT;
                }
                bool is_bug = r.cls == C_CRASH || r.cls == C_TIMEOUT || r.cls == C_BUG ||
                              (dm.kind == K_TRUNC && !r.trunc_reported && r.cls != C_INHERENT) ||
                              (r.cls == C_NOTBACK && (op->expect_back >> dm.kind & 1));
                if (is_bug || op->verbose)
                    reproducer(op, s, in, trial, &dm, db, dl, &r);
                bad |= is_bug;
                if (op->expect_cls >= 0 && r.cls != op->expect_cls) {
                    printf("  expected %s: set '%s' input %s trial %u is %s\n", cls_name[op->expect_cls], s->label,
                           in->name, trial, cls_name[r.cls]);
                    bad = 1;
                }
                free(db);
            }
            for (unsigned f = 0; f < 8; f++) {
                const struct rvt_codec *const *l = rvt_codec_list();
                if (l[f] == s->codec) {
                    fam[f].n += t.n;
                    for (int c = 0; c < C__N; c++)
                        fam[f].cls[c] += t.cls[c];
                    fam[f].late += t.late;
                    fam[f].trunc += t.trunc;
                    fam[f].trunc_reported += t.trunc_reported;
                    break;
                }
                if (!l[f])
                    break;
            }
            printf("%s%s | %s | %zu | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64
                   " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 "%s | %" PRIu64 "/%" PRIu64 "%s\n",
                   op->markdown ? "| " : "", s->label, in->name, mb.len, t.n, t.cls[C_CRASH], t.cls[C_TIMEOUT],
                   t.cls[C_UNAFFECTED], t.cls[C_EXACT], t.cls[C_BACK], t.cls[C_NOTBACK], t.late, t.cls[C_INHERENT],
                   t.cls[C_BUG], reenc ? "" : " (unchecked)", t.trunc_reported, t.trunc, op->markdown ? " |" : "");
            fflush(stdout);
        next:
            rvt_codec_cfg_free(cfg);
            rvt_membuf_free(&mb);
            free(o.tok.v);
        }
    }
    printf("\n%sper family%s\n\n", op->markdown ? "**" : "", op->markdown ? "**" : "");
    if (op->markdown) {
        printf("| family | trials | crash | timeout | unaffected | exact | back on track | not back | late | silent "
               "inherent | SILENT BUG | truncations reported |\n");
        printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    }
    const struct rvt_codec *const *l = rvt_codec_list();
    for (unsigned f = 0; l[f] && f < 8; f++) {
        const struct tally *t = &fam[f];
        if (!t->n)
            continue;
        printf("%s%s | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64
               " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 "/%" PRIu64 "%s\n",
               op->markdown ? "| " : "", l[f]->name, t->n, t->cls[C_CRASH], t->cls[C_TIMEOUT], t->cls[C_UNAFFECTED],
               t->cls[C_EXACT], t->cls[C_BACK], t->cls[C_NOTBACK], t->late, t->cls[C_INHERENT], t->cls[C_BUG],
               t->trunc_reported, t->trunc, op->markdown ? " |" : "");
    }
    return bad;
}

/* ---- inputs ------------------------------------------------------------------ */

static int load_real(struct input *in, uint64_t max_insns, const char *tmp)
{
    char *elf = rvt_test_data("real/bzip2.xz"), *ing = rvt_test_data("real/bzip2-9.ing.xz");
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "command -v xz >/dev/null && xz -dc '%s' > '%s/bzip2' && xz -dc '%s' > '%s/bzip2-9.ing'",
             elf, tmp, ing, tmp);
    free(elf);
    free(ing);
    if (system(cmd) != 0) {
        fprintf(stderr, "rvt_campaign: cannot unpack the real capture (xz missing?)\n");
        return -1;
    }
    in->name = "real";
    snprintf(in->elf, sizeof in->elf, "%s/bzip2", tmp);
    in->img = rvt_img_new();
    if (rvt_img_load_elf(in->img, in->elf) < 0) {
        fprintf(stderr, "rvt_campaign: %s\n", rvt_img_error(in->img));
        return -1;
    }
    char path[700];
    snprintf(path, sizeof path, "%s/bzip2-9.ing", tmp);
    struct rvt_diag d = {0};
    if (rvt_recs_load(&in->recs, path, in->img, &d) < 0) {
        fprintf(stderr, "rvt_campaign: %s\n", d.msg);
        return -1;
    }
    if (max_insns) { /* keep a prefix of about max_insns instructions */
        struct rvt_bcache *bc = rvt_bcache_new(in->img, 0);
        uint64_t n = 0;
        size_t i = 0;
        for (; i < in->recs.n && n < max_insns; i++) {
            uint64_t k = 0;
            if (in->recs.r[i].iretire)
                rvt_ing_count_insns(&in->recs.r[i], bc, &k);
            n += k;
        }
        in->recs.n = i;
        rvt_bcache_free(bc);
    }
    in->ecall = RVT_FLOW_ECALL_SEQUENTIAL;
    return 0;
}

static int load_gen(struct input *in, uint64_t insns, uint64_t seed, const char *tmp)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = seed;
    gc.insns = insns;
    gc.features |= RVT_GEN_TRAPS | RVT_GEN_INTERRUPTS | RVT_GEN_PRIV | RVT_GEN_CONTEXT;
    struct rvt_gen_program *p = NULL;
    struct rvt_diag d = {0};
    if (rvt_gen_program_new(&p, &gc, &d) < 0) {
        fprintf(stderr, "rvt_campaign: gen: %s\n", d.msg);
        return -1;
    }
    in->name = "gen";
    snprintf(in->elf, sizeof in->elf, "%s/gen.elf", tmp);
    if (rvt_gen_write_elf(p, in->elf, &d) < 0 || !(in->img = rvt_gen_image(p)) ||
        rvt_recs_gen(&in->recs, p, &gc, true, &d) < 0) {
        fprintf(stderr, "rvt_campaign: gen: %s\n", d.msg);
        rvt_gen_program_free(p);
        return -1;
    }
    rvt_gen_program_free(p);
    in->ecall = RVT_FLOW_ECALL_TRAP;
    return 0;
}

static unsigned parse_kinds(const char *s)
{
    unsigned m = 0;
    for (int k = 0; k < K__N; k++)
        if (strstr(s, kind_name[k]))
            m |= 1u << k;
    return m;
}

int main(int argc, char **argv)
{
    struct opts op = {.trials = 100,
                      .seed = 1,
                      .real = true,
                      .gen = true,
                      .gen_insns = 100000,
                      .timeout = 20,
                      .kinds = (1u << K__N) - 1,
                      .expect_cls = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (strcmp(a, name) == 0 && v && ++i)
        if (ARG("--trials"))
            op.trials = (unsigned)strtoul(v, NULL, 0);
        else if (ARG("--seed"))
            op.seed = strtoull(v, NULL, 0);
        else if (ARG("--sets"))
            op.sets = v;
        else if (ARG("--family"))
            op.family = v;
        else if (ARG("--set"))
            op.set = v;
        else if (ARG("--inputs")) {
            op.real = strstr(v, "real") != NULL;
            op.gen = strstr(v, "gen") != NULL;
        } else if (ARG("--real-insns"))
            op.real_insns = strtoull(v, NULL, 0);
        else if (ARG("--gen-insns"))
            op.gen_insns = strtoull(v, NULL, 0);
        else if (ARG("--timeout"))
            op.timeout = (unsigned)strtoul(v, NULL, 0);
        else if (ARG("--kinds"))
            op.kinds = parse_kinds(v);
        else if (ARG("--expect-back"))
            op.expect_back = parse_kinds(v);
        else if (ARG("--out"))
            op.out = v;
        else if (ARG("--only"))
            op.only = v;
        else if (ARG("--expect")) {
            for (int k = 0; k < C__N; k++)
                if (strcmp(v, cls_name[k]) == 0)
                    op.expect_cls = k;
            if (op.expect_cls < 0) {
                fprintf(stderr, "rvt_campaign: --expect: unknown class '%s'\n", v);
                return 2;
            }
        }
        else if (strcmp(a, "--markdown") == 0)
            op.markdown = true;
        else if (strcmp(a, "--expect-clean") == 0)
            op.expect_clean = true;
        else if (strcmp(a, "--verbose") == 0)
            op.verbose = true;
        else {
            fprintf(stderr, "usage: rvt_campaign [--trials N] [--seed S] [--sets FILE] [--family F] [--set TEXT] "
                            "[--inputs real,gen] [--real-insns N] [--gen-insns N] [--timeout SEC] [--kinds LIST] "
                            "[--out DIR] [--only SET/INPUT/TRIAL] [--expect CLASS] [--markdown] [--expect-clean] "
                            "[--expect-back KINDS] "
                            "[--verbose]\n");
            return 2;
        }
#undef ARG
    }
    if (!op.kinds) {
        fprintf(stderr, "rvt_campaign: --kinds: none of flip1, flip8, trunc, insert, delete\n");
        return 2;
    }
    char defsets[600];
    if (!op.sets) {
        const char *src = getenv("RVT_SRC");
        snprintf(defsets, sizeof defsets, "%s/tests/integrity/campaign-sets.txt", src ? src : ".");
        op.sets = defsets;
    }
    if (op.out)
        mkdir(op.out, 0777);
    struct optset *sets = NULL;
    size_t nsets = 0;
    if (load_sets(op.sets, &sets, &nsets) < 0)
        return 2;
    const char *tmp = rvt_test_tmpdir();
    struct input inputs[2];
    memset(inputs, 0, sizeof inputs);
    size_t nin = 0;
    if (op.real && load_real(&inputs[nin], op.real_insns, tmp) == 0)
        nin++;
    if (op.gen && load_gen(&inputs[nin], op.gen_insns, op.seed, tmp) == 0)
        nin++;
    if (!nin)
        return 2;
    for (size_t i = 0; i < nin; i++)
        if (op.out) { /* the ELF beside the reproducers */
            char cmd[1600];
            snprintf(cmd, sizeof cmd, "cp '%s' '%s/%s.elf'", inputs[i].elf, op.out, inputs[i].name);
            if (system(cmd) == 0)
                snprintf(inputs[i].elf, sizeof inputs[i].elf, "%s/%s.elf", op.out, inputs[i].name);
        }
    printf("corruption campaign: seed %" PRIu64 ", %u trials per set and input, kinds", op.seed, op.trials);
    for (int k = 0; k < K__N; k++)
        if (op.kinds >> k & 1)
            printf(" %s", kind_name[k]);
    for (size_t i = 0; i < nin; i++) {
        struct rvt_bcache *bc = rvt_bcache_new(inputs[i].img, 0);
        uint64_t n = 0;
        for (size_t r = 0; r < inputs[i].recs.n; r++) {
            uint64_t k = 0;
            if (inputs[i].recs.r[r].iretire)
                rvt_ing_count_insns(&inputs[i].recs.r[r], bc, &k);
            n += k;
        }
        rvt_bcache_free(bc);
        printf("; %s: %" PRIu64 " instructions", inputs[i].name, n);
    }
    printf("\n\n");
    if (!op.markdown)
        printf("set | input | bytes | trials | crash | timeout | unaffected | exact | back on track | not back | "
               "late | silent inherent | SILENT BUG | truncations reported\n");
    int bad = run(&op, inputs, nin, sets, nsets);
    for (size_t i = 0; i < nin; i++) {
        rvt_img_free(inputs[i].img);
        rvt_recs_free(&inputs[i].recs);
    }
    for (size_t i = 0; i < nsets; i++)
        free(sets[i].storage);
    free(sets);
    return (op.expect_clean || op.expect_cls >= 0) && bad ? 1 : 0;
}
