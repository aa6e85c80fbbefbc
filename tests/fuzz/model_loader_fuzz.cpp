// libFuzzer target for the offline model reader: read_model must return an error, never
// crash, hang or read outside the buffer, for any input. Built by run_model_fuzz.cmake with
// clang -fsanitize=fuzzer,address,undefined (ctest: model_loader_fuzz).
//
// Each input is tried twice: as given (header, table, CRC checks), and with the CRC of
// every in-bounds section recomputed, so that mutations inside METADATA reach the JSON
// decoder and Program::validate instead of stopping at the checksum. Whatever the reader
// accepts must survive write_model → read_model unchanged.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "model/crc32.h"
#include "model/format.h"

namespace {

using namespace svp::model;  // NOLINT(google-build-using-namespace)

std::uint64_t load_le(const std::uint8_t* p, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void store_le32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Rewrites the CRC fields of table entries whose section lies inside the buffer.
bool fix_crcs(std::vector<std::uint8_t>& img) {
  if (img.size() < kHeaderSize) return false;
  const std::uint64_t count = load_le(img.data() + 12, 4);
  bool changed = false;
  for (std::uint64_t i = 0; i < count && i < kMaxSections; ++i) {
    const std::uint64_t e = kHeaderSize + kSectionEntrySize * i;
    if (e + kSectionEntrySize > img.size()) break;
    const std::uint64_t off = load_le(img.data() + e + 8, 8);
    const std::uint64_t size = load_le(img.data() + e + 16, 8);
    if (off > img.size() || size > img.size() - off) continue;
    const std::uint32_t crc = crc32(img.data() + off, static_cast<std::size_t>(size));
    if (crc != static_cast<std::uint32_t>(load_le(img.data() + e + 24, 4))) {
      store_le32(img.data() + e + 24, crc);
      changed = true;
    }
  }
  return changed;
}

void check(const std::uint8_t* data, std::size_t size) {
  auto loaded = read_model(data, size);
  if (!loaded.ok()) {
    if (loaded.status().message().empty()) __builtin_trap();  // every error explains itself
    return;
  }
  // Accepted models re-serialise to an image that reads back as the same program.
  const auto image = write_model(loaded->program, loaded->weights, loaded->weights_size);
  auto again = read_model(image.data(), image.size());
  if (!again.ok() || !(again->program == loaded->program) || again->weights_size != loaded->weights_size ||
      (loaded->weights_size > 0 && std::memcmp(again->weights, loaded->weights, loaded->weights_size) != 0)) {
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // An exact-size heap copy, so that AddressSanitizer sees the end of the buffer.
  std::vector<std::uint8_t> img(data, data + size);
  check(img.data(), img.size());
  if (fix_crcs(img)) check(img.data(), img.size());
  return 0;
}
