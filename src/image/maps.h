/* A load map's text (include/rvtrace/image.h, rvt_img_load_maps), parsed
 * apart from the files it names (fuzz/fuzz_maps.c), and written. */
#ifndef RVT_IMAGE_MAPS_H
#define RVT_IMAGE_MAPS_H

#include "rvtrace/common.h"

#include <stddef.h>
#include <stdint.h>

struct rvt_map_line {
    uint64_t start, end, offset, size, digest;
    const char *path; /* NUL-terminated, owned by the array */
    size_t line;      /* 1-based line of the map */
};

/* Parse text[0, len) (`name` for messages); *out (free with
 * rvt_maps_free) holds *n mappings in the map's order. */
int rvt_maps_parse(const char *text, size_t len, const char *name, struct rvt_map_line **out, size_t *n,
                   struct rvt_diag *d);
void rvt_maps_free(struct rvt_map_line *v, size_t n);

/* Write the load map of the process whose /proc/PID/maps text is at
 * proc_maps (a user-mode QEMU's own: the guest's files are mapped in the
 * emulator at guest address + host_minus_guest) to out_path: the mappings
 * of RISC-V ELF files only (not the emulator's own libraries).  For the
 * capture plugin (tools/qemu), which carries the library's objects. */
int rvt_maps_capture(const char *proc_maps, uint64_t host_minus_guest, const char *out_path, struct rvt_diag *d);

/* FNV-1a, 64 bits: the digest a load map records of each file. */
uint64_t rvt_maps_digest(const uint8_t *p, size_t len, uint64_t h);
#define RVT_MAPS_DIGEST_INIT 0xcbf29ce484222325ull

#endif
