/* Fuzz target for the filter-spec parser.  The first byte chooses the
 * parser (filter / trigger / sideband, or all three on '\n'-separated
 * parts), the rest is the text.  A spec that parses is described and run
 * over a short execution of the t1 program (symbols and code from
 * $RVT_TEST_DATA/ntrace-t1/test.elf when available), checking the filter's
 * invariants: no instruction is lost or duplicated, counts add up. */
#include "driver/fuzz_image.h"
#include "rvtrace/filter.h"

#include <stdlib.h>
#include <string.h>

#define REQUIRE(c)                                                                         \
    do {                                                                                   \
        if (!(c))                                                                          \
            abort();                                                                       \
    } while (0)

static struct rvt_image *g_img;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    g_img = rvt_fuzz_image("ntrace-t1/test.elf", "fuzz_filter");
    return 0;
}

struct sink {
    uint64_t halfwords;
    uint64_t records;
};

static int count(void *ctx, const struct rvt_ing_rec *r)
{
    struct sink *s = ctx;
    REQUIRE(!(r->flags & RVT_FILTER_NOTIFY) || !(r->flags & RVT_ING_UNQUALIFIED));
    s->halfwords += r->iretire;
    s->records++;
    return 0;
}

static void run_filter(const struct rvt_filter_config *cfg)
{
    struct rvt_filter *f;
    struct rvt_diag d = {0};
    if (rvt_filter_new(&f, cfg, &d) < 0)
        return;
    /* main's first instructions one by one, as one merged record, a trap
     * that retires nothing, a trap return, a load and a store, two harts. */
    static const uint64_t pcs[] = {0x20010522, 0x20010524, 0x20010526, 0x20010528, 0x2001052a, 0x2001052e};
    static const uint8_t sizes[] = {0, 0, 0, 0, 1, 0};
    struct sink s = {0, 0};
    uint64_t in_hw = 0, in_recs = 0;
    for (unsigned hart = 0; hart < 2; hart++) {
        for (unsigned i = 0; i < 6; i++) {
            struct rvt_ing_rec r;
            memset(&r, 0, sizeof r);
            r.iaddr = pcs[i];
            r.iretire = 1u << sizes[i];
            r.ilastsize = sizes[i];
            r.priv = (uint8_t)(i % 4);
            r.context = i;
            r.hart = (uint16_t)hart;
            if (i == 3) {
                r.flags = RVT_ING_HAS_MEM | (hart ? RVT_ING_MEM_STORE : 0);
                r.mem_addr = 0x80001000;
            }
            if (i == 5)
                r.itype = RVT_ITYPE_TRAPRET;
            if (rvt_filter_put(f, &r, count, &s) == 0) {
                in_hw += r.iretire;
                in_recs++;
            }
        }
        struct rvt_ing_rec t;
        memset(&t, 0, sizeof t);
        t.iaddr = 0x20010530;
        t.itype = RVT_ITYPE_EXCEPTION;
        t.cause = 2 + hart;
        t.tval = 0x73;
        t.hart = (uint16_t)hart;
        if (rvt_filter_put(f, &t, count, &s) == 0)
            in_recs++;
        struct rvt_ing_rec m;
        memset(&m, 0, sizeof m);
        m.iaddr = 0x20010522;
        m.iretire = 6; /* 4 x 16-bit + the 32-bit lui */
        m.ilastsize = 1;
        m.hart = (uint16_t)hart;
        if (rvt_filter_put(f, &m, count, &s) == 0) {
            in_hw += m.iretire;
            in_recs++;
        }
    }
    REQUIRE(rvt_filter_finish(f) == 0);
    struct rvt_filter_stats st;
    rvt_filter_get_stats(f, &st, sizeof st);
    REQUIRE(s.halfwords == in_hw);
    REQUIRE(st.records_out == s.records);
    REQUIRE(st.records_out == st.records_in + st.splits || st.records_in > in_recs);
    REQUIRE(st.insns_traced <= st.insns && st.traps_traced <= st.traps);
    rvt_filter_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    struct rvt_filter_config cfg;
    rvt_filter_config_init(&cfg);
    cfg.image = g_img;
    struct rvt_diag d = {0};
    int rc = 0;
    switch (data[0] % 4) {
    case 0:
        rc = rvt_filter_parse(&cfg, text, &d);
        break;
    case 1:
        rc = rvt_filter_parse_trigger(&cfg, text, &d);
        break;
    case 2:
        rc = rvt_filter_parse_sideband(&cfg, text, &d);
        break;
    default: {
        /* "filter\ntrigger\nsideband" */
        char *parts[3] = {text, NULL, NULL};
        for (int k = 1; k < 3 && parts[k - 1]; k++) {
            char *nl = strchr(parts[k - 1], '\n');
            if (nl) {
                *nl = 0;
                parts[k] = nl + 1;
            }
        }
        rc = rvt_filter_parse(&cfg, parts[0], &d);
        if (rc == 0 && parts[1])
            rc = rvt_filter_parse_trigger(&cfg, parts[1], &d);
        if (rc == 0 && parts[2])
            rc = rvt_filter_parse_sideband(&cfg, parts[2], &d);
        break;
    }
    }
    if (rc < 0) {
        /* Every failure explains itself. */
        REQUIRE(d.msg[0] != 0 && memchr(d.msg, 0, sizeof d.msg) != NULL);
    } else {
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            REQUIRE(rvt_filter_describe(&cfg, null) == 0);
            fclose(null);
        }
        run_filter(&cfg);
    }
    free(text);
    return 0;
}
