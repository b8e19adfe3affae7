/* abiloop: refloop's ping-pong driven through a plugin's C ABI, with nothing of ipchost around
 * it. Three figures of one round trip then split the cost: refloop (the algorithm inlined),
 * abiloop (the same through the plugin's calls and checks) and ipchost (the harness on top):
 * abiloop / refloop is the plugin's share, ipchost / abiloop the harness's.
 *
 *   abiloop PLUGIN.so TRANSPORT SIZE SECONDS copy|zero-copy [KEY=VALUE ...]
 *
 * Message transports opened one way (two connections, as ipchost opens a transport without
 * IPCB_CAP_DUPLEX): copy uses send/recv, zero-copy borrow/publish and take/release. The pinger
 * runs on CPU 0 and writes its sequence number in each ping; the ponger, on CPU 1, echoes it.
 * Prints refloop lat's line: p50_ns, mean_ns, round_trips. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipcbench/transport.h"
#include "loop_basics.h"

static const ipcb_transport *tp;
static ipcb_error err;
static size_t size;
static int zero_copy;

static void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("abiloop: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void check(int32_t status, const char *call) {
    if (status == IPCB_OK) return;
    fprintf(stderr, "abiloop: %s failed (%d): %s\n", call, status, err.message);
    exit(2);
}

static void IPCB_CALL host_log(const ipcb_host *host, int32_t level, const char *message) {
    (void)host;
    (void)level;
    fprintf(stderr, "abiloop: plugin: %s\n", message);
}

static ipcb_endpoint *open_end(uint32_t role, uint32_t dir, const char *address,
                               const ipcb_kv *opts, uint32_t n_opts, const ipcb_host *host) {
    ipcb_open_params p = {sizeof p, role, dir, n_opts, opts, address, NULL, size, host};
    ipcb_endpoint *ep = NULL;
    err.struct_size = sizeof err;
    check(tp->open(&p, &ep, &err), "open");
    return ep;
}

/* One message out: the first 8 bytes are `seq`, the rest whatever `buf` holds. */
static void send_one(ipcb_endpoint *ep, unsigned char *buf, uint64_t seq) {
    if (zero_copy) {
        ipcb_msg slot;
        uint32_t got = 0;
        check(tp->borrow(ep, size, 1, &slot, &got, IPCB_WAIT_FOREVER, &err), "borrow");
        memcpy(slot.data, buf, size);
        memcpy(slot.data, &seq, 8);
        check(tp->publish(ep, got, &err), "publish");
    } else {
        memcpy(buf, &seq, 8);
        check(tp->send(ep, buf, size, IPCB_WAIT_FOREVER, &err), "send");
    }
}

/* One message in, copied to `buf` (the ponger echoes it from there; the pinger reads 8 bytes
 * of it in place with zero-copy). Returns its first 8 bytes. */
static uint64_t recv_one(ipcb_endpoint *ep, unsigned char *buf, int whole) {
    uint64_t seq;
    if (zero_copy) {
        ipcb_msg msg;
        uint32_t got = 0;
        check(tp->take(ep, 1, &msg, &got, IPCB_WAIT_FOREVER, &err), "take");
        memcpy(whole ? buf : (unsigned char *)&seq, msg.data, whole ? size : 8);
        check(tp->release(ep, got, &err), "release");
        if (!whole) return seq;
    } else {
        size_t len = 0;
        check(tp->recv(ep, buf, size, &len, IPCB_WAIT_FOREVER, &err), "recv");
    }
    memcpy(&seq, buf, 8);
    return seq;
}

static int cmp(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void pinger(ipcb_endpoint *ping, ipcb_endpoint *pong, double seconds) {
    unsigned char *buf = calloc(1, size), *in = calloc(1, size);
    size_t cap = 4000000, n = 0;
    int64_t *rtt = malloc(cap * sizeof *rtt), t = now_ns(), end;
    uint64_t seq = 0;
    double mean = 0;
    memset(buf, 0x5a, size);
    /* Warm-up as refloop's: 0.1 s, at most 2000 round trips. */
    for (int i = 0; i < 2000 && now_ns() < t + 100000000; ++i) {
        send_one(ping, buf, seq);
        recv_one(pong, in, 0);
    }
    t = now_ns();
    end = t + (int64_t)(seconds * 1e9);
    while (n < cap) {
        int64_t t0 = t;
        send_one(ping, buf, ++seq);
        if (recv_one(pong, in, 0) != seq)
            fail("the pong of ping %llu carried another number", (unsigned long long)seq);
        t = now_ns();
        rtt[n++] = t - t0;
        if (t >= end) break;
    }
    send_one(ping, buf, UINT64_MAX); /* end marker */
    qsort(rtt, n, sizeof *rtt, cmp);
    for (size_t i = 0; i < n; ++i) mean += (double)rtt[i];
    printf("p50_ns=%lld mean_ns=%.0f round_trips=%zu\n", (long long)rtt[n / 2], mean / n, n);
    free(rtt);
    free(in);
    free(buf);
}

/* Echoes each ping until the end marker: with zero-copy straight from where it arrived into the
 * borrowed slot, released after the pong is out (as ipchost's ponger does). */
static void ponger(ipcb_endpoint *ping, ipcb_endpoint *pong) {
    unsigned char *buf = calloc(1, size);
    for (;;) {
        uint64_t seq;
        if (!zero_copy) {
            if ((seq = recv_one(ping, buf, 1)) == UINT64_MAX) break;
            send_one(pong, buf, seq);
            continue;
        }
        ipcb_msg msg, slot;
        uint32_t got = 0, slots = 0;
        check(tp->take(ping, 1, &msg, &got, IPCB_WAIT_FOREVER, &err), "take");
        memcpy(&seq, msg.data, 8);
        if (seq != UINT64_MAX) {
            check(tp->borrow(pong, size, 1, &slot, &slots, IPCB_WAIT_FOREVER, &err), "borrow");
            memcpy(slot.data, msg.data, size);
            check(tp->publish(pong, slots, &err), "publish");
        }
        check(tp->release(ping, got, &err), "release");
        if (seq == UINT64_MAX) break;
    }
    free(buf);
}

int main(int argc, char **argv) {
    ipcb_host host = {sizeof host, IPCB_ABI_VERSION, "abiloop", "1", NULL, host_log};
    ipcb_kv opts[16];
    uint32_t n_opts = 0;
    char ping_at[512], pong_at[512];
    if (argc < 6 || (strcmp(argv[5], "copy") && strcmp(argv[5], "zero-copy")) || argc > 22) {
        fprintf(stderr,
                "usage: abiloop PLUGIN.so TRANSPORT SIZE SECONDS copy|zero-copy "
                "[KEY=VALUE ...]\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) fail("cannot load %s: %s", argv[1], dlerror());
    ipcb_plugin_entry_fn entry = (ipcb_plugin_entry_fn)dlsym(lib, IPCB_PLUGIN_ENTRY_NAME);
    const ipcb_plugin *plugin = entry ? entry(&host, &err) : NULL;
    if (plugin == NULL || (plugin->abi_version >> 16) != IPCB_ABI_MAJOR)
        fail("%s is not an ipcbench plugin of ABI %d.x (no %s, or another major)", argv[1],
             IPCB_ABI_MAJOR, IPCB_PLUGIN_ENTRY_NAME);
    for (uint32_t i = 0; i < plugin->transport_count && tp == NULL; ++i)
        if (!strcmp(plugin->transports[i]->id, argv[2])) tp = plugin->transports[i];
    if (tp == NULL)
        fail("%s has no transport %s (its first: %s)", argv[1], argv[2],
             plugin->transport_count ? plugin->transports[0]->id : "none");
    if (tp->caps & IPCB_CAP_STREAM) fail("%s is a byte stream: abiloop needs messages", argv[2]);
    size = (size_t)atol(argv[3]);
    if (size < 8) size = 8;
    zero_copy = !strcmp(argv[5], "zero-copy");
    if (zero_copy && (tp->borrow == NULL || tp->take == NULL))
        fail("%s has no borrow and take: use copy", argv[2]);
    for (int i = 6; i < argc; ++i) {
        char *eq = strchr(argv[i], '=');
        if (eq == NULL) fail("option '%s': expected KEY=VALUE", argv[i]);
        *eq = '\0';
        opts[n_opts++] = (ipcb_kv){argv[i], eq + 1};
    }
    ipcb_endpoint *ping = open_end(IPCB_ROLE_CREATOR, IPCB_DIR_SEND, NULL, opts, n_opts, &host);
    ipcb_endpoint *pong = open_end(IPCB_ROLE_CREATOR, IPCB_DIR_RECV, NULL, opts, n_opts, &host);
    check(tp->export_address(ping, ping_at, sizeof ping_at, &err), "export_address");
    check(tp->export_address(pong, pong_at, sizeof pong_at, &err), "export_address");
    /* A peer that dies leaves the other waiting on a plugin that may never notice: a backstop. */
    alarm((unsigned)atof(argv[4]) + 30);
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        ipcb_endpoint *in =
            open_end(IPCB_ROLE_CONNECTOR, IPCB_DIR_RECV, ping_at, opts, n_opts, &host);
        ipcb_endpoint *out =
            open_end(IPCB_ROLE_CONNECTOR, IPCB_DIR_SEND, pong_at, opts, n_opts, &host);
        pin(1);
        check(tp->connect(in, 10000000000, &err), "connect");
        check(tp->connect(out, 10000000000, &err), "connect");
        ponger(in, out);
        tp->close(in);
        tp->close(out);
        _exit(0);
    }
    pin(0);
    check(tp->connect(ping, 10000000000, &err), "connect");
    check(tp->connect(pong, 10000000000, &err), "connect");
    pinger(ping, pong, atof(argv[4]));
    waitpid(pid, NULL, 0);
    tp->close(ping);
    tp->close(pong);
    return 0;
}
