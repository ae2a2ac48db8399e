/* rvtrace capture: run a RISC-V program under QEMU with the librvtrace-qemu
 * plugin and write its execution as a native ingress stream.
 *
 * User mode (default): a Linux program under qemu-riscv64/32; the plugin
 * writes the stream.  System mode (--system): bare-metal code (or OpenSBI
 * and a payload) under qemu-system-riscv64/32 with traps, interrupts,
 * privilege levels and several harts; the plugin annotates QEMU's log,
 * which this command reads through a FIFO while QEMU runs and turns into
 * records (src/ingress/qemulog.c).
 *
 * A user-mode run is made reproducible: the program is started by its absolute
 * path with an empty environment (plus --env entries), stdin and stdout
 * come from/go to fixed files, address-space randomisation is off, the
 * stack limit is fixed and QEMU's random seed is fixed (AT_RANDOM,
 * getrandom), so the same command line gives the same instruction stream,
 * byte for byte. */
/* realpath() is an XSI interface. */
#define _XOPEN_SOURCE 700

#include "ingress/qemulog.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CMD "capture"
#define PLUGIN_NAME "librvtrace-qemu.so"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rvtrace capture [options] -- PROGRAM [ARGS...]\n"
            "       rvtrace capture --system [options] --loader PROG | --kernel PROG | --bios FILE\n"
            "\n"
            "Run a RISC-V program under QEMU and record every instruction it executes as an\n"
            "rvtrace ingress stream (native binary format).\n"
            "\n"
            "User mode (a Linux program under qemu-riscv64/32):\n"
            "  -o, --output FILE   ingress file to write (default: capture.ing)\n"
            "  --qemu PATH         QEMU user-mode emulator (default: qemu-riscv64, or\n"
            "                      qemu-riscv32 for a 32-bit ELF, from PATH)\n"
            "  --plugin PATH       the capture plugin (default: $RVT_QEMU_PLUGIN, else the\n"
            "                      one beside this rvtrace (build tree), else ../lib/rvtrace/\n"
            "                      from it, else the configured install path)\n"
            "  --ecall MODE        how a user-mode ecall (a system call QEMU performs) is\n"
            "                      recorded: sequential (itype 0, default) or uninferable\n"
            "                      (itype 8, an uninferable call to the next instruction)\n"
            "  --mem               record each instruction's memory access (address, size,\n"
            "                      load/store); ends a block at every access\n"
            "  --per-insn          one record per instruction (default: merged blocks)\n"
            "  --stdin FILE        the program's standard input (default: /dev/null)\n"
            "  --stdout FILE       the program's standard output (default: /dev/null)\n"
            "  --stderr FILE       the program's (and QEMU's) standard error (default: this\n"
            "                      command's)\n"
            "  --env NAME=VALUE    add to the program's otherwise empty environment\n"
            "  --qemu-arg ARG      pass ARG to QEMU before the program (repeatable)\n"
            "  --maps FILE         write the load map: where the program and each shared\n"
            "                      library ran (default for a dynamically linked program:\n"
            "                      OUTPUT.maps); decode, check, verify ... take it as --maps\n"
            "  -q, --quiet         print nothing on success\n"
            "  -h, --help          this text\n"
            "\n"
            "For identical captures keep the same program path, arguments, --env, --stdin,\n"
            "--stdout and --stderr kinds; the environment is emptied, address randomisation\n"
            "is off, the stack limit is 8 MiB and QEMU's random seed is fixed.\n"
            "Each guest thread is one stream: the first writes FILE, later threads FILE.1,\n"
            "FILE.2 ... in creation order (multi-threaded runs are not reproducible). A forked\n"
            "child is not recorded. Programs that handle signals cannot be captured (user-mode\n"
            "QEMU enters and leaves handlers without a trap to record), and a program killed by\n"
            "a signal leaves no trace (QEMU 7.2 runs no plugin exit hook then). Use static\n"
            "executables, or give the decoders the load map of a dynamically linked one\n"
            "(--maps): its libraries come from the RISC-V sysroot /usr/riscv64-linux-gnu\n"
            "(riscv32: /usr/riscv32-linux-gnu) unless --qemu-arg -L DIR names another.\n"
            "\n"
            "System mode (--system: bare metal or OpenSBI under qemu-system-riscv64/32, with\n"
            "exceptions, interrupts, privilege levels and several harts):\n"
            "  --loader PROG       load the ELF PROG with QEMU's generic loader and start every\n"
            "                      hart at its entry point (no reset ROM runs)\n"
            "  --kernel PROG       pass PROG as QEMU's -kernel (the machine's reset ROM runs\n"
            "                      first; with --bios default, OpenSBI then jumps to PROG)\n"
            "  --bios none|default|FILE  firmware (default: none; default = the OpenSBI QEMU\n"
            "                      ships, RV64 only)\n"
            "  --machine NAME      QEMU machine (default: virt)\n"
            "  --smp N             harts (default: 1); record `hart` = QEMU's vCPU number,\n"
            "                      which equals mhartid on virt\n"
            "  --memory SIZE       guest RAM, QEMU -m syntax (default: QEMU's)\n"
            "  --icount SHIFT      QEMU -icount shift=SHIFT,sleep=off (default 0): one\n"
            "                      instruction per 2^SHIFT ns of virtual time, so timer\n"
            "                      interrupts land on the same instruction every run\n"
            "  --max-insns N       stop after N instructions (all harts); the streams end\n"
            "                      there, exactly, and QEMU is stopped\n"
            "  --timeout SECONDS   give up (error, no trace) if QEMU runs longer\n"
            "  -o, --output FILE   the stream of all harts in execution order, `hart` set on\n"
            "                      every record; with more than one hart also FILE.hart0,\n"
            "                      FILE.hart1 ... holding each hart's records alone (what\n"
            "                      `rvtrace check --ecall trap` and per-hart decoders take)\n"
            "  --stdout FILE       the serial console's output (default: /dev/null)\n"
            "  --stderr FILE       QEMU's standard error (default: this command's)\n"
            "  --code-out FILE     write an ELF holding the bytes of every instruction QEMU\n"
            "                      translated (reset ROM, firmware), one segment per\n"
            "                      contiguous run, for `rvtrace check --elf`\n"
            "  --keep-log FILE     also save QEMU's log (the capture's raw material)\n"
            "  --flush-each        have the plugin write every block entry to the log at once\n"
            "                      instead of in batches (slower; the same streams: a check\n"
            "                      of how traps are placed)\n"
            "  --replay-log FILE   make the streams from a saved log instead of running QEMU\n"
            "  --qemu, --plugin, --per-insn, --qemu-arg, -q as above\n"
            "Trap records follow the ingress builder: an exception's faulting instruction\n"
            "does not retire (the trap record's iaddr = epc names it), an interrupt follows\n"
            "the last retired instruction (iaddr = epc, where execution resumes); `cause` has\n"
            "no interrupt bit, `priv` of every instruction is the level QEMU ran it at.\n"
            "The guest ends the capture by writing to the machine's test finisher (virt:\n"
            "0x100000; 0x5555 = pass, exit status 0) or through OpenSBI's system reset.\n"
            "\n"
            "The exit status is 1 if the program (or guest) exits non-zero (the trace is still\n"
            "written) or the capture fails, 2 on a usage error.\n");
}

struct capture_opts {
    const char *out;
    const char *qemu;
    const char *plugin;
    const char *ecall;
    const char *in_path;
    const char *out_path;
    const char *err_path; /* NULL: inherit */
    bool mem, per_insn, quiet;
    const char *maps; /* --maps: the load map (default for a dynamically linked program: OUT.maps) */
    char **env;
    size_t nenv;
    char **qemu_args;
    size_t nqemu_args;
    /* --system */
    bool system;
    const char *loader, *kernel, *bios, *machine, *memory, *code_out, *keep_log, *replay_log;
    uint64_t smp, icount, max_insns, timeout;
    bool user_only_opt; /* an option that only user mode takes was given */
    bool flush_each;
};

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* First executable `name` on PATH (or `name` itself if it has a slash). */
static char *find_in_path(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        char buf[PATH_MAX];
        if (len > 0 && (size_t)snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, name) < sizeof buf &&
            is_file(buf) && access(buf, X_OK) == 0)
            return strdup(buf);
        path += len + (end ? 1 : 0);
    }
    return NULL;
}

#ifndef RVT_PLUGIN_FROM_BINDIR
#define RVT_PLUGIN_FROM_BINDIR "../lib/rvtrace" /* the install's libdir/rvtrace, from its bindir */
#endif

/* The directory of the running rvtrace executable, or "" if unknown. */
static void self_dir(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0) {
        buf[0] = 0;
        return;
    }
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = 0;
}

static char *find_plugin(void)
{
    const char *env = getenv("RVT_QEMU_PLUGIN");
    if (env && *env)
        return strdup(env);
    char dir[PATH_MAX], cand[PATH_MAX + 64];
    self_dir(dir, sizeof dir);
    if (dir[0]) {
        /* The build tree puts it beside rvtrace; a relocated install under ../lib. */
        snprintf(cand, sizeof cand, "%s/%s", dir, PLUGIN_NAME);
        if (is_file(cand))
            return strdup(cand);
        snprintf(cand, sizeof cand, "%s/%s/%s", dir, RVT_PLUGIN_FROM_BINDIR, PLUGIN_NAME);
        if (is_file(cand))
            return strdup(cand);
    }
#ifdef RVT_PLUGIN_INSTALL_PATH
    if (is_file(RVT_PLUGIN_INSTALL_PATH))
        return strdup(RVT_PLUGIN_INSTALL_PATH);
#endif
#ifdef RVT_PLUGIN_BUILD_PATH
    if (is_file(RVT_PLUGIN_BUILD_PATH))
        return strdup(RVT_PLUGIN_BUILD_PATH);
#endif
    return NULL;
}

/* ELF class of a file: 32, 64, or 0 if it is not a RISC-V ELF. */
static unsigned elf_xlen(const char *path)
{
    unsigned char h[20];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    if (n < sizeof h || memcmp(h, "\177ELF", 4) != 0 || h[5] != 1 /* little-endian */)
        return 0;
    unsigned machine = h[18] | (unsigned)h[19] << 8;
    if (machine != 243 /* EM_RISCV */)
        return 0;
    return h[4] == 1 ? 32 : h[4] == 2 ? 64 : 0;
}

/* The interpreter (PT_INTERP) a RISC-V ELF of class xlen names, into
 * buf: true if it has one (a dynamically linked program). */
static bool elf_interp(const char *path, unsigned xlen, char *buf, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    unsigned char h[64], ph[56];
    const unsigned w = xlen / 8;
    bool found = false;
    if (fread(h, 1, sizeof h, f) == sizeof h) {
        uint64_t phoff = 0;
        for (unsigned k = 0; k < w; k++)
            phoff |= (uint64_t)h[24 + w + k] << (8 * k); /* e_phoff after e_entry */
        const unsigned at = 24 + 3 * w + 4;               /* e_ehsize */
        const unsigned phentsize = h[at + 2] | (unsigned)h[at + 3] << 8, phnum = h[at + 4] | (unsigned)h[at + 5] << 8;
        for (unsigned i = 0; i < phnum && !found && phentsize >= (xlen == 64 ? 56 : 32) && phentsize <= 4096; i++) {
            if (fseek(f, (long)(phoff + (uint64_t)i * phentsize), SEEK_SET) != 0 ||
                fread(ph, 1, xlen == 64 ? 56 : 32, f) != (xlen == 64 ? 56u : 32u))
                break;
            if ((ph[0] | ph[1] << 8 | ph[2] << 16 | (uint32_t)ph[3] << 24) != 3 /* PT_INTERP */)
                continue;
            uint64_t off = 0, sz = 0;
            for (unsigned k = 0; k < w; k++) {
                off |= (uint64_t)ph[(xlen == 64 ? 8 : 4) + k] << (8 * k);
                sz |= (uint64_t)ph[(xlen == 64 ? 32 : 16) + k] << (8 * k);
            }
            if (sz == 0 || sz >= size || fseek(f, (long)off, SEEK_SET) != 0 || fread(buf, 1, sz, f) != sz)
                break;
            buf[sz] = 0;
            found = buf[0] != 0;
        }
    }
    fclose(f);
    return found;
}

/* Append src to dst (NUL-terminated, capacity size), doubling commas when
 * `escape` (QEMU's option syntax takes ",," for a literal comma in a
 * value).  False if it does not fit. */
static bool append(char *dst, size_t size, const char *src, bool escape)
{
    size_t n = strlen(dst);
    for (; *src; src++) {
        size_t need = escape && *src == ',' ? 2 : 1;
        if (n + need >= size)
            return false;
        dst[n++] = *src;
        if (need == 2)
            dst[n++] = ',';
    }
    dst[n] = 0;
    return true;
}

struct stats {
    bool ok;
    uint64_t insns, records, streams;
    long long bytes;
    char error[600];
};

static bool read_stats(const char *path, struct stats *st)
{
    memset(st, 0, sizeof *st);
    st->bytes = -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[sizeof st->error + 6]; /* "error " + the message */
    bool have_status = false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "status ", 7) == 0) {
            have_status = true;
            st->ok = strcmp(line + 7, "ok") == 0;
        } else if (strncmp(line, "insns ", 6) == 0) {
            cli_parse_u64(line + 6, &st->insns);
        } else if (strncmp(line, "records ", 8) == 0) {
            cli_parse_u64(line + 8, &st->records);
        } else if (strncmp(line, "streams ", 8) == 0) {
            cli_parse_u64(line + 8, &st->streams);
        } else if (strncmp(line, "bytes ", 6) == 0) {
            st->bytes = atoll(line + 6);
        } else if (strncmp(line, "error ", 6) == 0) {
            snprintf(st->error, sizeof st->error, "%s", line + 6);
        }
    }
    fclose(f);
    return have_status;
}

static int redirect(int fd, const char *path, int flags)
{
    int f = open(path, flags, 0644);
    if (f < 0)
        return -1;
    if (f != fd) {
        if (dup2(f, fd) < 0)
            return -1;
        close(f);
    }
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run(const struct capture_opts *o, int pargc, char **pargv)
{
    int status = 1;
    char *program = NULL, *qemu = NULL, *plugin = NULL, *out_abs = NULL, *maps_abs = NULL;
    char **args = NULL, **envp = NULL;
    char stats_path[PATH_MAX];
    int stats_fd = -1;
    char plugin_arg[6 * PATH_MAX + 256];
    stats_path[0] = 0;

    program = realpath(pargv[0], NULL);
    if (!program) {
        cli_fail(CMD, "%s: %s", pargv[0], strerror(errno));
        goto out;
    }
    unsigned xlen = elf_xlen(program);
    if (!xlen) {
        cli_fail(CMD, "%s: not a little-endian RISC-V ELF executable", program);
        goto out;
    }
    const char *qemu_name = o->qemu ? o->qemu : xlen == 32 ? "qemu-riscv32" : "qemu-riscv64";
    qemu = find_in_path(qemu_name);
    if (!qemu) {
        cli_fail(CMD, "%s: not found%s", qemu_name, o->qemu ? "" : " on PATH (apt-get install qemu-user)");
        goto out;
    }
    /* A dynamically linked program: QEMU needs the RISC-V sysroot to load
     * its interpreter and libraries, and the decoders need to know where
     * each was loaded (the load map). */
    char interp[512];
    const char *sysroot = NULL;
    const bool dynamic = elf_interp(program, xlen, interp, sizeof interp);
    bool have_root = false;
    for (size_t i = 0; i < o->nqemu_args; i++)
        have_root |= strcmp(o->qemu_args[i], "-L") == 0;
    for (size_t i = 0; i < o->nenv; i++)
        have_root |= strncmp(o->env[i], "QEMU_LD_PREFIX=", 15) == 0;
    if (dynamic && !have_root) {
        static const char *const roots[2] = {"/usr/riscv32-linux-gnu", "/usr/riscv64-linux-gnu"};
        const char *root = roots[xlen == 64];
        char at[PATH_MAX + 512];
        snprintf(at, sizeof at, "%s%s", root, interp);
        if (!is_file(at)) {
            /* (Debian 12 ships a cross C library for riscv64 only) */
            cli_fail(CMD,
                     "%s is dynamically linked: its interpreter %s is not in the RISC-V sysroot %s%s, give another "
                     "with --qemu-arg -L --qemu-arg DIR, or link the program with -static",
                     program, interp, root, xlen == 64 ? " (apt-get install libc6-riscv64-cross)" : "");
            goto out;
        }
        sysroot = root;
    }
    char maps_path[PATH_MAX];
    maps_path[0] = 0;
    if (o->maps || dynamic) {
        if ((size_t)snprintf(maps_path, sizeof maps_path, "%s%s", o->maps ? o->maps : o->out, o->maps ? "" : ".maps") >=
            sizeof maps_path) {
            cli_fail(CMD, "%s: path too long", o->out);
            goto out;
        }
        int mfd = open(maps_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (mfd < 0) {
            cli_fail(CMD, "%s: %s", maps_path, strerror(errno));
            goto out;
        }
        close(mfd);
    }
    plugin = o->plugin ? strdup(o->plugin) : find_plugin();
    if (!plugin || !is_file(plugin)) {
        cli_fail(CMD, "capture plugin %s not found (build with -DRVT_BUILD_QEMU_PLUGIN=ON or give --plugin)",
                 plugin ? plugin : PLUGIN_NAME);
        goto out;
    }
    /* QEMU resolves relative paths itself; absolute ones survive any cwd. */
    char *plugin_abs = realpath(plugin, NULL);
    if (plugin_abs) {
        free(plugin);
        plugin = plugin_abs;
    }

    /* The output must be writable before spending time on the run. */
    int ofd = open(o->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (ofd < 0) {
        cli_fail(CMD, "%s: %s", o->out, strerror(errno));
        goto out;
    }
    close(ofd);
    out_abs = realpath(o->out, NULL);
    if (!out_abs) {
        cli_fail(CMD, "%s: %s", o->out, strerror(errno));
        goto out;
    }
    /* The plugin reports its counts through a private temporary file. */
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir)
        tmpdir = "/tmp";
    if ((size_t)snprintf(stats_path, sizeof stats_path, "%s/rvtrace-capture-XXXXXX", tmpdir) >= sizeof stats_path) {
        cli_fail(CMD, "TMPDIR is too long");
        stats_path[0] = 0;
        goto out;
    }
    stats_fd = mkstemp(stats_path);
    if (stats_fd < 0) {
        cli_fail(CMD, "cannot create a temporary file in %s: %s", tmpdir, strerror(errno));
        stats_path[0] = 0;
        goto out;
    }
    close(stats_fd);

    char modes[96];
    snprintf(modes, sizeof modes, ",merge=%s,mem=%s,ecall=%s", o->per_insn ? "off" : "on", o->mem ? "on" : "off",
             o->ecall);
    plugin_arg[0] = 0;
    if (!append(plugin_arg, sizeof plugin_arg, plugin, true) || !append(plugin_arg, sizeof plugin_arg, ",out=", false) ||
        !append(plugin_arg, sizeof plugin_arg, out_abs, true) ||
        !append(plugin_arg, sizeof plugin_arg, ",stats=", false) ||
        !append(plugin_arg, sizeof plugin_arg, stats_path, true) ||
        !append(plugin_arg, sizeof plugin_arg, modes, false) ||
        (maps_path[0] && (!append(plugin_arg, sizeof plugin_arg, ",maps=", false) ||
                          !(maps_abs = realpath(maps_path, NULL)) ||
                          !append(plugin_arg, sizeof plugin_arg, maps_abs, true)))) {
        cli_fail(CMD, "paths too long for the QEMU -plugin option");
        goto out;
    }

    /* qemu -seed 1 -plugin ... [qemu args] PROGRAM ARGS */
    size_t nargs = 7 + o->nqemu_args + (size_t)pargc + 1, k = 0;
    args = calloc(nargs, sizeof *args);
    envp = calloc(o->nenv + 1, sizeof *envp);
    if (!args || !envp) {
        cli_fail(CMD, "out of memory");
        goto out;
    }
    args[k++] = qemu;
    args[k++] = "-seed";
    args[k++] = "1";
    args[k++] = "-plugin";
    args[k++] = plugin_arg;
    if (sysroot) {
        args[k++] = "-L";
        args[k++] = (char *)sysroot;
    }
    for (size_t i = 0; i < o->nqemu_args; i++)
        args[k++] = o->qemu_args[i];
    args[k++] = program;
    for (int i = 1; i < pargc; i++)
        args[k++] = pargv[i];
    args[k] = NULL;
    for (size_t i = 0; i < o->nenv; i++)
        envp[i] = o->env[i];
    envp[o->nenv] = NULL;

    /* Like system(): a Ctrl-C ends the program (QEMU still writes the trace
     * of what ran), not this process, which then reports it. */
    struct sigaction ign, old_int, old_quit;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    fflush(NULL);
    double t0 = now_seconds();
    pid_t pid = fork();
    if (pid < 0) {
        cli_fail(CMD, "fork: %s", strerror(errno));
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        goto out;
    }
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        /* Guest stack and mmap addresses follow the host's layout. */
        personality(ADDR_NO_RANDOMIZE);
        /* QEMU sizes the guest stack from this limit and the guest's libc
         * reads it at start-up: fix it (to Linux's default) so the run
         * does not depend on the caller's `ulimit -s`. */
        struct rlimit rl;
        if (getrlimit(RLIMIT_STACK, &rl) == 0) {
            rlim_t want = 8u << 20;
            if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
                want = rl.rlim_max;
            rl.rlim_cur = want;
            setrlimit(RLIMIT_STACK, &rl);
        }
        if (redirect(0, o->in_path, O_RDONLY) < 0) {
            fprintf(stderr, "rvtrace capture: %s: %s\n", o->in_path, strerror(errno));
            _exit(127);
        }
        if (redirect(1, o->out_path, O_WRONLY | O_CREAT | O_TRUNC) < 0) {
            fprintf(stderr, "rvtrace capture: %s: %s\n", o->out_path, strerror(errno));
            _exit(127);
        }
        if (o->err_path && redirect(2, o->err_path, O_WRONLY | O_CREAT | O_TRUNC) < 0) {
            fprintf(stderr, "rvtrace capture: %s: %s\n", o->err_path, strerror(errno));
            _exit(127);
        }
        execve(qemu, args, envp);
        fprintf(stderr, "rvtrace capture: %s: %s\n", qemu, strerror(errno));
        _exit(127);
    }
    int wst, wrc;
    while ((wrc = (int)waitpid(pid, &wst, 0)) < 0 && errno == EINTR)
        ;
    double secs = now_seconds() - t0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (wrc < 0) {
        cli_fail(CMD, "waitpid: %s", strerror(errno));
        goto out;
    }

    struct stats st;
    if (!read_stats(stats_path, &st)) {
        if (WIFEXITED(wst))
            cli_fail(CMD, "%s exited with status %d before the plugin finished; no trace written", qemu,
                     WEXITSTATUS(wst));
        else
            cli_fail(CMD,
                     "%s died of signal %d; no trace written (QEMU 7.2 runs no plugin exit hook when the "
                     "program is killed by a signal it does not handle)",
                     program, WIFSIGNALED(wst) ? WTERMSIG(wst) : 0);
        remove(out_abs);
        if (maps_abs)
            remove(maps_abs);
        goto out;
    }
    if (!st.ok) {
        cli_fail(CMD, "capture of %s failed: %s", program, st.error);
        if (maps_abs)
            remove(maps_abs);
        goto out;
    }
    if (!o->quiet) {
        double bpi = st.insns ? (double)st.bytes / (double)st.insns : 0.0;
        printf("%s: %" PRIu64 " instructions, %" PRIu64 " records, %lld bytes (%.3f bytes/insn) in %.2f s "
               "(%.1f M insn/s) -> %s",
               program, st.insns, st.records, st.bytes, bpi, secs, secs > 0 ? (double)st.insns / secs / 1e6 : 0.0,
               o->out);
        if (st.streams == 2)
            printf(" and %s.1 (second thread)", o->out);
        else if (st.streams > 2)
            printf(" and %s.1 ... %s.%" PRIu64 " (one per further thread)", o->out, o->out, st.streams - 1);
        printf("\n");
        if (maps_path[0])
            printf("%s: where the program and its libraries were loaded (give it to decode, check, verify ... "
                   "as --maps %s)\n",
                   maps_path, maps_path);
    }
    if (WIFEXITED(wst) && WEXITSTATUS(wst) == 0) {
        status = 0;
    } else if (WIFEXITED(wst)) {
        cli_fail(CMD, "%s exited with status %d (trace written to %s)", program, WEXITSTATUS(wst), o->out);
    } else {
        cli_fail(CMD, "%s killed by signal %d (trace written to %s)", program,
                 WIFSIGNALED(wst) ? WTERMSIG(wst) : 0, o->out);
    }
out:
    if (stats_path[0])
        remove(stats_path);
    free(program);
    free(qemu);
    free(plugin);
    free(out_abs);
    free(maps_abs);
    free(args);
    free(envp);
    return status;
}

/* ---- system mode ---------------------------------------------------------- */

/* e_entry of a RISC-V ELF (class from elf_xlen); false if unreadable. */
static bool elf_entry(const char *path, unsigned xlen, uint64_t *entry)
{
    unsigned char h[32];
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    if (n < sizeof h)
        return false;
    uint64_t e = 0;
    for (unsigned k = 0; k < (xlen == 64 ? 8u : 4u); k++)
        e |= (uint64_t)h[24 + k] << (8 * k);
    *entry = e;
    return true;
}

/* The streams a system-mode capture writes: all harts, and each hart. */
struct sys_out {
    const char *path;
    unsigned harts, xlen;
    struct rvt_ing_writer *all;
    struct rvt_ing_writer *per[QSYS_MAX_HARTS];
    struct rvt_diag diag;
};

static void hart_path(const char *out, unsigned hart, char *buf, size_t size)
{
    snprintf(buf, size, "%s.hart%u", out, hart);
}

static int sys_start(void *ctx, unsigned xlen, unsigned harts)
{
    struct sys_out *so = ctx;
    so->xlen = xlen;
    so->harts = harts;
    int rc = rvt_ing_writer_open(&so->all, so->path, xlen, &so->diag);
    for (unsigned i = 0; rc == 0 && harts > 1 && i < harts; i++) {
        char p[PATH_MAX + 16];
        hart_path(so->path, i, p, sizeof p);
        rc = rvt_ing_writer_open(&so->per[i], p, xlen, &so->diag);
    }
    return rc;
}

static int sys_emit(void *ctx, const struct rvt_ing_rec *rec)
{
    struct sys_out *so = ctx;
    int rc = rvt_ing_write(so->all, rec);
    if (rc < 0)
        return rvt_fail(&so->diag, (enum rvt_err)-rc, "%s", rvt_ing_writer_error(so->all));
    if (so->per[rec->hart] && (rc = rvt_ing_write(so->per[rec->hart], rec)) < 0)
        return rvt_fail(&so->diag, (enum rvt_err)-rc, "%s", rvt_ing_writer_error(so->per[rec->hart]));
    return 0;
}

/* Close the streams; remove them too when the capture failed. */
static int sys_close(struct sys_out *so, bool remove_files)
{
    int rc = 0;
    if (so->all && rvt_ing_writer_close(so->all) < 0)
        rc = -1;
    so->all = NULL;
    for (unsigned i = 0; i < QSYS_MAX_HARTS; i++) {
        if (so->per[i] && rvt_ing_writer_close(so->per[i]) < 0)
            rc = -1;
        so->per[i] = NULL;
    }
    if (remove_files || rc < 0) {
        remove(so->path);
        for (unsigned i = 0; i < so->harts && so->harts > 1; i++) {
            char p[PATH_MAX + 16];
            hart_path(so->path, i, p, sizeof p);
            remove(p);
        }
    }
    return rc;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* ---- --code-out: an ELF of the executed code ---- */

struct code_item {
    uint64_t pc;
    uint32_t bits;
    unsigned len;
};
struct code_list {
    struct code_item *v;
    size_t n, cap;
    bool nomem;
};

static int code_add(void *ctx, uint64_t pc, uint32_t bits, unsigned len)
{
    struct code_list *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4096;
        struct code_item *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->nomem = true;
            return 1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (struct code_item){pc, bits, len};
    return 0;
}

static int code_cmp(const void *a, const void *b)
{
    const struct code_item *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static void put_le(unsigned char *p, uint64_t v, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        p[k] = (unsigned char)(v >> (8 * k));
}

/* One PT_LOAD per contiguous run of instructions; no bytes are invented. */
static int write_code_elf(const struct qsys *q, const char *path, unsigned xlen)
{
    struct code_list l = {0};
    qsys_code_foreach(q, code_add, &l);
    if (l.nomem) {
        free(l.v);
        return cli_fail(CMD, "out of memory for --code-out");
    }
    qsort(l.v, l.n, sizeof *l.v, code_cmp);
    /* Deduplicate; the same address with other bits is code that changed. */
    size_t m = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (m > 0 && l.v[m - 1].pc == l.v[i].pc) {
            if (l.v[m - 1].bits != l.v[i].bits || l.v[m - 1].len != l.v[i].len) {
                uint64_t pc = l.v[i].pc;
                free(l.v);
                return cli_fail(CMD, "--code-out: the code at 0x%" PRIx64 " changed during the run (self-modifying "
                                "code cannot be written as one image)", pc);
            }
            continue;
        }
        if (m > 0 && l.v[m - 1].pc + l.v[m - 1].len > l.v[i].pc) {
            uint64_t a = l.v[m - 1].pc, b = l.v[i].pc;
            free(l.v);
            return cli_fail(CMD, "--code-out: instructions at 0x%" PRIx64 " and 0x%" PRIx64 " overlap", a, b);
        }
        l.v[m++] = l.v[i];
    }
    size_t nseg = 0;
    for (size_t i = 0; i < m; i++)
        if (i == 0 || l.v[i - 1].pc + l.v[i - 1].len != l.v[i].pc)
            nseg++;
    if (nseg >= 0xffff) {
        free(l.v);
        return cli_fail(CMD, "--code-out: %zu separate code runs do not fit one ELF program header table", nseg);
    }
    const unsigned ehsize = xlen == 64 ? 64 : 52, phentsize = xlen == 64 ? 56 : 32, w = xlen / 8;
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(l.v);
        return cli_fail(CMD, "%s: %s", path, strerror(errno));
    }
    unsigned char eh[64] = {0x7f, 'E', 'L', 'F', (unsigned char)(xlen == 64 ? 2 : 1), 1, 1};
    put_le(eh + 16, 2, 2);   /* ET_EXEC */
    put_le(eh + 18, 243, 2); /* EM_RISCV */
    put_le(eh + 20, 1, 4);
    put_le(eh + 24 + w, ehsize, w);          /* e_phoff */
    put_le(eh + 24 + 3 * w + 4, ehsize, 2);  /* e_ehsize */
    put_le(eh + 24 + 3 * w + 6, phentsize, 2);
    put_le(eh + 24 + 3 * w + 8, nseg, 2);
    bool ok = fwrite(eh, 1, ehsize, f) == ehsize;
    uint64_t off = ehsize + (uint64_t)nseg * phentsize;
    for (size_t i = 0; ok && i < m;) {
        size_t j = i + 1;
        while (j < m && l.v[j - 1].pc + l.v[j - 1].len == l.v[j].pc)
            j++;
        uint64_t size = l.v[j - 1].pc + l.v[j - 1].len - l.v[i].pc;
        unsigned char ph[56] = {0};
        put_le(ph, 1, 4); /* PT_LOAD */
        if (xlen == 64) {
            put_le(ph + 4, 5, 4); /* R+X */
            put_le(ph + 8, off, 8);
            put_le(ph + 16, l.v[i].pc, 8);
            put_le(ph + 24, l.v[i].pc, 8);
            put_le(ph + 32, size, 8);
            put_le(ph + 40, size, 8);
            put_le(ph + 48, 2, 8);
        } else {
            put_le(ph + 4, off, 4);
            put_le(ph + 8, l.v[i].pc, 4);
            put_le(ph + 12, l.v[i].pc, 4);
            put_le(ph + 16, size, 4);
            put_le(ph + 20, size, 4);
            put_le(ph + 24, 5, 4);
            put_le(ph + 28, 2, 4);
        }
        ok = fwrite(ph, 1, phentsize, f) == phentsize;
        off += size;
        i = j;
    }
    for (size_t i = 0; ok && i < m; i++) {
        unsigned char b[4];
        put_le(b, l.v[i].bits, l.v[i].len);
        ok = fwrite(b, 1, l.v[i].len, f) == l.v[i].len;
    }
    free(l.v);
    if (fclose(f) != 0 || !ok) {
        remove(path);
        return cli_fail(CMD, "%s: write failed", path);
    }
    return 0;
}

static const char *priv_letter(unsigned p)
{
    static const char *const names[] = {"U", "S", "?", "M", "D", "VU", "VS", "?"};
    return names[p & 7];
}

static void print_causes(const char *what, uint32_t causes)
{
    if (!causes)
        return;
    printf("; %s", what);
    const char *sep = " ";
    for (unsigned c = 0; c < 32; c++)
        if (causes >> c & 1) {
            printf("%s%u", sep, c);
            sep = ",";
        }
}

static void print_sys_summary(const struct capture_opts *o, const struct qsys_stats *st, double secs,
                              const char *what)
{
    long long bytes = file_size(o->out);
    double bpi = st->insns && bytes > 0 ? (double)bytes / (double)st->insns : 0.0;
    printf("%s: %" PRIu64 " instructions, %" PRIu64 " records, %lld bytes (%.3f bytes/insn) in %.2f s (%.1f M insn/s)"
           " -> %s%s\n",
           what, st->insns, st->records, bytes, bpi, secs, secs > 0 ? (double)st->insns / secs / 1e6 : 0.0, o->out,
           st->harts > 1 ? " (all harts) and .hart0 ..." : "");
    for (unsigned i = 0; i < st->harts; i++) {
        const struct qsys_hart_stats *h = &st->hart[i];
        printf("  hart %u: %" PRIu64 " instructions, %" PRIu64 " exceptions, %" PRIu64 " interrupts, %" PRIu64
               " trap returns, %" PRIu64 " privilege changes, levels",
               i, h->insns, h->exceptions, h->interrupts, h->trap_returns, h->priv_changes);
        for (unsigned p = 0; p < 8; p++)
            if (h->privs >> p & 1)
                printf(" %s", priv_letter(p));
        print_causes("exception causes", h->exc_causes);
        print_causes("interrupt causes", h->int_causes);
        printf("\n");
    }
    if (st->limit_reached)
        printf("  stopped at --max-insns %" PRIu64 "\n", st->insns);
}

/* Read `fd` (the log) to its end into q (and the --keep-log copy).
 * `qemu` > 0: QEMU's pid, watched for exit and the timeout; *wst gets its
 * status when it was reaped.  Returns 0 (log complete), 1 (max-insns
 * reached: QEMU was stopped), or -1 (error reported). */
static int pump_log(struct qsys *q, int fd, FILE *keep, pid_t qemu, const struct capture_opts *o, double t0,
                    bool *reaped, int *wst)
{
    static char buf[1 << 16];
    bool seen_writer = qemu <= 0;
    for (;;) {
        int pr = 1;
        if (qemu > 0) {
            struct pollfd pfd = {.fd = fd, .events = POLLIN};
            pr = poll(&pfd, 1, 100);
            if (pr < 0 && errno != EINTR)
                return cli_fail(CMD, "poll: %s", strerror(errno)), -1;
            if (pr > 0 && !(pfd.revents & (POLLIN | POLLHUP)))
                pr = 0;
        }
        if (qemu > 0 && o->timeout && now_seconds() - t0 > (double)o->timeout)
            return cli_fail(CMD, "QEMU still running after --timeout %" PRIu64 " s; stopped, no trace written",
                            o->timeout), -1;
        if (pr > 0) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n > 0) {
                seen_writer = true;
                if (keep && fwrite(buf, 1, (size_t)n, keep) != (size_t)n)
                    return cli_fail(CMD, "%s: write failed", o->keep_log), -1;
                int rc = qsys_feed(q, buf, (size_t)n);
                if (rc < 0)
                    return cli_fail(CMD, "%s", qsys_error(q)), -1;
                if (rc == 1)
                    return 1;
                continue;
            }
            if (n == 0 && seen_writer)
                return 0; /* every writer closed the log */
            if (n < 0 && errno != EAGAIN && errno != EINTR)
                return cli_fail(CMD, "reading QEMU's log: %s", strerror(errno)), -1;
        }
        if (qemu > 0 && !*reaped) {
            pid_t w = waitpid(qemu, wst, WNOHANG);
            if (w == qemu) {
                *reaped = true;
                if (!seen_writer)
                    return 0; /* it never opened the log */
            }
        }
    }
}

static int run_system(const struct capture_opts *o)
{
    int status = 1;
    char *qemu = NULL, *plugin = NULL, *image_abs = NULL;
    char tmpdir[PATH_MAX], fifo[PATH_MAX + 8];
    char **args = NULL;
    FILE *keep = NULL;
    int fd = -1;
    pid_t pid = -1;
    bool reaped = false, outputs_started = false, written = false;
    int wst = 0;
    struct qsys *q = NULL;
    struct sys_out so = {.path = o->out};
    tmpdir[0] = 0;
    char **extra_args = NULL;

    struct qsys_config qc = {.size = sizeof qc,
                             .merge_blocks = !o->per_insn,
                             .max_insns = o->max_insns,
                             .start = sys_start,
                             .emit = sys_emit,
                             .ctx = &so};
    q = qsys_new(&qc);
    if (!q) {
        cli_fail(CMD, "out of memory");
        goto out;
    }
    double t0 = now_seconds();
    int prc;

    if (o->keep_log && !(keep = fopen(o->keep_log, "wb"))) {
        cli_fail(CMD, "%s: %s", o->keep_log, strerror(errno));
        goto out;
    }
    if (o->replay_log) {
        fd = open(o->replay_log, O_RDONLY);
        if (fd < 0) {
            cli_fail(CMD, "%s: %s", o->replay_log, strerror(errno));
            goto out;
        }
        outputs_started = true;
        prc = pump_log(q, fd, keep, -1, o, t0, &reaped, &wst);
        if (prc < 0)
            goto out;
    } else {
        /* The program decides the QEMU flavour (riscv32/64). */
        const char *image = o->loader ? o->loader : o->kernel ? o->kernel : o->bios;
        image_abs = realpath(image, NULL);
        if (!image_abs) {
            cli_fail(CMD, "%s: %s", image, strerror(errno));
            goto out;
        }
        unsigned xlen = elf_xlen(image_abs);
        if (!xlen && !o->qemu) {
            cli_fail(CMD, "%s: not a little-endian RISC-V ELF (give --qemu to choose the emulator)", image_abs);
            goto out;
        }
        uint64_t entry = 0;
        if (o->loader && (!xlen || !elf_entry(image_abs, xlen, &entry))) {
            cli_fail(CMD, "%s: --loader needs a RISC-V ELF with an entry point", image_abs);
            goto out;
        }
        const char *qemu_name = o->qemu ? o->qemu : xlen == 32 ? "qemu-system-riscv32" : "qemu-system-riscv64";
        qemu = find_in_path(qemu_name);
        if (!qemu) {
            cli_fail(CMD, "%s: not found%s", qemu_name, o->qemu ? "" : " on PATH (apt-get install qemu-system-misc)");
            goto out;
        }
        plugin = o->plugin ? strdup(o->plugin) : find_plugin();
        if (!plugin || !is_file(plugin)) {
            cli_fail(CMD, "capture plugin %s not found (build with -DRVT_BUILD_QEMU_PLUGIN=ON or give --plugin)",
                     plugin ? plugin : PLUGIN_NAME);
            goto out;
        }
        char *pa = realpath(plugin, NULL);
        if (pa) {
            free(plugin);
            plugin = pa;
        }
        const char *td = getenv("TMPDIR");
        if (!td || !*td)
            td = "/tmp";
        if ((size_t)snprintf(tmpdir, sizeof tmpdir, "%s/rvtrace-sys-XXXXXX", td) >= sizeof tmpdir || !mkdtemp(tmpdir)) {
            cli_fail(CMD, "cannot create a temporary directory in %s: %s", td, strerror(errno));
            tmpdir[0] = 0;
            goto out;
        }
        snprintf(fifo, sizeof fifo, "%s/log", tmpdir);
        if (mkfifo(fifo, 0600) != 0) {
            cli_fail(CMD, "mkfifo %s: %s", fifo, strerror(errno));
            goto out;
        }

        /* Strings QEMU parses with its option syntax (",," is a literal comma). */
        size_t nextra = 8 + 2 * (size_t)o->smp;
        extra_args = calloc(nextra, sizeof *extra_args);
        if (!extra_args) {
            cli_fail(CMD, "out of memory");
            goto out;
        }
        size_t ne = 0;
        char tmp[2 * PATH_MAX + 64];
        bool fits = true;
#define QARG(...)                                                                                        \
    do {                                                                                                 \
        tmp[0] = 0;                                                                                      \
        __VA_ARGS__;                                                                                     \
        if (fits && !(extra_args[ne++] = strdup(tmp)))                                                   \
            fits = false;                                                                                \
    } while (0)
        QARG(fits = append(tmp, sizeof tmp, plugin, true) &&
                    append(tmp, sizeof tmp, o->flush_each ? ",flush=each" : ",flush=batch", false));
        QARG(snprintf(tmp, sizeof tmp, "shift=%" PRIu64 ",sleep=off", o->icount));
        QARG(snprintf(tmp, sizeof tmp, "%" PRIu64, o->smp));
        QARG(fits = append(tmp, sizeof tmp, fifo, false));
        if (o->loader) {
            QARG(fits = append(tmp, sizeof tmp, "loader,file=", false) && append(tmp, sizeof tmp, image_abs, true) &&
                        append(tmp, sizeof tmp, ",cpu-num=0", false));
            for (uint64_t i = 1; i < o->smp; i++)
                QARG(snprintf(tmp, sizeof tmp, "loader,addr=0x%" PRIx64 ",cpu-num=%" PRIu64, entry, i));
        }
#undef QARG
        if (!fits) {
            cli_fail(CMD, "paths too long for QEMU's options");
            goto out;
        }
        size_t nargs = 40 + 2 * (size_t)o->smp + o->nqemu_args, k = 0;
        args = calloc(nargs, sizeof *args);
        if (!args) {
            cli_fail(CMD, "out of memory");
            goto out;
        }
        args[k++] = qemu;
        args[k++] = "-M";
        args[k++] = (char *)(o->machine ? o->machine : "virt");
        args[k++] = "-smp";
        args[k++] = extra_args[2];
        if (o->memory) {
            args[k++] = "-m";
            args[k++] = (char *)o->memory;
        }
        args[k++] = "-bios";
        args[k++] = (char *)(o->bios ? o->bios : "none");
        /* Reproducible: instruction-counted virtual time, one host thread,
         * an RTC that does not read the host clock, no reset loops. */
        args[k++] = "-icount";
        args[k++] = extra_args[1];
        args[k++] = "-accel";
        args[k++] = "tcg,thread=single";
        args[k++] = "-rtc";
        args[k++] = "base=2020-01-01T00:00:00,clock=vm";
        args[k++] = "-no-reboot";
        args[k++] = "-nodefaults";
        args[k++] = "-display";
        args[k++] = "none";
        args[k++] = "-monitor";
        args[k++] = "none";
        args[k++] = "-serial";
        args[k++] = "stdio";
        args[k++] = "-plugin";
        args[k++] = extra_args[0];
        args[k++] = "-d";
        args[k++] = "plugin,int,in_asm";
        args[k++] = "-D";
        args[k++] = extra_args[3];
        size_t x = 4; /* the -device loader arguments */
        if (o->kernel) {
            args[k++] = "-kernel";
            args[k++] = image_abs;
        }
        if (o->loader) {
            for (uint64_t i = 0; i < o->smp; i++) {
                args[k++] = "-device";
                args[k++] = extra_args[x++];
            }
        }
        for (size_t i = 0; i < o->nqemu_args; i++)
            args[k++] = o->qemu_args[i];
        args[k] = NULL;

        outputs_started = true;
        struct sigaction ign, old_int, old_quit;
        memset(&ign, 0, sizeof ign);
        ign.sa_handler = SIG_IGN;
        sigemptyset(&ign.sa_mask);
        sigaction(SIGINT, &ign, &old_int);
        sigaction(SIGQUIT, &ign, &old_quit);
        fflush(NULL);
        pid = fork();
        if (pid < 0) {
            cli_fail(CMD, "fork: %s", strerror(errno));
            sigaction(SIGINT, &old_int, NULL);
            sigaction(SIGQUIT, &old_quit, NULL);
            goto out;
        }
        if (pid == 0) {
            sigaction(SIGINT, &old_int, NULL);
            sigaction(SIGQUIT, &old_quit, NULL);
            if (redirect(0, "/dev/null", O_RDONLY) < 0 ||
                redirect(1, o->out_path, O_WRONLY | O_CREAT | O_TRUNC) < 0 ||
                (o->err_path && redirect(2, o->err_path, O_WRONLY | O_CREAT | O_TRUNC) < 0)) {
                fprintf(stderr, "rvtrace capture: cannot redirect QEMU's standard streams: %s\n", strerror(errno));
                _exit(127);
            }
            execv(qemu, args);
            fprintf(stderr, "rvtrace capture: %s: %s\n", qemu, strerror(errno));
            _exit(127);
        }
        /* Non-blocking, so a QEMU that dies before opening its log cannot
         * leave this process waiting for a writer. */
        fd = open(fifo, O_RDONLY | O_NONBLOCK);
        if (fd < 0) {
            cli_fail(CMD, "%s: %s", fifo, strerror(errno));
            sigaction(SIGINT, &old_int, NULL);
            sigaction(SIGQUIT, &old_quit, NULL);
            goto out;
        }
        prc = pump_log(q, fd, keep, pid, o, t0, &reaped, &wst);
        if (prc != 0 && !reaped) {
            kill(pid, SIGKILL); /* an error, or all we wanted: its remaining log is not needed */
        }
        if (!reaped) {
            while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
                ;
            reaped = true;
        }
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        if (prc < 0)
            goto out;
        if (prc == 0 && !qsys_has_header(q)) {
            if (WIFEXITED(wst))
                cli_fail(CMD, "%s exited with status %d without writing its log (see its messages)", qemu,
                         WEXITSTATUS(wst));
            else
                cli_fail(CMD, "%s died of signal %d without writing its log", qemu, WIFSIGNALED(wst) ? WTERMSIG(wst) : 0);
            goto out;
        }
    }
    if (qsys_finish(q) < 0) {
        cli_fail(CMD, "%s%s%s", o->replay_log ? o->replay_log : "", o->replay_log ? ": " : "", qsys_error(q));
        goto out;
    }
    if (so.diag.code) {
        cli_fail(CMD, "%s", so.diag.msg);
        goto out;
    }
    if (sys_close(&so, false) < 0) {
        cli_fail(CMD, "%s: write failed", o->out);
        goto out;
    }
    struct qsys_stats st;
    qsys_get_stats(q, &st);
    if (o->code_out && write_code_elf(q, o->code_out, st.xlen) != 0) {
        sys_close(&so, true);
        goto out;
    }
    double secs = now_seconds() - t0;
    if (!o->quiet)
        print_sys_summary(o, &st, secs, o->replay_log ? o->replay_log : image_abs);
    status = 0;
    written = true;
    if (!o->replay_log && !st.limit_reached) {
        if (WIFEXITED(wst) && WEXITSTATUS(wst) != 0) {
            cli_fail(CMD, "the guest ended with QEMU exit status %d (trace written to %s)", WEXITSTATUS(wst), o->out);
            status = 1;
        } else if (WIFSIGNALED(wst)) {
            cli_fail(CMD, "QEMU was killed by signal %d (trace written to %s)", WTERMSIG(wst), o->out);
            status = 1;
        }
    }
out:
    if (!written)
        sys_close(&so, outputs_started);
    if (keep && fclose(keep) != 0 && status == 0) {
        cli_fail(CMD, "%s: write failed", o->keep_log);
        status = 1;
    }
    if (fd >= 0)
        close(fd);
    if (tmpdir[0]) {
        remove(fifo);
        rmdir(tmpdir);
    }
    if (extra_args) {
        for (size_t i = 0; extra_args[i]; i++)
            free(extra_args[i]);
        free(extra_args);
    }
    qsys_free(q);
    free(qemu);
    free(plugin);
    free(image_abs);
    free(args);
    return status;
}

static bool in_range(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    return cli_parse_u64(s, out) && *out >= min && *out <= max;
}

int cmd_capture(int argc, char **argv)
{
    struct capture_opts o;
    memset(&o, 0, sizeof o);
    o.out = "capture.ing";
    o.ecall = "sequential";
    o.in_path = "/dev/null";
    o.out_path = "/dev/null";
    o.smp = 1;
    /* Option lists can hold at most argc entries each. */
    o.env = calloc((size_t)argc + 1, sizeof *o.env);
    o.qemu_args = calloc((size_t)argc + 1, sizeof *o.qemu_args);
    if (!o.env || !o.qemu_args) {
        free(o.env);
        free(o.qemu_args);
        return cli_fail(CMD, "out of memory");
    }
    const char *sys_only = NULL;
    int status = 2, i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                                                     \
    do {                                                                                                 \
        if (!val) {                                                                                      \
            cli_fail(CMD, "%s needs a value (see --help)", a);                                           \
            goto done;                                                                                   \
        }                                                                                                \
        i++;                                                                                             \
    } while (0)
#define NEED_NUMBER(field, min, max)                                                                     \
    do {                                                                                                 \
        NEED_VALUE();                                                                                    \
        if (!in_range(val, (min), (max), &(field))) {                                                    \
            cli_fail(CMD, "%s %s: expected a number from %llu to %llu", a, val, (unsigned long long)(min), \
                     (unsigned long long)(max));                                                         \
            goto done;                                                                                   \
        }                                                                                                \
        sys_only = a;                                                                                    \
    } while (0)
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            /* One write: a reader that stops early (grep -q) must not see
             * SIGPIPE kill a second one. */
            static char help_buf[1 << 16]; /* glibc ignores the size without a buffer */
            setvbuf(stdout, help_buf, _IOFBF, sizeof help_buf);
            usage(stdout);
            status = 0;
            goto done;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            NEED_VALUE();
            o.out = val;
        } else if (strcmp(a, "--qemu") == 0) {
            NEED_VALUE();
            o.qemu = val;
        } else if (strcmp(a, "--plugin") == 0) {
            NEED_VALUE();
            o.plugin = val;
        } else if (strcmp(a, "--ecall") == 0) {
            NEED_VALUE();
            if (strcmp(val, "sequential") != 0 && strcmp(val, "uninferable") != 0) {
                cli_fail(CMD, "--ecall %s: expected sequential or uninferable", val);
                goto done;
            }
            o.ecall = val;
            o.user_only_opt = true;
        } else if (strcmp(a, "--mem") == 0) {
            o.mem = true;
            o.user_only_opt = true;
        } else if (strcmp(a, "--maps") == 0) {
            NEED_VALUE();
            o.maps = val;
            o.user_only_opt = true;
        } else if (strcmp(a, "--per-insn") == 0) {
            o.per_insn = true;
        } else if (strcmp(a, "--stdin") == 0) {
            NEED_VALUE();
            o.in_path = val;
            o.user_only_opt = true;
        } else if (strcmp(a, "--stdout") == 0) {
            NEED_VALUE();
            o.out_path = val;
        } else if (strcmp(a, "--stderr") == 0) {
            NEED_VALUE();
            o.err_path = val;
        } else if (strcmp(a, "--env") == 0) {
            NEED_VALUE();
            if (!strchr(val, '=') || val[0] == '=') {
                cli_fail(CMD, "--env %s: expected NAME=VALUE", val);
                goto done;
            }
            o.env[o.nenv++] = argv[i];
            o.user_only_opt = true;
        } else if (strcmp(a, "--qemu-arg") == 0) {
            NEED_VALUE();
            o.qemu_args[o.nqemu_args++] = argv[i];
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            o.quiet = true;
        } else if (strcmp(a, "--system") == 0) {
            o.system = true;
        } else if (strcmp(a, "--loader") == 0) {
            NEED_VALUE();
            o.loader = val;
            sys_only = a;
        } else if (strcmp(a, "--kernel") == 0) {
            NEED_VALUE();
            o.kernel = val;
            sys_only = a;
        } else if (strcmp(a, "--bios") == 0) {
            NEED_VALUE();
            o.bios = val;
            sys_only = a;
        } else if (strcmp(a, "--machine") == 0) {
            NEED_VALUE();
            o.machine = val;
            sys_only = a;
        } else if (strcmp(a, "--memory") == 0) {
            NEED_VALUE();
            o.memory = val;
            sys_only = a;
        } else if (strcmp(a, "--flush-each") == 0) {
            o.flush_each = true;
            sys_only = a;
        } else if (strcmp(a, "--code-out") == 0) {
            NEED_VALUE();
            o.code_out = val;
            sys_only = a;
        } else if (strcmp(a, "--keep-log") == 0) {
            NEED_VALUE();
            o.keep_log = val;
            sys_only = a;
        } else if (strcmp(a, "--replay-log") == 0) {
            NEED_VALUE();
            o.replay_log = val;
            sys_only = a;
        } else if (strcmp(a, "--smp") == 0) {
            NEED_NUMBER(o.smp, 1, QSYS_MAX_HARTS);
        } else if (strcmp(a, "--icount") == 0) {
            NEED_NUMBER(o.icount, 0, 10);
        } else if (strcmp(a, "--max-insns") == 0) {
            NEED_NUMBER(o.max_insns, 1, UINT64_MAX);
        } else if (strcmp(a, "--timeout") == 0) {
            NEED_NUMBER(o.timeout, 1, 1000000);
        } else if (a[0] == '-') {
            cli_fail(CMD, "unknown option %s (see --help)", a);
            goto done;
        } else {
            break; /* the program, without a "--" */
        }
#undef NEED_VALUE
#undef NEED_NUMBER
    }
    if (strcmp(o.out, "-") == 0) {
        cli_fail(CMD, "-o -: the trace is written by QEMU beside the program's own output; give a file name");
        goto done;
    }
    if (o.system) {
        if (o.user_only_opt) {
            cli_fail(CMD, "--ecall, --mem, --stdin and --env are user-mode options (not with --system)");
            goto done;
        }
        if (i < argc) {
            cli_fail(CMD, "--system takes no program argument ('%s'): give --loader PROG, --kernel PROG or --bios FILE",
                     argv[i]);
            goto done;
        }
        if (o.replay_log) {
            if (o.loader || o.kernel || o.bios || o.machine || o.memory || o.smp != 1 || o.nqemu_args) {
                cli_fail(CMD, "--replay-log makes the streams from a saved log: QEMU options do not apply");
                goto done;
            }
        } else if (!o.loader && !o.kernel && (!o.bios || strcmp(o.bios, "none") == 0 || strcmp(o.bios, "default") == 0)) {
            cli_fail(CMD, "--system needs something to run: --loader PROG, --kernel PROG or --bios FILE");
            goto done;
        } else if (o.loader && o.kernel) {
            cli_fail(CMD, "--loader and --kernel exclude each other");
            goto done;
        }
        status = run_system(&o);
        goto done;
    }
    if (sys_only) {
        cli_fail(CMD, "%s is a system-mode option: add --system", sys_only);
        goto done;
    }
    if (i >= argc) {
        cli_fail(CMD, "no program given (rvtrace capture [options] -- PROGRAM [ARGS...])");
        goto done;
    }
    status = run(&o, argc - i, argv + i);
done:
    free(o.env);
    free(o.qemu_args);
    return status;
}
