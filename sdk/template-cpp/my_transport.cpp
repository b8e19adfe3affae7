// A complete ipcbench transport in C++17: "mytransport.seqpacket", a Unix SOCK_SEQPACKET socket
// (message boundaries kept), written on the SDK's header-only helper ipcbench/transport.hpp.
// Copy it (or let `ipchost new-plugin NAME --lang cpp` do it) and replace the socket calls.
//
// What the helper does for you: it generates the C tables of transport.h, rejects unknown
// option keys by name, parses typed option values (args.bytes, args.boolean, args.choice,
// args.integer) with IPCB_E_BAD_OPTION messages naming key, value and what is accepted, and
// turns every exception into a status code and message: nothing crosses the C boundary.
// Optional ABI members are offered by declaring them: here send_batch/recv_batch (sendmmsg,
// recvmmsg) and remove_address; see the top of transport.hpp for the rest.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ipcbench/transport.hpp"

#ifndef MY_PLUGIN_NAME
#define MY_PLUGIN_NAME "mytransport"  // also the prefix of every transport id
#endif

namespace my {

[[noreturn]] inline void throw_errno(const std::string &what, int e = errno) {
    // EPIPE/ECONNRESET mean the peer is gone: IPCB_E_CLOSED, as transport.h asks.
    const std::int32_t status = e == EPIPE || e == ECONNRESET ? IPCB_E_CLOSED : IPCB_E_SYSTEM;
    throw ipcb::error(status, what + ": " + std::strerror(e), e);
}

class seqpacket_endpoint : public ipcb::endpoint {
public:
    explicit seqpacket_endpoint(const ipcb::open_args &args)
        : creator_(args.creator()),
          // Typed options: a bad value fails open with IPCB_E_BAD_OPTION and a clear message.
          buffer_size_(args.bytes("buffer_size", 0, 4096, 64u << 20)),
          same_user_(args.boolean("same_user", true)) {
        static std::atomic<unsigned> counter{0};
        // A limit is never clamped: say which one, and how to raise it.
        if (buffer_size_ > 0 && args.max_message_size + 4096 > buffer_size_)
            throw ipcb::error(IPCB_E_TOO_BIG, "messages of " +
                                                  std::to_string(args.max_message_size) +
                                                  " B need buffer_size of at least " +
                                                  std::to_string(args.max_message_size + 4096));
        if (!creator_) {
            // Check the address now, so a typo fails fast with a clear message.
            struct stat st {};
            if (args.address.size() >= sizeof(sockaddr_un::sun_path) ||
                stat(args.address.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode))
                throw ipcb::error(IPCB_E_BAD_ADDRESS,
                                  "address '" + args.address + "' is not an existing Unix socket");
            path_ = args.address;
            return;
        }
        // The creator: a socket file in the host's private run directory (removed by the host
        // even if this process crashes), listening, but not waiting for anyone yet.
        const std::string dir = args.runtime_dir.empty() ? "/tmp" : args.runtime_dir;
        path_ = dir + "/" MY_PLUGIN_NAME "-" + std::to_string(getpid()) + "-" +
                std::to_string(counter++);
        if (path_.size() >= sizeof(sockaddr_un::sun_path))
            throw ipcb::error(IPCB_E_INVALID, "socket path too long; use a shorter TMPDIR");
        listen_fd_ = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (listen_fd_ < 0) throw_errno("socket");
        const sockaddr_un addr = address();
        if (bind(listen_fd_, reinterpret_cast<const sockaddr *>(&addr), sizeof addr) != 0) {
            const int e = errno;
            ::close(listen_fd_);
            throw_errno("bind " + path_, e);
        }
        chmod(path_.c_str(), 0600);  // private to this user
        if (listen(listen_fd_, 1) != 0) {
            const int e = errno;
            cleanup();
            throw_errno("listen", e);
        }
    }
    ~seqpacket_endpoint() override { cleanup(); }

    std::string export_address() override { return path_; }

    void connect(std::int64_t timeout_ns) override {
        if (creator_) {
            if (!wait(listen_fd_, POLLIN, timeout_ns))
                throw ipcb::error(IPCB_E_TIMEOUT, "no peer connected to " + path_);
            fd_ = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd_ < 0) throw_errno("accept");
        } else {
            // The creator may not be listening yet: retry until the deadline.
            const auto deadline = std::chrono::steady_clock::now() +
                                  std::chrono::nanoseconds(timeout_ns < 0 ? 0 : timeout_ns);
            const sockaddr_un addr = address();
            for (;;) {
                fd_ = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
                if (fd_ < 0) throw_errno("socket");
                if (::connect(fd_, reinterpret_cast<const sockaddr *>(&addr), sizeof addr) == 0)
                    break;
                ::close(fd_);
                fd_ = -1;
                if (timeout_ns >= 0 && std::chrono::steady_clock::now() > deadline)
                    throw ipcb::error(IPCB_E_TIMEOUT, "connect to " + path_ + " timed out");
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        }
        if (same_user_) check_peer_user();
        if (buffer_size_ > 0) {
            const int size = static_cast<int>(buffer_size_);
            if (setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &size, sizeof size) != 0 ||
                setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &size, sizeof size) != 0)
                throw_errno("setsockopt(SO_SNDBUF/SO_RCVBUF)");
        }
    }

    std::int32_t send(const void *buf, std::size_t len, std::int64_t timeout_ns) override {
        // IPCB_WAIT_FOREVER (-1) skips the poll: the fast path.
        if (timeout_ns >= 0 && !wait(fd_, POLLOUT, timeout_ns)) return IPCB_E_TIMEOUT;
        for (;;) {
            const ssize_t n = ::send(fd_, buf, len, MSG_NOSIGNAL);
            if (n >= 0) return IPCB_OK;  // a seqpacket send is all or nothing
            if (errno == EINTR) continue;
            if (errno == EMSGSIZE)
                throw ipcb::error(IPCB_E_TOO_BIG,
                                  "message of " + std::to_string(len) +
                                      " B exceeds the socket buffer; raise --opt buffer_size",
                                  EMSGSIZE);
            throw_errno("send");
        }
    }

    std::int32_t recv(void *buf, std::size_t cap, std::size_t *len,
                      std::int64_t timeout_ns) override {
        if (timeout_ns >= 0 && !wait(fd_, POLLIN, timeout_ns)) return IPCB_E_TIMEOUT;
        for (;;) {
            const ssize_t n = ::recv(fd_, buf, cap, MSG_TRUNC);
            if (n > 0 && static_cast<std::size_t>(n) > cap)
                throw ipcb::error(IPCB_E_TRUNCATED, "message of " + std::to_string(n) +
                                                        " B does not fit " + std::to_string(cap));
            if (n > 0) {
                *len = static_cast<std::size_t>(n);
                return IPCB_OK;
            }
            if (n == 0) return IPCB_E_CLOSED;  // the peer closed (no empty messages here)
            if (errno != EINTR) throw_errno("recv");
        }
    }

    // Optional (ABI 1.1), offered because it is declared: N messages in one sendmmsg.
    std::int32_t send_batch(const ipcb_msg *msgs, std::uint32_t count, std::uint32_t *sent,
                            std::int64_t timeout_ns) {
        std::vector<iovec> iov(count);
        std::vector<mmsghdr> headers(count);
        describe(msgs, count, iov, headers);
        while (*sent < count) {
            if (timeout_ns >= 0 && !wait(fd_, POLLOUT, timeout_ns)) return IPCB_E_TIMEOUT;
            const int n = sendmmsg(fd_, headers.data() + *sent, count - *sent, MSG_NOSIGNAL);
            if (n > 0) *sent += static_cast<std::uint32_t>(n);
            if (n < 0 && errno != EINTR) throw_errno("sendmmsg");
        }
        return IPCB_OK;
    }

    // Optional (ABI 1.1): up to N messages already there in one recvmmsg.
    std::int32_t recv_batch(ipcb_msg *msgs, std::uint32_t count, std::uint32_t *received,
                            std::int64_t timeout_ns) {
        if (timeout_ns >= 0 && !wait(fd_, POLLIN, timeout_ns)) return IPCB_E_TIMEOUT;
        std::vector<iovec> iov(count);
        std::vector<mmsghdr> headers(count);
        describe(msgs, count, iov, headers);
        int n;
        while ((n = recvmmsg(fd_, headers.data(), count, MSG_WAITFORONE, nullptr)) < 0 &&
               errno == EINTR) {
        }
        if (n < 0) throw_errno("recvmmsg");
        for (int i = 0; i < n; ++i) {
            if (headers[i].msg_len == 0) return *received > 0 ? IPCB_OK : IPCB_E_CLOSED;
            if (headers[i].msg_hdr.msg_flags & MSG_TRUNC)
                throw ipcb::error(IPCB_E_TRUNCATED, "a message did not fit its buffer of " +
                                                        std::to_string(msgs[i].len) + " B");
            msgs[i].len = headers[i].msg_len;
            ++*received;
        }
        return IPCB_OK;
    }

    std::map<std::string, std::string> settings() override {
        int size = 0;
        socklen_t n = sizeof size;
        getsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &size, &n);
        return {{"buffer_size", std::to_string(size)}, {"same_user", same_user_ ? "on" : "off"}};
    }

private:
    // One mmsghdr per message, each over the message's own buffer.
    static void describe(const ipcb_msg *msgs, std::uint32_t count, std::vector<iovec> &iov,
                         std::vector<mmsghdr> &headers) {
        for (std::uint32_t i = 0; i < count; ++i) {
            iov[i] = {msgs[i].data, static_cast<std::size_t>(msgs[i].len)};
            headers[i] = {};
            headers[i].msg_hdr.msg_iov = &iov[i];
            headers[i].msg_hdr.msg_iovlen = 1;
        }
    }
    sockaddr_un address() const {
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
        return addr;
    }
    static bool wait(int fd, short events, std::int64_t timeout_ns) {
        pollfd p{fd, events, 0};
        const int ms = timeout_ns < 0 ? -1 : static_cast<int>((timeout_ns + 999'999) / 1'000'000);
        int rc;
        while ((rc = poll(&p, 1, ms)) < 0 && errno == EINTR) {
        }
        if (rc < 0) throw_errno("poll");
        return rc > 0;
    }
    void check_peer_user() const {
        ucred peer{};
        socklen_t n = sizeof peer;
        if (getsockopt(fd_, SOL_SOCKET, SO_PEERCRED, &peer, &n) != 0)
            throw_errno("getsockopt(SO_PEERCRED)");
        if (peer.uid != geteuid())
            throw ipcb::error(IPCB_E_BAD_ADDRESS, "the peer runs as uid " +
                                                      std::to_string(peer.uid) +
                                                      ", not this user; --opt same_user=off");
    }
    void cleanup() {
        if (fd_ >= 0) ::close(fd_);
        if (listen_fd_ >= 0) ::close(listen_fd_);
        if (creator_ && !path_.empty()) unlink(path_.c_str());  // leave nothing
        fd_ = listen_fd_ = -1;
    }

    bool creator_;
    std::uint64_t buffer_size_;
    bool same_user_;
    std::string path_;
    int listen_fd_ = -1;
    int fd_ = -1;
};

struct seqpacket_transport {
    static constexpr const char *id = MY_PLUGIN_NAME ".seqpacket";
    static constexpr const char *description = "Unix seqpacket socket (the SDK's C++ template)";
    static constexpr std::uint64_t caps = IPCB_CAP_MESSAGE | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED |
                                          IPCB_CAP_DUPLEX | IPCB_CAP_CLOSE_NOTIFY;
    // A seqpacket message must fit the socket buffer (212992 B by default): 64 KiB always does.
    static constexpr std::uint64_t max_message_size = 64 * 1024;
    static constexpr ipcb_option_desc options[] = {
        {"buffer_size", "",
         "SO_SNDBUF and SO_RCVBUF in bytes (4K to 64M); unset: the kernel's default"},
        {"same_user", "on", "on: refuse a peer of another user (SO_PEERCRED); off: allow it"}};
    using endpoint_type = seqpacket_endpoint;

    // Removes what a crashed creator left: the socket file. Throw ipcb::error to fail.
    static void remove_address(const std::string &address) {
        struct stat st {};
        if (lstat(address.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) &&
            unlink(address.c_str()) != 0)
            throw_errno("unlink " + address);
    }
};

// The plugin: its name, version and description, and (optional) a host check and shutdown.
struct plugin_description {
    static constexpr const char *name = MY_PLUGIN_NAME;
    static constexpr const char *version = "0.1.0";
    static constexpr const char *description = "template transport plugin (C++)";
    // Throw ipcb::error to refuse a host, for example one too old for what you need.
    static void accept_host(const ipcb_host &host) {
        if (IPCB_ABI_VERSION_MAJOR(host.abi_version) != IPCB_ABI_MAJOR)
            throw ipcb::error(IPCB_E_UNSUPPORTED,
                              "built for plugin ABI major " + std::to_string(IPCB_ABI_MAJOR));
    }
};

}  // namespace my

#ifndef MY_TRANSPORT_NO_ENTRY
IPCB_CPP_PLUGIN_DESCRIBED(my::plugin_description, my::seqpacket_transport)
#endif
