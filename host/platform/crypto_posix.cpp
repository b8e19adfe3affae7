#include "platform/crypto.hpp"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace ipcbench::platform {
namespace {

std::string openssl_error(const char *what) {
    char text[256] = "no detail";
    if (const unsigned long code = ERR_get_error(); code != 0)
        ERR_error_string_n(code, text, sizeof text);
    return std::string(what) + " failed (OpenSSL: " + text + ")";
}

}  // namespace

sha256_digest hmac_sha256(const std::string &key, const std::string &message) {
    sha256_digest out{};
    unsigned int length = 0;
    if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
             reinterpret_cast<const unsigned char *>(message.data()), message.size(), out.data(),
             &length) == nullptr ||
        length != out.size())
        throw std::runtime_error(openssl_error("HMAC-SHA256"));
    return out;
}

std::string hkdf_sha256(const std::string &secret, const std::string &salt, const std::string &info,
                        std::size_t length) {
    std::string out(length, '\0');
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nullptr);
    const auto u = [](const std::string &s) {
        return reinterpret_cast<const unsigned char *>(s.data());
    };
    std::size_t got = length;
    const bool ok =
        ctx != nullptr && EVP_PKEY_derive_init(ctx) > 0 &&
        EVP_PKEY_CTX_set_hkdf_md(ctx, EVP_sha256()) > 0 &&
        EVP_PKEY_CTX_set1_hkdf_salt(ctx, u(salt), static_cast<int>(salt.size())) > 0 &&
        EVP_PKEY_CTX_set1_hkdf_key(ctx, u(secret), static_cast<int>(secret.size())) > 0 &&
        EVP_PKEY_CTX_add1_hkdf_info(ctx, u(info), static_cast<int>(info.size())) > 0 &&
        EVP_PKEY_derive(ctx, reinterpret_cast<unsigned char *>(out.data()), &got) > 0 &&
        got == length;
    EVP_PKEY_CTX_free(ctx);
    if (!ok) throw std::runtime_error(openssl_error("HKDF-SHA256"));
    return out;
}

std::string random_bytes(std::size_t n) {
    std::string out(n, '\0');
    if (n > 0 &&
        RAND_bytes(reinterpret_cast<unsigned char *>(out.data()), static_cast<int>(n)) != 1)
        throw std::runtime_error(openssl_error("the random generator"));
    return out;
}

bool equal_in_constant_time(const std::string &a, const std::string &b) {
    return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace ipcbench::platform
