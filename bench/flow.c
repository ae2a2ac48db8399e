/* Benchmark: ingress reading and flow walking on a real capture.
 *
 *   bench_flow PROG.elf RUN.ing [repeats]
 *
 * Measures, best of `repeats` runs each, in one invocation:
 *   read      rvt_ing_next over the whole file (records and instructions/s)
 *   check     the ideal decoder: records -> flow engine (block cache walk)
 *   naive     baseline: the same walk one instruction at a time, decoding
 *             every instruction from the image (no block cache)
 *   pcs       the ideal decoder plus PC-list text output to /dev/null
 * and prints the ratio check/naive.  Peak RSS at the end. */
#include "rvtrace/rvtrace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct rvt_ing_reader *open_in(const char *path, const struct rvt_image *img)
{
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .image = img};
    struct rvt_ing_reader *r;
    struct rvt_diag d = {0};
    if (rvt_ing_open(&r, path, &rc, &d) < 0) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    return r;
}

static uint64_t g_count;
static int count_block(void *ctx, const struct rvt_block *b)
{
    (void)ctx;
    g_count += b->ninsns;
    return 0;
}

static double run_read(const char *path, const struct rvt_image *img, uint64_t *records, uint64_t *insns)
{
    struct rvt_ing_reader *r = open_in(path, img);
    struct rvt_ing_rec rec;
    uint64_t n = 0, hw = 0;
    double t0 = now();
    while (rvt_ing_next(r, &rec) > 0) {
        n++;
        hw += rec.iretire;
    }
    double t = now() - t0;
    rvt_ing_close(r);
    *records = n;
    *insns = hw; /* halfwords; converted by the caller */
    return t;
}

static double run_check(const char *path, const struct rvt_image *img, bool pcs, uint64_t *insns)
{
    FILE *devnull = fopen("/dev/null", "w");
    struct rvt_out_config oc = {.size = sizeof oc, .kind = RVT_OUT_PCS, .f = devnull, .image = img};
    struct rvt_output *o = pcs ? rvt_out_new(&oc) : NULL;
    struct rvt_flow_config fc = {.size = sizeof fc, .image = img};
    fc.sink = pcs ? rvt_out_sink(o) : (struct rvt_flow_sink){.block = count_block};
    struct rvt_flow *f = rvt_flow_new(&fc);
    struct rvt_ingflow *x = rvt_ingflow_new(f);
    struct rvt_ing_reader *r = open_in(path, img);
    struct rvt_ing_rec rec;
    g_count = 0;
    double t0 = now();
    while (rvt_ing_next(r, &rec) > 0)
        if (rvt_ingflow_put(x, &rec) < 0) {
            fprintf(stderr, "%s\n", rvt_ingflow_error(x));
            exit(1);
        }
    rvt_ingflow_finish(x);
    if (o)
        rvt_out_finish(o);
    double t = now() - t0;
    *insns = pcs ? rvt_out_stats(o)->insns : g_count;
    rvt_ing_close(r);
    rvt_ingflow_free(x);
    rvt_flow_free(f);
    rvt_out_free(o);
    fclose(devnull);
    return t;
}

/* Baseline: follow the same records instruction by instruction. */
static double run_naive(const char *path, const struct rvt_image *img, uint64_t *insns)
{
    struct rvt_ing_reader *r = open_in(path, img);
    struct rvt_ing_rec rec;
    uint64_t n = 0, sink = 0;
    double t0 = now();
    while (rvt_ing_next(r, &rec) > 0) {
        uint64_t pc = rec.iaddr, end = rvt_ing_next_addr(&rec);
        while (pc < end) {
            struct rvt_insn in;
            if (rvt_img_insn(img, pc, &in) < 0 || !in.len) {
                fprintf(stderr, "no code at 0x%" PRIx64 "\n", pc);
                exit(1);
            }
            sink += in.cf;
            pc += in.len;
            n++;
        }
    }
    double t = now() - t0;
    rvt_ing_close(r);
    *insns = n + (sink & 0); /* keep the classification live */
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_flow PROG.elf RUN.ing [repeats]\n");
        return 2;
    }
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    struct rvt_image *img = rvt_img_new();
    if (rvt_img_load_elf(img, argv[1]) < 0) {
        fprintf(stderr, "%s\n", rvt_img_error(img));
        return 1;
    }
    double best[4] = {1e9, 1e9, 1e9, 1e9};
    uint64_t records = 0, hw = 0, insns = 0, n2 = 0;
    for (int i = 0; i < reps; i++) {
        double t;
        if ((t = run_read(argv[2], img, &records, &hw)) < best[0])
            best[0] = t;
        if ((t = run_check(argv[2], img, false, &insns)) < best[1])
            best[1] = t;
        if ((t = run_naive(argv[2], img, &n2)) < best[2])
            best[2] = t;
        if ((t = run_check(argv[2], img, true, &n2)) < best[3])
            best[3] = t;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("input           %s (%" PRIu64 " records, %" PRIu64 " instructions)\n", argv[2], records, insns);
    printf("read            %8.1f M records/s  %8.1f M instructions/s\n", (double)records / best[0] / 1e6,
           (double)insns / best[0] / 1e6);
    printf("check (flow)    %8.1f M instructions/s\n", (double)insns / best[1] / 1e6);
    printf("naive baseline  %8.1f M instructions/s\n", (double)insns / best[2] / 1e6);
    printf("pcs output      %8.1f M instructions/s\n", (double)insns / best[3] / 1e6);
    printf("ratio check/naive %.2fx\n", best[2] / best[1]);
    printf("peak RSS        %ld KiB\n", ru.ru_maxrss);
    rvt_img_free(img);
    return 0;
}
