/* rvtrace --man: the manual page rvtrace(1) in roff.
 *
 * It is made from what --help prints, so the two cannot drift: each
 * command's section is that command's `--help` text (run as a child
 * process, `rvtrace CMD --help`), turned into roff line by line, and the
 * trace families' options come from their codec option tables, the tables
 * `--help --format F` prints.  The build runs this to make rvtrace.1. */
#include "cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Roff text: backslashes escaped, '-' in option-like words as \- (so they
 * render and copy as ASCII hyphens), no control character at line start. */
static void roff_text(FILE *f, const char *s, size_t n)
{
    bool word_start = true, option_word = false;
    if (n && (s[0] == '.' || s[0] == '\''))
        fputs("\\&", f);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (word_start)
            option_word = c == '-';
        word_start = c == ' ' || c == '(' || c == '[' || c == '|' || c == '\'' || c == '`' || c == ',';
        if (c == '\\')
            fputs("\\e", f);
        else if (c == '-' && option_word)
            fputs("\\-", f);
        else
            fputc(c, f);
    }
}

static void roff_line(FILE *f, const char *s)
{
    roff_text(f, s, strlen(s));
    fputc('\n', f);
}

/* An option's left-hand side ("-o, --output FILE", "--sink SPEC"): option
 * names bold, arguments italic. */
static void roff_option(FILE *f, const char *s, size_t n)
{
    fputs(".TP\n", f);
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != ' ' && s[j] != ',')
            j++;
        if (j > i) {
            fputs(s[i] == '-' ? "\\fB" : "\\fI", f);
            for (size_t k = i; k < j; k++) {
                if (s[k] == '-')
                    fputs("\\-", f);
                else if (s[k] == '\\')
                    fputs("\\e", f);
                else
                    fputc(s[k], f);
            }
            fputs("\\fR", f);
        }
        while (j < n && (s[j] == ' ' || s[j] == ','))
            fputc(s[j++], f);
        i = j;
    }
    fputc('\n', f);
}

/* True if the word at s[0..n) reads as an option argument (FILE, N|off,
 * btm|htm, ADDR:FILE), not as the first word of a description. */
static bool is_arg_word(const char *s, size_t n)
{
    if (memchr(s, '|', n))
        return true;
    for (size_t i = 0; i < n; i++)
        if (s[i] >= 'a' && s[i] <= 'z')
            return false;
    return n > 0;
}

/* Where an option line's description starts: after the first run of two
 * spaces, or, when the option fills its column, after the option and its
 * argument words.  Returns the length of the left-hand side. */
static size_t option_split(const char *s, const char **desc)
{
    const char *two = strstr(s, "  ");
    if (two) {
        *desc = two + strspn(two, " ");
        return (size_t)(two - s);
    }
    size_t end = strcspn(s, " ");
    while (s[end] == ' ') {
        const char *w = s + end + 1;
        size_t wl = strcspn(w, " ");
        if (!is_arg_word(w, wl) && !(s[end - 1] == ',' && w[0] == '-')) /* "--qemu, --plugin, -q" */
            break;
        end = (size_t)(w - s) + wl;
    }
    *desc = s + end + strspn(s + end, " ");
    return end;
}

static bool is_family_heading(const char *line)
{
    for (const struct rvt_codec *const *c = rvt_codec_list(); *c; c++) {
        size_t n = strlen((*c)->name);
        if (strncmp(line, (*c)->name, n) == 0 && strncmp(line + n, " options (", 10) == 0)
            return true;
    }
    return false;
}

/* One command's --help text as a manual section.  The families' option
 * lists at its end are left out (FAMILY OPTIONS has them once). */
static void roff_help(FILE *f, const char *cmd, char *text)
{
    fprintf(f, ".SS \"rvtrace %s\"\n", cmd);
    enum { NONE, USAGE, PARA, OPTION } state = NONE;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (is_family_heading(line))
            break;
        const char *t = line + strspn(line, " ");
        bool indented = t != line;
        if (strncmp(line, "usage: ", 7) == 0 || (state == USAGE && indented && strncmp(t, "rvtrace ", 8) == 0)) {
            const char *u = strncmp(line, "usage: ", 7) == 0 ? line + 7 : t;
            fputs(state == USAGE ? ".br\n" : ".PP\n", f);
            fputs("\\fB", f);
            size_t cmdlen = strlen("rvtrace ") + strlen(cmd);
            roff_text(f, u, cmdlen);
            fputs("\\fR", f);
            roff_line(f, u + cmdlen);
            state = USAGE;
        } else if (!*t) {
            state = NONE;
        } else if (*t == '-' && indented && t - line <= 4) { /* deeper: a description line starting with an option */
            const char *desc;
            size_t lhs = option_split(t, &desc);
            roff_option(f, t, lhs);
            if (*desc)
                roff_line(f, desc);
            state = OPTION;
        } else if (indented && state == OPTION) {
            roff_line(f, t); /* the option's description continues */
        } else {
            if (state != PARA)
                fputs(".PP\n", f);
            size_t n = strlen(t);
            if (state != PARA && !indented && n && t[n - 1] == ':') {
                fputs("\\fI", f); /* a heading: "options:", "System mode (...):" */
                roff_text(f, t, n);
                fputs("\\fR\n.PD 0\n.PP\n.PD\n", f);
                state = NONE;
                continue;
            }
            roff_line(f, t);
            state = PARA;
        }
    }
}

/* The output of `rvtrace CMD --help`, run as a child so that the command
 * prints exactly what a user sees. */
static char *help_text(const char *cmd)
{
    char self[PATH_MAX], command[4 * PATH_MAX + 64];
    ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sn <= 0)
        return NULL;
    self[sn] = 0;
    size_t k = 0;
    command[k++] = '\'';
    for (ssize_t i = 0; i < sn; i++) { /* single-quoted for the shell */
        if (self[i] == '\'') {
            memcpy(command + k, "'\\''", 4);
            k += 4;
        } else {
            command[k++] = self[i];
        }
    }
    snprintf(command + k, sizeof command - k, "' %s --help", cmd);
    fflush(stdout);
    FILE *p = popen(command, "r");
    if (!p)
        return NULL;
    size_t len = 0, cap = 1 << 14;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    if (pclose(p) != 0 || !buf) {
        free(buf);
        return NULL;
    }
    buf[len] = 0;
    return buf;
}

int cli_man(FILE *f)
{
    size_t ncmd;
    const struct cli_command *cmds = cli_commands(&ncmd);
    char *help[16] = {0};
    int rc = 0;
    for (size_t i = 0; i < ncmd && i < 16; i++)
        if (!(help[i] = help_text(cmds[i].name)))
            rc = cli_fail("--man", "cannot run rvtrace %s --help", cmds[i].name);
    if (rc)
        goto out;

    fprintf(f, ".\\\" rvtrace(1), made by `rvtrace --man` from the --help texts: edit those, not this.\n"
               ".TH RVTRACE 1 \"\" \"rvtrace %s\" \"User Commands\"\n"
               ".SH NAME\nrvtrace \\- RISC\\-V processor trace encoder and decoder\n"
               ".SH SYNOPSIS\n"
               "\\fBrvtrace\\fR \\fIcommand\\fR [\\fIoptions\\fR]\n.br\n"
               "\\fBrvtrace\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR [\\fB\\-\\-format\\fR \\fIfamily\\fR]\n.br\n"
               "\\fBrvtrace \\-\\-version\\fR | \\fB\\-\\-man\\fR\n"
               ".SH DESCRIPTION\n"
               "rvtrace encodes what a RISC\\-V hart executed into the standard trace formats and decodes\n"
               "trace bytes back into the exact instruction flow, with the program's ELF as the only side\n"
               "input.  It is a thin front end to librvtrace(3).\n"
               ".PP\nCommands:\n",
            RVT_VERSION_STRING);
    for (size_t i = 0; i < ncmd; i++) {
        fprintf(f, ".TP 12\n\\fB%s\\fR\n", cmds[i].name);
        roff_line(f, cmds[i].summary);
    }
    fputs(".PP\nTrace families (\\fB\\-\\-format\\fR):\n", f);
    for (const struct rvt_codec *const *c = rvt_codec_list(); *c; c++) {
        fprintf(f, ".TP 12\n\\fB%s\\fR\n", (*c)->name);
        roff_line(f, (*c)->summary);
    }
    fputs(".SH COMMANDS\n", f);
    for (size_t i = 0; i < ncmd; i++)
        roff_help(f, cmds[i].name, help[i]);
    fputs(".SH \"FAMILY OPTIONS\"\n"
          "Commands that take \\fB\\-\\-format\\fR \\fIfamily\\fR also take that family's options; "
          "\\fBrvtrace\\fR \\fIcommand\\fR \\fB\\-\\-help \\-\\-format\\fR \\fIfamily\\fR lists them.  "
          "A value in brackets is the default.\n",
          f);
    for (const struct rvt_codec *const *c = rvt_codec_list(); *c; c++) {
        fprintf(f, ".SS \"%s\"\n", (*c)->name);
        roff_line(f, (*c)->summary);
        for (const struct rvt_codec_opt *op = (*c)->options; op && op->name; op++) {
            char lhs[128];
            int n = snprintf(lhs, sizeof lhs, "--%s%s%s", op->name, op->arg ? " " : "", op->arg ? op->arg : "");
            roff_option(f, lhs, (size_t)n < sizeof lhs ? (size_t)n : sizeof lhs - 1);
            roff_line(f, op->help);
        }
    }
    fputs(".SH \"EXIT STATUS\"\n0 on success; 1 on an error (also a decode that reported damage, or a "
          "verify that found a difference); 2 on a usage error.\n"
          ".SH ENVIRONMENT\n.TP\n\\fBRVT_QEMU_PLUGIN\\fR\n"
          "the QEMU capture plugin \\fBcapture\\fR loads (see \\fB\\-\\-plugin\\fR).\n"
          ".SH EXAMPLES\n.nf\n",
          f);
    for (const char *const *e = cli_examples; *e; e++)
        roff_line(f, *e);
    fputs(".fi\n.SH \"SEE ALSO\"\nlibrvtrace(3), qemu(1); the guides in the rvtrace sources' docs/ folder.\n", f);
    if (fflush(f) != 0 || ferror(f))
        rc = cli_fail("--man", "write failed");
out:
    for (size_t i = 0; i < 16; i++)
        free(help[i]);
    return rc;
}
