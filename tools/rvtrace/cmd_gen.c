/* rvtrace gen: a random program (ELF) and an execution of it (native
 * ingress records, PC list, PC+instruction list). */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct num_opt {
    const char *name;
    size_t off;      /* offset in struct rvt_gen_config */
    unsigned width;  /* 4 or 8 bytes */
    const char *help;
};

#define NOPT(n, field, h) {n, offsetof(struct rvt_gen_config, field), sizeof(((struct rvt_gen_config *)0)->field), h}
static const struct num_opt g_nums[] = {
    NOPT("--seed", seed, "program and execution seed (default 1)"),
    NOPT("--run-seed", run_seed, "execution choices only (default: from --seed)"),
    NOPT("--xlen", xlen, "32 or 64 (default 64)"),
    NOPT("--insns", insns, "instructions the execution retires (default 100000)"),
    NOPT("--functions", functions, "random functions in the program (4..4000, default 40)"),
    NOPT("--processes", processes, "processes with --context (2..16, default 3)"),
    NOPT("--max-recursion", max_recursion, "recursion depth bound (1..16, default 6)"),
    NOPT("--max-loop", max_loop_iters, "loop trip count bound (1..64, default 12)"),
    NOPT("--max-nesting", max_nesting, "trap depth up to which handlers re-enable interrupts (1..8, default 3)"),
    NOPT("--max-stmts", max_stmts, "statements per function body (1..200, default 24)"),
    NOPT("--cost-limit", cost_limit, "expected instructions per call of a function, cap (default 3000)"),
    NOPT("--p-compressed", p_compressed, "% of instructions with a 16-bit form that use it (default 50)"),
    NOPT("--p-call", p_call, "weight of call statements (default 14)"),
    NOPT("--p-indirect", p_indirect, "% of calls/tail calls through a register (default 35)"),
    NOPT("--p-taken", p_branch_taken, "mean % taken of data-dependent branches (default 50)"),
    NOPT("--p-trap", p_trap, "per mille of statements raising an exception (default 5)"),
    NOPT("--p-syscall", p_syscall, "per mille of statements making a system call (default 4)"),
    NOPT("--p-longjmp", p_longjmp, "% of longjmp sites that unwind (default 30)"),
    NOPT("--interrupt-interval", interrupt_interval, "mean instructions between interrupt requests (default 1500)"),
    NOPT("--stall-max", stall_max, "extra cycles an instruction may take, for time stamps (default 3)"),
    NOPT("--text-base", text_base, "address of .text, 4 KiB aligned (default: chosen by the seed)"),
};

static const uint32_t g_feature_bits[] = {
    RVT_GEN_COMPRESSED, RVT_GEN_LOOPS,      RVT_GEN_RECURSION, RVT_GEN_TAILCALLS, RVT_GEN_TABLES,
    RVT_GEN_SIJUMPS,    RVT_GEN_ALTLINK,    RVT_GEN_COROUTINES, RVT_GEN_LONGJMP,  RVT_GEN_FARCODE,
    RVT_GEN_ATOMICS,    RVT_GEN_FP,         RVT_GEN_TRAPS,      RVT_GEN_INTERRUPTS, RVT_GEN_NESTED,   RVT_GEN_PRIV,
    RVT_GEN_CONTEXT,    RVT_GEN_TIME,       RVT_GEN_DATA,
};

static const char *feature_help(uint32_t bit)
{
    switch (bit) {
    case RVT_GEN_COMPRESSED: return "16-bit (C) instructions";
    case RVT_GEN_LOOPS: return "counted loops, periodic branch patterns";
    case RVT_GEN_RECURSION: return "self, binary and mutual recursion";
    case RVT_GEN_TAILCALLS: return "tail calls";
    case RVT_GEN_TABLES: return "switch jump tables, function-pointer tables";
    case RVT_GEN_SIJUMPS: return "auipc/lui/c.lui + jalr pairs";
    case RVT_GEN_ALTLINK: return "x5 millicode calls, jumps linking other registers";
    case RVT_GEN_COROUTINES: return "co-routine swaps";
    case RVT_GEN_LONGJMP: return "setjmp/longjmp unwinding";
    case RVT_GEN_FARCODE: return "code at the top of the address space";
    case RVT_GEN_ATOMICS: return "lr/sc loops and AMOs";
    case RVT_GEN_FP: return "F/D: FP loads, stores, arithmetic, moves";
    case RVT_GEN_TRAPS: return "exceptions: ecall, ebreak, illegal, misaligned, page faults";
    case RVT_GEN_INTERRUPTS: return "asynchronous interrupts";
    case RVT_GEN_NESTED: return "nested traps (handlers re-enable interrupts)";
    case RVT_GEN_PRIV: return "M firmware, S kernel, U processes (mret/sret)";
    case RVT_GEN_CONTEXT: return "processes and context switches";
    case RVT_GEN_TIME: return "time stamps";
    case RVT_GEN_DATA: return "register-write values, load/store addresses and values";
    default: return "";
    }
}

static void help(void)
{
    printf("usage: rvtrace gen [options] [--elf OUT.elf] [--raw PREFIX] [-o OUT.ing] [--pcs OUT.txt] [--pcinsn OUT.txt]\n\n"
           "Generate a random, valid RISC-V program and run it: the ELF, the execution as native ingress\n"
           "records, and/or the retired PCs.  The same options give the same bytes.\n\n"
           "outputs (at least one):\n"
           "  --elf FILE             the program (ELF32/ELF64 executable with symbols)\n"
           "  -o FILE                the execution as native ingress records (\"-\": stdout)\n"
           "  --pcs FILE             one 0x%%X line per retired instruction (\"-\": stdout)\n"
           "  --pcinsn FILE          \"PC INSN\" lines per retired instruction (\"-\": stdout)\n"
           "  --raw PREFIX           the code and tables as raw binaries PREFIX-<address>.bin (prints the\n"
           "                         matching --raw ADDR:FILE arguments for decode/check)\n"
           "  --merge-blocks         merge sequential instructions into multi-instruction records\n"
           "  --stats                print what the execution contains\n\n"
           "numbers:\n");
    for (size_t i = 0; i < sizeof g_nums / sizeof g_nums[0]; i++) {
        char lhs[40];
        snprintf(lhs, sizeof lhs, "%s N", g_nums[i].name);
        printf("  %-22s %s\n", lhs, g_nums[i].help);
    }
    printf("\nfeatures (--NAME turns one on, --no-NAME off; default: the control-flow ones):\n");
    for (size_t i = 0; i < sizeof g_feature_bits / sizeof g_feature_bits[0]; i++) {
        uint32_t b = g_feature_bits[i];
        printf("  --%-20s %s%s\n", rvt_gen_feature_name(b), feature_help(b),
               (RVT_GEN_DEFAULT_FEATURES & b) ? " (default on)" : "");
    }
    printf("  --all                  every feature\n"
           "  --none                 no feature (straight calls, branches and 32-bit code only)\n");
}

struct gen_out {
    FILE *pcs, *pcinsn;
    struct rvt_ing_writer *w;
    struct rvt_ing_builder *b;
    uint64_t insns, traps, interrupts, priv_changes, records, itypes[16], per_priv[8], contexts;
    uint64_t last_context;
    uint8_t last_priv;
    bool io_error;
};

static int emit_rec(void *ctx, const struct rvt_ing_rec *rec)
{
    struct gen_out *o = ctx;
    o->records++;
    o->itypes[rec->itype & 15]++;
    if (o->w) {
        int r = rvt_ing_write(o->w, rec);
        if (r < 0)
            return r;
    }
    return 0;
}

static int on_step(void *ctx, const struct rvt_gen_step *s)
{
    struct gen_out *o = ctx;
    int r = 0;
    if (s->kind == RVT_GEN_STEP_INSN) {
        o->insns++;
        if (o->last_priv != 0xff && s->priv != o->last_priv)
            o->priv_changes++;
        o->last_priv = s->priv;
        o->per_priv[s->priv & 7]++;
        if (o->insns == 1 || s->context != o->last_context)
            o->contexts++;
        o->last_context = s->context;
        if (o->pcs && fprintf(o->pcs, "0x%" PRIX64 "\n", s->pc) < 0)
            o->io_error = true;
        if (o->pcinsn && fprintf(o->pcinsn, "%" PRIx64 " %0*" PRIx32 "\n", s->pc, s->len == 2 ? 4 : 8, s->bits) < 0)
            o->io_error = true;
        if (o->b)
            r = rvt_ing_builder_insn(o->b, s->pc, (int64_t)s->bits, s->priv, s->context,
                                     s->extra.flags ? &s->extra : NULL);
    } else {
        if (s->interrupt)
            o->interrupts++;
        else
            o->traps++;
        if (o->b)
            r = rvt_ing_builder_trap(o->b, s->interrupt, s->cause, s->tval, s->pc);
    }
    if (o->io_error)
        return -RVT_ERR_IO;
    return r < 0 ? r : 0;
}

static FILE *open_out(const char *path)
{
    return strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
}

int cmd_gen(int argc, char **argv)
{
    struct rvt_gen_config cfg;
    rvt_gen_config_init(&cfg);
    const char *elf = NULL, *ing = NULL, *pcs = NULL, *pcinsn = NULL, *raw = NULL;
    bool merge = false, stats = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help();
            return 0;
        }
        if (strcmp(a, "--merge-blocks") == 0) {
            merge = true;
            continue;
        }
        if (strcmp(a, "--stats") == 0) {
            stats = true;
            continue;
        }
        if (strcmp(a, "--all") == 0) {
            cfg.features = RVT_GEN_ALL_FEATURES;
            continue;
        }
        if (strcmp(a, "--none") == 0) {
            cfg.features = 0;
            continue;
        }
        if (strncmp(a, "--no-", 5) == 0 && rvt_gen_feature_parse(a + 5)) {
            cfg.features &= ~rvt_gen_feature_parse(a + 5);
            continue;
        }
        if (strncmp(a, "--", 2) == 0 && rvt_gen_feature_parse(a + 2)) {
            cfg.features |= rvt_gen_feature_parse(a + 2);
            continue;
        }
        const char **path = strcmp(a, "--elf") == 0 ? &elf
                            : strcmp(a, "-o") == 0  ? &ing
                            : strcmp(a, "--pcs") == 0 ? &pcs
                            : strcmp(a, "--pcinsn") == 0 ? &pcinsn
                            : strcmp(a, "--raw") == 0    ? &raw
                                                         : NULL;
        if (path) {
            if (i + 1 >= argc)
                return cli_fail("gen", "%s needs a file name", a) + 1;
            *path = argv[++i];
            continue;
        }
        const struct num_opt *n = NULL;
        for (size_t k = 0; k < sizeof g_nums / sizeof g_nums[0]; k++)
            if (strcmp(a, g_nums[k].name) == 0)
                n = &g_nums[k];
        if (!n) {
            cli_fail("gen", "unknown option '%s' (see rvtrace gen --help)", a);
            return 2;
        }
        uint64_t v;
        if (i + 1 >= argc || !cli_parse_u64(argv[i + 1], &v)) {
            cli_fail("gen", "%s needs a number, got '%s'", a, i + 1 < argc ? argv[i + 1] : "");
            return 2;
        }
        i++;
        if (n->width == 4) {
            if (v > UINT32_MAX) {
                cli_fail("gen", "%s %" PRIu64 ": too large", a, v);
                return 2;
            }
            unsigned u = (unsigned)v;
            memcpy((char *)&cfg + n->off, &u, sizeof u);
        } else {
            memcpy((char *)&cfg + n->off, &v, sizeof v);
        }
    }
    if (!elf && !ing && !pcs && !pcinsn && !stats && !raw) {
        cli_fail("gen", "nothing to do: give --elf, --raw, -o, --pcs, --pcinsn or --stats (see --help)");
        return 2;
    }

    struct rvt_diag diag;
    rvt_diag_clear(&diag);
    struct rvt_gen_program *prog = NULL;
    int rc = 0;
    struct gen_out o;
    memset(&o, 0, sizeof o);
    o.last_priv = 0xff;
    double t0 = cli_now();
    if (rvt_gen_program_new(&prog, &cfg, &diag) < 0)
        return cli_fail("gen", "%s", diag.msg);
    if (elf && rvt_gen_write_elf(prog, elf, &diag) < 0) {
        rc = cli_fail("gen", "%s", diag.msg);
        goto out;
    }
    if (raw) {
        /* one file per code/table segment; the arguments to load them go to
         * stdout unless an output already does */
        bool out_used = (ing && !strcmp(ing, "-")) || (pcs && !strcmp(pcs, "-")) || (pcinsn && !strcmp(pcinsn, "-"));
        FILE *info = out_used ? stderr : stdout;
        for (size_t i = 0; i < rvt_gen_segment_count(prog); i++) {
            const struct rvt_gen_segment *s = rvt_gen_segment(prog, i);
            if (s->flags & RVT_GEN_SEG_WRITE)
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s-%" PRIx64 ".bin", raw, s->addr);
            FILE *f = fopen(path, "wb");
            if (!f) {
                rc = cli_fail("gen", "%s: cannot create: %s", path, strerror(errno));
                goto out;
            }
            size_t w = fwrite(s->data, 1, s->filesz, f);
            if (fclose(f) != 0 || w != s->filesz) {
                rc = cli_fail("gen", "%s: write failed", path);
                goto out;
            }
            fprintf(info, "--raw 0x%" PRIx64 ":%s\n", s->addr, path);
        }
    }
    if (pcs && !(o.pcs = open_out(pcs))) {
        rc = cli_fail("gen", "%s: cannot create: %s", pcs, strerror(errno));
        goto out;
    }
    if (pcinsn && !(o.pcinsn = open_out(pcinsn))) {
        rc = cli_fail("gen", "%s: cannot create: %s", pcinsn, strerror(errno));
        goto out;
    }
    if (ing) {
        if (strcmp(ing, "-") == 0)
            o.w = rvt_ing_writer_new(stdout, rvt_gen_xlen(prog));
        else if (rvt_ing_writer_open(&o.w, ing, rvt_gen_xlen(prog), &diag) < 0)
            o.w = NULL;
        if (!o.w) {
            rc = cli_fail("gen", "%s", diag.msg[0] ? diag.msg : "cannot create the ingress writer");
            goto out;
        }
    }
    if (ing || stats) {
        struct rvt_ing_builder_config bc = {.size = sizeof bc,
                                            .xlen = rvt_gen_xlen(prog),
                                            .merge_blocks = merge,
                                            .emit = emit_rec,
                                            .emit_ctx = &o};
        o.b = rvt_ing_builder_new(&bc);
        if (!o.b) {
            rc = cli_fail("gen", "cannot create the ingress builder");
            goto out;
        }
    }
    if (ing || pcs || pcinsn || stats) {
        int r = rvt_gen_run_pcs(prog, &cfg, on_step, &o, &diag);
        if (r == 0 && o.b)
            r = rvt_ing_builder_finish(o.b);
        if (r < 0) {
            if (o.io_error)
                rc = cli_fail("gen", "writing the PC list: %s", strerror(errno));
            else if (diag.code)
                rc = cli_fail("gen", "%s", diag.msg);
            else
                rc = cli_fail("gen", "%s", o.b ? rvt_ing_builder_error(o.b)
                                            : rvt_errstr(r));
            goto out;
        }
    }
    if (stats) {
        double t1 = cli_now();
        printf("program: xlen %u, entry 0x%" PRIx64 ", %" PRIu64 " instructions of code in %zu segments, %zu symbols\n",
               rvt_gen_xlen(prog), rvt_gen_entry(prog), rvt_gen_code_insns(prog), rvt_gen_segment_count(prog),
               rvt_gen_symbol_count(prog));
        for (size_t i = 0; i < rvt_gen_segment_count(prog); i++) {
            const struct rvt_gen_segment *s = rvt_gen_segment(prog, i);
            printf("  %-11s 0x%" PRIx64 " .. 0x%" PRIx64 " (%" PRIu64 " bytes)\n", s->name, s->addr,
                   s->addr + s->memsz, s->memsz);
        }
        printf("execution: %" PRIu64 " instructions, %" PRIu64 " records, %" PRIu64 " exceptions, %" PRIu64
               " interrupts, %" PRIu64 " privilege changes\n",
               o.insns, o.records, o.traps, o.interrupts, o.priv_changes);
        printf("  branches taken %" PRIu64 ", not taken %" PRIu64 "; calls %" PRIu64 " (uninferable %" PRIu64
               "), returns %" PRIu64 ", jumps %" PRIu64 " (uninferable %" PRIu64 "), co-routine swaps %" PRIu64
               ", other %" PRIu64 ", trap returns %" PRIu64 "\n",
               o.itypes[5], o.itypes[4], o.itypes[8] + o.itypes[9], o.itypes[8], o.itypes[13],
               o.itypes[10] + o.itypes[11], o.itypes[10], o.itypes[12], o.itypes[14] + o.itypes[15], o.itypes[3]);
        printf("  by privilege: M %" PRIu64 ", S %" PRIu64 ", U %" PRIu64 "; context changes %" PRIu64 "\n",
               o.per_priv[3], o.per_priv[1], o.per_priv[0], o.contexts ? o.contexts - 1 : 0);
        printf("  %.2f s, %.1f M instructions/s\n", t1 - t0, (double)o.insns / (t1 - t0 > 0 ? t1 - t0 : 1e-9) / 1e6);
    }
out:
    rvt_ing_builder_free(o.b);
    if (o.w && rvt_ing_writer_close(o.w) < 0 && !rc)
        rc = cli_fail("gen", "%s: write failed", ing);
    if (o.pcs && o.pcs != stdout && fclose(o.pcs) != 0 && !rc)
        rc = cli_fail("gen", "%s: write failed", pcs);
    if (o.pcinsn && o.pcinsn != stdout && fclose(o.pcinsn) != 0 && !rc)
        rc = cli_fail("gen", "%s: write failed", pcinsn);
    rvt_gen_program_free(prog);
    return rc;
}
