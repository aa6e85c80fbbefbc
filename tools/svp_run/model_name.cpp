#include "svp_run/model_name.h"

#include <cstring>

#include <nlohmann/json.hpp>

namespace svp::run {
namespace {

std::uint64_t le(const std::vector<std::uint8_t>& b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | b[at + static_cast<std::size_t>(i)];
  return v;
}

ModelNames from_metadata(const nlohmann::json& j) {
  ModelNames out;
  if (!j.is_object()) return out;
  if (auto it = j.find("name"); it != j.end() && it->is_string()) out.name = it->get<std::string>();
  if (auto it = j.find("layers"); it != j.end() && it->is_array()) {
    for (const auto& l : *it) {
      if (l.is_object() && l.contains("name") && l["name"].is_string()) out.layers.push_back(l["name"]);
    }
  }
  return out;
}

}  // namespace

ModelNames model_names(const std::vector<std::uint8_t>& image) {
  constexpr std::size_t kHeader = 16, kEntry = 32;
  constexpr std::uint32_t kMetadata = 1;
  if (image.size() < kHeader || std::memcmp(image.data(), "SVPACLOM", 8) != 0) return {};
  const std::uint64_t sections = le(image, 12, 4);
  if (sections > 64 || kHeader + sections * kEntry > image.size()) return {};
  for (std::uint64_t s = 0; s < sections; ++s) {
    const std::size_t e = kHeader + static_cast<std::size_t>(s) * kEntry;
    if (le(image, e, 4) != kMetadata) continue;
    const std::uint64_t offset = le(image, e + 8, 8), size = le(image, e + 16, 8);
    if (offset > image.size() || size > image.size() - offset) return {};
    const auto* begin = image.data() + offset;
    return from_metadata(nlohmann::json::parse(begin, begin + size, nullptr, false));
  }
  return {};
}

}  // namespace svp::run
