// Model encryption of rknn-toolkit2's export_encrypted_rknn_model (seed 000 §5.9): an
// encrypted model file that librknnrt's rknn_init loads like a plain one, refused when it
// was damaged or altered. The cipher is OpenSSL's AES-GCM (libcrypto EVP), whose tag
// detects any change; the key is built in per level and is NOT secret (docs/rknn.md
// "Model encryption" says why and what each level changes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"

namespace svp::runtime::rknn {

inline constexpr int kMinCryptLevel = 1;
inline constexpr int kMaxCryptLevel = 3;

// True when `data` starts with the encrypted model's magic (the rest may still be damaged).
bool is_encrypted_model(const std::uint8_t* data, std::size_t size);

// `plain` (a model image) encrypted at `crypt_level` (1..3); InvalidParam for another level.
Result<std::vector<std::uint8_t>> encrypt_model(const std::vector<std::uint8_t>& plain, int crypt_level);

// The model image of an encrypted file; InvalidFile naming what is wrong (truncated, unknown
// version or level, authentication failed: damaged or altered).
Result<std::vector<std::uint8_t>> decrypt_model(const std::uint8_t* data, std::size_t size);

}  // namespace svp::runtime::rknn
