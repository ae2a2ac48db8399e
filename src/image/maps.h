/* A load map's text (include/rvtrace/image.h, rvt_img_load_maps), parsed
 * apart from the files it names (fuzz/fuzz_maps.c), and written. */
#ifndef RVT_IMAGE_MAPS_H
#define RVT_IMAGE_MAPS_H

#include "rvtrace/common.h"

#include <stdbool.h>
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

/* The load map of a user-mode QEMU's guest, gathered while it runs (the
 * capture plugin, tools/qemu, which carries the library's objects): the
 * guest's files are mapped in the emulator at guest address +
 * host_minus_guest.  Each scan of the process's /proc/PID/maps text adds
 * the mappings of RISC-V ELF files not yet held (the emulator's own
 * libraries are not RISC-V), so that a library closed before the end
 * stays in the map; returns how many were added.  The map is written in
 * address order. */
struct rvt_maps_acc;
struct rvt_maps_acc *rvt_maps_acc_new(uint64_t host_minus_guest);
int rvt_maps_acc_scan(struct rvt_maps_acc *a, const char *proc_maps, struct rvt_diag *d);
bool rvt_maps_acc_covers(const struct rvt_maps_acc *a, uint64_t addr);
int rvt_maps_acc_write(struct rvt_maps_acc *a, const char *out_path, struct rvt_diag *d);
void rvt_maps_acc_free(struct rvt_maps_acc *a);

/* FNV-1a, 64 bits: the digest a load map records of each file. */
uint64_t rvt_maps_digest(const uint8_t *p, size_t len, uint64_t h);
#define RVT_MAPS_DIGEST_INIT 0xcbf29ce484222325ull

#endif
