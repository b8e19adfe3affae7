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
// Options: args.bytes("buffer_size", 65536, 1, 1 << 30), args.boolean("nodelay", false),
// args.choice("wait", wait_mode::spin, {{"spin", wait_mode::spin}, {"futex", ...}}) and
// args.integer(...) parse a value or throw IPCB_E_BAD_OPTION naming key, value and what is
// accepted. args.raw(key) tells an unset option (nullopt) from an empty value ("").
//
// Optional parts of the ABI, each offered by declaring it (the generated table leaves the C
// member NULL otherwise):
//  - on the endpoint class (non-virtual, found by name; return a status as send does):
//      borrow(len, max_count, slots, count, timeout_ns) and publish(count)        together
//      take(max_count, msgs, count, timeout_ns) and release(count)                together
//      send_batch(msgs, count, sent, timeout_ns), recv_batch(msgs, count, received, timeout_ns)
//      event_source(ipcb_event_source &out), try_send(buf, len, sent), try_recv(buf, cap, len)
//                                                  together (ABI 1.2 readiness; the completion
//                                                  calls are C only for now)
//  - on the transport description struct:
//      static void remove_address(const std::string &address);   throw to fail
//      static const void *get_extension(const char *id);
//  - on a plugin description, with IPCB_CPP_PLUGIN_DESCRIBED(plugin_description, transports...):
//      static constexpr const char *name, *version, *description;
//      static void accept_host(const ipcb_host &host);   throw ipcb::error to refuse this host
//      static void shutdown();                            before unload
// The signatures are those of transport.h without the endpoint and error arguments.
//
// Threading and lifetime rules are those of transport.h: one thread per endpoint at a time;
// the endpoint object lives from open to close. send/recv return IPCB_OK, IPCB_E_TIMEOUT or
// IPCB_E_CLOSED for the expected outcomes and throw ipcb::error for the rest.
#ifndef IPCBENCH_TRANSPORT_HPP
#define IPCBENCH_TRANSPORT_HPP

#if !(__cplusplus >= 201703L || (defined(_MSVC_LANG) && _MSVC_LANG >= 201703L))
#error \
    "ipcbench/transport.hpp needs C++17: compile with -std=c++17 (CMake: link ipcbench::sdk_cxx, which asks for it; pkg-config: add $(pkg-config --variable=cxxflags ipcbench))"
#endif

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

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

// ipcb_open_params as C++ values, with typed option parsing.
struct open_args {
    std::uint32_t role = 0;
    std::uint32_t direction = 0;
    std::string transport_id;
    std::map<std::string, std::string> options;
    std::string address;
    std::string runtime_dir;
    std::uint64_t max_message_size = 0;
    const ipcb_host *host = nullptr;

    bool creator() const { return role == IPCB_ROLE_CREATOR; }

    // The value as given: nullopt when the user did not set the option, "" when set empty.
    std::optional<std::string> raw(const std::string &key) const {
        auto it = options.find(key);
        if (it == options.end()) return std::nullopt;
        return it->second;
    }
    // The option's value, or `fallback` when the user did not set it or set it empty.
    std::string option(const std::string &key, const std::string &fallback = "") const {
        auto v = raw(key);
        return !v || v->empty() ? fallback : *v;
    }

    // A byte count with an optional binary suffix (K, M, G, T: 64K = 65536), in [min, max].
    std::uint64_t bytes(const std::string &key, std::uint64_t fallback, std::uint64_t min = 0,
                        std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const {
        auto v = raw(key);
        if (!v) return fallback;
        const std::string accepted = "bytes from " + std::to_string(min) + " to " +
                                     std::to_string(max) + ", with an optional K, M, G or T suffix";
        std::string digits = *v;
        unsigned shift = 0;
        if (!digits.empty()) {
            const char suffix = digits.back();
            const char *const units = "KMGT";
            for (unsigned i = 0; units[i] != 0; ++i)
                if (suffix == units[i] || suffix == units[i] + ('a' - 'A')) shift = 10 * (i + 1);
            if (shift > 0) digits.pop_back();
        }
        const std::uint64_t n = parse_unsigned(key, *v, digits, accepted);
        if (shift > 0 && n > (std::numeric_limits<std::uint64_t>::max() >> shift))
            bad_value(key, *v, accepted);
        const std::uint64_t value = n << shift;
        if (value < min || value > max) bad_value(key, *v, accepted);
        return value;
    }
    // A whole number in [min, max].
    std::int64_t integer(const std::string &key, std::int64_t fallback,
                         std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                         std::int64_t max = std::numeric_limits<std::int64_t>::max()) const {
        auto v = raw(key);
        if (!v) return fallback;
        const std::string accepted =
            "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
        const bool negative = !v->empty() && (*v)[0] == '-';
        const std::uint64_t magnitude =
            parse_unsigned(key, *v, negative ? v->substr(1) : *v, accepted);
        const std::uint64_t limit =
            negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
        if (magnitude > limit) bad_value(key, *v, accepted);
        const std::int64_t value = negative ? static_cast<std::int64_t>(0 - magnitude)
                                            : static_cast<std::int64_t>(magnitude);
        if (value < min || value > max) bad_value(key, *v, accepted);
        return value;
    }
    // on/off, true/false, yes/no, 1/0.
    bool boolean(const std::string &key, bool fallback) const {
        auto v = raw(key);
        if (!v) return fallback;
        for (const char *yes : {"on", "true", "yes", "1"})
            if (*v == yes) return true;
        for (const char *no : {"off", "false", "no", "0"})
            if (*v == no) return false;
        bad_value(key, *v, "on or off (also true/false, yes/no, 1/0)");
    }
    // One of the named values.
    template <class E>
    E choice(const std::string &key, E fallback,
             std::initializer_list<std::pair<const char *, E>> values) const {
        auto v = raw(key);
        if (!v) return fallback;
        std::string accepted;
        for (const auto &[name, value] : values) {
            if (*v == name) return value;
            accepted += (accepted.empty() ? "" : ", ") + std::string(name);
        }
        bad_value(key, *v, "one of " + accepted);
    }

    [[noreturn]] void bad_value(const std::string &key, const std::string &value,
                                const std::string &accepted) const {
        throw error(IPCB_E_BAD_OPTION, "option " + key + "=" + value + " for " + transport_id +
                                           (value.empty() ? " is empty" : " is invalid") +
                                           "; expected " + accepted);
    }

private:
    std::uint64_t parse_unsigned(const std::string &key, const std::string &value,
                                 const std::string &digits, const std::string &accepted) const {
        if (digits.empty() || digits.size() > 20) bad_value(key, value, accepted);
        std::uint64_t n = 0;
        for (const char c : digits) {
            if (c < '0' || c > '9') bad_value(key, value, accepted);
            const auto d = static_cast<std::uint64_t>(c - '0');
            if (n > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
                bad_value(key, value, accepted);
            n = n * 10 + d;
        }
        return n;
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
    } catch (const std::invalid_argument &x) {  // std::stoi and friends say only "stoi"
        const std::string text = std::string("std::invalid_argument: ") + x.what() +
                                 " (parse option values with args.bytes, args.integer, "
                                 "args.boolean or args.choice: they name the option)";
        return fail(e, IPCB_E_INTERNAL, text.c_str(), 0);
    } catch (const std::out_of_range &x) {
        const std::string text = std::string("std::out_of_range: ") + x.what();
        return fail(e, IPCB_E_INTERNAL, text.c_str(), 0);
    } catch (const std::exception &x) {
        return fail(e, IPCB_E_INTERNAL, x.what(), 0);
    } catch (...) {
        return fail(e, IPCB_E_INTERNAL, "unknown C++ exception in the plugin", 0);
    }
}

// Detection of the optional members (see the top of this file).
template <class, class = void>
struct has_borrow : std::false_type {};
template <class E>
struct has_borrow<E, std::void_t<decltype(std::declval<E &>().borrow(
                         std::size_t{}, std::uint32_t{}, static_cast<ipcb_msg *>(nullptr),
                         static_cast<std::uint32_t *>(nullptr), std::int64_t{}))>>
    : std::true_type {};
template <class, class = void>
struct has_publish : std::false_type {};
template <class E>
struct has_publish<E, std::void_t<decltype(std::declval<E &>().publish(std::uint32_t{}))>>
    : std::true_type {};
template <class, class = void>
struct has_take : std::false_type {};
template <class E>
struct has_take<E, std::void_t<decltype(std::declval<E &>().take(
                       std::uint32_t{}, static_cast<ipcb_msg *>(nullptr),
                       static_cast<std::uint32_t *>(nullptr), std::int64_t{}))>> : std::true_type {
};
template <class, class = void>
struct has_release : std::false_type {};
template <class E>
struct has_release<E, std::void_t<decltype(std::declval<E &>().release(std::uint32_t{}))>>
    : std::true_type {};
template <class, class = void>
struct has_send_batch : std::false_type {};
template <class E>
struct has_send_batch<E, std::void_t<decltype(std::declval<E &>().send_batch(
                             static_cast<const ipcb_msg *>(nullptr), std::uint32_t{},
                             static_cast<std::uint32_t *>(nullptr), std::int64_t{}))>>
    : std::true_type {};
template <class, class = void>
struct has_event_source : std::false_type {};
template <class E>
struct has_event_source<
    E, std::void_t<decltype(std::declval<E &>().event_source(std::declval<ipcb_event_source &>()))>>
    : std::true_type {};
template <class, class = void>
struct has_try_send : std::false_type {};
template <class E>
struct has_try_send<E, std::void_t<decltype(std::declval<E &>().try_send(
                           static_cast<const void *>(nullptr), std::size_t{},
                           static_cast<std::size_t *>(nullptr)))>> : std::true_type {};
template <class, class = void>
struct has_try_recv : std::false_type {};
template <class E>
struct has_try_recv<
    E, std::void_t<decltype(std::declval<E &>().try_recv(
           static_cast<void *>(nullptr), std::size_t{}, static_cast<std::size_t *>(nullptr)))>>
    : std::true_type {};
template <class, class = void>
struct has_recv_batch : std::false_type {};
template <class E>
struct has_recv_batch<E, std::void_t<decltype(std::declval<E &>().recv_batch(
                             static_cast<ipcb_msg *>(nullptr), std::uint32_t{},
                             static_cast<std::uint32_t *>(nullptr), std::int64_t{}))>>
    : std::true_type {};
template <class, class = void>
struct has_remove_address : std::false_type {};
template <class T>
struct has_remove_address<T, std::void_t<decltype(T::remove_address(std::string()))>>
    : std::true_type {};
template <class, class = void>
struct has_get_extension : std::false_type {};
template <class T>
struct has_get_extension<T, std::void_t<decltype(T::get_extension("id"))>> : std::true_type {};
template <class, class = void>
struct has_accept_host : std::false_type {};
template <class P>
struct has_accept_host<P, std::void_t<decltype(P::accept_host(std::declval<const ipcb_host &>()))>>
    : std::true_type {};
template <class, class = void>
struct has_shutdown : std::false_type {};
template <class P>
struct has_shutdown<P, std::void_t<decltype(P::shutdown())>> : std::true_type {};

template <class T>
struct table {
    using endpoint_type = typename T::endpoint_type;
    static_assert(std::is_base_of<endpoint, endpoint_type>::value,
                  "endpoint_type must derive from ipcb::endpoint");
    static_assert(has_borrow<endpoint_type>::value == has_publish<endpoint_type>::value,
                  "borrow and publish go together (transport.h)");
    static_assert(has_take<endpoint_type>::value == has_release<endpoint_type>::value,
                  "take and release go together (transport.h)");
    static_assert(has_event_source<endpoint_type>::value == has_try_send<endpoint_type>::value &&
                      has_try_send<endpoint_type>::value == has_try_recv<endpoint_type>::value,
                  "event_source, try_send and try_recv go together (transport.h)");
    static constexpr std::uint32_t option_count =
        static_cast<std::uint32_t>(sizeof(T::options) / sizeof(T::options[0]));

    static endpoint *self(ipcb_endpoint *ep) { return reinterpret_cast<endpoint *>(ep); }
    static endpoint_type &derived(ipcb_endpoint *ep) {
        return *static_cast<endpoint_type *>(self(ep));
    }

    static std::int32_t IPCB_CALL open(const ipcb_open_params *p, ipcb_endpoint **out,
                                       ipcb_error *e) {
        return guarded(e, [&]() -> std::int32_t {
            if (p == nullptr || out == nullptr) throw error(IPCB_E_INVALID, "NULL argument");
            *out = nullptr;
            open_args args;
            args.role = p->role;
            args.direction = p->direction;
            args.transport_id = T::id;
            for (std::uint32_t i = 0; i < p->option_count; ++i) {
                if (p->options[i].key == nullptr) throw error(IPCB_E_INVALID, "NULL option key");
                const std::string key = p->options[i].key;
                bool known = false;
                for (const auto &o : T::options)
                    if (o.key != nullptr && key == o.key) known = true;
                if (!known)
                    throw error(IPCB_E_UNKNOWN_OPTION, "unknown option '" + key + "' for " + T::id +
                                                           "; ipchost --describe " + T::id +
                                                           " lists its options");
                args.options[key] = p->options[i].value ? p->options[i].value : "";
            }
            if (p->address) args.address = p->address;
            if (p->runtime_dir) args.runtime_dir = p->runtime_dir;
            args.max_message_size = p->max_message_size;
            args.host = p->host;
            auto made = std::make_unique<endpoint_type>(args);
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
    static std::int32_t IPCB_CALL remove_address(const char *address, ipcb_error *e) {
        return guarded(e, [&]() -> std::int32_t {
            if (address == nullptr) throw error(IPCB_E_INVALID, "NULL address");
            if constexpr (has_remove_address<T>::value) T::remove_address(address);
            return IPCB_OK;
        });
    }
    static const void *IPCB_CALL get_extension([[maybe_unused]] const char *id) {
        try {
            if constexpr (has_get_extension<T>::value) return T::get_extension(id);
        } catch (...) {
        }
        return nullptr;
    }

    // Since 1.1.
    static std::int32_t IPCB_CALL borrow([[maybe_unused]] ipcb_endpoint *ep,
                                         [[maybe_unused]] std::size_t len,
                                         [[maybe_unused]] std::uint32_t max,
                                         [[maybe_unused]] ipcb_msg *slots, std::uint32_t *count,
                                         [[maybe_unused]] std::int64_t t, ipcb_error *e) {
        if (count != nullptr) *count = 0;
        return guarded(e, [&]() -> std::int32_t {
            if constexpr (has_borrow<endpoint_type>::value)
                return derived(ep).borrow(len, max, slots, count, t);
            return IPCB_E_UNSUPPORTED;
        });
    }
    static std::int32_t IPCB_CALL publish([[maybe_unused]] ipcb_endpoint *ep,
                                          [[maybe_unused]] std::uint32_t count, ipcb_error *e) {
        return guarded(e, [&]() -> std::int32_t {
            if constexpr (has_publish<endpoint_type>::value) return derived(ep).publish(count);
            return IPCB_E_UNSUPPORTED;
        });
    }
    static std::int32_t IPCB_CALL take([[maybe_unused]] ipcb_endpoint *ep,
                                       [[maybe_unused]] std::uint32_t max,
                                       [[maybe_unused]] ipcb_msg *msgs, std::uint32_t *count,
                                       [[maybe_unused]] std::int64_t t, ipcb_error *e) {
        if (count != nullptr) *count = 0;
        return guarded(e, [&]() -> std::int32_t {
            if constexpr (has_take<endpoint_type>::value)
                return derived(ep).take(max, msgs, count, t);
            return IPCB_E_UNSUPPORTED;
        });
    }
    static std::int32_t IPCB_CALL release([[maybe_unused]] ipcb_endpoint *ep,
                                          [[maybe_unused]] std::uint32_t count, ipcb_error *e) {
        return guarded(e, [&]() -> std::int32_t {
            if constexpr (has_release<endpoint_type>::value) return derived(ep).release(count);
            return IPCB_E_UNSUPPORTED;
        });
    }
    static std::int32_t IPCB_CALL send_batch([[maybe_unused]] ipcb_endpoint *ep,
                                             [[maybe_unused]] const ipcb_msg *msgs,
                                             [[maybe_unused]] std::uint32_t count,
                                             std::uint32_t *sent, [[maybe_unused]] std::int64_t t,
                                             ipcb_error *e) {
        if (sent != nullptr) *sent = 0;
        return guarded(e, [&]() -> std::int32_t {
            if constexpr (has_send_batch<endpoint_type>::value)
                return derived(ep).send_batch(msgs, count, sent, t);
            return IPCB_E_UNSUPPORTED;
        });
    }
    static std::int32_t IPCB_CALL recv_batch([[maybe_unused]] ipcb_endpoint *ep,
                                             [[maybe_unused]] ipcb_msg *msgs,
                                             [[maybe_unused]] std::uint32_t count,
                                             std::uint32_t *received,
                                             [[maybe_unused]] std::int64_t t, ipcb_error *e) {
        if (received != nullptr) *received = 0;
        return guarded(e, [&]() -> std::int32_t {
            if constexpr (has_recv_batch<endpoint_type>::value)
                return derived(ep).recv_batch(msgs, count, received, t);
            return IPCB_E_UNSUPPORTED;
        });
    }

    static std::int32_t IPCB_CALL event_source([[maybe_unused]] ipcb_endpoint *ep,
                                               [[maybe_unused]] ipcb_event_source *out,
                                               ipcb_error *e) {
        return guarded(e, [&]() -> std::int32_t {
            if constexpr (has_event_source<endpoint_type>::value)
                return derived(ep).event_source(*out);
            return IPCB_E_UNSUPPORTED;
        });
    }
    static std::int32_t IPCB_CALL try_send([[maybe_unused]] ipcb_endpoint *ep,
                                           [[maybe_unused]] const void *buf,
                                           [[maybe_unused]] std::size_t len, std::size_t *sent,
                                           ipcb_error *e) {
        if (sent != nullptr) *sent = 0;
        return guarded(e, [&]() -> std::int32_t {
            if constexpr (has_try_send<endpoint_type>::value)
                return derived(ep).try_send(buf, len, sent);
            return IPCB_E_UNSUPPORTED;
        });
    }
    static std::int32_t IPCB_CALL try_recv([[maybe_unused]] ipcb_endpoint *ep,
                                           [[maybe_unused]] void *buf,
                                           [[maybe_unused]] std::size_t cap, std::size_t *len,
                                           ipcb_error *e) {
        if (len != nullptr) *len = 0;
        return guarded(e, [&]() -> std::int32_t {
            if constexpr (has_try_recv<endpoint_type>::value)
                return derived(ep).try_recv(buf, cap, len);
            return IPCB_E_UNSUPPORTED;
        });
    }

    template <bool offered, class F>
    static constexpr F offer(F f) {
        return offered ? f : nullptr;
    }

    static const ipcb_transport *get() {
        using E = endpoint_type;
        static const ipcb_transport t = {
            sizeof(ipcb_transport), option_count, T::id, T::description, T::caps,
            T::max_message_size, T::options, &open, &export_address, &connect, &send, &recv, &close,
            &query_settings, offer<has_remove_address<T>::value>(&remove_address),
            offer<has_get_extension<T>::value>(&get_extension),
            // since 1.1
            offer<has_borrow<E>::value>(&borrow), offer<has_publish<E>::value>(&publish),
            offer<has_take<E>::value>(&take), offer<has_release<E>::value>(&release),
            offer<has_send_batch<E>::value>(&send_batch),
            offer<has_recv_batch<E>::value>(&recv_batch),
            // since 1.2: readiness when declared; completion is not offered from C++ yet
            offer<has_event_source<E>::value>(&event_source),
            offer<has_try_send<E>::value>(&try_send), offer<has_try_recv<E>::value>(&try_recv),
            nullptr, nullptr, nullptr, nullptr, nullptr};
        return &t;
    }
};

template <class P>
void IPCB_CALL plugin_shutdown() {
    try {
        if constexpr (has_shutdown<P>::value) P::shutdown();
    } catch (...) {
    }
}

}  // namespace detail

// The descriptor for plugin description P and transports T...: use through
// IPCB_CPP_PLUGIN_DESCRIBED. Returns NULL with the reason in *e when P::accept_host throws.
template <class P, class... T>
const ipcb_plugin *describe_plugin(const ipcb_host *host, ipcb_error *e) {
    static const ipcb_transport *const transports[] = {detail::table<T>::get()...};
    static const ipcb_plugin plugin = {
        sizeof(ipcb_plugin),
        IPCB_ABI_VERSION,
        P::name,
        P::version,
        P::description,
        static_cast<std::uint32_t>(sizeof...(T)),
        0,
        transports,
        detail::has_shutdown<P>::value ? &detail::plugin_shutdown<P> : nullptr};
    if constexpr (detail::has_accept_host<P>::value) {
        const std::int32_t status = detail::guarded(e, [&]() -> std::int32_t {
            if (host == nullptr) throw error(IPCB_E_INVALID, "NULL host");
            P::accept_host(*host);
            return IPCB_OK;
        });
        if (status != IPCB_OK) return nullptr;
    }
    (void)host;
    (void)e;
    return &plugin;
}

// The descriptor for transports T... (no host check, no shutdown): use through IPCB_CPP_PLUGIN.
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

// The same for a plugin description struct (name, version, description; optional accept_host
// and shutdown, see the top of this file).
#define IPCB_CPP_PLUGIN_DESCRIBED(plugin_description, ...)                                       \
    extern "C" IPCB_EXPORT const ipcb_plugin *IPCB_CALL ipcb_plugin_entry(const ipcb_host *host, \
                                                                          ipcb_error *error) {   \
        return ipcb::describe_plugin<plugin_description, __VA_ARGS__>(host, error);              \
    }

#endif  // IPCBENCH_TRANSPORT_HPP
