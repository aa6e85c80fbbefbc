// Encrypted model files (rknn_crypt.h). Layout, little-endian:
//   0  "SVPRKNNE"        magic
//   8  u32 version (1)
//  12  u32 crypt_level   1..3
//  16  u64 plain size
//  24  12-byte IV        random per file (RAND_bytes)
//  36  16-byte GCM tag
//  52  ciphertext        (same length as the plain image)
// Bytes 0..36 are the GCM's additional authenticated data, so a changed level, size or IV
// fails the tag like a changed ciphertext byte. The key is PBKDF2-HMAC-SHA256 of a
// built-in, public per-level passphrase salted with the IV; the levels differ in key
// length and iteration count, i.e. in how long deriving the key takes (the guide: a higher
// level is "more secure, slower to decrypt"). A board keeps its key in hardware or in its
// closed runtime; here it is in the source, so the encryption hides the structure from
// viewers such as Netron and detects damage, but protects nothing from someone holding
// svp-acl (docs/rknn.md).
#include "runtime/rknn_crypt.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>

namespace svp::runtime::rknn {
namespace {

constexpr char kMagic[8] = {'S', 'V', 'P', 'R', 'K', 'N', 'N', 'E'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kIvSize = 12;
constexpr std::size_t kTagSize = 16;
constexpr std::size_t kIvAt = 24;
constexpr std::size_t kTagAt = kIvAt + kIvSize;
constexpr std::size_t kHeaderSize = kTagAt + kTagSize;

struct Level {
  const EVP_CIPHER* (*cipher)();
  int key_bytes;
  int iterations;
};

Level level_params(int level) {
  switch (level) {
    case 1:
      return {EVP_aes_128_gcm, 16, 1000};
    case 2:
      return {EVP_aes_256_gcm, 32, 50000};
    default:
      return {EVP_aes_256_gcm, 32, 200000};
  }
}

void put_u32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_u64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint32_t get_u32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
std::uint64_t get_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

bool derive_key(int level, const std::uint8_t* iv, std::array<std::uint8_t, 32>* key) {
  const Level l = level_params(level);
  const std::string pass = "svp-acl rknn model encryption, crypt_level " + std::to_string(level) + " (not a secret)";
  return PKCS5_PBKDF2_HMAC(pass.data(), static_cast<int>(pass.size()), iv, kIvSize, l.iterations, EVP_sha256(),
                           l.key_bytes, key->data()) == 1;
}

using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

// One GCM pass over `in` (encrypting or decrypting); for decryption `tag` is checked.
bool gcm(bool encrypt, int level, const std::uint8_t* header, const std::uint8_t* in, std::size_t n,
         std::uint8_t* out, std::uint8_t* tag) {
  std::array<std::uint8_t, 32> key{};
  if (!derive_key(level, header + kIvAt, &key)) return false;
  CipherCtx ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
  if (!ctx) return false;
  const EVP_CIPHER* cipher = level_params(level).cipher();
  auto init = encrypt ? EVP_EncryptInit_ex : EVP_DecryptInit_ex;
  if (init(ctx.get(), cipher, nullptr, nullptr, nullptr) != 1) return false;
  if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kIvSize, nullptr) != 1) return false;
  if (init(ctx.get(), nullptr, nullptr, key.data(), header + kIvAt) != 1) return false;
  auto update = encrypt ? EVP_EncryptUpdate : EVP_DecryptUpdate;
  int len = 0;
  if (update(ctx.get(), nullptr, &len, header, static_cast<int>(kTagAt)) != 1) return false;  // the AAD
  // EVP lengths are int: the image goes through in chunks.
  constexpr std::size_t kChunk = std::size_t{1} << 30;
  for (std::size_t at = 0; at < n; at += kChunk) {
    const int part = static_cast<int>(std::min(kChunk, n - at));
    if (update(ctx.get(), out + at, &len, in + at, part) != 1) return false;
  }
  if (encrypt) {
    if (EVP_EncryptFinal_ex(ctx.get(), out + n, &len) != 1) return false;
    return EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagSize, tag) == 1;
  }
  if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagSize, tag) != 1) return false;
  return EVP_DecryptFinal_ex(ctx.get(), out + n, &len) == 1;
}

}  // namespace

bool is_encrypted_model(const std::uint8_t* data, std::size_t size) {
  return size >= sizeof kMagic && std::memcmp(data, kMagic, sizeof kMagic) == 0;
}

Result<std::vector<std::uint8_t>> encrypt_model(const std::vector<std::uint8_t>& plain, int crypt_level) {
  if (crypt_level < kMinCryptLevel || crypt_level > kMaxCryptLevel) {
    return Error(err::kInvalidParam, "crypt_level {} is not one of 1, 2, 3", crypt_level);
  }
  if (is_encrypted_model(plain.data(), plain.size())) {
    return Error(err::kInvalidParam, "the model is already encrypted");
  }
  std::vector<std::uint8_t> out(kHeaderSize + plain.size());
  std::memcpy(out.data(), kMagic, sizeof kMagic);
  put_u32(out.data() + 8, kVersion);
  put_u32(out.data() + 12, static_cast<std::uint32_t>(crypt_level));
  put_u64(out.data() + 16, plain.size());
  if (RAND_bytes(out.data() + kIvAt, kIvSize) != 1) {
    return Error(err::kInvalidParam, "OpenSSL RAND_bytes could not draw the IV");
  }
  if (!gcm(true, crypt_level, out.data(), plain.data(), plain.size(), out.data() + kHeaderSize,
           out.data() + kTagAt)) {
    return Error(err::kInvalidParam, "OpenSSL AES-GCM encryption failed");
  }
  return out;
}

Result<std::vector<std::uint8_t>> decrypt_model(const std::uint8_t* data, std::size_t size) {
  if (!is_encrypted_model(data, size)) {
    return Error(err::kInvalidFile, "not an encrypted model (no SVPRKNNE magic)");
  }
  if (size < kHeaderSize) {
    return Error(err::kInvalidFile, "encrypted model truncated: {} bytes, less than its {}-byte header", size,
                 kHeaderSize);
  }
  const std::uint32_t version = get_u32(data + 8);
  if (version != kVersion) {
    return Error(err::kInvalidFile, "encrypted model of format version {} (this runtime reads version {})", version,
                 kVersion);
  }
  const std::uint32_t level = get_u32(data + 12);
  if (level < kMinCryptLevel || level > kMaxCryptLevel) {
    return Error(err::kInvalidFile, "encrypted model names crypt_level {} (not 1, 2 or 3): the file is damaged",
                 level);
  }
  const std::uint64_t plain_size = get_u64(data + 16);
  if (plain_size != size - kHeaderSize) {
    return Error(err::kInvalidFile,
                 "encrypted model truncated or extended: its header names {} bytes of model, the file holds {}",
                 plain_size, size - kHeaderSize);
  }
  std::vector<std::uint8_t> plain(plain_size + 16);  // + room for EVP_DecryptFinal_ex's (empty) output
  std::array<std::uint8_t, kTagSize> tag{};
  std::memcpy(tag.data(), data + kTagAt, kTagSize);
  if (!gcm(false, static_cast<int>(level), data, data + kHeaderSize, plain_size, plain.data(), tag.data())) {
    return Error(err::kInvalidFile,
                 "encrypted model failed authentication (AES-GCM tag mismatch): the file was damaged or altered "
                 "after encryption, or its header names another crypt_level than it was encrypted with; "
                 "re-export it with export_encrypted_rknn_model");
  }
  plain.resize(plain_size);
  return plain;
}

}  // namespace svp::runtime::rknn
