/* rvtrace — command-line tool (thin: all logic is in librvtrace). */
#include "rvtrace/rvtrace.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("rvtrace %s\n", RVT_VERSION_STRING);
        return 0;
    }
    fprintf(stderr, "usage: rvtrace <command> [options]\n");
    return 2;
}
