/* Trace files (include/rvtrace/codec.h) for the library's own readers. */
#ifndef RVT_CORE_TRACEFILE_H
#define RVT_CORE_TRACEFILE_H

#include "rvtrace/codec.h"

/* fd's file mapped as rvt_trace_file_open maps a path (fd may be closed
 * afterwards); NULL if it is not a non-empty regular file, or cannot be
 * mapped: the caller then reads it. */
struct rvt_trace_file *rvt_trace_file_map_fd(int fd);

#endif
