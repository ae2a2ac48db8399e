/* A handled signal: QEMU user mode enters the handler without a trap, so
 * the capture must fail and say so, never write a stream with a hole. */
#include <signal.h>
#include <stdio.h>

static volatile sig_atomic_t got;

static void handler(int sig)
{
    got = sig;
}

int main(void)
{
    signal(SIGUSR1, handler);
    raise(SIGUSR1);
    printf("got %d\n", (int)got);
    return got == SIGUSR1 ? 0 : 1;
}
