/* bench_cores THREADS: a fixed amount of perfectly parallel work (each
 * thread its own arithmetic loop, nothing shared) split over THREADS
 * threads; prints the wall milliseconds.  bench/speed.sh runs it with 1 and
 * 2 threads beside every `decode --jobs` pair: the speed-up this machine
 * gives at that moment to work that cannot do better (a virtual machine's
 * second core is not always there). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { WORK = 150000000, MAX_THREADS = 64 };

static void *spin(void *arg)
{
    const uint64_t n = *(const uint64_t *)arg;
    volatile uint64_t x = 0;
    for (uint64_t i = 0; i < n; i++)
        x = x + i * i;
    return (void *)(uintptr_t)x;
}

int main(int argc, char **argv)
{
    const int threads = argc > 1 ? atoi(argv[1]) : 1;
    if (threads < 1 || threads > MAX_THREADS) {
        fprintf(stderr, "usage: bench_cores THREADS (1..%d)\n", MAX_THREADS);
        return 2;
    }
    uint64_t share = WORK / (uint64_t)threads;
    pthread_t th[MAX_THREADS];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < threads; i++)
        if (pthread_create(&th[i], NULL, spin, &share) != 0) {
            fprintf(stderr, "bench_cores: cannot start a thread\n");
            return 1;
        }
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%.3f\n", (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    return 0;
}
