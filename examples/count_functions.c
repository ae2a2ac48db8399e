/* Decode a trace and count the instructions each function executed.
 *
 *   count_functions FAMILY PROGRAM TRACE [OPTION=VALUE ...]
 *
 * FAMILY is ntrace, etrace, cdl or dbg; PROGRAM the traced program's ELF;
 * OPTION=VALUE the family's options as `rvtrace decode --help --format
 * FAMILY` lists them, without the dashes (a flag takes the value 1).  From
 * the top of the rvtrace sources:
 *
 *   cc count_functions.c $(pkg-config --cflags --libs rvtrace) -o count_functions
 *   ./count_functions ntrace tests/data/ntrace-t1/test.elf tests/data/ntrace-t1/test-NEX.bin
 */
#include <rvtrace/rvtrace.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct func {
    const struct rvt_symbol *sym; /* NULL: code outside every symbol */
    uint64_t insns;
};

struct counts {
    const struct rvt_image *img;
    struct rvt_bcache *code;      /* decoded code, to visit a block's instructions */
    struct func *f;
    size_t n, cap, last;          /* last: the function counted most recently */
    uint64_t errors;
};

/* One retired instruction: add it to its function. */
static int count_insn(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    (void)b;
    struct counts *c = ctx;
    const struct rvt_symbol *s = rvt_img_symbol_at(c->img, pc);
    if (c->last >= c->n || c->f[c->last].sym != s) {
        for (c->last = 0; c->last < c->n && c->f[c->last].sym != s; c->last++)
            ;
        if (c->last == c->n) {
            if (c->n == c->cap) {
                size_t cap = c->cap ? 2 * c->cap : 64;
                struct func *f = realloc(c->f, cap * sizeof *f);
                if (!f)
                    return -RVT_ERR_NOMEM; /* nonzero: stops the decode */
                c->f = f;
                c->cap = cap;
            }
            c->f[c->n++] = (struct func){s, 0};
        }
    }
    c->f[c->last].insns++;
    return 0;
}

/* The decoder hands over blocks: runs of instructions retired in sequence. */
static int on_block(void *ctx, const struct rvt_block *b)
{
    struct counts *c = ctx;
    return rvt_block_insns(c->code, rvt_img_xlen(c->img), b, count_insn, c);
}

/* Damage in the trace is reported here (the decoder resynchronises). */
static int on_note(void *ctx, const struct rvt_note *n)
{
    struct counts *c = ctx;
    if (n->kind == RVT_NOTE_ERROR) {
        fprintf(stderr, "decode error at trace offset 0x%llx: %s\n", (unsigned long long)n->offset,
                n->text ? n->text : "");
        c->errors++;
    }
    return 0;
}

static int by_count(const void *a, const void *b)
{
    const struct func *x = a, *y = b;
    return x->insns < y->insns ? 1 : x->insns > y->insns ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s FAMILY PROGRAM TRACE [OPTION=VALUE ...]\n", argv[0]);
        return 2;
    }
    int status = 1;
    struct rvt_diag diag = {0};
    struct counts c = {0};
    uint8_t *trace = NULL;
    size_t len = 0;
    void *cfg = NULL;
    struct rvt_image *img = rvt_img_new();
    const struct rvt_codec *family = rvt_codec_find(argv[1]);
    if (!img) {
        fprintf(stderr, "out of memory\n");
        goto out;
    }
    if (!family) {
        fprintf(stderr, "%s: unknown trace family\n", argv[1]);
        goto out;
    }
    if (rvt_img_load_elf(img, argv[2]) < 0) {
        fprintf(stderr, "%s\n", rvt_img_error(img));
        goto out;
    }
    /* The family's configuration: options, then finished for the program. */
    cfg = rvt_codec_cfg_new(family);
    if (!cfg) {
        fprintf(stderr, "out of memory\n");
        goto out;
    }
    for (int i = 4; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        char key[64];
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - argv[i]) : (int)strlen(argv[i]), argv[i]);
        if (family->cfg_set(cfg, key, eq ? eq + 1 : "1", &diag) < 0) {
            fprintf(stderr, "%s: %s\n", argv[i], diag.msg);
            goto out;
        }
    }
    if (family->cfg_finish && family->cfg_finish(cfg, rvt_img_xlen(img), img, &diag) < 0) {
        fprintf(stderr, "%s options: %s\n", argv[1], diag.msg);
        goto out;
    }
    if (rvt_read_file(argv[3], &trace, &len, &diag) < 0) {
        fprintf(stderr, "%s\n", diag.msg);
        goto out;
    }
    c.img = img;
    c.code = rvt_bcache_new(img, 0);
    if (!c.code) {
        fprintf(stderr, "out of memory\n");
        goto out;
    }
    struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = &c};
    if (rvt_decode_buffer(family, cfg, img, -1, trace, len, &sink, &diag) < 0) {
        fprintf(stderr, "%s: %s\n", argv[3], diag.msg);
        goto out;
    }
    qsort(c.f, c.n, sizeof *c.f, by_count);
    uint64_t total = 0;
    for (size_t i = 0; i < c.n; i++) {
        printf("%12llu  %s\n", (unsigned long long)c.f[i].insns, c.f[i].sym ? c.f[i].sym->name : "?");
        total += c.f[i].insns;
    }
    printf("%12llu  instructions in %zu functions\n", (unsigned long long)total, c.n);
    if (c.errors)
        fprintf(stderr, "%s: %llu decode errors: the counts miss the damaged parts\n", argv[3],
                (unsigned long long)c.errors);
    status = c.errors ? 1 : 0;
out:
    free(c.f);
    rvt_bcache_free(c.code);
    free(trace);
    if (cfg)
        rvt_codec_cfg_free(cfg);
    rvt_img_free(img);
    return status;
}
