/* The parent forks a child that does its own work; only the parent (the
 * process QEMU started) is recorded. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    volatile long sum = 0;
    pid_t child = fork();
    if (child < 0)
        return 1;
    for (long i = 0; i < 50000; i++)
        sum += child == 0 ? 2 * i : i;
    if (child == 0)
        _exit(sum == 2 * 1249975000L ? 0 : 1);
    int status;
    if (waitpid(child, &status, 0) != child)
        return 1;
    printf("parent %ld child status %d\n", (long)sum, WEXITSTATUS(status));
    return sum == 1249975000L && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
