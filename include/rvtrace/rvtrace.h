/* rvtrace — RISC-V processor trace toolkit: the whole public API. */
#ifndef RVTRACE_RVTRACE_H
#define RVTRACE_RVTRACE_H
#pragma GCC visibility push(default) /* exported: the public API (CMakeLists.txt) */

#include "rvtrace/common.h"
#include "rvtrace/isa.h"
#include "rvtrace/image.h"
#include "rvtrace/ingress.h"
#include "rvtrace/flow.h"
#include "rvtrace/filter.h"
#include "rvtrace/sink.h"
#include "rvtrace/codec.h"
#include "rvtrace/analysis.h"
#include "rvtrace/gen.h"

#pragma GCC visibility pop
#endif
