/* Fuzz the load map reader (src/image/maps.c): any text; what it accepts
 * must be whole-page ranges with a path, in the map's line order. */
#include "image/maps.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rvt_map_line *v = NULL;
    size_t n = 0;
    struct rvt_diag d = {0};
    if (rvt_maps_parse((const char *)data, size, "fuzz.maps", &v, &n, &d) != 0) {
        check(v == NULL && n == 0 && strncmp(d.msg, "fuzz.maps: ", 11) == 0);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        check(v[i].start < v[i].end && (v[i].start & 4095) == 0 && (v[i].offset & 4095) == 0);
        check(v[i].path[0] != 0 && strlen(v[i].path) <= 4095);
        check(i == 0 || v[i].line > v[i - 1].line);
    }
    rvt_maps_free(v, n);
    return 0;
}
