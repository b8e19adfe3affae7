// C++17 convenience layer over the ipcbench C ABI (header-only; transport.h stays the contract).
//
// Write a transport as a class, get the C tables generated, with every exception caught at the
// boundary and turned into a status code and message:
//
//     class my_endpoint : public ipcb::endpoint {
//     public:
//         explicit my_endpoint(const ipcb::open_args &args);   // throw ipcb::error to fail
//         std::string export_address() override;
//         void connect(std::int64_t timeout_ns) override;
//         std::int32_t send(const void *buf, std::size_t len, std::int64_t timeout_ns) override;
//         std::int32_t recv(void *buf, std::size_t cap, std::size_t *len,
//                           std::int64_t timeout_ns) override;
//     };
//     struct my_transport {                       // the static description
//         static constexpr const char *id = "mine.stream";
//         static constexpr const char *description = "...";
//         static constexpr std::uint64_t caps = IPCB_CAP_STREAM | IPCB_CAP_RELIABLE;
//         static constexpr std::uint64_t max_message_size = 0;
//         static constexpr ipcb_option_desc options[] = {{"key", "default", "help"}};
//         using endpoint_type = my_endpoint;
//     };
//     IPCB_CPP_PLUGIN("mine", "1.0.0", "my transports", my_transport)
//
// Threading and lifetime rules are those of transport.h: one thread per endpoint at a time;
// the endpoint object lives from open to close. send/recv return IPCB_OK, IPCB_E_TIMEOUT or
// IPCB_E_CLOSED for the expected outcomes and throw ipcb::error for the rest.
#ifndef IPCBENCH_TRANSPORT_HPP
#define IPCBENCH_TRANSPORT_HPP

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "ipcbench/transport.h"

namespace ipcb {

// A failure with an ipcbench status code (IPCB_E_*) and an optional errno.
class error : public std::runtime_error {
public:
    error(std::int32_t status, const std::string &message, int sys_errno = 0)
        : std::runtime_error(message), status_(status), sys_errno_(sys_errno) {}
    std::int32_t status() const noexcept { return status_; }
    int sys_errno() const noexcept { return sys_errno_; }

private:
    std::int32_t status_;
    int sys_errno_;
};

// ipcb_open_params as C++ values, with option checking.
struct open_args {
    std::uint32_t role = 0;
    std::uint32_t direction = 0;
    std::map<std::string, std::string> options;
    std::string address;
    std::string runtime_dir;
    std::uint64_t max_message_size = 0;
    const ipcb_host *host = nullptr;

    bool creator() const { return role == IPCB_ROLE_CREATOR; }
    // The option's value, or `fallback` when the user did not set it.
    std::string option(const std::string &key, const std::string &fallback = "") const {
        auto it = options.find(key);
        return it == options.end() || it->second.empty() ? fallback : it->second;
    }
};

class endpoint {
public:
    virtual ~endpoint() = default;
    virtual std::string export_address() = 0;
    virtual void connect(std::int64_t timeout_ns) = 0;
    virtual std::int32_t send(const void *buf, std::size_t len, std::int64_t timeout_ns) = 0;
    virtual std::int32_t recv(void *buf, std::size_t cap, std::size_t *len,
                              std::int64_t timeout_ns) = 0;
    // Effective settings as key/value pairs; optional.
    virtual std::map<std::string, std::string> settings() { return {}; }
};

namespace detail {

inline std::int32_t fail(ipcb_error *e, std::int32_t status, const char *message, int sys_errno) {
    if (e != nullptr) {
        e->sys_errno = sys_errno;
        std::snprintf(e->message, sizeof e->message, "%s", message);
    }
    return status;
}

// Runs f, turning every exception into a status and message: nothing may cross the C boundary.
template <class F>
std::int32_t guarded(ipcb_error *e, F &&f) noexcept {
    try {
        return f();
    } catch (const error &x) {
        return fail(e, x.status(), x.what(), x.sys_errno());
    } catch (const std::bad_alloc &) {
        return fail(e, IPCB_E_NO_MEMORY, "out of memory", 0);
    } catch (const std::exception &x) {
        return fail(e, IPCB_E_INTERNAL, x.what(), 0);
    } catch (...) {
        return fail(e, IPCB_E_INTERNAL, "unknown C++ exception in the plugin", 0);
    }
}

inline endpoint *self(ipcb_endpoint *ep) {
    return reinterpret_cast<endpoint *>(ep);
}

template <class T>
struct table {
    static constexpr std::uint32_t option_count =
        static_cast<std::uint32_t>(sizeof(T::options) / sizeof(T::options[0]));

    static std::int32_t IPCB_CALL open(const ipcb_open_params *p, ipcb_endpoint **out,
                                       ipcb_error *e) {
        return guarded(e, [&]() -> std::int32_t {
            if (p == nullptr || out == nullptr) throw error(IPCB_E_INVALID, "NULL argument");
            *out = nullptr;
            open_args args;
            args.role = p->role;
            args.direction = p->direction;
            for (std::uint32_t i = 0; i < p->option_count; ++i) {
                const std::string key = p->options[i].key;
                bool known = false;
                for (const auto &o : T::options)
                    if (o.key != nullptr && key == o.key) known = true;
                if (!known)
                    throw error(IPCB_E_UNKNOWN_OPTION, "unknown option '" + key + "' for " + T::id);
                args.options[key] = p->options[i].value ? p->options[i].value : "";
            }
            if (p->address) args.address = p->address;
            if (p->runtime_dir) args.runtime_dir = p->runtime_dir;
            args.max_message_size = p->max_message_size;
            args.host = p->host;
            auto made = std::make_unique<typename T::endpoint_type>(args);
            *out = reinterpret_cast<ipcb_endpoint *>(static_cast<endpoint *>(made.release()));
            return IPCB_OK;
        });
    }
    static std::int32_t IPCB_CALL export_address(ipcb_endpoint *ep, char *buf, std::size_t cap,
                                                 ipcb_error *e) {
        return guarded(e, [&]() -> std::int32_t {
            const std::string a = self(ep)->export_address();
            if (a.size() + 1 > cap) throw error(IPCB_E_INVALID, "address buffer too small");
            std::memcpy(buf, a.c_str(), a.size() + 1);
            return IPCB_OK;
        });
    }
    static std::int32_t IPCB_CALL connect(ipcb_endpoint *ep, std::int64_t t, ipcb_error *e) {
        return guarded(e, [&]() -> std::int32_t {
            self(ep)->connect(t);
            return IPCB_OK;
        });
    }
    static std::int32_t IPCB_CALL send(ipcb_endpoint *ep, const void *buf, std::size_t len,
                                       std::int64_t t, ipcb_error *e) {
        return guarded(e, [&] { return self(ep)->send(buf, len, t); });
    }
    static std::int32_t IPCB_CALL recv(ipcb_endpoint *ep, void *buf, std::size_t cap,
                                       std::size_t *len, std::int64_t t, ipcb_error *e) {
        if (len != nullptr) *len = 0;
        return guarded(e, [&] { return self(ep)->recv(buf, cap, len, t); });
    }
    static void IPCB_CALL close(ipcb_endpoint *ep) {
        try {
            delete self(ep);
        } catch (...) {  // a destructor that throws: nothing may cross the boundary
        }
    }
    static void IPCB_CALL query_settings(ipcb_endpoint *ep, ipcb_setting_sink sink, void *ctx) {
        try {
            for (const auto &[k, v] : self(ep)->settings()) sink(ctx, k.c_str(), v.c_str());
        } catch (...) {
        }
    }

    static const ipcb_transport *get() {
        static const ipcb_transport t = {sizeof(ipcb_transport), option_count, T::id,
                                         T::description, T::caps, T::max_message_size, T::options,
                                         &open, &export_address, &connect, &send, &recv, &close,
                                         &query_settings, nullptr, nullptr,
                                         // since 1.1: no zero-copy or batch path
                                         nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
        return &t;
    }
};

}  // namespace detail

// The descriptor for transports T...: use through IPCB_CPP_PLUGIN.
template <class... T>
const ipcb_plugin *make_plugin(const char *name, const char *version, const char *description) {
    static const ipcb_transport *const transports[] = {detail::table<T>::get()...};
    static const ipcb_plugin plugin = {sizeof(ipcb_plugin),
                                       IPCB_ABI_VERSION,
                                       name,
                                       version,
                                       description,
                                       static_cast<std::uint32_t>(sizeof...(T)),
                                       0,
                                       transports,
                                       nullptr};
    return &plugin;
}

}  // namespace ipcb

// Defines the exported entry point for a plugin made of the listed transport descriptions.
#define IPCB_CPP_PLUGIN(name, version, description, ...)                                         \
    extern "C" IPCB_EXPORT const ipcb_plugin *IPCB_CALL ipcb_plugin_entry(const ipcb_host *host, \
                                                                          ipcb_error *error) {   \
        (void)host;                                                                              \
        (void)error;                                                                             \
        return ipcb::make_plugin<__VA_ARGS__>(name, version, description);                       \
    }

#endif  // IPCBENCH_TRANSPORT_HPP
