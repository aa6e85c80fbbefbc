// Test helper: runs a built model layer by layer through CompiledProgram (no executor),
// with the work_buf, weights and dense model I/O buffers laid out as the executor does.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "kernels/compiled_program.h"
#include "compiler/builder.h"

namespace svp::testing {

using Bytes = std::vector<std::uint8_t>;

// One execution's buffers for a compiled model.
class Execution {
 public:
  explicit Execution(const compiler::BuiltModel& m) : m_(m), work_(m.program.flags.work_buf_size + 64, 0xCD) {
    for (const model::Tensor& t : m.program.tensors)
      if (t.is_io()) io_.emplace_back(t.size, 0);
    data_.resize(m.program.tensors.size());
    std::size_t io = 0;
    // 64-byte aligned base, as svp_acl_rt_malloc memory is.
    auto* wb = work_.data() + (64 - reinterpret_cast<std::uintptr_t>(work_.data()) % 64) % 64;
    for (std::size_t i = 0; i < m.program.tensors.size(); ++i) {
      const model::Tensor& t = m.program.tensors[i];
      switch (t.placement) {
        case model::Placement::kWorkBuf:
          data_[i] = wb + t.offset;
          break;
        case model::Placement::kWeights:
          data_[i] = const_cast<std::uint8_t*>(m.weights.data()) + t.offset;
          break;
        default:
          data_[i] = io_[io++].data();
      }
    }
  }
  // Buffer of a model input / output tensor (by tensor id).
  Bytes& io(std::int32_t tensor) {
    std::size_t k = 0;
    for (std::int32_t i = 0; i < tensor; ++i) k += m_.program.tensors[static_cast<std::size_t>(i)].is_io() ? 1 : 0;
    return io_[k];
  }
  Status run_layer(const kernels::CompiledProgram& p, std::size_t i) { return p.run_layer(i, data_, {}); }
  Status run(const kernels::CompiledProgram& p) {
    for (std::size_t i = 0; i < p.layer_count(); ++i) {
      Status s = p.run_layer(i, data_, {});
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }

 private:
  const compiler::BuiltModel& m_;
  Bytes work_;
  std::vector<Bytes> io_;
  std::vector<void*> data_;
};

inline std::unique_ptr<kernels::CompiledProgram> compile(const compiler::BuiltModel& m, bool fast, int threads = 1) {
  kernels::CompileOptions o;
  o.fast_paths = fast;
  o.threads = threads;
  auto r = kernels::CompiledProgram::compile(m.program, m.weights.data(), m.weights.size(), o);
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(r.value());
}

// Deterministic pseudo-random bytes / floats.
inline std::uint32_t lcg(std::uint32_t& s) {
  s = s * 1664525u + 1013904223u;
  return s >> 8;
}
inline void fill_random(Bytes& b, model::DType t, std::uint32_t seed, float lo = -1.f, float hi = 1.f) {
  if (t == model::DType::kFloat32) {
    for (std::size_t i = 0; i + 4 <= b.size(); i += 4) {
      const float v = lo + (hi - lo) * static_cast<float>(lcg(seed) % 1000001) / 1000000.f;
      std::memcpy(&b[i], &v, 4);
    }
  } else {
    for (auto& x : b) x = static_cast<std::uint8_t>(lcg(seed));
  }
}

// A planned tensor of dtype t with one scale and zero point (a native kernel's plan input).
inline model::Tensor per_tensor(model::DType t, const std::vector<std::int64_t>& dims, float s, std::int32_t zp) {
  model::Tensor x;
  x.dtype = t;
  x.dims = dims;
  x.quant = model::Quant{{s}, {zp}, -1};
  return x;
}

// An int8 kernel test case's input and output encodings.
struct InOutEncoding {
  model::DType x;
  float sx;
  std::int32_t zx;
  model::DType y;
  float sy;
  std::int32_t zy;
};

}  // namespace svp::testing
