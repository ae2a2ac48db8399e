/* A dynamically linked guest (position-independent, the cross compiler's
 * default): its own functions, libc's qsort calling back into it, printf,
 * a C++ name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A C++ name (given by an asm label: no C++ compiler needed), which the
 * views show demangled. */
__attribute__((noinline)) int scale(int x) __asm__("_ZN3app5scaleEi");
__attribute__((noinline)) int scale(int x)
{
    return 3 * x;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return 1;
    for (int i = 0; i < n; i++)
        v[i] = (i * 7919) % 1013;
    qsort(v, (size_t)n, sizeof *v, compare);
    printf("%d %d %zu %d\n", v[0], v[n - 1], strlen(argv[0]), scale(n));
    free(v);
    return 0;
}
