/* Option parsing shared by the subcommands: the common options, then any
 * option of the selected trace family (from its codec option table). */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <time.h>
#include <unistd.h>

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const struct rvt_codec_opt *codec_opt(const struct rvt_codec *c, const char *name)
{
    if (!c || !c->options)
        return NULL;
    for (const struct rvt_codec_opt *op = c->options; op->name; op++)
        if (strcmp(op->name, name) == 0)
            return op;
    return NULL;
}

static const char *extra_spec(const char *const *extra, const char *name, bool *flag)
{
    for (; extra && *extra; extra++) {
        size_t n = strlen(*extra);
        bool is_flag = n && (*extra)[n - 1] == '!';
        if (is_flag)
            n--;
        if (strlen(name) == n && strncmp(*extra, name, n) == 0) {
            *flag = is_flag;
            return *extra;
        }
    }
    return NULL;
}

const char *cli_extra(const struct cli_opts *o, const char *name)
{
    size_t n = strlen(name);
    for (unsigned i = 0; i < o->nextra; i++) {
        const char *s = o->extra_name[i];
        if (strncmp(s, name, n) == 0 && (s[n] == 0 || (s[n] == '!' && s[n + 1] == 0)))
            return o->extra_val[i];
    }
    return NULL;
}

static int parse_ecall(const char *v)
{
    if (strcmp(v, "sequential") == 0)
        return RVT_FLOW_ECALL_SEQUENTIAL;
    if (strcmp(v, "uninferable") == 0)
        return RVT_FLOW_ECALL_UNINFERABLE;
    if (strcmp(v, "trap") == 0)
        return RVT_FLOW_ECALL_TRAP;
    return -1;
}

int cli_parse(struct cli_opts *o, const char *cmd, unsigned allowed, const char *const *extra, int argc,
              char **argv)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->allowed = allowed;
    o->input_format = RVT_ING_FMT_AUTO;
    o->out_kind = -1;
    o->ecall = -1;

    /* The family decides which further options exist: find --format first. */
    if (allowed & CLI_FORMAT) {
        for (int i = 1; i < argc; i++) {
            const char *v = NULL;
            if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
                v = argv[i + 1];
            else if (strncmp(argv[i], "--format=", 9) == 0)
                v = argv[i] + 9;
            if (v) {
                o->codec = rvt_codec_find(v);
                if (!o->codec) {
                    fprintf(stderr, "rvtrace %s: unknown format '%s'; known:", cmd, v);
                    for (const struct rvt_codec *const *c = rvt_codec_list(); *c; c++)
                        fprintf(stderr, " %s", (*c)->name);
                    fprintf(stderr, "\n");
                    return 2;
                }
            }
        }
    }
    /* Family options are applied in order after the common ones are known. */
    const char **pair_name = o->pair_name, **pair_val = o->pair_val;
    unsigned npairs = 0;

    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            o->help = true;
            return 0;
        }
        if (a[0] != '-' || a[1] == 0) {
            if ((allowed & CLI_TRACE) && !o->trace) {
                o->trace = a;
                continue;
            }
            fprintf(stderr, "rvtrace %s: unexpected argument '%s'\n", cmd, a);
            return 2;
        }
        /* --name=value or --name value */
        char namebuf[128];
        const char *name = a + (a[1] == '-' ? 2 : 1);
        const char *inline_val = strchr(name, '=');
        if (inline_val) {
            size_t n = (size_t)(inline_val - name);
            if (n >= sizeof namebuf)
                n = sizeof namebuf - 1;
            memcpy(namebuf, name, n);
            namebuf[n] = 0;
            name = namebuf;
            inline_val++;
        }
#define VALUE()                                                                                       \
    (inline_val ? inline_val                                                                          \
                : (i + 1 < argc ? argv[++i]                                                           \
                                : (fprintf(stderr, "rvtrace %s: option --%s needs a value\n", cmd, name), \
                                   (const char *)NULL)))
        const char *v;
        if ((allowed & CLI_FORMAT) && strcmp(name, "format") == 0) {
            if (!VALUE())
                return 2;
        } else if ((allowed & CLI_ELF) && strcmp(name, "elf") == 0) {
            if (!(o->elf = VALUE()))
                return 2;
        } else if ((allowed & CLI_ELF) && strcmp(name, "no-demangle") == 0) {
            o->no_demangle = true;
        } else if ((allowed & CLI_ELF) && strcmp(name, "maps-dir") == 0) {
            if (!(o->maps_dir = VALUE()))
                return 2;
        } else if ((allowed & CLI_ELF) && strcmp(name, "maps") == 0) {
            if (!(o->maps = VALUE()))
                return 2;
        } else if ((allowed & CLI_ELF) && strcmp(name, "raw") == 0) {
            if (!(v = VALUE()))
                return 2;
            const char *colon = strchr(v, ':');
            char abuf[40];
            size_t n = colon ? (size_t)(colon - v) : 0;
            if (!colon || n >= sizeof abuf || o->nraw == CLI_MAX_RAW) {
                fprintf(stderr, "rvtrace %s: --raw expects ADDR:FILE (at most %d)\n", cmd, CLI_MAX_RAW);
                return 2;
            }
            memcpy(abuf, v, n);
            abuf[n] = 0;
            if (!cli_parse_u64(abuf, &o->raw[o->nraw].addr)) {
                fprintf(stderr, "rvtrace %s: --raw: bad address '%s'\n", cmd, abuf);
                return 2;
            }
            o->raw[o->nraw++].path = colon + 1;
        } else if ((allowed & CLI_INPUT) && (strcmp(name, "input") == 0 || strcmp(name, "i") == 0)) {
            if (!(o->input = VALUE()))
                return 2;
        } else if ((allowed & CLI_INPUT) && strcmp(name, "input-format") == 0) {
            if (!(v = VALUE()))
                return 2;
            o->input_format = rvt_ing_format_parse(v);
            if (o->input_format < 0) {
                fprintf(stderr, "rvtrace %s: unknown input format '%s' (pclist, pcinsn, ingress, refcsv, refdata)\n", cmd, v);
                return 2;
            }
        } else if ((allowed & CLI_INPUT) && strcmp(name, "merge-blocks") == 0) {
            o->merge_blocks = true;
        } else if ((allowed & CLI_OUTPUT) && (strcmp(name, "o") == 0 || strcmp(name, "output-file") == 0)) {
            if (!(o->output = VALUE()))
                return 2;
        } else if ((allowed & CLI_OUTKIND) && strcmp(name, "output") == 0) {
            if (!(v = VALUE()))
                return 2;
            o->out_kind = rvt_out_kind_parse(v);
            if (o->out_kind < 0) {
                fprintf(stderr, "rvtrace %s: unknown --output '%s' (%s)\n", cmd, v, rvt_out_kind_names());
                return 2;
            }
        } else if ((allowed & CLI_ECALL) && strcmp(name, "ecall") == 0) {
            if (!(v = VALUE()))
                return 2;
            o->ecall = parse_ecall(v);
            if (o->ecall < 0) {
                fprintf(stderr, "rvtrace %s: --ecall expects sequential, uninferable or trap\n", cmd);
                return 2;
            }
            if (codec_opt(o->codec, "ecall") && npairs < CLI_MAX_PAIRS) {
                pair_name[npairs] = "ecall";
                pair_val[npairs++] = v;
            }
        } else if ((allowed & CLI_XLEN) && strcmp(name, "xlen") == 0) {
            uint64_t x;
            if (!(v = VALUE()))
                return 2;
            if (!cli_parse_u64(v, &x) || (x != 32 && x != 64)) {
                fprintf(stderr, "rvtrace %s: --xlen expects 32 or 64\n", cmd);
                return 2;
            }
            o->xlen = (unsigned)x;
        } else if (strcmp(name, "v") == 0 || strcmp(name, "verbose") == 0) {
            o->verbose = true;
        } else {
            bool flag = false;
            const struct rvt_codec_opt *op = codec_opt(o->codec, name);
            const char *spec = op ? NULL : extra_spec(extra, name, &flag);
            if (!op && !spec) {
                if ((allowed & CLI_FORMAT) && !o->codec)
                    fprintf(stderr, "rvtrace %s: unknown option '%s' (family options need --format first)\n", cmd, a);
                else
                    fprintf(stderr, "rvtrace %s: unknown option '%s' (see rvtrace %s --help)\n", cmd, a, cmd);
                return 2;
            }
            if (op)
                flag = op->arg == NULL;
            if (flag)
                v = inline_val ? inline_val : "1";
            else if (!(v = VALUE()))
                return 2;
            if (op) {
                if (npairs == CLI_MAX_PAIRS) {
                    fprintf(stderr, "rvtrace %s: too many options\n", cmd);
                    return 2;
                }
                pair_name[npairs] = op->name;
                pair_val[npairs++] = v;
            } else if (o->nextra < CLI_MAX_PAIRS) {
                o->extra_name[o->nextra] = spec; /* as declared, maybe with its '!' */
                o->extra_val[o->nextra++] = v;
            }
        }
#undef VALUE
    }
    o->npairs = npairs;
    if (o->codec) {
        o->ccfg = rvt_codec_cfg_new(o->codec);
        if (!o->ccfg)
            return cli_fail(cmd, "out of memory");
        for (unsigned k = 0; k < npairs; k++) {
            struct rvt_diag d = {0};
            if (o->codec->cfg_set(o->ccfg, pair_name[k], pair_val[k], &d) < 0) {
                fprintf(stderr, "rvtrace %s: --%s %s: %s\n", cmd, pair_name[k], pair_val[k],
                        d.msg[0] ? d.msg : "invalid value");
                return 2;
            }
        }
    } else if (allowed & CLI_FORMAT) {
        fprintf(stderr, "rvtrace %s: --format is required (", cmd);
        for (const struct rvt_codec *const *c = rvt_codec_list(); *c; c++)
            fprintf(stderr, "%s%s", c == rvt_codec_list() ? "" : ", ", (*c)->name);
        fprintf(stderr, ")\n");
        return 2;
    }
    return 0;
}

bool cli_common_takes(unsigned allowed, const char *name)
{
    return ((allowed & CLI_ECALL) && strcmp(name, "ecall") == 0) || ((allowed & CLI_XLEN) && strcmp(name, "xlen") == 0);
}

void cli_help_common(FILE *f, unsigned allowed, const struct rvt_codec *only)
{
    fprintf(f, "options:\n");
    if (allowed & CLI_FORMAT)
        fprintf(f, "  --format F            trace family: ntrace, etrace, cdl, dbg\n");
    if (allowed & CLI_ELF)
        fprintf(f, "  --elf PROG            the program (ELF32/ELF64 RISC-V)\n"
                   "  --maps FILE           the load map `capture` wrote for a dynamically linked program:\n"
                   "                        the program and its libraries, each where it ran\n"
                   "  --maps-dir DIR        take the map's files from DIR when a file of the same name is\n"
                   "                        there (copies from the machine of the capture)\n"
                   "  --raw ADDR:FILE       extra raw code at an address (repeatable)\n"
                   "  --no-demangle         C++ names as the ELF has them (default: demangled)\n");
    if (allowed & CLI_INPUT)
        fprintf(f, "  --input IN            ingress input ('-' = stdin)\n"
                   "  --input-format F      pclist | pcinsn | ingress | refcsv (default: guessed from the file)\n"
                   "  --merge-blocks        merge sequential instructions of text inputs into multi-instruction records\n"
                   "  --hart N              only the records of hart N (multi-hart streams)\n");
    if (allowed & CLI_OUTPUT)
        fprintf(f, "  -o FILE               output file ('-' = stdout)\n");
    if (allowed & CLI_OUTKIND)
        fprintf(f, "  --output K            pcs (one PC per instruction: 0x and 8 hex digits for RV32, 16 for RV64)\n"
                   "                        | insn (listing) | blocks | count | calltree | profile | coverage\n"
                   "                        | lcov | folded | callgrind | chrome | jsonl (docs/analysis.md)\n");
    if (allowed & CLI_ECALL)
        fprintf(f, "  --ecall M             how ecall behaves: sequential (user-mode emulation, default),\n"
                   "                        uninferable (reported with its target, as the N-Trace reference tool),\n"
                   "                        trap (system mode: ecall raises an exception)\n");
    if (allowed & CLI_XLEN)
        fprintf(f, "  --xlen 32|64          address width when no ELF says it\n");
    fprintf(f, "  -v, --verbose         print statistics\n");
    if (!(allowed & CLI_FORMAT))
        return;
    for (const struct rvt_codec *const *c = rvt_codec_list(); *c; c++) {
        if (only && *c != only)
            continue;
        fprintf(f, "\n%s options (%s):\n", (*c)->name, (*c)->summary);
        for (const struct rvt_codec_opt *op = (*c)->options; op && op->name; op++) {
            if (cli_common_takes(allowed, op->name))
                continue; /* listed once, above */
            char lhs[64];
            snprintf(lhs, sizeof lhs, "--%s%s%s", op->name, op->arg ? " " : "", op->arg ? op->arg : "");
            fprintf(f, "  %-21s %s\n", lhs, op->help);
        }
    }
}

#ifdef RVT_HAVE_CXA_DEMANGLE
/* The C++ runtime's demangler (libstdc++, extern "C"). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
static char *cxx_demangle(const char *name)
{
    int status = 0;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (status != 0) {
        free(d);
        return NULL;
    }
    return d;
}
#endif

/* e_type ET_DYN: a position-independent program (or a library). */
static bool elf_is_pie(const char *path)
{
    unsigned char h[18];
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    const bool ok = fread(h, 1, sizeof h, f) == sizeof h;
    fclose(f);
    return ok && memcmp(h, "\177ELF", 4) == 0 && h[5] == 1 && h[16] == 3 && h[17] == 0;
}

int cli_load_image(struct cli_opts *o)
{
    if (!CLI_HAS_IMAGE(o))
        return 0;
    o->img = rvt_img_new();
    if (!o->img)
        return cli_fail(o->cmd, "out of memory");
    /* With a load map, --elf (if given) is one of its files, loaded there. */
    if (o->maps && rvt_img_load_maps(o->img, o->maps, o->maps_dir, o->elf, &o->elf_bias) < 0)
        return cli_fail(o->cmd, "%s", rvt_img_error(o->img));
    if (o->elf && !o->maps && rvt_img_load_elf(o->img, o->elf) < 0)
        return cli_fail(o->cmd, "%s", rvt_img_error(o->img));
    if (o->elf && !o->maps && elf_is_pie(o->elf))
        fprintf(stderr,
                "rvtrace %s: warning: %s is position-independent (ET_DYN): it ran where the loader put it, not at "
                "the addresses the file gives; give a dynamically linked program's load map with --maps FILE "
                "(rvtrace capture writes it)\n",
                o->cmd, o->elf);
    if (!o->elf && !o->maps && o->xlen)
        rvt_img_set_xlen(o->img, o->xlen);
    for (unsigned i = 0; i < o->nraw; i++)
        if (rvt_img_add_raw_file(o->img, o->raw[i].addr, o->raw[i].path) < 0)
            return cli_fail(o->cmd, "%s", rvt_img_error(o->img));
#ifdef RVT_HAVE_CXA_DEMANGLE
    if (!o->no_demangle && rvt_img_demangle(o->img, cxx_demangle) < 0)
        return cli_fail(o->cmd, "%s", rvt_img_error(o->img));
#endif
    return 0;
}

int cli_finish_codec(struct cli_opts *o, unsigned xlen)
{
    if (!o->codec || !o->codec->cfg_finish)
        return 0;
    struct rvt_diag d = {0};
    if (o->codec->cfg_finish(o->ccfg, xlen, o->img, &d) < 0)
        return cli_fail(o->cmd, "%s options: %s", o->codec->name, d.msg);
    return 0;
}

static void input_warning(void *ctx, const char *text)
{
    const struct cli_opts *o = ctx;
    fprintf(stderr, "rvtrace %s: %s: warning: %s\n", o->cmd, o->input, text);
}

int cli_open_input(struct cli_opts *o, struct rvt_ing_reader **r)
{
    if (!o->input)
        return cli_fail(o->cmd, "--input is required");
    struct rvt_ing_reader_config rc = {
        .size = sizeof rc,
        .format = (enum rvt_ing_format)o->input_format,
        .image = o->img,
        .xlen = o->xlen,
        .ecall_mode = o->ecall == RVT_FLOW_ECALL_UNINFERABLE ? RVT_ECALL_UNINFERABLE
                      : o->ecall == RVT_FLOW_ECALL_TRAP      ? RVT_ECALL_TRAP
                                                             : RVT_ECALL_SEQUENTIAL,
        .merge_blocks = o->merge_blocks,
        .warn = input_warning,
        .warn_ctx = o,
    };
    const char *hart = cli_extra(o, "hart");
    if (hart) {
        uint64_t h;
        if (!cli_parse_u64(hart, &h) || h > 0xffff)
            return cli_fail(o->cmd, "--hart: expected a hart number, got '%s'", hart);
        rc.select_hart = true;
        rc.hart = (uint16_t)h;
    }
    struct rvt_diag d = {0};
    if (rvt_ing_open(r, o->input, &rc, &d) < 0)
        return cli_fail(o->cmd, "%s", d.msg);
    return 0;
}

void cli_free(struct cli_opts *o)
{
    if (o->ccfg)
        rvt_codec_cfg_free(o->ccfg);
    rvt_img_free(o->img);
    o->ccfg = NULL;
    o->img = NULL;
}

int cli_load_trace(struct cli_opts *o, const char *path, struct rvt_sink_image *img)
{
    struct rvt_sink_info ov;
    rvt_sink_info_init(&ov);
    ov.known = 0;
    const char *wp = cli_extra(o, "wp"), *wrap = cli_extra(o, "wrap"), *start = cli_extra(o, "sink-start");
    uint64_t v;
    if (wp) {
        if (!cli_parse_u64(wp, &v))
            return cli_fail(o->cmd, "--wp: expected an address, got '%s'", wp);
        ov.wp = v;
        ov.known |= RVT_SINFO_WP;
    }
    if (wrap) {
        if (!cli_parse_u64(wrap, &v) || v > 1)
            return cli_fail(o->cmd, "--wrap: expected 0 or 1, got '%s'", wrap);
        ov.wrap = (int)v;
        ov.known |= RVT_SINFO_WRAP;
    }
    if (start) {
        if (!cli_parse_u64(start, &v))
            return cli_fail(o->cmd, "--sink-start: expected an address, got '%s'", start);
        ov.start = v;
        ov.known |= RVT_SINFO_START;
    }
    struct rvt_diag d = {0};
    if (rvt_sink_image_load(path, ov.known ? &ov : NULL, img, &d) < 0)
        return cli_fail(o->cmd, "%s", d.msg);
    if (img->wrapped || img->stopped || (o->verbose && img->described)) {
        char what[512];
        rvt_sink_info_describe(&img->info, 1, what, sizeof what);
        fprintf(stderr, "rvtrace %s: %s: %s\n", o->cmd, path, what);
    }
    return 0;
}

bool cli_plain_trace(struct cli_opts *o, const char *path)
{
    if (cli_extra(o, "wp") || cli_extra(o, "wrap") || cli_extra(o, "sink-start") || cli_extra(o, "atb"))
        return false;
    if (strcmp(path, "-") == 0)
        return true;
    size_t n = strlen(path);
    char *side = malloc(n + 6);
    if (!side)
        return false;
    memcpy(side, path, n);
    memcpy(side + n, ".sink", 6);
    FILE *f = fopen(side, "rb");
    bool plain = !f && errno == ENOENT;
    if (f)
        fclose(f);
    free(side);
    return plain;
}

int cli_stream_offset(struct cli_opts *o, const struct rvt_sink_image *img)
{
    if (!img->described || (img->wrapped && !img->lost_known) || !o->codec || !codec_opt(o->codec, "stream-offset") ||
        cli_extra_pair(o, "stream-offset"))
        return 0;
    char v[32];
    snprintf(v, sizeof v, "%" PRIu64, img->wrapped ? img->lost : 0);
    struct rvt_diag d = {0};
    if (o->codec->cfg_set(o->ccfg, "stream-offset", v, &d) < 0)
        return cli_fail(o->cmd, "--stream-offset %s: %s", v, d.msg);
    return 0;
}

int cli_filter_wrap(struct cli_opts *o, struct rvt_ing_reader **r, int drop, struct rvt_filter **filter)
{
    *filter = NULL;
    struct rvt_filter_config fc;
    rvt_filter_config_init(&fc);
    fc.image = o->img;
    fc.xlen = rvt_ing_xlen(*r);
    struct rvt_diag d = {0};
    bool any = false;
    for (unsigned i = 0; i < o->nextra; i++) {
        int k = rvt_filter_option(&fc, o->extra_name[i], o->extra_val[i], &d);
        if (k < 0)
            return cli_fail(o->cmd, "--%s: %s", o->extra_name[i], d.msg);
        any |= k > 0;
    }
    if (!any || !rvt_filter_config_active(&fc))
        return 0;
    if (rvt_filter_new(filter, &fc, &d) < 0)
        return cli_fail(o->cmd, "filter: %s", d.msg);
    struct rvt_ing_reader *fr;
    if (rvt_filter_reader(&fr, *r, *filter, drop ? RVT_FILTER_DROP : RVT_FILTER_MARK, &d) < 0)
        return cli_fail(o->cmd, "filter: %s", d.msg);
    *r = fr;
    return 0;
}

void *cli_codec_cfg(struct cli_opts *o, const char *key, const char *value, unsigned xlen, struct rvt_diag *d)
{
    void *cfg = rvt_codec_cfg_new(o->codec);
    if (!cfg) {
        rvt_fail(d, RVT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (unsigned k = 0; k <= o->npairs; k++) {
        const char *n = k < o->npairs ? o->pair_name[k] : key, *v = k < o->npairs ? o->pair_val[k] : value;
        if (n && o->codec->cfg_set(cfg, n, v, d) < 0) {
            rvt_codec_cfg_free(cfg);
            return NULL;
        }
    }
    if (o->codec->cfg_finish && o->codec->cfg_finish(cfg, xlen, o->img, d) < 0) {
        rvt_codec_cfg_free(cfg);
        return NULL;
    }
    return cfg;
}

const char *cli_extra_pair(const struct cli_opts *o, const char *name)
{
    for (unsigned i = o->npairs; i-- > 0;)
        if (strcmp(o->pair_name[i], name) == 0)
            return o->pair_val[i];
    return NULL;
}

/* Encoder idx's register settings applied to a family configuration. */
int cli_regs_apply(struct cli_opts *o, struct rvt_tci *t, unsigned idx, void *cfg, struct rvt_diag *d)
{
    struct rvt_te_settings ts = {.size = sizeof ts};
    if (rvt_tci_te_settings(t, idx, &ts, sizeof ts) < 0)
        return rvt_fail(d, RVT_ERR_INVAL, "encoder%u: %s", idx, rvt_tci_error(t));
    if (!ts.active || !ts.enabled || !ts.inst_tracing)
        return rvt_fail(d, RVT_ERR_INVAL,
                        "encoder%u is not tracing (trTeActive %d, trTeEnable %d, trTeInstTracing %d): nothing would "
                        "be traced",
                        idx, ts.active, ts.enabled, ts.inst_tracing);
    int rc = rvt_codec_apply_te(o->codec, cfg, &ts, d);
    return rc < 0 ? rvt_fail_from(d, d, "encoder%u", idx) : 0;
}

static void note_reg(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "rvtrace: %s\n", msg);
}

/* The register model for --regs: up to 16 encoders of the family's
 * format, one funnel, one SRAM sink of sram_bytes, all as after reset, then
 * the file applied. */
int cli_regs_load(struct cli_opts *o, const char *path, struct rvt_tci **out)
{
    if (strcmp(o->codec->name, "ntrace") != 0 && strcmp(o->codec->name, "etrace") != 0)
        return cli_fail(o->cmd, "--regs: the %s family is not a Trace Control Interface encoder (N-Trace or E-Trace)",
                        o->codec->name);
    int rc = cli_regs_system(o, out);
    if (rc)
        return rc;
    struct rvt_diag d = {0};
    struct rvt_tci_file_options fo = {.size = sizeof fo, .note = note_reg};
    if (rvt_tci_apply_file(*out, path, &fo, &d) < 0)
        return cli_fail(o->cmd, "%s", d.msg);
    return 0;
}

int cli_regs_system(struct cli_opts *o, struct rvt_tci **out)
{
    const bool tci_family = strcmp(o->codec->name, "ntrace") == 0 || strcmp(o->codec->name, "etrace") == 0;
    uint64_t sram = 1u << 20;
    const char *sb = cli_extra(o, "sram-bytes");
    if (sb && (!cli_parse_u64(sb, &sram) || sram < 64 || sram % 4))
        return cli_fail(o->cmd, "--sram-bytes: expected a multiple of 4 (at least 64), got '%s'", sb);
    struct rvt_ramsink_config rc = {.size = sizeof rc,
                                    .mode = RVT_RAM_SRAM,
                                    .sram_bytes = sram,
                                    .has_sram = 1,
                                    .pad_byte = o->codec->idle_byte,
                                    .power_on_reset = 1};
    struct rvt_tci_config tc = {.size = sizeof tc,
                                .n_encoders = tci_family ? 16 : 0,
                                .te_format = strcmp(o->codec->name, "ntrace") == 0 ? 1 : 0,
                                .n_funnels = 1,
                                .funnel_inputs = 16,
                                .n_ramsinks = 1,
                                .ramsinks = &rc};
    struct rvt_diag d = {0};
    if (rvt_tci_new(&tc, out, &d) < 0)
        return cli_fail(o->cmd, "--regs: %s", d.msg);
    return 0;
}


struct atb_take {
    struct rvt_membuf mb;
    unsigned id;
    uint8_t seen[16]; /* bitmap of the IDs that carried data */
};

static int atb_take(void *ctx, unsigned id, uint64_t off, const uint8_t *p, size_t n)
{
    (void)off;
    struct atb_take *t = ctx;
    if (id < 128)
        t->seen[id / 8] |= (uint8_t)(1u << (id % 8));
    return id == t->id ? rvt_membuf_append(&t->mb, p, n) : 0;
}

int cli_atb_extract(struct cli_opts *o, const char *id, uint8_t **buf, size_t *len)
{
    uint64_t v;
    if (!cli_parse_u64(id, &v) || v < 1 || v > RVT_ATB_ID_MAX)
        return cli_fail(o->cmd, "--atb: expected a trace ID from 1 to %u, got '%s'", RVT_ATB_ID_MAX, id);
    struct atb_take t = {.id = (unsigned)v};
    rvt_membuf_init(&t.mb);
    /* Frames need not start at byte 0 (a wrapped buffer): begin after the
     * first frame sync. */
    struct rvt_atb_reader_config rc = {.size = sizeof rc, .deliver = atb_take, .ctx = &t, .find_fsync = 1};
    struct rvt_atb_read_stats st;
    struct rvt_diag d = {0};
    if (rvt_atb_read(*buf, *len, &rc, &st, &d) < 0) {
        rvt_membuf_free(&t.mb);
        return cli_fail(o->cmd, "--atb: %s", d.msg);
    }
    if (o->verbose || st.errors)
        fprintf(stderr, "rvtrace %s: ATB: %" PRIu64 " frames, %" PRIu64 " bytes of ID %u, %" PRIu64 " bad frames\n",
                o->cmd, st.frames, (uint64_t)t.mb.len, t.id, st.errors);
    if (t.mb.len == 0) {
        char ids[400] = "";
        size_t k = 0;
        for (unsigned i = 1; i < 128 && k + 8 < sizeof ids; i++)
            if (t.seen[i / 8] >> (i % 8) & 1)
                k += (size_t)snprintf(ids + k, sizeof ids - k, "%s%u", k ? ", " : "", i);
        rvt_membuf_free(&t.mb);
        return cli_fail(o->cmd, "--atb %u: no data under that trace ID in %" PRIu64 " frames (IDs present: %s)", t.id,
                        st.frames, k ? ids : "none");
    }
    free(*buf);
    *buf = t.mb.data;
    *len = t.mb.len;
    return 0;
}

int cli_max_insns(struct cli_opts *o, uint64_t *max_insns)
{
    const char *v = cli_extra(o, CLI_MAX_INSNS_OPT);
    *max_insns = 0;
    if (!v)
        return 0;
    if (strcmp(v, "unlimited") == 0) {
        *max_insns = RVT_DECODE_UNLIMITED;
        return 0;
    }
    if (!cli_parse_u64(v, max_insns) || *max_insns == 0 || *max_insns == RVT_DECODE_UNLIMITED) {
        cli_fail(o->cmd, "--max-instructions: expected a number of instructions (at least 1) or 'unlimited', got '%s'",
                 v);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

unsigned cli_diag_max(const struct cli_opts *o)
{
    if (o->verbose)
        return 0;
    return isatty(fileno(stderr)) ? CLI_DIAG_TTY : CLI_DIAG_PIPE;
}

const char *cli_printable(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    for (; *s && k + 5 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c < 0x7f)
            buf[k++] = (char)c;
        else
            k += (size_t)snprintf(buf + k, n - k, "\\x%02x", c);
    }
    buf[k < n ? k : n - 1] = 0;
    return buf;
}
