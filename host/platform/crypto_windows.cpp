#include "platform/crypto.hpp"

#include "platform/windows_api.hpp"

#include <bcrypt.h>

#include <stdexcept>
#include <string>

namespace ipcbench::platform {
namespace {

bool ok(NTSTATUS status) {
    return status >= 0;
}

std::string cng_error(const char *what, NTSTATUS status) {
    return std::string(what) + " failed (CNG status " + std::to_string(status) + ")";
}

}  // namespace

namespace {

// An HMAC provider, hash object and their release, whatever fails in between.
struct hmac_handles {
    BCRYPT_ALG_HANDLE algorithm = nullptr;
    BCRYPT_HASH_HANDLE hash = nullptr;
    ~hmac_handles() {
        if (hash) BCryptDestroyHash(hash);
        if (algorithm) BCryptCloseAlgorithmProvider(algorithm, 0);
    }
};

}  // namespace

sha256_digest hmac_sha256(const std::string &key, const std::string &message) {
    sha256_digest out{};
    hmac_handles h;
    NTSTATUS status = BCryptOpenAlgorithmProvider(&h.algorithm, BCRYPT_SHA256_ALGORITHM, nullptr,
                                                  BCRYPT_ALG_HANDLE_HMAC_FLAG);
    if (ok(status))
        status = BCryptCreateHash(h.algorithm, &h.hash, nullptr, 0,
                                  reinterpret_cast<PUCHAR>(const_cast<char *>(key.data())),
                                  static_cast<ULONG>(key.size()), 0);
    if (ok(status))
        status =
            BCryptHashData(h.hash, reinterpret_cast<PUCHAR>(const_cast<char *>(message.data())),
                           static_cast<ULONG>(message.size()), 0);
    if (ok(status))
        status = BCryptFinishHash(h.hash, out.data(), static_cast<ULONG>(out.size()), 0);
    if (!ok(status)) throw std::runtime_error(cng_error("HMAC-SHA256", status));
    return out;
}

std::string hkdf_sha256(const std::string &secret, const std::string &salt, const std::string &info,
                        std::size_t length) {
    if (length > 255 * 32) throw std::runtime_error("HKDF-SHA256: too long an output");
    // RFC 5869: PRK = HMAC(salt, secret); T(i) = HMAC(PRK, T(i-1) | info | i).
    const sha256_digest prk = hmac_sha256(salt.empty() ? std::string(32, '\0') : salt, secret);
    const std::string key(reinterpret_cast<const char *>(prk.data()), prk.size());
    std::string out, block;
    for (unsigned char i = 1; out.size() < length; ++i) {
        const sha256_digest t = hmac_sha256(key, block + info + static_cast<char>(i));
        block.assign(reinterpret_cast<const char *>(t.data()), t.size());
        out += block;
    }
    out.resize(length);
    return out;
}

std::string random_bytes(std::size_t n) {
    std::string out(n, '\0');
    const NTSTATUS status = BCryptGenRandom(nullptr, reinterpret_cast<PUCHAR>(out.data()),
                                            static_cast<ULONG>(n), BCRYPT_USE_SYSTEM_PREFERRED_RNG);
    if (!ok(status)) throw std::runtime_error(cng_error("the random generator", status));
    return out;
}

bool equal_in_constant_time(const std::string &a, const std::string &b) {
    if (a.size() != b.size()) return false;
    volatile unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        diff = diff | static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace ipcbench::platform
