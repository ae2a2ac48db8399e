/* Replay driver for fuzz targets when libFuzzer is not used: runs the target
 * on every file of the given corpus directories (or files), then on
 * deterministic mutations of each (bit flips, truncations, splices), so the
 * ordinary test suite exercises every parser of outside bytes. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned long long g_runs;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void run(const uint8_t *p, size_t n)
{
    /* Copy so that reads past the end are caught by ASan. */
    uint8_t *c = malloc(n ? n : 1);
    if (!c)
        abort();
    memcpy(c, p, n);
    LLVMFuzzerTestOneInput(c, n);
    free(c);
    g_runs++;
}

static void mutate_all(const uint8_t *p, size_t n, uint64_t seed)
{
    uint8_t *m = malloc(n + 64);
    if (!m)
        abort();
    uint64_t s = seed | 1;
    for (int round = 0; round < 200; round++) {
        size_t len = n;
        memcpy(m, p, n);
        unsigned k = (unsigned)(rng_next(&s) % 4);
        if (n && k == 0) { /* flip up to 8 bits */
            for (int i = 0; i < 1 + (int)(rng_next(&s) % 8); i++)
                m[rng_next(&s) % n] ^= (uint8_t)(1u << (rng_next(&s) % 8));
        } else if (n && k == 1) { /* truncate */
            len = (size_t)(rng_next(&s) % n);
        } else if (n && k == 2) { /* overwrite a run with random bytes */
            size_t at = (size_t)(rng_next(&s) % n);
            for (size_t i = at; i < n && i < at + 16; i++)
                m[i] = (uint8_t)rng_next(&s);
        } else { /* start at a random offset */
            size_t at = n ? (size_t)(rng_next(&s) % n) : 0;
            memmove(m, m + at, n - at);
            len = n - at;
        }
        run(m, len);
    }
    free(m);
}

static void do_file(const char *path, uint64_t seed)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
        fprintf(stderr, "%s: read failed\n", path);
        exit(2);
    }
    fclose(f);
    run(buf, (size_t)n);
    mutate_all(buf, (size_t)n, seed);
    free(buf);
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    unsigned files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "%s: no such corpus\n", argv[i]);
            return 2;
        }
        if (S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            while (d && (e = readdir(d))) {
                if (e->d_name[0] == '.')
                    continue;
                char p[4096];
                snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
                do_file(p, seed += 0x1234567);
                files++;
            }
            if (d)
                closedir(d);
        } else {
            do_file(argv[i], seed += 0x1234567);
            files++;
        }
    }
    /* Pure garbage too. */
    uint64_t s = 12345;
    uint8_t g[512];
    for (int r = 0; r < 300; r++) {
        size_t n = (size_t)(rng_next(&s) % sizeof g);
        for (size_t i = 0; i < n; i++)
            g[i] = (uint8_t)rng_next(&s);
        run(g, n);
    }
    printf("%u corpus files, %llu executions, no crash\n", files, g_runs);
    return 0;
}
