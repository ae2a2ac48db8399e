/* librvtrace-qemu internals: the system-emulation half (rvtrace-qemu-sys.c). */
#ifndef RVTRACE_QEMU_SYS_H
#define RVTRACE_QEMU_SYS_H

#include "qemu-plugin-api.h"

/* Install for qemu-system-riscv32/64; 0 or -1 (message printed). */
int rvtq_sys_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);

#endif
