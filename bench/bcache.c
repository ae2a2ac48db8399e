/* Block cache micro-benchmark: cost of rvt_bcache_get on a hit, and of a
 * miss (decoding a block), on a real ELF.
 *
 *   bench_bcache [program.elf] [lookups]
 *
 * Default program: the cross libc (/usr/riscv64-linux-gnu/lib/libc.so.6),
 * else $RVT_TEST_DATA/ntrace-t1/test.elf, else tests/data/ntrace-t1/test.elf.
 * The block starts are those of a straight walk through every executable
 * segment (block after block), i.e. the blocks a decoder meets.  Lookups go
 * in a fixed pseudo-random order over a working set of N blocks, for
 * several N: small sets measure the table itself, large ones include the
 * CPU's cache misses. */
#include "rvtrace/image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *default_elf(char *buf, size_t size)
{
    const char *libc = "/usr/riscv64-linux-gnu/lib/libc.so.6";
    FILE *f = fopen(libc, "rb");
    if (f) {
        fclose(f);
        return libc;
    }
    const char *d = getenv("RVT_TEST_DATA");
    snprintf(buf, size, "%s/ntrace-t1/test.elf", d ? d : "tests/data");
    return buf;
}

int main(int argc, char **argv)
{
    char pathbuf[1024];
    const char *path = argc > 1 ? argv[1] : default_elf(pathbuf, sizeof pathbuf);
    uint64_t lookups = argc > 2 ? strtoull(argv[2], NULL, 0) : 100000000ull;

    struct rvt_image *img = rvt_img_new();
    if (!img || rvt_img_load_elf(img, path) != 0) {
        fprintf(stderr, "bench_bcache: %s\n", img ? rvt_img_error(img) : "out of memory");
        return 1;
    }

    /* Block starts of a straight walk through the code. */
    size_t cap = 1 << 16, n = 0;
    uint64_t *starts = malloc(cap * sizeof *starts);
    uint64_t insns = 0;
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    double t0 = now();
    for (size_t i = 0; i < rvt_img_segment_count(img); i++) {
        const struct rvt_segment *s = rvt_img_segment(img, i);
        if (!s->exec)
            continue;
        for (uint64_t a = s->addr; a < s->addr + s->size;) {
            const struct rvt_block_info *b = rvt_bcache_get(bc, a);
            if (b->ninsns == 0) {
                a += 2;
                continue;
            }
            if (n == cap) {
                cap *= 2;
                starts = realloc(starts, cap * sizeof *starts);
                if (!starts)
                    return 1;
            }
            starts[n++] = a;
            insns += b->ninsns;
            a = b->next;
        }
    }
    double t_decode = now() - t0;
    uint64_t hits, misses;
    rvt_bcache_stats(bc, &hits, &misses);
    rvt_bcache_free(bc);
    if (n == 0) {
        fprintf(stderr, "bench_bcache: %s: no code\n", path);
        return 1;
    }
    printf("%s: %zu blocks, %.2f instructions per block\n", path, n, (double)insns / (double)n);
    printf("first walk (decode, insert, table growth): %.1f ns/miss (%llu misses)\n",
           t_decode * 1e9 / (double)misses, (unsigned long long)misses);

    /* Pure miss cost: a 2-slot table, the walk's blocks in order. */
    bc = rvt_bcache_new(img, 1);
    uint64_t sum_miss = 0, rounds = lookups / 100 > n ? lookups / 100 / n : 1;
    t0 = now();
    for (uint64_t r = 0; r < rounds; r++)
        for (size_t i = 0; i < n; i++)
            sum_miss += rvt_bcache_get(bc, starts[i])->ninsns;
    double t_miss = now() - t0;
    rvt_bcache_stats(bc, &hits, &misses);
    printf("miss (decode + insert, 2-slot table): %.1f ns/block, %.1f ns/insn (%llu misses, %llu hits)\n",
           t_miss * 1e9 / (double)(rounds * n), t_miss * 1e9 / (double)sum_miss,
           (unsigned long long)misses, (unsigned long long)hits);
    rvt_bcache_free(bc);

    /* Hits over working sets of increasing size. */
    static const size_t sets[] = {16, 256, 4096, 32768, 0};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        size_t ws = sets[k] && sets[k] < n ? sets[k] : n;
        if (sets[k] && sets[k] >= n && k + 1 < sizeof sets / sizeof sets[0])
            continue;
        /* A fixed pseudo-random visiting order of the working set. */
        size_t order_len = 1 << 16;
        uint64_t *order = malloc(order_len * sizeof *order);
        uint64_t s = 0x9e3779b97f4a7c15ull;
        for (size_t i = 0; i < order_len; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            order[i] = starts[(size_t)(s >> 33) % ws * (n / ws)];
        }
        bc = rvt_bcache_new(img, 0);
        for (size_t i = 0; i < order_len; i++) /* warm */
            rvt_bcache_get(bc, order[i]);
        uint64_t h0, m0, h1, m1, sum = 0;
        rvt_bcache_stats(bc, &h0, &m0);
        t0 = now();
        for (uint64_t i = 0; i < lookups; i++)
            sum += rvt_bcache_get(bc, order[i & (order_len - 1)])->ninsns;
        double t = now() - t0;
        rvt_bcache_stats(bc, &h1, &m1);
        printf("hit, working set %6zu blocks: %.2f ns/lookup, %.0f M lookups/s, "
               "%.0f M insns/s at %.2f insns/lookup (%llu misses)\n",
               ws, t * 1e9 / (double)lookups, (double)lookups / t / 1e6,
               (double)sum / t / 1e6, (double)sum / (double)lookups,
               (unsigned long long)(m1 - m0));
        rvt_bcache_free(bc);
        free(order);
    }
    free(starts);
    rvt_img_free(img);
    return 0;
}
