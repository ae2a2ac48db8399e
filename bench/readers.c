/* Benchmark: an ingress reader alone (rvt_ing_open + rvt_ing_next over the
 * whole file), the best of `repeats` runs:
 *
 *   bench_readers PROG.elf INPUT [repeats]
 *
 * (repeats 0: one read, printing only the record count: for counting host
 * instructions.)
 * INPUT is any format the readers know (native ingress, PC INSN text, PC
 * list); prints its size, records and instructions, and the reading speed
 * in MB/s of input and M instructions/s.  Reading includes what the reader
 * must do to give records: for text, parsing every line and building the
 * records from the instructions (the builder). */
#include "rvtrace/rvtrace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
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
        fprintf(stderr, "bench_readers: %s\n", d.msg);
        exit(1);
    }
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_readers PROG.elf INPUT [repeats]\n");
        return 2;
    }
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    struct rvt_image *img = rvt_img_new();
    if (rvt_img_load_elf(img, argv[1]) < 0) {
        fprintf(stderr, "bench_readers: %s\n", rvt_img_error(img));
        return 1;
    }
    struct rvt_ing_rec rec;
    if (repeats == 0) { /* one read and nothing else (for an instruction count) */
        struct rvt_ing_reader *r = open_in(argv[2], img);
        uint64_t n = 0;
        while (rvt_ing_next(r, &rec) > 0)
            n++;
        rvt_ing_close(r);
        printf("records %" PRIu64 "\n", n);
        rvt_img_free(img);
        return 0;
    }
    struct stat st;
    if (stat(argv[2], &st) < 0) {
        perror(argv[2]);
        return 1;
    }
    /* Instructions, counted once outside the timed runs. */
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    struct rvt_ing_reader *r = open_in(argv[2], img);
    const char *fmt = rvt_ing_format_name(rvt_ing_reader_format(r));
    uint64_t records = 0, insns = 0;
    int rc;
    while ((rc = rvt_ing_next(r, &rec)) > 0) {
        uint64_t n = 0;
        if (rvt_ing_count_insns(&rec, bc, &n) == 0)
            insns += n;
        records++;
    }
    if (rc < 0) {
        fprintf(stderr, "bench_readers: %s\n", rvt_ing_error(r));
        return 1;
    }
    rvt_ing_close(r);
    rvt_bcache_free(bc);

    double best = 0;
    for (int i = 0; i < repeats; i++) {
        r = open_in(argv[2], img);
        double t0 = now();
        while (rvt_ing_next(r, &rec) > 0)
            ;
        double t = now() - t0;
        rvt_ing_close(r);
        if (i == 0 || t < best)
            best = t;
    }
    printf("input %s (%s, %" PRIu64 " bytes, %" PRIu64 " records, %" PRIu64 " instructions)\n", argv[2], fmt,
           (uint64_t)st.st_size, records, insns);
    printf("read %.3f s: %.1f MB/s, %.1f M records/s, %.1f M instructions/s\n", best,
           (double)st.st_size / best / 1e6, (double)records / best / 1e6, (double)insns / best / 1e6);
    rvt_img_free(img);
    return 0;
}
