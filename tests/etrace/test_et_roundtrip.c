/* E-Trace round trips on generated programs: every option combination must
 * reproduce the executed instructions exactly (RV32 and RV64, traps,
 * interrupts, nested traps, privilege and context changes, recursion,
 * mismatched returns, multiple retirement). */
#include "ingress/refcsv.h"
#include "rt.h"
#include "synth.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_NONE, F_PRIV_U, F_RANGE, F_TVEC, F_NOTIFY };

struct optset {
    const char *name;
    const char *opts[40];
    bool merge, same_cycle, time, context;
    int filter;
};

static const struct optset sets[] = {
    {"default", {NULL}, false, false, false, false, F_NONE},
    {"refraw", {"framing", "refraw", NULL}, false, false, false, false, F_NONE},
    {"full-address", {"full-address", "1", NULL}, false, false, false, false, F_NONE},
    {"lsb0", {"iaddress_lsb_p", "0", NULL}, false, false, false, false, F_NONE},
    {"resync0", {"resync-max", "0", NULL}, false, false, false, false, F_NONE},
    {"no-resync", {"resync-max", "off", NULL}, false, false, false, false, F_NONE},
    {"ir-2.0", {"implicit-return", "2.0", "return_stack_size_p", "2", NULL}, false, false, false, false, F_NONE},
    {"ir-2.0-deep", {"implicit-return", "2.0", "return_stack_size_p", "5", NULL}, false, false, false, false, F_NONE},
    {"ir-fixed", {"implicit-return", "fixed", "return_stack_size_p", "2", NULL}, false, false, false, false, F_NONE},
    {"ir-fixed-counter", {"implicit-return", "fixed", "call_counter_size_p", "2", NULL}, false, false, false, false, F_NONE},
    {"ir-2.0-counter", {"implicit-return", "2.0", "call_counter_size_p", "3", NULL}, false, false, false, false, F_NONE},
    {"bpred", {"branch-prediction", "1", "bpred_size_p", "6", NULL}, false, false, false, false, F_NONE},
    {"jtc", {"jump-target-cache", "1", "cache_size_p", "4", NULL}, false, false, false, false, F_NONE},
    {"bpred+jtc", {"branch-prediction", "1", "jump-target-cache", "1", "f0s_width_p", "1", NULL}, false, false,
     false, false, F_NONE},
    {"sijump", {"sijump", "1", NULL}, false, false, false, false, F_NONE},
    {"multi-retire", {"taken_branches_p", "4", NULL}, true, true, false, false, F_NONE},
    {"context+time",
     {"nocontext_p", "0", "context_width_p", "8", "notime_p", "0", "time_width_p", "40", NULL},
     false, false, true, true, F_NONE},
    {"encap-srcid-ts", {"src-bits", "12", "src-id", "0x5a5", "encap-timestamp", "2", "encap-type-bits", "1", NULL},
     false, false, true, false, F_NONE},
    {"0.026", {"etrace-version", "0.026", NULL}, false, false, false, false, F_NONE},
    {"0.026-refraw-full", {"etrace-version", "0.026", "framing", "refraw", "full-address", "1", NULL}, false,
     false, false, false, F_NONE},
    {"0.026-context", {"etrace-version", "0.026", "nocontext_p", "0", "context_width_p", "8", NULL}, false, false,
     false, true, F_NONE},
    /* resync timing checked (resync-max given): trace-notify starts among the periodic resyncs */
    {"0.026-notify-resync", {"etrace-version", "0.026", "resync-max", "0", NULL}, false, false, false, false, F_NOTIFY},
    {"all",
     {"implicit-return", "fixed", "return_stack_size_p", "3", "branch-prediction", "1", "jump-target-cache", "1",
      "f0s_width_p", "1", "sijump", "1", "resync-max", "0", "nocontext_p", "0", "context_width_p", "8", NULL},
     true, true, false, true, F_NONE},
    {"filter-priv", {"filter-priv", "u", NULL}, false, false, false, false, F_PRIV_U},
    {"filter-range", {NULL}, false, false, false, false, F_RANGE},
    {"filter-range-ir", {"implicit-return", "fixed", "return_stack_size_p", "3", "sijump", "1", NULL}, false,
     false, false, false, F_RANGE},
    {"robust-all", {"resync-max", "1", "implicit-return", "fixed", "branch-prediction", "1", "jump-target-cache", "1", "sijump", "1", NULL}, false, false, false, false, F_NONE},
    {"implicit-except", {"implicit-except", "1", NULL}, false, false, false, false, F_TVEC},
    {"all-2.0",
     {"implicit-return", "2.0", "return_stack_size_p", "2", "branch-prediction", "1", "jump-target-cache", "1",
      "f0s_width_p", "1", "sijump", "1", "resync-max", "1", NULL},
     true, false, false, false, F_NONE},
    /* trace-notify triggers on some records (RVT_ING_NOTIFY) */
    {"notify", {NULL}, false, false, false, false, F_NOTIFY},
    {"notify-all",
     {"implicit-return", "fixed", "return_stack_size_p", "3", "branch-prediction", "1", "jump-target-cache", "1",
      "sijump", "1", "resync-max", "1", NULL},
     true, true, false, false, F_NOTIFY},
    {"ir-bp-jtc-sij-multi",
     {"implicit-return", "fixed", "return_stack_size_p", "3", "branch-prediction", "1", "jump-target-cache", "1",
      "sijump", "1", "resync-max", "1", NULL},
     true, true, false, false, F_NONE},
};

static unsigned failures_shown;

static void run(const struct optset *os, unsigned xlen, unsigned seed, uint64_t insns)
{
    struct synth_opts so;
    synth_default(&so, seed, xlen);
    so.insns = insns;
    so.merge_blocks = os->merge;
    so.same_cycle = os->same_cycle;
    so.with_time = os->time;
    if (!os->context)
        so.p_context = 0;
    if (seed % 3 == 2)
        so.max_depth = 300; /* deep recursion: far beyond any stack */
    if (xlen == 64 && seed % 4 == 1)
        so.base = 0xffffffffc0000000ull; /* addresses with the top bit set */
    struct synth s;
    if (synth_run(&s, &so) < 0) {
        CHECK_MSG(0, "synth failed for %s seed %u", os->name, seed);
        return;
    }
    char err[700] = "";
    if (os->filter == F_NOTIFY)
        for (size_t i = 0; i < s.nrecs; i++)
            if ((i * 2654435761u + seed) % 7 == 3)
                s.recs[i].flags |= RVT_ING_NOTIFY;
    /* filters: the expected instructions are the qualified ones */
    const char *opts[48];
    unsigned no = 0;
    for (const char *const *o = os->opts; *o && no < 40; o++)
        opts[no++] = *o;
    char range[80];
    uint64_t lo = so.base + 0x180, hi = so.base + 0x500;
    if (os->filter == F_RANGE) {
        snprintf(range, sizeof range, "0x%llx..=0x%llx", (unsigned long long)lo, (unsigned long long)hi);
        opts[no++] = "filter-range";
        opts[no++] = range;
    }
    char tvec[40];
    if (os->filter == F_TVEC) { /* the generated handler is at the code base */
        snprintf(tvec, sizeof tvec, "0x%llx", (unsigned long long)so.base);
        opts[no++] = "tvec-m";
        opts[no++] = tvec;
    }
    opts[no] = NULL;
    size_t nexp = 0;
    uint64_t *exp = malloc((s.npcs + 1) * sizeof *exp);
    for (size_t k = 0; k < s.npcs; k++) {
        bool q = os->filter == F_PRIV_U ? s.privs[k] == RVT_PRIV_U
                 : os->filter == F_RANGE ? (s.pcs[k] >= lo && s.pcs[k] <= hi)
                                         : true;
        if (q)
            exp[nexp++] = s.pcs[k];
    }
    void *cfg = rt_config(opts, xlen, s.img, err, sizeof err);
    CHECK_MSG(cfg != NULL, "%s: %s", os->name, err);
    if (!cfg) {
        free(exp);
        synth_free(&s);
        return;
    }
    struct rt_result enc = {0}, dec = {0};
    int rc = rt_encode(cfg, s.recs, s.nrecs, &enc, err, sizeof err);
    CHECK_MSG(rc == 0, "%s rv%u seed %u: encode: %s", os->name, xlen, seed, err);
    if (rc == 0) {
        rc = rt_decode(cfg, s.img, RVT_FLOW_ECALL_TRAP, enc.bytes, enc.nbytes, &dec, err, sizeof err);
        CHECK_MSG(rc == 0, "%s rv%u seed %u: %s", os->name, xlen, seed, err);
        size_t at = rt_first_diff(dec.pcs, dec.npcs, exp, nexp);
        bool ok = dec.npcs == nexp && at == nexp && dec.errors == 0;
        CHECK_MSG(ok, "%s rv%u seed %u: %zu of %zu instructions decoded, first difference at #%zu "
                      "(got 0x%llx, expected 0x%llx), %u errors%s%s",
                  os->name, xlen, seed, dec.npcs, nexp, at, at < dec.npcs ? (unsigned long long)dec.pcs[at] : 0ull,
                  at < nexp ? (unsigned long long)exp[at] : 0ull, dec.errors, dec.errors ? ": " : "",
                  dec.first_error);
        if ((!ok && failures_shown++ < 3) || getenv("ET_DUMP_ALL")) {
            /* ET_FAIL_DIR keeps the failing case (trace, input, code, PCs) */
            const char *dir = getenv("ET_FAIL_DIR") ? getenv("ET_FAIL_DIR") : rvt_test_tmpdir();
            char path[512];
            snprintf(path, sizeof path, "%s/fail-%s-rv%u-%u.bin", dir, os->name, xlen, seed);
            FILE *f = fopen(path, "wb");
            if (f) {
                fwrite(enc.bytes, 1, enc.nbytes, f);
                fclose(f);
                fprintf(stderr, "  trace written to %s\n", path);
            }
            /* the input and the code, for rvtrace encode/decode --raw */
            snprintf(path, sizeof path, "%s/fail-%s-rv%u-%u.csv", dir, os->name, xlen, seed);
            if ((f = fopen(path, "w"))) {
                unsigned cf = RVT_REFCSV_SIJUMP | (os->time ? RVT_REFCSV_TIME : 0) |
                              (os->filter == F_NOTIFY ? RVT_REFCSV_TRIGGER : 0);
                rvt_refcsv_write_header_ex(f, cf);
                for (size_t k = 0; k < s.nrecs; k++)
                    rvt_refcsv_write_ex(f, &s.recs[k], cf);
                fclose(f);
            }
            const struct rvt_segment *seg = rvt_img_segment(s.img, 0);
            snprintf(path, sizeof path, "%s/fail-%s-rv%u-%u.code@%llx", dir, os->name, xlen, seed,
                     (unsigned long long)seg->addr);
            if ((f = fopen(path, "wb"))) {
                fwrite(seg->data, 1, (size_t)seg->size, f);
                fclose(f);
            }
            snprintf(path, sizeof path, "%s/fail-%s-rv%u-%u.pcs", dir, os->name, xlen, seed);
            if ((f = fopen(path, "w"))) {
                for (size_t k = 0; k < s.npcs; k++)
                    fprintf(f, "0x%0*llX\n", xlen / 4, (unsigned long long)s.pcs[k]);
                fclose(f);
            }
        }
        if (seed == 1 && xlen == 64)
            printf("  %-18s rv%u: %8zu insns %7zu bytes %6llu packets %.4f bits/insn\n", os->name, xlen, s.npcs,
                   enc.nbytes, (unsigned long long)enc.packets, s.npcs ? 8.0 * (double)enc.nbytes / (double)s.npcs : 0);
    }
    rt_free(&enc);
    rt_free(&dec);
    rvt_codec_cfg_free(cfg);
    free(exp);
    synth_free(&s);
}

int main(int argc, char **argv)
{
    unsigned seeds = argc > 1 ? (unsigned)atoi(argv[1]) : 6;
    unsigned first = getenv("ET_SEED") ? (unsigned)atoi(getenv("ET_SEED")) : 1;
    uint64_t insns = argc > 2 ? (uint64_t)atoll(argv[2]) : 20000;
    const char *only = argc > 3 ? argv[3] : NULL;
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        if (only && strcmp(only, sets[i].name))
            continue;
        for (unsigned seed = first; seed < first + seeds; seed++) {
            run(&sets[i], 32, seed, insns);
            run(&sets[i], 64, seed, insns);
        }
    }
    return rvt_test_summary("test_et_roundtrip");
}
