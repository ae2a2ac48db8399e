/* Two threads, each summing in a loop the compiler cannot fold. */
#include <pthread.h>
#include <stdio.h>

static void *work(void *arg)
{
    volatile long sum = 0;
    long k = (long)arg;
    for (long i = 0; i < 100000; i++)
        sum += i * k;
    return (void *)(long)sum;
}

int main(void)
{
    pthread_t t;
    void *r;
    if (pthread_create(&t, NULL, work, (void *)3) != 0)
        return 1;
    long mine = (long)work((void *)5);
    pthread_join(t, &r);
    printf("%ld %ld\n", mine, (long)r);
    return mine == 5 * 4999950000L && (long)r == 3 * 4999950000L ? 0 : 1;
}
