/* bench_writefloor FILE BYTES [ROUNDS [SECONDS]]: what the kernel alone
 * costs to put BYTES of text into FILE, with nothing formatted: the floor
 * under any `decode --output pcs -o FILE` of that size (issue 12, item 2).
 *
 * Each round, in turn:
 *   new       FILE removed (outside the time), then created and written
 *             in 1 MiB pieces, its space reserved ahead with fallocate
 *             (FALLOC_FL_KEEP_SIZE) as rvtrace's output does (outfile.c);
 *   new, 2    the same, two threads each writing every other 1 MiB piece
 *             at its offset (pwrite), as `--jobs 2` writes a PC list;
 *   over      FILE as the last round left it, written again from its
 *             start and cut at BYTES, as rvtrace writes over a file;
 *   late new  as `new`, but SECONDS (default 0: not measured) after the
 *             old file was removed.  A virtual machine may hand the
 *             memory of freed pages back to its host (virtio-balloon free
 *             page reporting, a few seconds after they are freed); a file
 *             written then gets pages the host must supply again, one by
 *             one (on the AMD VM: 290 MB in 0.08 s right after the old
 *             file's removal, 0.7-1.1 s four seconds later).
 * Prints one line per way: the best and the median of ROUNDS (default 5)
 * in milliseconds, and the instructions per second a PC list of 19-byte
 * lines could reach if its text cost nothing to make.  The time includes
 * open and close, as a decode's does. */
#define _GNU_SOURCE /* fallocate */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { PIECE = 1 << 20, MAX_ROUNDS = 99, WAYS = 4 };

static const char *path;
static uint64_t total;
static char *piece;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void fail(const char *what)
{
    fprintf(stderr, "bench_writefloor: %s: %s: %s\n", path, what, strerror(errno));
    exit(1);
}

struct part {
    int fd;
    unsigned me, of;
};

/* Pieces me, me + of, me + 2 of, ... of the text, each at its offset. */
static void *write_part(void *arg)
{
    const struct part *p = arg;
    for (uint64_t at = (uint64_t)p->me * PIECE; at < total; at += (uint64_t)p->of * PIECE) {
        const size_t n = total - at < PIECE ? (size_t)(total - at) : PIECE;
        if (pwrite(p->fd, piece, n, (off_t)at) != (ssize_t)n)
            fail("pwrite");
    }
    return NULL;
}

static unsigned late_s; /* the seconds `late new` waits */

/* One way, timed: 0 new, 1 new with 2 threads, 2 over, 3 late new. */
static double run(int way)
{
    if (way != 2 && unlink(path) != 0 && errno != ENOENT)
        fail("unlink");
    if (way == 3)
        sleep(late_s);
    const double t0 = now_ms();
    const int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0)
        fail("open");
    if (way != 2)
        (void)fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)total); /* (a file system without it: plain writes) */
    if (way == 1) {
        pthread_t t;
        struct part a = {fd, 0, 2}, b = {fd, 1, 2};
        if (pthread_create(&t, NULL, write_part, &b) != 0)
            fail("pthread_create");
        write_part(&a);
        pthread_join(t, NULL);
    } else {
        struct part a = {fd, 0, 1};
        write_part(&a);
    }
    if (ftruncate(fd, (off_t)total) != 0)
        fail("ftruncate");
    if (close(fd) != 0)
        fail("close");
    return now_ms() - t0;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: bench_writefloor FILE BYTES [ROUNDS [SECONDS]]\n");
        return 2;
    }
    path = argv[1];
    char *end, *end_rounds = "", *end_late = "";
    total = strtoull(argv[2], &end, 10);
    const long rounds = argc >= 4 ? strtol(argv[3], &end_rounds, 10) : 5;
    const long late = argc == 5 ? strtol(argv[4], &end_late, 10) : 0;
    if (*end || *end_rounds || *end_late || !total || rounds < 1 || rounds > MAX_ROUNDS || late < 0 || late > 60) {
        fprintf(stderr, "bench_writefloor: BYTES must be a positive number, ROUNDS 1 to %d, SECONDS 0 to 60\n",
                MAX_ROUNDS);
        return 2;
    }
    late_s = (unsigned)late;
    const int ways = late ? WAYS : WAYS - 1;
    if (!(piece = malloc(PIECE)))
        return 1;
    /* PC-list-like text: 19-byte lines */
    for (size_t i = 0; i < PIECE; i++)
        piece[i] = i % 19 == 18 ? '\n' : i % 19 < 2 ? "0x"[i % 19] : "0123456789abcdef"[(i * 7) & 15];
    double ms[WAYS][MAX_ROUNDS];
    for (long r = 0; r < rounds; r++)
        for (int w = 0; w < ways; w++)
            ms[w][r] = run(w);
    (void)unlink(path);
    char late_name[64];
    snprintf(late_name, sizeof late_name, "a new file, %ld s after the last one's removal", late);
    const char *const name[WAYS] = {"a new file", "a new file, 2 threads", "over the last one", late_name};
    for (int w = 0; w < ways; w++) {
        qsort(ms[w], (size_t)rounds, sizeof ms[w][0], by_value);
        const double best = ms[w][0], median = ms[w][rounds / 2];
        printf("%s: best %.1f ms, median %.1f ms: %.0f M instructions/s of 19-byte lines at best\n", name[w], best,
               median, (double)total / 19 / best / 1e3);
    }
    free(piece);
    return 0;
}
