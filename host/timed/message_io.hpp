#pragma once

#include <cstddef>
#include <cstdint>

#include "plugin/transport_endpoint.hpp"

namespace ipcbench::timed {

// Receives exactly `size` bytes as one message. On a stream transport it reassembles partial
// reads; on a message transport one recv must deliver exactly `size` bytes, otherwise the result
// is IPCB_E_TRUNCATED (the harness only sends messages of that size). Returns the plugin status.
inline int32_t receive_message(plugin::transport_endpoint &endpoint, bool stream,
                               unsigned char *buf, std::size_t size, std::int64_t timeout_ns) {
    std::size_t got = 0;
    if (!stream) {
        int32_t status = endpoint.recv_raw(buf, size, &got, timeout_ns);
        if (status == IPCB_OK && (got == 0 || got > size))
            return endpoint.contract_violation("recv returned IPCB_OK with " + std::to_string(got) +
                                               " bytes for a " + std::to_string(size) +
                                               "-byte buffer");
        if (status == IPCB_OK && got != size) return IPCB_E_TRUNCATED;
        return status;
    }
    while (got < size) {
        std::size_t n = 0;
        int32_t status = endpoint.recv_raw(buf + got, size - got, &n, timeout_ns);
        if (status != IPCB_OK) {
            // A timeout in the middle of a message would desynchronise the stream: keep waiting.
            if (status == IPCB_E_TIMEOUT && got > 0) continue;
            return status;
        }
        if (n == 0 || n > size - got)
            return endpoint.contract_violation("recv returned IPCB_OK with " + std::to_string(n) +
                                               " bytes for a " + std::to_string(size - got) +
                                               "-byte buffer");
        got += n;
    }
    return IPCB_OK;
}

}  // namespace ipcbench::timed
