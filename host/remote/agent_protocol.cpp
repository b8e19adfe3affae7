#include "remote/agent_protocol.hpp"

#include <stdexcept>

#include "platform/private_file.hpp"

namespace ipcbench::remote {

bool tokens_equal(const std::string &expected, const std::string &given) {
    // Compare every byte of `given` against `expected` (cycled), OR-ing the differences, so the
    // time tells nothing about a matching prefix.
    unsigned char diff = expected.size() == given.size() ? 0 : 1;
    for (std::size_t i = 0; i < given.size(); ++i) {
        const unsigned char e =
            expected.empty() ? 0 : static_cast<unsigned char>(expected[i % expected.size()]);
        diff |= static_cast<unsigned char>(e ^ static_cast<unsigned char>(given[i]));
    }
    return diff == 0 && !expected.empty();
}

std::string read_token_file(const std::string &path) {
    std::string token = platform::read_private_file(path, 4096);
    token = token.substr(0, token.find('\n'));
    const auto first = token.find_first_not_of(" \t\r");
    const auto last = token.find_last_not_of(" \t\r");
    token = first == std::string::npos ? "" : token.substr(first, last - first + 1);
    if (token.empty()) throw std::runtime_error("the token file '" + path + "' is empty");
    return token;
}

}  // namespace ipcbench::remote

#include <random>

namespace ipcbench::remote {

std::string generate_token() {
    std::random_device source;  // getrandom()/urandom on Linux, the OS generator on Windows
    static const char digits[] = "0123456789abcdef";
    std::string token;
    for (int i = 0; i < 8; ++i) {
        const auto word = static_cast<std::uint32_t>(source());
        for (int k = 0; k < 4; ++k) {
            const auto byte = static_cast<unsigned>((word >> (8 * k)) & 0xff);
            token += digits[byte >> 4];
            token += digits[byte & 15];
        }
    }
    return token;
}

}  // namespace ipcbench::remote
