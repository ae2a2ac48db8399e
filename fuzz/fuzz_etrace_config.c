/* Fuzz the reference-flow configuration parser (.scf and .ucf INI text). */
#include "etrace/etrace.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int ucf = 0; ucf < 2; ucf++) {
        struct et_params p;
        et_params_default(&p);
        struct rvt_diag d = {0};
        if (et_load_ini_mem(&p, (const char *)data, size, "fuzz", ucf, &d) == 0) {
            if (!p.iaddress_width_p)
                p.iaddress_width_p = 64;
            if (et_params_check(&p, &d) == 0) {
                FILE *null = fopen("/dev/null", "w");
                if (null) {
                    et_print_discovery(&p, null);
                    fclose(null);
                }
            }
        }
    }
    return 0;
}
