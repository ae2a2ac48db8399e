/* A library opened with dlopen and closed again before the end: the load
 * map still holds it (capture gathers the map as code is translated). */
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    const char *second = argc > 1 ? argv[1] : NULL;
    void *m = dlopen("libm.so.6", RTLD_NOW);
    if (!m) { printf("dlopen: %s\n", dlerror()); return 1; }
    double (*c)(double) = (double (*)(double))dlsym(m, "cos");
    volatile double x = 0;
    for (int i = 0; i < 100; i++) x += c(i * 0.01);
    dlclose(m);
    if (second) {
        void *r = dlopen(second, RTLD_NOW);
        if (!r) { printf("dlopen: %s\n", dlerror()); return 1; }
        int (*f)(void) = (int (*)(void))dlsym(r, "__libc_alloca_cutoff");
        (void)f;
        dlclose(r);
    }
    printf("%d\n", (int)x);
    return 0;
}
