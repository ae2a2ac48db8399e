/* Shared by fuzz targets that decode against a code image: load one of the
 * test programs from $RVT_TEST_DATA (default tests/data), or exit with the
 * loader's message (a fuzz run without its image would test nothing). */
#ifndef RVT_FUZZ_IMAGE_H
#define RVT_FUZZ_IMAGE_H

#include "rvtrace/rvtrace.h"

#include <stdio.h>
#include <stdlib.h>

static inline struct rvt_image *rvt_fuzz_image(const char *rel, const char *target)
{
    const char *dir = getenv("RVT_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", rel);
    struct rvt_image *img = rvt_img_new();
    if (!img || rvt_img_load_elf(img, path) < 0) {
        fprintf(stderr, "%s: %s\n", target, img ? rvt_img_error(img) : "out of memory");
        exit(1);
    }
    return img;
}

#endif
