/* librvtrace-qemu, system emulation (qemu-system-riscv32/64).
 *
 * Plugin API v1 reports neither traps nor the privilege level, but QEMU's
 * own log does: `-d int` prints one line per trap (hart, async, cause, epc,
 * tval) and `-d in_asm` prints the privilege level (`Priv: N; Virt: V`)
 * of every block it translates.  Block lookup is keyed by the privilege
 * level (tb_flags), so a translated block only ever runs at the privilege
 * it was translated at.  This half of the plugin therefore writes into the
 * same log (`-d plugin`):
 *
 *   @H rvtrace-qemu 1 TARGET VCPUS MODE at install (MODE: flush=batch|each)
 *   @T<id> <pc> <bits> <bits> ...       a translated block: id, first pc, the
 *                                       bits of each instruction (4 hex
 *                                       digits: 16-bit, 8: 32-bit); QEMU's
 *                                       in_asm text for it follows
 *   X<vcpu> <id>[ <count>]              vCPU started executing block <id>
 *   x<vcpu> <id>                        the same, for a "static" entry (below)
 *                                       <count> = instructions of the vCPU's
 *                                       previous block that began executing,
 *                                       given when fewer than the block has
 *   @E<vcpu> <count>                    at exit: the same for the last block
 *   @! <message>                        an error the plugin detected
 *
 * ids and counts are hex, vCPU numbers decimal.  QEMU flushes its log on
 * every message, so writing each block entry at once would cost a system
 * call per block (~1 M instructions/s).  Entries are therefore collected
 * and written in batches: a batch is written at every entry that is not
 * static, when another vCPU starts running, when the buffer is full, and at
 * exit.  An entry is static (x) when the vCPU's previous block ran to its
 * end, its last instruction cannot raise an exception (integer ALU,
 * branch, jal: nothing that accesses memory, CSRs or traps) and the new
 * block starts at that instruction's fall-through or static target.  A
 * trap's handler is entered by a non-static entry (written at once) unless
 * the handler's address is a static successor of the interrupted
 * instruction, so each trap line lands in the log before the handler's
 * entry and after every entry written before the trap; only static entries
 * still in the batch when the trap happened come after it although they
 * ran before.  `rvtrace capture --system` (tools/rvtrace/src/ingress/qemulog.c)
 * places each trap at the one block boundary of that window that explains
 * it, or reports the ambiguity.  flush=each writes every entry at once (for
 * testing: both give the same streams).
 *
 * Counting uses one execution callback per instruction: QEMU calls it
 * before the instruction runs, so a faulting instruction is counted once
 * (its trap line says so), and an I/O instruction that QEMU re-executes
 * after `cpu_io_recompile` is counted once too (the re-execution runs in a
 * memory-only block without callbacks).
 *
 * The log must be written by one thread in execution order: QEMU must run
 * its vCPUs round-robin on one host thread (`-accel tcg,thread=single`,
 * implied by `-icount`); callbacks from a second host thread are reported. */
#include "qemu-plugin-api.h"
#include "rvtrace-qemu-sys.h"

#include "rvtrace/isa.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { STB_CHUNK = 4096, BATCH_FLUSH = 60000, BATCH_CAP = 65536 };

/* One translated block; its address is the execution callback's userdata. */
struct stb {
    uint64_t id;
    uint64_t pc;        /* first instruction */
    uint64_t succ[2];   /* static successors of the last instruction */
    uint32_t n;         /* instructions */
    bool static_end;    /* the last instruction cannot trap and has static successors */
};

struct stb_chunk {
    struct stb_chunk *next;
    size_t used;
    struct stb items[STB_CHUNK];
};

struct svcpu {
    const struct stb *cur; /* block executing (NULL before the first) */
    uint32_t count;        /* its instructions that began executing */
};

struct sysplug {
    unsigned nvcpus;
    unsigned xlen;
    bool flush_each;
    struct svcpu *vcpus;
    /* Block entries not yet written (only the vCPU thread touches these). */
    char batch[BATCH_CAP];
    size_t batch_len;
    unsigned last_vcpu;
    pthread_mutex_t lock; /* ids, chunks, the line buffer */
    uint64_t next_id;
    struct stb_chunk *chunks;
    char *line;
    size_t line_cap;
    /* The host thread running the vCPUs (single-threaded TCG). */
    pthread_t exec_thread;
    atomic_bool have_exec_thread;
    atomic_bool reported;
};

/* Translation callbacks carry no user pointer (API v1): the state they
 * need is reached through this pointer, set once at install. */
static struct sysplug *g_sys;

static void sys_error(struct sysplug *s, const char *msg)
{
    if (atomic_exchange(&s->reported, true))
        return; /* the first error explains; later ones are consequences */
    char buf[600];
    snprintf(buf, sizeof buf, "@! %s\n", msg);
    qemu_plugin_outs(buf);
}

/* Append the lowercase hex digits of v (no leading zeros) at p. */
static char *put_hex(char *p, uint64_t v)
{
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *put_dec(char *p, unsigned v)
{
    char tmp[12];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static void on_sys_insn(unsigned int vcpu_index, void *userdata)
{
    (void)userdata;
    struct sysplug *s = g_sys;
    if (vcpu_index < s->nvcpus)
        s->vcpus[vcpu_index].count++;
}

static void batch_flush(struct sysplug *s)
{
    if (!s->batch_len)
        return;
    s->batch[s->batch_len] = 0;
    qemu_plugin_outs(s->batch);
    s->batch_len = 0;
}

static void on_sys_tb_exec(unsigned int vcpu_index, void *userdata)
{
    struct sysplug *s = g_sys;
    const struct stb *tb = userdata;
    pthread_t self = pthread_self();
    if (!atomic_load_explicit(&s->have_exec_thread, memory_order_acquire)) {
        s->exec_thread = self;
        atomic_store_explicit(&s->have_exec_thread, true, memory_order_release);
    } else if (!pthread_equal(self, s->exec_thread)) {
        sys_error(s, "vCPUs run on several host threads, so the log is not in execution order: run QEMU with "
                     "-accel tcg,thread=single (or -icount)");
        return;
    }
    if (vcpu_index >= s->nvcpus) {
        sys_error(s, "vCPU index beyond the number of vCPUs QEMU announced");
        return;
    }
    struct svcpu *v = &s->vcpus[vcpu_index];
    const struct stb *prev = v->cur;
    bool complete = prev && v->count == prev->n;
    bool is_static = complete && prev->static_end && (tb->pc == prev->succ[0] || tb->pc == prev->succ[1]);
    if (vcpu_index != s->last_vcpu) {
        batch_flush(s); /* keep the harts' interleaving visible */
        s->last_vcpu = vcpu_index;
    }
    char *p = s->batch + s->batch_len;
    *p++ = is_static ? 'x' : 'X';
    p = put_dec(p, vcpu_index);
    *p++ = ' ';
    p = put_hex(p, tb->id);
    if (prev && !complete) {
        *p++ = ' ';
        p = put_hex(p, v->count);
    }
    *p++ = '\n';
    s->batch_len = (size_t)(p - s->batch);
    if (!is_static || s->flush_each || s->batch_len > BATCH_FLUSH)
        batch_flush(s);
    v->cur = tb;
    v->count = 0;
}

/* Can the instruction not raise an exception, and are its successors in its
 * bits?  Integer computation, conditional branches and jal qualify (with
 * compressed instructions every 2-byte aligned target is fetchable); memory
 * accesses, CSRs, fences, system and floating-point instructions do not. */
static bool static_end(const struct rvt_insn *in)
{
    if (!(in->flags & RVT_IF_VALID) ||
        (in->flags & (RVT_IF_LOAD | RVT_IF_STORE | RVT_IF_CSR | RVT_IF_WFI | RVT_IF_FENCE | RVT_IF_FP_RD)))
        return false;
    if (in->cf != RVT_CF_NONE && in->cf != RVT_CF_BRANCH && !rvt_cf_inferable_jump(in->cf))
        return false;
    if (in->len == 2)
        return true;
    switch (in->bits & 0x7f) {
    case 0x13: /* OP-IMM */
    case 0x1b: /* OP-IMM-32 */
    case 0x33: /* OP (and M) */
    case 0x3b: /* OP-32 */
    case 0x37: /* LUI */
    case 0x17: /* AUIPC */
    case 0x63: /* BRANCH */
    case 0x6f: /* JAL */
        return true;
    default:
        return false;
    }
}

static struct stb *stb_alloc(struct sysplug *s)
{
    if (!s->chunks || s->chunks->used == STB_CHUNK) {
        struct stb_chunk *c = malloc(sizeof *c);
        if (!c)
            return NULL;
        c->next = s->chunks;
        c->used = 0;
        s->chunks = c;
    }
    return &s->chunks->items[s->chunks->used++];
}

static bool line_reserve(struct sysplug *s, size_t need)
{
    if (need <= s->line_cap)
        return true;
    size_t cap = s->line_cap ? s->line_cap : 256;
    while (cap < need)
        cap *= 2;
    char *l = realloc(s->line, cap);
    if (!l)
        return false;
    s->line = l;
    s->line_cap = cap;
    return true;
}

static void on_sys_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    struct sysplug *s = g_sys;
    size_t n = qemu_plugin_tb_n_insns(tb);
    if (n == 0)
        return;
    pthread_mutex_lock(&s->lock);
    struct stb *b = stb_alloc(s);
    /* "@T" id, pc, then up to 9 characters per instruction. */
    if (!b || !line_reserve(s, 64 + 9 * n)) {
        pthread_mutex_unlock(&s->lock);
        sys_error(s, "out of memory while translating");
        return;
    }
    b->id = s->next_id++;
    b->n = (uint32_t)n;
    uint64_t pc0 = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0)), expect = pc0;
    b->pc = pc0;
    b->static_end = false;
    b->succ[0] = b->succ[1] = ~0ull;
    char *p = s->line;
    *p++ = '@';
    *p++ = 'T';
    p = put_hex(p, b->id);
    *p++ = ' ';
    p = put_hex(p, pc0);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(tb, i);
        const uint8_t *d = qemu_plugin_insn_data(qi);
        size_t len = qemu_plugin_insn_size(qi);
        uint64_t va = qemu_plugin_insn_vaddr(qi);
        if ((len != 2 && len != 4) || va != expect) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "block at 0x%" PRIx64 ": instruction %zu at 0x%" PRIx64 " is %zu bytes (expected a 2- or "
                     "4-byte instruction at 0x%" PRIx64 ")",
                     pc0, i, va, len, expect);
            pthread_mutex_unlock(&s->lock);
            sys_error(s, msg);
            return;
        }
        expect += len;
        uint32_t bits = 0;
        for (size_t k = 0; k < len; k++)
            bits |= (uint32_t)d[k] << (8 * k);
        if (i + 1 == n) {
            struct rvt_insn in;
            rvt_isa_decode(bits, va, s->xlen, &in);
            if (static_end(&in)) {
                b->static_end = true;
                b->succ[0] = rvt_isa_next_pc(&in, s->xlen);
                if (in.cf == RVT_CF_BRANCH)
                    b->succ[1] = in.target;
                else if (in.cf != RVT_CF_NONE)
                    b->succ[0] = in.target;
            }
        }
        *p++ = ' ';
        for (int k = (int)len * 2 - 1; k >= 0; k--)
            *p++ = "0123456789abcdef"[(bits >> (4 * k)) & 15];
        qemu_plugin_register_vcpu_insn_exec_cb(qi, on_sys_insn, QEMU_PLUGIN_CB_NO_REGS, NULL);
    }
    *p++ = '\n';
    *p = 0;
    /* QEMU logs the block's in_asm text (with its privilege) right after. */
    qemu_plugin_outs(s->line);
    pthread_mutex_unlock(&s->lock);
    /* QEMU runs block callbacks at the block's start, before the first
     * instruction's. */
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_sys_tb_exec, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void on_sys_exit(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    struct sysplug *s = userdata;
    batch_flush(s);
    for (unsigned i = 0; i < s->nvcpus; i++) {
        const struct svcpu *v = &s->vcpus[i];
        if (!v->cur)
            continue;
        char buf[64], *p = buf;
        *p++ = '@';
        *p++ = 'E';
        p = put_dec(p, i);
        *p++ = ' ';
        p = put_hex(p, v->count);
        *p++ = '\n';
        *p = 0;
        qemu_plugin_outs(buf);
    }
    /* Blocks stay referenced by QEMU's translated code until it exits. */
}

int rvtq_sys_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    bool flush_each = false;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "flush=each") == 0) {
            flush_each = true;
        } else if (strcmp(argv[i], "flush=batch") != 0) {
            fprintf(stderr,
                    "librvtrace-qemu: system emulation takes only flush=batch|each (got '%s'): the trace goes to "
                    "QEMU's log; run QEMU with -d plugin,int,in_asm -D LOG -accel tcg,thread=single, or use "
                    "`rvtrace capture --system`\n",
                    argv[i]);
            return -1;
        }
    }
    if (strcmp(info->target_name, "riscv64") != 0 && strcmp(info->target_name, "riscv32") != 0) {
        fprintf(stderr, "librvtrace-qemu: target '%s' is not RISC-V (riscv32 or riscv64)\n", info->target_name);
        return -1;
    }
    int max = info->system.max_vcpus > info->system.smp_vcpus ? info->system.max_vcpus : info->system.smp_vcpus;
    if (max <= 0 || max > 4096) {
        fprintf(stderr, "librvtrace-qemu: QEMU announced %d vCPUs\n", max);
        return -1;
    }
    struct sysplug *s = calloc(1, sizeof *s);
    if (s)
        s->vcpus = calloc((size_t)max, sizeof *s->vcpus);
    if (!s || !s->vcpus) {
        if (s)
            free(s);
        fprintf(stderr, "librvtrace-qemu: out of memory\n");
        return -1;
    }
    s->nvcpus = (unsigned)max;
    s->xlen = strcmp(info->target_name, "riscv64") == 0 ? 64 : 32;
    s->flush_each = flush_each;
    pthread_mutex_init(&s->lock, NULL);
    g_sys = s;

    char head[128];
    snprintf(head, sizeof head, "@H rvtrace-qemu 1 %s %d %s\n", info->target_name, info->system.smp_vcpus,
             flush_each ? "each" : "batch");
    qemu_plugin_outs(head);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_sys_translate);
    qemu_plugin_register_atexit_cb(id, on_sys_exit, s);
    return 0;
}
