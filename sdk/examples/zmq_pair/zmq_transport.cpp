// zmq.pair: ZeroMQ PAIR sockets over ipc://, written in C++ with ipcbench/transport.hpp. The
// convenience header generates the C tables and turns every exception into a status code.
#include <unistd.h>
#include <zmq.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "ipcbench/transport.hpp"

namespace {

const char hello[] = "zmq-hello";

// One ZeroMQ context per process, made on first use and kept until exit.
void *context() {
    static void *ctx = zmq_ctx_new();
    return ctx;
}

[[noreturn]] void throw_zmq(const std::string &what) {
    const int e = zmq_errno();
    throw ipcb::error(IPCB_E_SYSTEM, what + ": " + zmq_strerror(e), e);
}

class pair_endpoint : public ipcb::endpoint {
public:
    explicit pair_endpoint(const ipcb::open_args &args) : creator_(args.creator()) {
        static std::atomic<unsigned> counter{0};
        if (creator_) {
            url_ = "ipc://" + (args.runtime_dir.empty() ? std::string("/tmp") : args.runtime_dir) +
                   "/zmq-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
        } else {
            if (args.address.rfind("ipc:///", 0) != 0 || access(args.address.c_str() + 6, F_OK))
                throw ipcb::error(IPCB_E_BAD_ADDRESS, "zmq.pair address '" + args.address +
                                                          "' is not an existing ipc:///path");
            url_ = args.address;
        }
        socket_ = zmq_socket(context(), ZMQ_PAIR);
        if (socket_ == nullptr) throw_zmq("zmq_socket");
        const int hwm = static_cast<int>(args.integer("hwm", 1000, 0, 1 << 30));
        const int linger = 0;
        zmq_setsockopt(socket_, ZMQ_SNDHWM, &hwm, sizeof hwm);
        zmq_setsockopt(socket_, ZMQ_RCVHWM, &hwm, sizeof hwm);
        zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof linger);
        if (creator_ && zmq_bind(socket_, url_.c_str()) != 0) {
            zmq_close(socket_);
            throw_zmq("zmq_bind " + url_);
        }
    }
    ~pair_endpoint() override {
        zmq_close(socket_);
        if (creator_) unlink(url_.c_str() + 6);
    }

    std::string export_address() override { return url_; }

    void connect(std::int64_t timeout_ns) override {
        char buf[32];
        std::size_t n = 0;
        // The connector says hello and the creator answers: afterwards both know the
        // connection is up, so the first timed message does not wait for it.
        if (!creator_) {
            if (zmq_connect(socket_, url_.c_str()) != 0) throw_zmq("zmq_connect " + url_);
            check(send(hello, sizeof hello, timeout_ns), "handshake send");
        }
        check(recv(buf, sizeof buf, &n, timeout_ns), creator_ ? "handshake" : "handshake answer");
        if (n != sizeof hello || std::memcmp(buf, hello, n) != 0)
            throw ipcb::error(IPCB_E_INTERNAL, "unexpected handshake message");
        if (creator_) check(send(hello, sizeof hello, timeout_ns), "handshake answer");
    }

    std::int32_t send(const void *buf, std::size_t len, std::int64_t timeout_ns) override {
        if (timeout_ns >= 0 && !wait(ZMQ_POLLOUT, timeout_ns)) return IPCB_E_TIMEOUT;
        while (zmq_send(socket_, buf, len, timeout_ns >= 0 ? ZMQ_DONTWAIT : 0) < 0) {
            if (zmq_errno() == EINTR) continue;
            if (zmq_errno() == EAGAIN) return IPCB_E_TIMEOUT;
            throw_zmq("zmq_send");
        }
        return IPCB_OK;
    }

    std::int32_t recv(void *buf, std::size_t cap, std::size_t *len,
                      std::int64_t timeout_ns) override {
        if (timeout_ns >= 0 && !wait(ZMQ_POLLIN, timeout_ns)) return IPCB_E_TIMEOUT;
        int n;
        while ((n = zmq_recv(socket_, buf, cap, timeout_ns >= 0 ? ZMQ_DONTWAIT : 0)) < 0) {
            if (zmq_errno() == EINTR) continue;
            if (zmq_errno() == EAGAIN) return IPCB_E_TIMEOUT;
            throw_zmq("zmq_recv");
        }
        if (static_cast<std::size_t>(n) > cap)  // zmq_recv returns the full size, truncating
            throw ipcb::error(IPCB_E_TRUNCATED, "message of " + std::to_string(n) +
                                                    " B does not fit " + std::to_string(cap));
        *len = static_cast<std::size_t>(n);
        return IPCB_OK;
    }

    std::map<std::string, std::string> settings() override {
        int hwm = 0;
        std::size_t size = sizeof hwm;
        zmq_getsockopt(socket_, ZMQ_SNDHWM, &hwm, &size);
        int major, minor, patch;
        zmq_version(&major, &minor, &patch);
        return {{"hwm", std::to_string(hwm)},
                {"libzmq", std::to_string(major) + "." + std::to_string(minor) + "." +
                               std::to_string(patch)}};
    }

private:
    bool wait(short events, std::int64_t timeout_ns) {
        zmq_pollitem_t item = {socket_, 0, events, 0};
        const long ms = static_cast<long>((timeout_ns + 999'999) / 1'000'000);
        int rc;
        while ((rc = zmq_poll(&item, 1, ms)) < 0 && zmq_errno() == EINTR) {
        }
        if (rc < 0) throw_zmq("zmq_poll");
        return rc > 0;
    }
    static void check(std::int32_t status, const char *what) {
        if (status == IPCB_E_TIMEOUT)
            throw ipcb::error(IPCB_E_TIMEOUT, std::string(what) + ": the peer did not answer");
        if (status != IPCB_OK) throw ipcb::error(status, what);
    }

    bool creator_;
    std::string url_;
    void *socket_ = nullptr;
};

struct pair_transport {
    static constexpr const char *id = "zmq.pair";
    static constexpr const char *description = "ZeroMQ PAIR over ipc:// (libzmq), C++ example";
    static constexpr std::uint64_t caps =
        IPCB_CAP_MESSAGE | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED | IPCB_CAP_DUPLEX;
    static constexpr std::uint64_t max_message_size = 0;
    static constexpr ipcb_option_desc options[] = {
        {"hwm", "1000", "ZMQ_SNDHWM and ZMQ_RCVHWM: messages queued before send blocks"}};
    using endpoint_type = pair_endpoint;
};

}  // namespace

IPCB_CPP_PLUGIN("zmq", "1.0.0", "ZeroMQ transports", pair_transport)
