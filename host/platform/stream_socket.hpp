#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipcbench::platform {

// A stream socket's OS handle: a descriptor on POSIX, a SOCKET on Windows. The control channel
// to a worker, the agent's listener and its connections are all such sockets, so one set of
// calls serves both systems (platform/socket_api.hpp holds the few spellings that differ).
using socket_handle = std::intptr_t;
constexpr socket_handle no_socket = -1;

// A socket call failed for a reason other than the peer going away: the text names the call
// and the system's reason ("connect: Connection refused").
struct socket_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class io_status { done, would_block, closed };
struct io_result {
    io_status status = io_status::done;
    std::size_t bytes = 0;
};

// Sends all of data (a signal or a short write is retried; SIGPIPE never raised). False when the
// peer has closed or reset the connection; throws socket_error otherwise, and when the peer
// took no byte for stall_timeout_ms (>= 0): a peer that stops reading cannot hold the caller.
bool send_all(socket_handle s, const void *data, std::size_t size, int stall_timeout_ms = -1);
// Sends what the socket takes now, without waiting: done with bytes (possibly fewer than
// size), would_block when it takes nothing, closed when the peer is gone. Throws socket_error
// otherwise. POSIX: MSG_DONTWAIT; Windows: a send only when WSAPoll says writable, at most
// 4 KiB (a writable socket takes that much without blocking).
io_result send_some(socket_handle s, const void *data, std::size_t size);
// Reads what has arrived, up to size bytes: done with bytes > 0, closed at end of stream or
// reset, would_block when nothing is there and `wait` is false. With `wait`, blocks until data,
// end of stream or an error. Throws socket_error otherwise.
io_result receive_some(socket_handle s, void *buffer, std::size_t size, bool wait);

// Waits up to timeout_ms (-1: forever) until one of `sockets` is readable, at end of stream or in
// error. ready[i] says which; interrupted when Ctrl+C / SIGINT / SIGTERM came meanwhile (see
// platform/signals). Throws socket_error when the wait itself fails.
struct readiness {
    bool interrupted = false;
    std::vector<bool> ready;
    bool any() const;
};
readiness wait_readable(const std::vector<socket_handle> &sockets, int timeout_ms);

// Waits up to timeout_ms (-1: forever) until one socket is ready as asked: readable (or at end
// of stream, or in error) for `read`, writable (or in error) for `write`. An entry asking for
// neither is skipped. Same interrupt rule as wait_readable.
struct poll_interest {
    socket_handle socket = no_socket;
    bool read = false;
    bool write = false;
};
struct poll_events {
    bool interrupted = false;
    std::vector<bool> readable, writable;  // one per interest
};
poll_events wait_ready(const std::vector<poll_interest> &interests, int timeout_ms);

// Calls on the socket return would_block instead of waiting (accept_connection: no_socket).
void set_nonblocking(socket_handle s);
// TCP keepalive: the first probe after idle_s of silence, then one every idle_s / 4 (at least
// 1 s), and the connection fails after 3 unanswered: a peer that vanished without a FIN (its
// host crashed, a NAT forgot it) is found within about twice idle_s. Best effort: an option
// the system lacks is skipped.
void keep_alive(socket_handle s, double idle_s);

void shutdown_socket(socket_handle s);   // both directions; the peer sees end of stream
void shutdown_sending(socket_handle s);  // the peer sees end of stream; this side still reads
void close_socket(socket_handle s);      // no_socket is ignored

// Two connected stream sockets, neither inherited by child processes (child_process passes one
// on itself). POSIX: socketpair(AF_UNIX). Windows: a loopback TCP connection whose two ends are
// checked to be each other's, so no other process can slip in between listen and accept.
std::array<socket_handle, 2> connected_pair();

// Passing a socket to a child process. POSIX: the child inherits the descriptor and its number
// is the token. Windows: a socket handle is not valid in another process as such (wine refuses
// it, and so do layered service providers): WSADuplicateSocket makes a WSAPROTOCOL_INFOW for the
// child's pid, the parent writes it to the child's stdin, and the token is "stdin".
std::string socket_for_process(socket_handle s, long pid);  // Windows: the bytes to pass on
socket_handle socket_from_token(const std::string &token);  // the child's side; throws

// TCP for the remote agent. `host` must be a numeric IPv4 or IPv6 address.
bool is_numeric_address(const std::string &host);
// One spelling per address, to compare two: "127.000.0.1" is not numeric, "::FFFF:10.0.0.1"
// is "10.0.0.1", "0:0::1" is "::1"; "" when `host` is not a numeric address.
std::string canonical_address(const std::string &host);
// The bytes of a numeric address: 4 for IPv4 (a v4-mapped IPv6 address included), 16 for
// IPv6; empty when `host` is not a numeric address.
std::vector<unsigned char> address_bytes(const std::string &host);
// Every address a name resolves to (the system's resolver: DNS, /etc/hosts), canonical, each
// once, sorted; throws socket_error naming the name and the resolver's reason.
std::vector<std::string> resolve_addresses(const std::string &name);
// A listening socket (SO_REUSEADDR on POSIX, SO_EXCLUSIVEADDRUSE on Windows) with room for
// `backlog` connections not yet accepted; throws socket_error with the reason.
socket_handle listen_tcp(const std::string &host, int port, int backlog = 8);
// A connected socket (TCP_NODELAY) within timeout_s; throws socket_error with the reason.
socket_handle connect_tcp(const std::string &host, int port, double timeout_s);
// The next connection waiting on `listener`, or no_socket when none could be taken.
socket_handle accept_connection(socket_handle listener);
// Address and port of a connected socket's peer ({"?", 0} when unknown).
struct socket_address {
    std::string host;
    int port = 0;
};
socket_address peer_address(socket_handle s);
// Address and port this end of a socket is bound to ({"?", 0} when unknown): for a connection
// accepted on a wildcard listener, the address the peer reached.
socket_address local_address(socket_handle s);

}  // namespace ipcbench::platform
