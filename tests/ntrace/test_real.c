/* N-Trace round trip on a real program: PROG.elf RUN.ing [ecall-mode].
 * Every option set must decode back to the capture exactly (the decoder
 * is given only the ecall treatment and the wire format). */
#include "ntrace/ntrace.h"
#include "roundtrip.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static const char *const g_sets[] = {
    "ntrace-mode htm callstack 8 repeat 2",
    "ntrace-mode btm callstack 0 repeat 0",
    "ntrace-mode btm callstack 8 repeat 1 sync-msgs 50",
    "ntrace-mode btm callstack 64 icnt-bits 8 icnt-sync 1",
    "ntrace-mode htm callstack 0 repeat 3",
    "ntrace-mode htm callstack 2 repeat 2 sync-period 1000",
    "ntrace-mode htm callstack 32 repeat 1 sijump 1",
    "ntrace-mode htm callstack 8 src-bits 5 src-id 17 addr-ext 1",
    "ntrace-mode htm callstack 3 repeat 3 icnt-bits 6 hist-bits 7",
    "ntrace-mode htm callstack 8 repeat 2 context 1 timestamps 1",
};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ntrace_real PROG.elf RUN.ing [ecall]\n");
        return 2;
    }
    struct rvt_image *img = rvt_img_new();
    if (rvt_img_load_elf(img, argv[1]) < 0) {
        fprintf(stderr, "%s\n", rvt_img_error(img));
        return 1;
    }
    struct rvt_recs recs = {0};
    struct rvt_diag d = {0};
    if (rvt_recs_load(&recs, argv[2], img, &d) < 0) {
        fprintf(stderr, "%s\n", d.msg);
        return 1;
    }
    const char *ecall = argc > 3 ? argv[3] : NULL;
    CHECK_STR(rvt_codec_ntrace.name, "ntrace"); /* links the family in (the registry refers to it weakly) */
    for (size_t s = 0; s < sizeof g_sets / sizeof g_sets[0]; s++) {
        char buf[256];
        const char *opts[32];
        size_t n = 0;
        snprintf(buf, sizeof buf, "%s", g_sets[s]);
        for (char *t = strtok(buf, " "); t && n < 28; t = strtok(NULL, " "))
            opts[n++] = t;
        if (ecall) {
            opts[n++] = "ecall";
            opts[n++] = ecall;
        }
        opts[n] = NULL;
        struct rvt_rt_opts o = {.format = "ntrace", .options = opts};
        struct rvt_rt_result res;
        int rc = rvt_roundtrip(&o, img, &recs, &res, NULL, NULL);
        CHECK_MSG(rc == 0 && res.insns_out == res.insns_in, "[%s]: %s", g_sets[s], res.msg);
        printf("%-60s %10llu instructions %9llu bytes %.4f bits/instr\n", g_sets[s], (unsigned long long)res.insns_in,
               (unsigned long long)res.bytes, res.insns_in ? 8.0 * (double)res.bytes / (double)res.insns_in : 0.0);
    }
    rvt_recs_free(&recs);
    rvt_img_free(img);
    return rvt_test_summary("ntrace_real");
}
