/* rvtrace — command-line tool.  Thin: every subcommand is a few library
 * calls; all logic is in librvtrace. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_command g_commands[] = {
    {"encode", cmd_encode, "ingress (PC list, PC+insn text, native, refcsv) -> trace bytes"},
    {"decode", cmd_decode, "trace bytes + ELF -> PCs, instruction listing, blocks or counts"},
    {"segments", cmd_segments, "trace bytes -> the byte ranges between sync points, each decodable on its own"},
    {"dump", cmd_dump, "trace bytes -> one line per packet/message with every field"},
    {"verify", cmd_verify, "encode, decode and compare with the input; sizes and speeds"},
    {"check", cmd_check, "check an ingress stream against the program (every transition)"},
    {"capture", cmd_capture, "run a RISC-V program under QEMU and record its execution"},
    {"gen", cmd_gen, "generate a random program (ELF) and an execution of it"},
    {"convert", cmd_convert, "convert ingress between formats (ingress, pclist, pcinsn, refcsv)"},
    {"info", cmd_info, "a trace family's parameters and discovery information"},
    {"report", cmd_report, "HTML report, profile, call tree, coverage (lcov), flame graph, callgrind, Perfetto"},
};

const struct cli_command *cli_commands(size_t *n)
{
    *n = sizeof g_commands / sizeof g_commands[0];
    return g_commands;
}

const char *const cli_examples[] = {
    "rvtrace encode --format ntrace --elf prog.elf --input pcs.txt -o trace.bin",
    "rvtrace decode --format ntrace --elf prog.elf trace.bin --output insn",
    "rvtrace verify --format etrace --elf prog.elf --input run.ing",
    "rvtrace capture -o run.ing -- ./bzip2 -9 -k file",
    "rvtrace report --elf prog.elf --input run.ing -o report   # report/report.html and exports",
    NULL,
};

int cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "rvtrace %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return false;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end)
        return false;
    *out = v;
    return true;
}

static void usage(FILE *f)
{
    fprintf(f,
            "rvtrace %s — RISC-V processor trace encoder and decoder\n\n"
            "usage: rvtrace <command> [options]     (rvtrace <command> --help for details)\n\n"
            "commands:\n",
            RVT_VERSION_STRING);
    for (size_t i = 0; i < sizeof g_commands / sizeof g_commands[0]; i++)
        fprintf(f, "  %-9s %s\n", g_commands[i].name, g_commands[i].summary);
    fprintf(f, "\ntrace families (--format):\n");
    for (const struct rvt_codec *const *c = rvt_codec_list(); *c; c++)
        fprintf(f, "  %-9s %s\n", (*c)->name, (*c)->summary);
    fprintf(f, "\nexamples:\n");
    for (const char *const *e = cli_examples; *e; e++)
        fprintf(f, "  %s\n", *e);
    fprintf(f, "\nrvtrace --man prints this manual as a roff page, rvtrace(1).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--man") == 0)
        return cli_man(stdout);
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("rvtrace %s\n", RVT_VERSION_STRING);
        printf("source lines from DWARF: %s\n", rvt_srclines_supported() ? "yes (elfutils libdw)"
                                                                          : "no (built without elfutils libdw)");
        return 0;
    }
    for (size_t i = 0; i < sizeof g_commands / sizeof g_commands[0]; i++)
        if (strcmp(argv[1], g_commands[i].name) == 0)
            return g_commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "rvtrace: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
