/* The socket plugin: socket.tcp, socket.unix (stream) and socket.seqpacket; on Windows
 * socket.tcp alone, over Winsock 2, from the same sources (posix_common/socket_compat.h). */

#include "ipcbench/transport.h"
#include "socket_endpoint.h"

static const ipcb_option_desc tcp_options[] = {
    {"nodelay", "1",
     "TCP_NODELAY: 1 sends each write at once (the honest default for latency and for "
     "messages), 0 lets Nagle's algorithm merge small writes"},
    {"sndbuf", "", "SO_SNDBUF in bytes (suffixes K, M); empty keeps the kernel's autotuning"},
    {"rcvbuf", "", "SO_RCVBUF in bytes (suffixes K, M); empty keeps the kernel's autotuning"},
#ifndef _WIN32
    {"zerocopy", "0",
     "1 sends with MSG_ZEROCOPY (pages pinned, completions read from the error queue before send "
     "returns); helps large writes to a NIC, while loopback copies anyway (logged at close)"},
#endif
    {"bind", "127.0.0.1:0",
     "address the creator listens on, HOST:PORT with a numeric host ([::1]:0 for IPv6); port 0 "
     "picks a free one"},
};
#ifndef _WIN32
static const ipcb_option_desc unix_options[] = {
    {"sndbuf", "", "SO_SNDBUF in bytes (suffixes K, M); empty keeps the kernel default"},
    {"rcvbuf", "", "SO_RCVBUF in bytes (suffixes K, M); empty keeps the kernel default"},
};
#endif
#define TCP_OPTION_COUNT (sizeof tcp_options / sizeof tcp_options[0])
#define UNIX_OPTION_COUNT 2u

static int32_t IPCB_CALL tcp_open(const ipcb_open_params *p, ipcb_endpoint **out, ipcb_error *e) {
    return socket_open(p, "socket.tcp", SOCK_STREAM, 1, tcp_options, (uint32_t)TCP_OPTION_COUNT,
                       out, e);
}
#ifndef _WIN32
static int32_t IPCB_CALL unix_open(const ipcb_open_params *p, ipcb_endpoint **out, ipcb_error *e) {
    return socket_open(p, "socket.unix", SOCK_STREAM, 0, unix_options, UNIX_OPTION_COUNT, out, e);
}
static int32_t IPCB_CALL seqpacket_open(const ipcb_open_params *p, ipcb_endpoint **out,
                                        ipcb_error *e) {
    return socket_open(p, "socket.seqpacket", SOCK_SEQPACKET, 0, unix_options, UNIX_OPTION_COUNT,
                       out, e);
}
#endif

#ifdef _WIN32
#define SEND_BATCH 0 /* no sendmmsg: the host sends one message per call */
#define READINESS .event_source = 0, .try_send = 0, .try_recv = 0 /* no epoll for a SOCKET */
#else
#define SEND_BATCH socket_send_batch
#define READINESS \
    .event_source = socket_event_source, .try_send = socket_try_send, .try_recv = socket_try_recv
#endif
/* Completion for the stream transports only: a seqpacket's receive must tell a cut message. */
#if defined(IPCB_SOCKET_URING) || defined(_WIN32)
#define COMPLETION                                                \
    .cq_open = socket_cq_open, .submit_send = socket_submit_send, \
    .submit_recv = socket_submit_recv, .cq_wait = socket_cq_wait, .cq_close = socket_cq_close
#else
#define COMPLETION .cq_open = 0
#endif
#define SOCKET_FUNCTIONS                                                                     \
    .export_address = socket_export_address, .connect = socket_connect, .send = socket_send, \
    .recv = socket_recv, .close = socket_close, .query_settings = socket_query_settings,     \
    .remove_address = socket_remove_address, .get_extension = socket_get_extension,          \
    .send_batch = SEND_BATCH, READINESS

static const ipcb_transport tcp_transport = {
    .struct_size = sizeof(ipcb_transport),
    .option_count = (uint32_t)TCP_OPTION_COUNT,
    .id = "socket.tcp",
    .description = "TCP over loopback by default (TCP_NODELAY on), one connection, duplex",
    .caps = IPCB_CAP_STREAM | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED | IPCB_CAP_CROSS_HOST |
            IPCB_CAP_DUPLEX | IPCB_CAP_CLOSE_NOTIFY,
    .max_message_size = 0,
    .options = tcp_options,
    .open = tcp_open,
    SOCKET_FUNCTIONS,
    COMPLETION,
};

#ifndef _WIN32
static const ipcb_transport unix_transport = {
    .struct_size = sizeof(ipcb_transport),
    .option_count = UNIX_OPTION_COUNT,
    .id = "socket.unix",
    .description = "Unix stream socket, socket file (0600) in a private directory, duplex",
    .caps = IPCB_CAP_STREAM | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED | IPCB_CAP_DUPLEX |
            IPCB_CAP_CLOSE_NOTIFY,
    .max_message_size = 0,
    .options = unix_options,
    .open = unix_open,
    SOCKET_FUNCTIONS,
    COMPLETION,
};

static const ipcb_transport seqpacket_transport = {
    .struct_size = sizeof(ipcb_transport),
    .option_count = UNIX_OPTION_COUNT,
    .id = "socket.seqpacket",
    .description =
        "Unix SOCK_SEQPACKET: connected, reliable, keeps message boundaries; a "
        "message must fit the send buffer",
    .caps = IPCB_CAP_MESSAGE | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED | IPCB_CAP_DUPLEX |
            IPCB_CAP_CLOSE_NOTIFY,
    .max_message_size = 0,
    .options = unix_options,
    .open = seqpacket_open,
    SOCKET_FUNCTIONS,
    .recv_batch = socket_recv_batch,
};

static const ipcb_transport *const socket_transports[] = {&tcp_transport, &unix_transport,
                                                          &seqpacket_transport};
#else
static const ipcb_transport *const socket_transports[] = {&tcp_transport};
#endif

static const ipcb_plugin socket_plugin = {
    .struct_size = sizeof(ipcb_plugin),
    .abi_version = IPCB_ABI_VERSION,
    .name = "socket",
    .version = "1.2.0",
    .description = "BSD sockets: TCP, Unix stream, Unix seqpacket (Windows: TCP over Winsock)",
    .transport_count = sizeof socket_transports / sizeof socket_transports[0],
    .reserved0 = 0,
    .transports = socket_transports,
    .shutdown = 0,
};

IPCB_EXPORT const ipcb_plugin *IPCB_CALL ipcb_plugin_entry(const ipcb_host *host,
                                                           ipcb_error *error) {
    (void)host;
    (void)error;
    return &socket_plugin;
}
