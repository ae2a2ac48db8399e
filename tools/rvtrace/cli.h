/* rvtrace CLI — shared declarations.  Each subcommand lives in its own
 * cmd_<name>.c and is listed in main.c's table.  argv[0] is the subcommand
 * name; a subcommand returns the process exit status (0 ok, 1 error,
 * 2 usage). */
#ifndef RVT_CLI_H
#define RVT_CLI_H

#include "rvtrace/rvtrace.h"
#include "rvtrace/filter.h"

#include <stdbool.h>

int cmd_encode(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_segments(int argc, char **argv);

struct cli_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};
/* The subcommands, in the order help lists them. */
const struct cli_command *cli_commands(size_t *n);
/* Example command lines for the usage text and the manual, NULL-terminated. */
extern const char *const cli_examples[];
/* Write the manual page rvtrace(1) (roff) to f; the exit status. */
int cli_man(FILE *f);

/* Print "rvtrace <cmd>: message" to stderr; returns 1. */
int cli_fail(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Parse an unsigned number (decimal, 0x hex); false if malformed. */
bool cli_parse_u64(const char *s, uint64_t *out);


/* ---- options shared by encode/decode/dump/verify/check/convert/info ------ */

enum cli_opt_mask {
    CLI_FORMAT = 1u << 0,   /* --format F (+ the family's own options) */
    CLI_ELF = 1u << 1,      /* --elf PROG, --raw ADDR:FILE */
    CLI_INPUT = 1u << 2,    /* --input IN, --input-format F */
    CLI_OUTPUT = 1u << 3,   /* -o FILE */
    CLI_TRACE = 1u << 4,    /* positional TRACE */
    CLI_OUTKIND = 1u << 5,  /* --output pcs|insn|blocks|count */
    CLI_ECALL = 1u << 6,    /* --ecall sequential|uninferable|trap */
    CLI_XLEN = 1u << 7      /* --xlen 32|64 */
};

#define CLI_MAX_RAW 16
#define CLI_MAX_PAIRS 64
/* An image was asked for (--elf, --maps or --raw). */
#define CLI_HAS_IMAGE(o) ((o)->elf || (o)->maps || (o)->nraw)

struct cli_opts {
    const char *cmd;
    unsigned allowed;
    const struct rvt_codec *codec;
    void *ccfg;
    const char *elf;
    const char *maps;  /* --maps: a user-mode capture's load map (the program and its libraries) */
    const char *maps_dir; /* --maps-dir: where copies of the map's files are */
    uint64_t elf_bias; /* where --elf was loaded (by --maps; 0 otherwise) */
    bool no_demangle;  /* --no-demangle: C++ names as the ELF has them */
    struct {
        uint64_t addr;
        const char *path;
    } raw[CLI_MAX_RAW];
    unsigned nraw;
    const char *input;
    int input_format;      /* enum rvt_ing_format */
    const char *output;
    const char *trace;
    int out_kind;          /* enum rvt_out_kind */
    int ecall;             /* enum rvt_flow_ecall, -1 = default */
    unsigned xlen;
    bool merge_blocks;
    bool verbose;
    bool help;
    /* family options as given (re-applied for per-hart configurations) */
    const char *pair_name[CLI_MAX_PAIRS];
    const char *pair_val[CLI_MAX_PAIRS];
    unsigned npairs;
    /* extra options a command handles itself: name -> value */
    const char *extra_name[CLI_MAX_PAIRS];
    const char *extra_val[CLI_MAX_PAIRS];
    unsigned nextra;
    struct rvt_image *img;
};

/* Parse argv (argv[0] = command).  `extra` lists command-specific options
 * ("name" takes a value, "name!" is a flag), NULL-terminated or NULL.
 * Returns 0, or the exit status to return (usage errors print a message). */
int cli_parse(struct cli_opts *o, const char *cmd, unsigned allowed, const char *const *extra, int argc,
              char **argv);
/* The value of a command-specific option, or NULL. */
const char *cli_extra(const struct cli_opts *o, const char *name);
/* A sink image's description says at which byte of the stream its trace
 * starts (a wrapped RAM: the bytes written before those kept): give it to a
 * family that places its sync points by stream position (option
 * stream-offset), unless the command line set it.  0 or exit status. */
int cli_stream_offset(struct cli_opts *o, const struct rvt_sink_image *img);
/* The value of a family option as given, or NULL. */
const char *cli_extra_pair(const struct cli_opts *o, const char *name);
/* True if a family option of this name is parsed as the common option of
 * `allowed` (--ecall, --xlen): help lists it once, with the common ones. */
bool cli_common_takes(unsigned allowed, const char *name);
/* Print the common options of `allowed` and the families' options. */
void cli_help_common(FILE *f, unsigned allowed, const struct rvt_codec *only);
/* Load --elf/--raw into o->img (NULL when none given); 0 or exit status. */
int cli_load_image(struct cli_opts *o);
/* Finish the family configuration for a stream of the given xlen. */
int cli_finish_codec(struct cli_opts *o, unsigned xlen);
/* A fresh family configuration with every option given, then `key` =
 * `value` (NULL: none), finished for xlen; NULL with d set on error. */
void *cli_codec_cfg(struct cli_opts *o, const char *key, const char *value, unsigned xlen, struct rvt_diag *d);
/* Open the ingress input with the options given; 0 or exit status. */
int cli_open_input(struct cli_opts *o, struct rvt_ing_reader **r);
void cli_free(struct cli_opts *o);
/* The --filter/--trigger/--sideband/--filter-file options a command accepts. */
#define CLI_FILTER_EXTRAS "filter", "trigger", "sideband", "filter-file"
/* If filter options were given, wrap *r in a filter (mode MARK for an
 * encoder, DROP for the expected side of a comparison); *filter receives the
 * filter (NULL if none; free it after the reader).  0 or exit status. */
int cli_filter_wrap(struct cli_opts *o, struct rvt_ing_reader **r, int drop, struct rvt_filter **filter);
/* Read a trace file: a plain byte stream, or a RAM sink image with its
 * `.sink` description (or --wp/--wrap/--sink-start given), linearised oldest
 * byte first; reports bytes lost to wrapping on stderr.  0 or exit status. */
int cli_load_trace(struct cli_opts *o, const char *path, struct rvt_sink_image *img);
/* True if `path` is the trace itself: no TRACE.sink description, no RAM
 * options (--wp, --wrap, --sink-start) and no --atb.  Such a file is
 * decoded mapped (rvt_decode_file), in memory that does not grow with it. */
bool cli_plain_trace(struct cli_opts *o, const char *path);
double cli_now(void);

/* --regs FILE: the Trace Control Interface register model (16 encoders of
 * the family's format, a funnel, an SRAM sink of --sram-bytes) as after
 * reset, with the file applied.  0 or exit status. */
int cli_regs_load(struct cli_opts *o, const char *path, struct rvt_tci **out);
/* The same system (no encoders for a family that is not a TCI encoder), as
 * after reset, without a file.  0 or exit status. */
int cli_regs_system(struct cli_opts *o, struct rvt_tci **out);
/* Encoder idx's settings applied to a family configuration (before
 * cfg_finish); <0 with d set. */
int cli_regs_apply(struct cli_opts *o, struct rvt_tci *t, unsigned idx, void *cfg, struct rvt_diag *d);

/* ---- the decoder contract (docs/decoding.md) ---------------------------- */

#define CLI_EXIT_USAGE 2 /* bad options, unreadable files, an unusable ELF */
/* Damage reports printed before only counting them: on a terminal, and
 * otherwise (logs); -v prints every one. */
#define CLI_DIAG_TTY 10
#define CLI_DIAG_PIPE 100
/* --max-instructions, for every command that decodes (add it to `extra`). */
#define CLI_MAX_INSNS_OPT "max-instructions"
#define CLI_MAX_INSNS_HELP                                                                                 \
    "  --max-instructions N  stop the decode after N instructions (exit status 1); 'unlimited' for none;\n" \
    "                        default 16 Mi + 4096 per trace byte\n"
/* The --max-instructions value (0: the default); 0 or an exit status. */
int cli_max_insns(struct cli_opts *o, uint64_t *max_insns);
/* diag_max for rvt_out_config: every report with -v, else CLI_DIAG_TTY or
 * CLI_DIAG_PIPE as stderr is a terminal or not. */
unsigned cli_diag_max(const struct cli_opts *o);
/* s with every byte outside printable ASCII as \xNN, in buf (a decoder's
 * message must never put raw trace bytes on a terminal).  Returns buf. */
const char *cli_printable(const char *s, char *buf, size_t n);
/* After a decode into `out` (drc, d: what rvt_decode returned): print what
 * was damaged and where, a hint when another family or framing fits the
 * bytes, and return the exit status (0, 1 or 3). */
struct rvt_output;
int cli_report_decode(struct cli_opts *o, struct rvt_output *out, const struct rvt_diag *d, int drc,
                      const uint8_t *buf, size_t len, double secs);

/* --segment SPEC (K, with --min-bytes as for `rvtrace segments`, or
 * OFFSET..END on segment boundaries) of the trace buf: 0 or exit status. */
int cli_segment_select(struct cli_opts *o, const uint8_t *buf, size_t len, const char *spec,
                       struct rvt_trace_segment *out);

/* DWARF source lines from --dwarf FILE, else the --elf file's own (absent:
 * *out = NULL, unless `required`).  0 or exit status. */
int cli_load_lines(struct cli_opts *o, bool required, struct rvt_srclines **out);
/* Progress on stderr: it is a terminal and neither -q nor --quiet was given. */
bool cli_progress_wanted(const struct cli_opts *o);
/* A progress line on stderr if wanted (else NULL), wrapping `inner`. */
struct rvt_progress *cli_progress(const struct cli_opts *o, const char *what, uint64_t total_bytes,
                                  const struct rvt_flow_sink *inner);
/* The options that go with them, for a command's extra list. */
#define CLI_ANALYSIS_EXTRAS "dwarf", "source-dir", "quiet!", "q!"

/* Replace *buf with the bytes of ATB trace ID `id` found in its formatter
 * frames (starting at the first frame sync).  0 or exit status. */
int cli_atb_extract(struct cli_opts *o, const char *id, uint8_t **buf, size_t *len);

#endif
