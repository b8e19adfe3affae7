/* The udp plugin: udp.inet (UDP/IP, loopback by default) and udp.unix (Unix datagrams); on
 * Windows udp.inet alone, over Winsock (posix_common/socket_compat.h). */
#include "ipcbench/transport.h"
#include "udp_endpoint.h"

#define UDP_MAX_IPV4 65507u /* 65535 - 20 (IP header) - 8 (UDP header) */

static const ipcb_option_desc inet_options[] = {
    {"sndbuf", "", "SO_SNDBUF in bytes (suffixes K, M); empty keeps the kernel default"},
    {"rcvbuf", "",
     "SO_RCVBUF in bytes (suffixes K, M); a larger one drops fewer datagrams under bursts"},
    {"bind", "127.0.0.1:0",
     "address the creator binds, HOST:PORT with a numeric host ([::1]:0 for IPv6)"},
};
#ifndef _WIN32
static const ipcb_option_desc unix_options[] = {
    {"sndbuf", "", "SO_SNDBUF in bytes (suffixes K, M); raised automatically to fit a message"},
    {"rcvbuf", "", "SO_RCVBUF in bytes (suffixes K, M); empty keeps the kernel default"},
};
#endif

static int32_t IPCB_CALL inet_open(const ipcb_open_params *p, ipcb_endpoint **out, ipcb_error *e) {
    return udp_open(p, "udp.inet", 0, inet_options, 3, UDP_MAX_IPV4, out, e);
}
#ifndef _WIN32
static int32_t IPCB_CALL unix_open(const ipcb_open_params *p, ipcb_endpoint **out, ipcb_error *e) {
    return udp_open(p, "udp.unix", 1, unix_options, 2, 0, out, e);
}
#endif

#ifdef _WIN32 /* no sendmmsg/recvmmsg: one datagram per call */
#define UDP_BATCH .send_batch = 0, .recv_batch = 0
#define UDP_READINESS .event_source = 0, .try_send = 0, .try_recv = 0 /* no epoll for a SOCKET */
#else
#define UDP_BATCH .send_batch = udp_send_batch, .recv_batch = udp_recv_batch
#define UDP_READINESS \
    .event_source = udp_event_source, .try_send = udp_try_send, .try_recv = udp_try_recv
#endif
#define UDP_FUNCTIONS                                                                    \
    .export_address = udp_export_address, .connect = udp_connect, .send = udp_send,      \
    .recv = udp_recv, .close = udp_close, .query_settings = udp_query_settings,          \
    .remove_address = udp_remove_address, .get_extension = udp_get_extension, UDP_BATCH, \
    UDP_READINESS

static const ipcb_transport inet_transport = {
    .struct_size = sizeof(ipcb_transport),
    .option_count = 3,
    .id = "udp.inet",
    .description =
        "UDP datagrams over 127.0.0.1 by default (IPv6 with bind=[::1]:0); loss, "
        "reordering and duplicates are counted",
    .caps = IPCB_CAP_MESSAGE | IPCB_CAP_CROSS_HOST | IPCB_CAP_DUPLEX,
    .max_message_size = UDP_MAX_IPV4,
    .options = inet_options,
    .open = inet_open,
    UDP_FUNCTIONS,
};

#ifndef _WIN32
static const ipcb_transport unix_transport = {
    .struct_size = sizeof(ipcb_transport),
    .option_count = 2,
    .id = "udp.unix",
    .description =
        "Unix datagram socket (SOCK_DGRAM): boundaries kept, the sender blocks "
        "instead of dropping (net.unix.max_dgram_qlen)",
    .caps = IPCB_CAP_MESSAGE | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED | IPCB_CAP_DUPLEX,
    .max_message_size = 0,
    .options = unix_options,
    .open = unix_open,
    UDP_FUNCTIONS,
};

static const ipcb_transport *const udp_transports[] = {&inet_transport, &unix_transport};
#else
static const ipcb_transport *const udp_transports[] = {&inet_transport};
#endif

static const ipcb_plugin udp_plugin = {
    .struct_size = sizeof(ipcb_plugin),
    .abi_version = IPCB_ABI_VERSION,
    .name = "udp",
    .version = "1.2.0",
    .description = "datagram sockets: UDP/IP and Unix",
    .transport_count = sizeof udp_transports / sizeof udp_transports[0],
    .reserved0 = 0,
    .transports = udp_transports,
    .shutdown = 0,
};

IPCB_EXPORT const ipcb_plugin *IPCB_CALL ipcb_plugin_entry(const ipcb_host *host,
                                                           ipcb_error *error) {
    (void)host;
    (void)error;
    return &udp_plugin;
}
