// Built as C++17 with -Wall -Wextra -pedantic -Werror: the SDK header is valid C++ too.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "ipcbench/error_format.h"
#include "ipcbench/transport.h"
#include "layout_pins.h"

int main() {
    static_assert(IPCB_ABI_MAJOR == 1, "this check is for ABI 1");
    ipcb_error e{};
    e.struct_size = sizeof e;
    if (ipcb_fail_errno(&e, ENOENT, "open %s", "/x") != IPCB_E_SYSTEM) return 1;
    if (std::strstr(e.message, "open /x: ") != e.message || e.sys_errno != ENOENT) return 1;
    // errno values with a status of their own (error_format.h).
    const struct {
        int sys_errno;
        std::int32_t status;
    } mapped[] = {{ENOMEM, IPCB_E_NO_MEMORY},  {EPIPE, IPCB_E_CLOSED},
                  {ECONNRESET, IPCB_E_CLOSED}, {ENOTCONN, IPCB_E_CLOSED},
                  {EMSGSIZE, IPCB_E_TOO_BIG},  {ETIMEDOUT, IPCB_E_TIMEOUT},
                  {EAGAIN, IPCB_E_SYSTEM},     {EACCES, IPCB_E_SYSTEM}};
    for (const auto &m : mapped)
        if (ipcb_fail_errno(&e, m.sys_errno, "call") != m.status) {
            std::printf("errno %d: expected %s\n", m.sys_errno, ipcb_status_name(m.status));
            return 1;
        }
    std::printf("C++ header check: %s\n", e.message);
    return 0;
}
