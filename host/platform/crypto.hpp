#pragma once

#include <array>
#include <cstddef>
#include <string>

namespace ipcbench::platform {

// The cryptography the agent's handshake needs, from a well-kept library, nothing hand-written:
// OpenSSL's libcrypto on POSIX (Debian's libssl-dev), CNG's BCrypt on Windows (part of the OS).

// HMAC-SHA256 of `message` under `key` (RFC 2104, FIPS 180-4): 32 bytes.
using sha256_digest = std::array<unsigned char, 32>;
sha256_digest hmac_sha256(const std::string &key, const std::string &message);

// HKDF-SHA256 (RFC 5869): `length` (<= 255 * 32) bytes of keys derived from `secret`, with
// `salt` and `info`. OpenSSL's EVP_PKEY_HKDF on POSIX; on Windows its two steps over CNG's
// HMAC-SHA256 (CNG's own HKDF needs Windows 10 and is missing under wine).
std::string hkdf_sha256(const std::string &secret, const std::string &salt, const std::string &info,
                        std::size_t length);

// n bytes from the system's cryptographic random generator; throws std::runtime_error when it
// fails (it does not fall back to anything weaker).
std::string random_bytes(std::size_t n);

// Whether a and b are equal, in a time that depends on their length only, never on where they
// differ (CRYPTO_memcmp; on Windows a loop over every byte the compiler cannot cut short).
bool equal_in_constant_time(const std::string &a, const std::string &b);

}  // namespace ipcbench::platform
