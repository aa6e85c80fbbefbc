#include "aipp/param_block.h"

#include <cstring>
#include <vector>

#include "model/crc32.h"

namespace svp::aipp {
namespace {

constexpr char kMagic[8] = {'S', 'V', 'P', 'A', 'I', 'P', 'P', '\0'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kCrcOffset = 60;

// Explicit little-endian encoding: the block is a file-like format, not a C struct, so it
// reads the same whatever the compiler's padding.
template <typename T>
void put(std::uint8_t* p, T v) {
  std::uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = b[sizeof(T) - 1 - i];
#else
  std::memcpy(p, b, sizeof(T));
#endif
}

template <typename T>
T get(const std::uint8_t* p) {
  std::uint8_t b[sizeof(T)];
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  for (std::size_t i = 0; i < sizeof(T); ++i) b[i] = p[sizeof(T) - 1 - i];
#else
  std::memcpy(b, p, sizeof(T));
#endif
  T v;
  std::memcpy(&v, b, sizeof(T));
  return v;
}

std::uint32_t block_crc(const std::uint8_t* data, std::size_t used) {
  std::uint32_t crc = model::crc32(data, kCrcOffset);
  const std::uint8_t zero[4] = {0, 0, 0, 0};
  crc = model::crc32(zero, 4, crc);
  return model::crc32(data + kCrcOffset + 4, used - kCrcOffset - 4, crc);
}

}  // namespace

Status serialize(const AippParams& p, std::uint8_t* out, std::size_t capacity) {
  const std::size_t used = block_size(p);
  if (out == nullptr) return Error(err::kInvalidParam, "AIPP parameter buffer is NULL");
  if (capacity < used) {
    return Error(err::kInvalidParam, "AIPP parameter buffer of {} bytes is too small for {} batch entries ({} bytes)",
                 capacity, p.batches.size(), used);
  }
  std::vector<std::uint8_t> b(used, 0);  // built aside: `out` never holds a half-written block
  std::memcpy(b.data(), kMagic, 8);
  put<std::uint32_t>(&b[8], kVersion);
  put<std::uint32_t>(&b[12], static_cast<std::uint32_t>(used));
  put<std::uint32_t>(&b[16], static_cast<std::uint32_t>(p.batches.size()));
  put<std::int32_t>(&b[20], p.format);
  put<std::int32_t>(&b[24], p.src_w);
  put<std::int32_t>(&b[28], p.src_h);
  b[32] = p.csc ? 1 : 0;
  b[33] = p.rbuv_swap ? 1 : 0;
  b[34] = p.ax_swap ? 1 : 0;
  b[35] = static_cast<std::uint8_t>((p.format_set ? 1 : 0) | (p.src_size_set ? 2 : 0));
  for (int i = 0; i < 9; ++i) put<std::int16_t>(&b[36 + 2 * i], p.matrix[i]);
  for (int i = 0; i < 3; ++i) {
    b[54 + i] = p.out_bias[i];
    b[57 + i] = p.in_bias[i];
  }
  for (std::size_t k = 0; k < p.batches.size(); ++k) {
    const BatchParams& e = p.batches[k];
    std::uint8_t* q = &b[kBlockHeaderBytes + kBlockEntryBytes * k];
    q[0] = e.crop ? 1 : 0;
    q[1] = static_cast<std::uint8_t>(e.resize);
    q[2] = static_cast<std::uint8_t>(e.padding);
    const std::int32_t ints[12] = {e.crop_x,       e.crop_y,       e.crop_w,       e.crop_h,
                                   e.resize_in_w,  e.resize_in_h,  e.resize_out_w, e.resize_out_h,
                                   e.pad_top,      e.pad_bottom,   e.pad_left,     e.pad_right};
    for (int i = 0; i < 12; ++i) put<std::int32_t>(q + 4 + 4 * i, ints[i]);
    for (int c = 0; c < 4; ++c) {
      put<float>(q + 52 + 4 * c, e.mean[c]);
      put<float>(q + 68 + 4 * c, e.min[c]);
      put<float>(q + 84 + 4 * c, e.var_reci[c]);
    }
  }
  put<std::uint32_t>(&b[kCrcOffset], block_crc(b.data(), used));
  std::memcpy(out, b.data(), used);
  return Status::Ok();
}

Result<AippParams> parse_block(const std::uint8_t* data, std::size_t size) {
  if (data == nullptr) return Error(err::kInvalidParam, "AIPP parameter buffer is NULL");
  if (size < kBlockHeaderBytes || std::memcmp(data, kMagic, 8) != 0) {
    return Error(err::kInvalidParam,
                 "dynamic AIPP parameter buffer holds no parameters: call svp_acl_mdl_set_input_aipp (or "
                 "set_aipp_by_input_index) before executing");
  }
  if (get<std::uint32_t>(data + 8) != kVersion) {
    return Error(err::kInvalidParam, "dynamic AIPP parameter block version {} is not {}", get<std::uint32_t>(data + 8),
                 kVersion);
  }
  const std::uint32_t used = get<std::uint32_t>(data + 12);
  const std::uint32_t n = get<std::uint32_t>(data + 16);
  if (n == 0 || n > (size - kBlockHeaderBytes) / kBlockEntryBytes || used != block_capacity(n)) {
    return Error(err::kInvalidParam, "dynamic AIPP parameter block is truncated or corrupt ({} entries, {} bytes)", n,
                 size);
  }
  if (get<std::uint32_t>(data + kCrcOffset) != block_crc(data, used)) {
    return Error(err::kInvalidParam,
                 "dynamic AIPP parameter block fails its checksum: the buffer was modified after "
                 "svp_acl_mdl_set_input_aipp");
  }
  AippParams p;
  p.format = get<std::int32_t>(data + 20);
  p.src_w = get<std::int32_t>(data + 24);
  p.src_h = get<std::int32_t>(data + 28);
  p.csc = data[32] != 0;
  p.rbuv_swap = data[33] != 0;
  p.ax_swap = data[34] != 0;
  p.format_set = (data[35] & 1) != 0;
  p.src_size_set = (data[35] & 2) != 0;
  for (int i = 0; i < 9; ++i) p.matrix[i] = get<std::int16_t>(data + 36 + 2 * i);
  for (int i = 0; i < 3; ++i) {
    p.out_bias[i] = data[54 + i];
    p.in_bias[i] = data[57 + i];
  }
  p.batches.assign(n, BatchParams{});
  for (std::uint32_t k = 0; k < n; ++k) {
    BatchParams& e = p.batches[k];
    const std::uint8_t* q = data + kBlockHeaderBytes + kBlockEntryBytes * k;
    if (q[1] > 2 || q[2] > 4) {
      return Error(err::kInvalidParam, "dynamic AIPP parameter block entry {}: bad resize/padding switch", k);
    }
    e.crop = q[0] != 0;
    e.resize = static_cast<Resize>(q[1]);
    e.padding = static_cast<Padding>(q[2]);
    std::int32_t* ints[12] = {&e.crop_x,       &e.crop_y,       &e.crop_w,       &e.crop_h,
                              &e.resize_in_w,  &e.resize_in_h,  &e.resize_out_w, &e.resize_out_h,
                              &e.pad_top,      &e.pad_bottom,   &e.pad_left,     &e.pad_right};
    for (int i = 0; i < 12; ++i) *ints[i] = get<std::int32_t>(q + 4 + 4 * i);
    for (int c = 0; c < 4; ++c) {
      e.mean[c] = get<float>(q + 52 + 4 * c);
      e.min[c] = get<float>(q + 68 + 4 * c);
      e.var_reci[c] = get<float>(q + 84 + 4 * c);
    }
  }
  return p;
}

}  // namespace svp::aipp
