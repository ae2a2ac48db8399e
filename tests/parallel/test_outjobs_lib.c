/* The listing's caches through the library (src/analysis/output.c):
 * - a formatter's line and run tables cost only the slots the code uses:
 *   a threaded listing makes a formatter per thread, and each must not
 *   touch its whole 4 MiB line table at start (peak memory, start-up);
 * - the zeroed tables do not take address 0 for a cached line: code at
 *   address 0 is listed right, the first time and from the caches. */
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

/* ThreadSanitizer's allocator fills what calloc returns, and its threads
 * have large shadows: resident memory says nothing there. */
#if defined(__SANITIZE_THREAD__)
#define RSS_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RSS_MEANINGFUL 0
#endif
#endif
#ifndef RSS_MEANINGFUL
#define RSS_MEANINGFUL 1
#endif

/* The resident set of this process in KiB (/proc/self/status VmRSS; 0:
 * unknown). */
static unsigned long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %lu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static void formatters_cost_what_they_use(void)
{
    char *elf = rvt_test_data("ntrace-t1/test.elf");
    struct rvt_image *img = rvt_img_new();
    REQUIRE(img && rvt_img_load_elf(img, elf) == 0);
    FILE *null = fopen("/dev/null", "w");
    REQUIRE(null);
    const unsigned long before = rss_kib();
    struct rvt_out_config cfg = {.size = sizeof cfg, .kind = RVT_OUT_INSN, .f = null, .image = img};
    struct rvt_output *o = rvt_out_new(&cfg);
    REQUIRE(o);
    /* 16 threads: 16 formatters besides the output's own. */
    struct rvt_out_jobs *j = rvt_out_jobs_new(o, 16);
    REQUIRE(j);
    const unsigned long after = rss_kib();
    /* 17 line tables of 4 MiB each were 68 MiB; what remains is the
     * batches' and texts' first pages and the block caches. */
    if (RSS_MEANINGFUL && before && after)
        CHECK_MSG(after - before < 16 * 1024, "17 listing formatters took %lu KiB resident", after - before);
    rvt_out_jobs_free(j);
    rvt_out_free(o);
    fclose(null);
    rvt_img_free(img);
    free(elf);
}

/* A listing of code at address 0: `addi a0, a0, 1` (0x00150513) twice,
 * then `c.addi a0, 1` (0x0505) — the block at 0 listed three times (the
 * second and third from the caches). */
static void code_at_address_zero(void)
{
    const uint8_t code[] = {0x13, 0x05, 0x15, 0x00, 0x13, 0x05, 0x15, 0x00, 0x05, 0x05};
    struct rvt_image *img = rvt_img_new();
    REQUIRE(img);
    rvt_img_set_xlen(img, 64);
    REQUIRE(rvt_img_add_raw(img, 0, code, sizeof code, NULL) == 0);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    REQUIRE(mem);
    struct rvt_out_config cfg = {.size = sizeof cfg, .kind = RVT_OUT_INSN, .f = mem, .image = img};
    struct rvt_output *o = rvt_out_new(&cfg);
    REQUIRE(o);
    struct rvt_flow_sink s = rvt_out_sink(o);
    for (uint64_t i = 0; i < 3; i++) {
        struct rvt_block b = {.start = 0, .last = 8, .next = 0, .ninsns = 3, .index = 3 * i, .end = RVT_END_SEQ,
                              .last_len = 2};
        CHECK_EQ(s.block(s.ctx, &b), 0);
    }
    CHECK_EQ(rvt_out_finish(o), 0);
    rvt_out_free(o);
    fclose(mem);
    /* Each of the nine lines names its address and its instruction's bits. */
    const char *want[3] = {"         0:\t00150513", "         4:\t00150513", "         8:\t0505"};
    const char *p = text;
    for (int line = 0; line < 9; line++) {
        CHECK_MSG(p && strncmp(p, want[line % 3], strlen(want[line % 3])) == 0, "line %d of the listing: %.40s", line,
                  p ? p : "(missing)");
        p = p ? strchr(p, '\n') : NULL;
        p = p ? p + 1 : NULL;
    }
    CHECK_MSG(p && *p == 0, "nothing after the nine lines: %s", p ? p : "(missing)");
    free(text);
    rvt_img_free(img);
}

int main(void)
{
    formatters_cost_what_they_use();
    code_at_address_zero();
    return rvt_test_summary("test_outjobs_lib");
}
