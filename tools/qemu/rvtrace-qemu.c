/* librvtrace-qemu: a QEMU TCG plugin (API v1, QEMU 7.2) that records every
 * instruction a RISC-V guest executes.  This file is the user-mode half
 * (qemu-riscv32/64), which writes rvtrace native ingress records itself;
 * under system emulation the plugin annotates QEMU's log instead (see
 * rvtrace-qemu-sys.c).
 *
 *   qemu-riscv64 -plugin librvtrace-qemu.so,out=trace.ing[,merge=on|off]
 *       [,ecall=sequential|uninferable][,mem=on|off][,stats=FILE][,maps=FILE]
 *       PROGRAM ARGS
 *
 * At translation time each instruction's address and bits are interned and
 * an execution callback is attached; at execution time the callback hands
 * (pc, bits) to the library's ingress builder, which derives itype, iretire
 * and ilastsize from the code and checks every step.  With mem=on a memory
 * callback attaches the address, size and direction of the instruction's
 * access; QEMU calls it after the execution callback of the same
 * instruction, so the instruction is held until its successor starts.
 *
 * Each guest thread (a vCPU in user mode) is one hart with its own builder
 * and its own stream: the first thread writes OUT, later ones OUT.1, OUT.2
 * ... in the order the guest creates them; records carry the vCPU index as
 * `hart` (context is 0: API v1 shows no address-space identity).  Only the
 * process QEMU started is recorded: after a guest fork() the child writes
 * nothing.
 *
 * With maps=FILE the process's mappings of RISC-V ELF files (the program,
 * its dynamic loader and shared libraries) are written to FILE at the end
 * (src/image/maps.h): where each was loaded, for the decoders' --maps,
 * gathered whenever code is translated outside the mappings known so far
 * and at the end, so that a library closed before the end is in it.  QEMU
 * maps a guest file at its guest address plus its guest base, which the
 * first translated instruction's host address gives.
 */
#include "qemu-plugin-api.h"
#include "rvtrace-qemu-sys.h"

#include "rvtrace/ingress.h"
#include "image/maps.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RVTQ_EXPORT __attribute__((visibility("default")))

RVTQ_EXPORT int qemu_plugin_version = RVT_QEMU_PLUGIN_API_VERSION;

enum { MAX_VCPUS = 1024, INTERN_CHUNK = 4096 };

/* One translated instruction; its address is the execution callback's
 * userdata, so it must stay valid for the life of the process. */
struct plugin;
struct insn_info {
    struct plugin *p;
    uint64_t pc;
    uint32_t bits;
};

struct intern_chunk {
    struct intern_chunk *next;
    size_t used;
    struct insn_info items[INTERN_CHUNK];
};

/* One guest thread's stream. */
struct vcpu {
    struct plugin *p;
    unsigned index;
    unsigned stream; /* 0: OUT, k: OUT.k */
    struct rvt_ing_builder *builder;
    struct rvt_ing_writer *writer;
    /* mem=on: the instruction whose execution started, with its accesses. */
    const struct insn_info *held;
    struct rvt_ing_extra held_extra;
    bool stopped; /* an error (or a fork, in the child) ended recording */
};

struct plugin {
    /* configuration */
    char *out_path;
    char *stats_path;
    char *maps_path;
    /* maps=: the load map, gathered as code is translated (under maps_lock) */
    pthread_mutex_t maps_lock;
    struct rvt_maps_acc *maps;
    uint64_t unknown_pages[1024]; /* pages of code outside every mapping held, each rescanned once */
    size_t nunknown;
    char maps_error[520];
    unsigned xlen;
    bool merge;
    bool mem;
    enum rvt_ecall_mode ecall;
    pid_t owner; /* the recorded process */

    pthread_mutex_t lock; /* streams, totals, error */
    unsigned nstreams;
    uint64_t insns, records; /* of finished streams */
    bool failed;
    char error[600];

    /* interned instructions (translation may run on several threads) */
    pthread_mutex_t intern_lock;
    struct insn_info **slots;
    size_t nslots, nused;
    struct intern_chunk *chunks;

    _Atomic(struct vcpu *) vcpus[MAX_VCPUS];
};

/* API v1's translation, vCPU and fork hooks carry no user pointer, so the
 * state they need is reached through this one pointer, set once at install
 * (QEMU loads a plugin once per process).  Execution and memory callbacks
 * find it through their instruction's insn_info instead. */
static struct plugin *g_plugin;

/* Keep the first error; later ones are consequences. */
static void plugin_fail(struct plugin *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void plugin_fail(struct plugin *p, const char *fmt, ...)
{
    pthread_mutex_lock(&p->lock);
    if (!p->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->error, sizeof p->error, fmt, ap);
        va_end(ap);
        p->failed = true;
        if (getpid() == p->owner)
            fprintf(stderr, "librvtrace-qemu: error: %s\n", p->error);
    }
    pthread_mutex_unlock(&p->lock);
}

static void stream_path(const struct plugin *p, unsigned stream, char *buf, size_t size)
{
    if (stream == 0)
        snprintf(buf, size, "%s", p->out_path);
    else
        snprintf(buf, size, "%s.%u", p->out_path, stream);
}

/* ---- interning ---------------------------------------------------------- */

static size_t intern_hash(uint64_t pc, uint32_t bits)
{
    uint64_t h = (pc ^ ((uint64_t)bits << 29)) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h ^ (h >> 31));
}

static bool intern_grow(struct plugin *p)
{
    size_t n = p->nslots ? p->nslots * 2 : 1u << 14;
    struct insn_info **s = calloc(n, sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < p->nslots; i++) {
        struct insn_info *e = p->slots[i];
        if (!e)
            continue;
        size_t j = intern_hash(e->pc, e->bits) & (n - 1);
        while (s[j])
            j = (j + 1) & (n - 1);
        s[j] = e;
    }
    free(p->slots);
    p->slots = s;
    p->nslots = n;
    return true;
}

/* The one stable record of (pc, bits); NULL when out of memory. */
static const struct insn_info *intern(struct plugin *p, uint64_t pc, uint32_t bits)
{
    const struct insn_info *found = NULL;
    pthread_mutex_lock(&p->intern_lock);
    if ((p->nused + 1) * 2 > p->nslots && !intern_grow(p))
        goto out;
    size_t j = intern_hash(pc, bits) & (p->nslots - 1);
    for (; p->slots[j]; j = (j + 1) & (p->nslots - 1)) {
        if (p->slots[j]->pc == pc && p->slots[j]->bits == bits) {
            found = p->slots[j];
            goto out;
        }
    }
    if (!p->chunks || p->chunks->used == INTERN_CHUNK) {
        struct intern_chunk *c = malloc(sizeof *c);
        if (!c)
            goto out;
        c->next = p->chunks;
        c->used = 0;
        p->chunks = c;
    }
    struct insn_info *e = &p->chunks->items[p->chunks->used++];
    e->p = p;
    e->pc = pc;
    e->bits = bits;
    p->slots[j] = e;
    p->nused++;
    found = e;
out:
    pthread_mutex_unlock(&p->intern_lock);
    return found;
}

/* ---- streams ------------------------------------------------------------ */

static int emit_record(void *ctx, const struct rvt_ing_rec *rec)
{
    struct vcpu *v = ctx;
    int rc;
    if (v->index == 0) {
        rc = rvt_ing_write(v->writer, rec);
    } else {
        struct rvt_ing_rec r = *rec;
        r.hart = (uint16_t)v->index;
        rc = rvt_ing_write(v->writer, &r);
    }
    if (rc < 0) {
        v->stopped = true;
        plugin_fail(v->p, "vCPU %u: %s", v->index, rvt_ing_writer_error(v->writer));
    }
    return rc;
}

/* A new guest thread: its own builder and output stream. */
static struct vcpu *vcpu_create(struct plugin *p, unsigned index)
{
    if (index >= MAX_VCPUS) {
        plugin_fail(p, "vCPU %u: more than %d simultaneous guest threads are not supported", index, MAX_VCPUS);
        return NULL;
    }
    struct vcpu *v = calloc(1, sizeof *v);
    if (!v) {
        plugin_fail(p, "vCPU %u: out of memory", index);
        return NULL;
    }
    v->p = p;
    v->index = index;
    pthread_mutex_lock(&p->lock);
    v->stream = p->nstreams++;
    pthread_mutex_unlock(&p->lock);

    char path[4096];
    stream_path(p, v->stream, path, sizeof path);
    struct rvt_diag diag;
    rvt_diag_clear(&diag);
    if (rvt_ing_writer_open(&v->writer, path, p->xlen, &diag) < 0) {
        plugin_fail(p, "vCPU %u: %s", index, diag.msg);
        free(v);
        return NULL;
    }
    struct rvt_ing_builder_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.image = NULL; /* QEMU gives the bits of every instruction */
    cfg.xlen = p->xlen;
    cfg.ecall_mode = p->ecall;
    cfg.merge_blocks = p->merge;
    cfg.data_types = p->mem; /* QEMU gives addresses, not access kinds (nor any values) */
    cfg.emit = emit_record;
    cfg.emit_ctx = v;
    v->builder = rvt_ing_builder_new(&cfg);
    if (!v->builder) {
        plugin_fail(p, "vCPU %u: cannot create the ingress builder", index);
        rvt_ing_writer_close(v->writer);
        free(v);
        return NULL;
    }
    atomic_store(&p->vcpus[index], v);
    return v;
}

static inline struct vcpu *vcpu_get(struct plugin *p, unsigned index)
{
    struct vcpu *v = index < MAX_VCPUS ? atomic_load_explicit(&p->vcpus[index], memory_order_relaxed) : NULL;
    return v ? v : vcpu_create(p, index);
}

/* Hand one retired instruction to the builder. */
static void retire(struct vcpu *v, const struct insn_info *in, const struct rvt_ing_extra *extra)
{
    int rc = rvt_ing_builder_insn(v->builder, in->pc, (int64_t)in->bits, RVT_PRIV_U, 0, extra);
    if (rc < 0 && !v->stopped) {
        v->stopped = true;
        plugin_fail(v->p,
                    "vCPU %u: at pc 0x%" PRIx64 ": %s (in user mode this happens when QEMU delivers a "
                    "signal to a handler or returns from one, which leaves no trap to record: programs "
                    "that handle signals cannot be captured)",
                    v->index, in->pc, rvt_ing_builder_error(v->builder));
    }
}

/* End a thread's stream: its last instruction has no successor (it is the
 * exit system call, inside which QEMU ends the thread). */
static void vcpu_finish(struct plugin *p, unsigned index)
{
    struct vcpu *v = atomic_exchange(&p->vcpus[index], NULL);
    if (!v)
        return;
    if (getpid() != p->owner)
        return; /* a forked child: the parent owns the files (state leaks, the child is exiting) */
    if (!v->stopped && v->held)
        retire(v, v->held, &v->held_extra);
    if (!v->stopped && rvt_ing_builder_finish(v->builder) < 0)
        plugin_fail(p, "vCPU %u: %s", v->index, rvt_ing_builder_error(v->builder));
    uint64_t insns = rvt_ing_builder_insns(v->builder), records = rvt_ing_writer_records(v->writer);
    if (rvt_ing_writer_close(v->writer) < 0)
        plugin_fail(p, "vCPU %u: closing its stream failed", v->index);
    rvt_ing_builder_free(v->builder);
    pthread_mutex_lock(&p->lock);
    p->insns += insns;
    p->records += records;
    pthread_mutex_unlock(&p->lock);
    free(v);
}

/* ---- callbacks ---------------------------------------------------------- */

static void on_exec(unsigned int vcpu_index, void *userdata)
{
    const struct insn_info *in = userdata;
    struct vcpu *v = vcpu_get(in->p, vcpu_index);
    if (!v || v->stopped)
        return;
    retire(v, in, NULL);
}

static void on_exec_mem(unsigned int vcpu_index, void *userdata)
{
    const struct insn_info *in = userdata;
    struct vcpu *v = vcpu_get(in->p, vcpu_index);
    if (!v || v->stopped)
        return;
    /* The previous instruction has finished: its accesses are all known. */
    if (v->held)
        retire(v, v->held, &v->held_extra);
    v->held = in;
    memset(&v->held_extra, 0, sizeof v->held_extra);
}

static void on_mem(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata)
{
    const struct insn_info *in = userdata;
    struct plugin *p = in->p;
    struct vcpu *v = vcpu_index < MAX_VCPUS ? atomic_load_explicit(&p->vcpus[vcpu_index], memory_order_relaxed) : NULL;
    if (!v || v->stopped || !v->held)
        return;
    struct rvt_ing_extra *x = &v->held_extra;
    /* An AMO reads then writes one location: keep the first address and
     * call the instruction a store if any access writes. */
    if (!(x->flags & RVT_ING_HAS_MEM)) {
        x->flags |= RVT_ING_HAS_MEM;
        x->mem_addr = vaddr;
        x->mem_size = (uint8_t)(1u << qemu_plugin_mem_size_shift(info));
    }
    if (qemu_plugin_mem_is_store(info))
        x->flags |= RVT_ING_MEM_STORE;
}

/* The load map: the mappings as they are now, the first time and whenever
 * code is translated outside every mapping held (a library just loaded;
 * each page of code outside any file, JIT code say, once). */
static void maps_note(struct plugin *p, struct qemu_plugin_tb *tb)
{
    if (qemu_plugin_tb_n_insns(tb) == 0)
        return;
    const uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
    pthread_mutex_lock(&p->maps_lock);
    bool scan = false;
    if (!p->maps && !p->maps_error[0]) {
        /* QEMU maps the guest at its guest base: where this code's bytes are */
        struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(tb, 0);
        p->maps = rvt_maps_acc_new((uint64_t)(uintptr_t)qemu_plugin_insn_haddr(qi) - qemu_plugin_insn_vaddr(qi));
        if (!p->maps)
            snprintf(p->maps_error, sizeof p->maps_error, "out of memory");
        scan = p->maps != NULL;
    } else if (p->maps && !p->maps_error[0] && !rvt_maps_acc_covers(p->maps, vaddr)) {
        const uint64_t page = vaddr >> 12;
        bool seen = false;
        for (size_t i = 0; i < p->nunknown && !seen; i++)
            seen = p->unknown_pages[i] == page;
        if (!seen && p->nunknown < sizeof p->unknown_pages / sizeof p->unknown_pages[0]) {
            p->unknown_pages[p->nunknown++] = page;
            scan = true;
        }
    }
    if (scan) {
        struct rvt_diag d = {0};
        if (rvt_maps_acc_scan(p->maps, "/proc/self/maps", &d) < 0)
            snprintf(p->maps_error, sizeof p->maps_error, "%s", d.msg);
    }
    pthread_mutex_unlock(&p->maps_lock);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    struct plugin *p = g_plugin;
    if (p->maps_path)
        maps_note(p, tb);
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(tb, i);
        const uint8_t *d = qemu_plugin_insn_data(qi);
        size_t len = qemu_plugin_insn_size(qi);
        uint32_t bits = 0;
        for (size_t k = 0; k < len && k < 4; k++)
            bits |= (uint32_t)d[k] << (8 * k);
        const struct insn_info *in = intern(p, qemu_plugin_insn_vaddr(qi), bits);
        if (!in) {
            plugin_fail(p, "out of memory while translating pc 0x%" PRIx64, qemu_plugin_insn_vaddr(qi));
            return;
        }
        if (p->mem) {
            qemu_plugin_register_vcpu_insn_exec_cb(qi, on_exec_mem, QEMU_PLUGIN_CB_NO_REGS, (void *)in);
            qemu_plugin_register_vcpu_mem_cb(qi, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, (void *)in);
        } else {
            qemu_plugin_register_vcpu_insn_exec_cb(qi, on_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)in);
        }
    }
}

/* A thread is created (called in the creating thread, so streams are
 * numbered in the guest's program order). */
static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu_index)
{
    (void)id;
    if (vcpu_index >= MAX_VCPUS || !atomic_load(&g_plugin->vcpus[vcpu_index]))
        vcpu_create(g_plugin, vcpu_index);
}

/* A thread ends: close its stream (QEMU may give its index to a later thread). */
static void on_vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu_index)
{
    (void)id;
    if (vcpu_index < MAX_VCPUS)
        vcpu_finish(g_plugin, vcpu_index);
}

/* In a forked child, stop recording: the files belong to the parent. */
static void on_fork_child(void)
{
    struct plugin *p = g_plugin;
    if (!p)
        return;
    for (unsigned i = 0; i < MAX_VCPUS; i++) {
        struct vcpu *v = atomic_load(&p->vcpus[i]);
        if (v)
            v->stopped = true;
    }
}

static void write_stats(struct plugin *p)
{
    if (!p->stats_path)
        return;
    FILE *f = fopen(p->stats_path, "w");
    if (!f) {
        fprintf(stderr, "librvtrace-qemu: error: cannot write %s: %s\n", p->stats_path, strerror(errno));
        return;
    }
    long long bytes = 0;
    for (unsigned k = 0; k < p->nstreams; k++) {
        char path[4096];
        struct stat st;
        stream_path(p, k, path, sizeof path);
        if (stat(path, &st) == 0)
            bytes += (long long)st.st_size;
    }
    fprintf(f, "status %s\ninsns %" PRIu64 "\nrecords %" PRIu64 "\nbytes %lld\nstreams %u\nxlen %u\n",
            p->failed ? "error" : "ok", p->insns, p->records, bytes, p->nstreams, p->xlen);
    if (p->failed)
        fprintf(f, "error %s\n", p->error);
    fclose(f);
}

static void on_exit(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    struct plugin *p = userdata;
    if (getpid() != p->owner)
        return; /* a forked child: the parent owns the files */
    for (unsigned i = 0; i < MAX_VCPUS; i++)
        vcpu_finish(p, i);
    if (p->failed) {
        /* A stream with a hole would be consistent-looking garbage. */
        for (unsigned k = 0; k < p->nstreams; k++) {
            char path[4096];
            stream_path(p, k, path, sizeof path);
            remove(path);
        }
        fprintf(stderr, "librvtrace-qemu: %s removed after the error above\n", p->out_path);
    }
    if (p->maps_path && !p->failed) {
        /* what is mapped at the end too (the streams are complete: a map
         * that cannot be written fails the capture but keeps them) */
        struct rvt_diag d = {0};
        pthread_mutex_lock(&p->maps_lock);
        if (p->maps && !p->maps_error[0] && (rvt_maps_acc_scan(p->maps, "/proc/self/maps", &d) < 0 ||
                                             rvt_maps_acc_write(p->maps, p->maps_path, &d) < 0))
            snprintf(p->maps_error, sizeof p->maps_error, "%s", d.msg);
        pthread_mutex_unlock(&p->maps_lock);
        if (p->maps_error[0])
            plugin_fail(p, "the load map %s: %s", p->maps_path, p->maps_error);
    }
    write_stats(p);
}

/* ---- installation -------------------------------------------------------- */

static bool parse_bool(const char *val, bool *out)
{
    static const char *const yes[] = {"on", "yes", "true", "1"}, *const no[] = {"off", "no", "false", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(val, yes[i]) == 0)
            return (*out = true), true;
        if (strcmp(val, no[i]) == 0)
            return (*out = false), true;
    }
    return false;
}

static void plugin_free(struct plugin *p)
{
    if (!p)
        return;
    free(p->out_path);
    free(p->stats_path);
    free(p->maps_path);
    rvt_maps_acc_free(p->maps);
    free(p);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "librvtrace-qemu: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr,
            "\nusage: -plugin librvtrace-qemu.so,out=FILE[,merge=on|off][,ecall=sequential|uninferable]"
            "[,mem=on|off][,stats=FILE][,maps=FILE]\n");
    return -1;
}

static int install(struct plugin *p, qemu_plugin_id_t id, int argc, char **argv);

RVTQ_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    if (info->system_emulation)
        return rvtq_sys_install(id, info, argc, argv);
    unsigned xlen = strcmp(info->target_name, "riscv64") == 0   ? 64
                    : strcmp(info->target_name, "riscv32") == 0 ? 32
                                                                 : 0;
    if (!xlen)
        return usage_error("target '%s' is not RISC-V (riscv32 or riscv64)", info->target_name);

    struct plugin *p = calloc(1, sizeof *p);
    if (!p)
        return usage_error("%s", "out of memory");
    p->xlen = xlen;
    p->merge = true;
    p->ecall = RVT_ECALL_SEQUENTIAL;
    p->owner = getpid();
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->intern_lock, NULL);
    pthread_mutex_init(&p->maps_lock, NULL);

    int rc = install(p, id, argc, argv);
    if (rc < 0)
        plugin_free(p);
    return rc;
}

static int install(struct plugin *p, qemu_plugin_id_t id, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        if (!eq)
            return usage_error("argument '%s' is not NAME=VALUE", a);
        size_t nlen = (size_t)(eq - a);
        const char *val = eq + 1;
        if (nlen == 3 && strncmp(a, "out", 3) == 0) {
            free(p->out_path);
            p->out_path = strdup(val);
        } else if (nlen == 5 && strncmp(a, "stats", 5) == 0) {
            free(p->stats_path);
            p->stats_path = strdup(val);
        } else if (nlen == 4 && strncmp(a, "maps", 4) == 0) {
            free(p->maps_path);
            p->maps_path = strdup(val);
        } else if (nlen == 5 && strncmp(a, "merge", 5) == 0) {
            if (!parse_bool(val, &p->merge))
                return usage_error("merge=%s: expected on or off", val);
        } else if (nlen == 3 && strncmp(a, "mem", 3) == 0) {
            if (!parse_bool(val, &p->mem))
                return usage_error("mem=%s: expected on or off", val);
        } else if (nlen == 5 && strncmp(a, "ecall", 5) == 0) {
            if (strcmp(val, "sequential") == 0)
                p->ecall = RVT_ECALL_SEQUENTIAL;
            else if (strcmp(val, "uninferable") == 0)
                p->ecall = RVT_ECALL_UNINFERABLE;
            else
                return usage_error("ecall=%s: expected sequential or uninferable", val);
        } else {
            return usage_error("unknown argument '%s'", a);
        }
    }
    if (!p->out_path || !*p->out_path)
        return usage_error("%s", "missing out=FILE");

    if (strlen(p->out_path) > 4000)
        return usage_error("out=%.40s...: path too long", p->out_path);

    /* Fail now, not at the first instruction, if the output cannot be written. */
    FILE *probe = fopen(p->out_path, "wb");
    if (!probe)
        return usage_error("%s: %s", p->out_path, strerror(errno));
    fclose(probe);
    /* Thread streams of an earlier capture to the same name would look like
     * part of this one. */
    for (unsigned k = 1;; k++) {
        char path[4096];
        stream_path(p, k, path, sizeof path);
        if (remove(path) != 0)
            break;
    }

    g_plugin = p;
    if (pthread_atfork(NULL, NULL, on_fork_child) != 0)
        return usage_error("%s", "pthread_atfork failed");
    qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
    qemu_plugin_register_vcpu_exit_cb(id, on_vcpu_exit);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_exit, p);
    return 0;
}
