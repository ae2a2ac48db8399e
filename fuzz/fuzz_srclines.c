/* Fuzz the DWARF line-table reader: any bytes as an ELF with DWARF (libdw
 * parses, rvtrace builds its address table), then lookups, which must stay
 * inside the table and agree with it. */
#include "rvtrace/analysis.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rvt_srclines *s = NULL;
    struct rvt_diag d = {0};
    if (rvt_srclines_load_mem(&s, data, size, "fuzz.elf", &d) != 0) {
        check(s == NULL && strncmp(d.msg, "fuzz.elf: ", 10) == 0);
        return 0;
    }
    size_t n = rvt_srclines_count(s);
    check(n > 0);
    uint64_t prev_end = 0;
    for (size_t i = 0; i < n && i < 4096; i++) {
        struct rvt_srcline r, q;
        check(rvt_srclines_row(s, i, &r) == 1);
        check(r.end > r.addr && r.addr >= prev_end && r.file != NULL);
        check(r.file_id < rvt_srclines_files(s) && strcmp(rvt_srclines_file(s, r.file_id), r.file) == 0);
        check(rvt_srclines_find(s, r.addr, &q) == 1 && q.addr == r.addr && q.line == r.line);
        check(rvt_srclines_find(s, r.end - 1, &q) == 1 && q.addr == r.addr);
        prev_end = r.end;
    }
    struct rvt_srcline r;
    check(rvt_srclines_row(s, n, &r) == 0);
    rvt_srclines_free(s);
    return 0;
}
