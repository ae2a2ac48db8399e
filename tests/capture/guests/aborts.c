/* Dies of SIGABRT: QEMU 7.2 runs no plugin exit hook then, so the capture
 * must fail, say why, and leave no partial stream. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    puts("about to abort");
    abort();
}
