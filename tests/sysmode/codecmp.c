/* sysmode_codecmp: is the code image `rvtrace capture --code-out` wrote
 * (the bytes of every instruction QEMU translated) the same as the files
 * that were loaded?
 *
 *   sysmode_codecmp CODE.elf REF.elf [ADDR:RAW ...]
 *
 * Every byte of CODE.elf's segments that the references (an ELF and raw
 * binaries at addresses) cover must be equal; the bytes they do not cover
 * are printed as ranges ("outside 0x1000-0x1018"), for the caller to judge
 * (QEMU's reset ROM, for example, is in no file).  The last line is
 * "compared N bytes, M outside". */
#include "testlib.h"

#include "rvtrace/rvtrace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: sysmode_codecmp CODE.elf REF.elf [ADDR:RAW ...]\n");
        return 2;
    }
    struct rvt_image *code = rvt_img_new(), *ref = rvt_img_new();
    if (!code || !ref)
        return 1;
    if (rvt_img_load_elf(code, argv[1]) < 0) {
        fprintf(stderr, "%s: %s\n", argv[1], rvt_img_error(code));
        return 1;
    }
    if (rvt_img_load_elf(ref, argv[2]) < 0) {
        fprintf(stderr, "%s: %s\n", argv[2], rvt_img_error(ref));
        return 1;
    }
    for (int i = 3; i < argc; i++) {
        char *colon = strchr(argv[i], ':');
        if (!colon) {
            fprintf(stderr, "%s: expected ADDR:FILE\n", argv[i]);
            return 2;
        }
        *colon = 0;
        uint64_t addr = strtoull(argv[i], NULL, 0);
        if (rvt_img_add_raw_file(ref, addr, colon + 1) < 0) {
            fprintf(stderr, "%s: %s\n", colon + 1, rvt_img_error(ref));
            return 1;
        }
    }
    uint64_t compared = 0, outside = 0;
    for (size_t s = 0; s < rvt_img_segment_count(code); s++) {
        const struct rvt_segment *seg = rvt_img_segment(code, s);
        uint64_t run_start = 0;
        bool in_run = false;
        for (uint64_t off = 0; off <= seg->size; off++) {
            uint8_t b;
            bool covered = off < seg->size && rvt_img_read(ref, seg->addr + off, &b, 1) == 1;
            if (covered) {
                compared++;
                CHECK_MSG(b == seg->data[off], "0x%" PRIx64 ": %s has 0x%02x, the references 0x%02x", seg->addr + off,
                          argv[1], seg->data[off], b);
            } else if (off < seg->size) {
                outside++;
            }
            if (!covered && off < seg->size && !in_run) {
                run_start = seg->addr + off;
                in_run = true;
            } else if ((covered || off == seg->size) && in_run) {
                printf("outside 0x%" PRIx64 "-0x%" PRIx64 "\n", run_start, seg->addr + off);
                in_run = false;
            }
        }
    }
    printf("compared %" PRIu64 " bytes, %" PRIu64 " outside\n", compared, outside);
    rvt_img_free(code);
    rvt_img_free(ref);
    return rvt_test_summary("sysmode_codecmp");
}
