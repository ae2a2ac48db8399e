/* Options the analysis outputs share (decode --output calltree ..., report):
 * DWARF source lines and progress on a terminal. */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

int cli_load_lines(struct cli_opts *o, bool required, struct rvt_srclines **out)
{
    *out = NULL;
    const char *dwarf = cli_extra(o, "dwarf");
    const char *path = dwarf ? dwarf : o->elf;
    if (!path)
        return 0;
    struct rvt_diag d = {0};
    if (rvt_srclines_load(out, path, &d) == 0) {
        /* --elf loaded where the load map says (its --dwarf is of the same program) */
        if (o->elf_bias && rvt_srclines_rebase(*out, o->elf_bias) < 0) {
            rvt_srclines_free(*out);
            *out = NULL;
            return cli_fail(o->cmd, "%s: the source lines leave the address space at 0x%" PRIx64, path, o->elf_bias);
        }
        return 0;
    }
    /* The ELF's own DWARF is optional: without it the views have no lines. */
    if (dwarf || required)
        return cli_fail(o->cmd, "%s", d.msg);
    if (o->verbose)
        fprintf(stderr, "rvtrace %s: no source lines: %s\n", o->cmd, d.msg);
    return 0;
}

bool cli_progress_wanted(const struct cli_opts *o)
{
    return !cli_extra(o, "quiet") && !cli_extra(o, "q") && isatty(fileno(stderr));
}

struct rvt_progress *cli_progress(const struct cli_opts *o, const char *what, uint64_t total_bytes,
                                  const struct rvt_flow_sink *inner)
{
    if (!cli_progress_wanted(o))
        return NULL;
    struct rvt_progress *p = rvt_progress_new(stderr, what, total_bytes, inner);
    /* RVT_PROGRESS_INTERVAL (seconds) makes short runs show it, for tests. */
    const char *iv = getenv("RVT_PROGRESS_INTERVAL");
    if (p && iv)
        rvt_progress_set_interval(p, atof(iv));
    return p;
}
