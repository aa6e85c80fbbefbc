#include "sparsity.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <map>

namespace svp::rknn_convert {
namespace {

std::vector<float> weight_values(const onnx::TensorProto& t) {
  std::vector<float> v;
  if (t.has_raw_data()) {
    v.resize(t.raw_data().size() / sizeof(float));
    std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(float));
  } else {
    v.assign(t.float_data().begin(), t.float_data().end());
  }
  return v;
}

// At most 2 non-zeros in every 4 consecutive entries along the output (`along_out`) or the
// input direction of w[co][ci][k].
bool four_two(const std::vector<float>& w, std::int64_t co, std::int64_t ci, std::int64_t k, bool along_out) {
  const std::int64_t outer = along_out ? ci : co, inner = along_out ? co : ci;
  for (std::int64_t a = 0; a < outer; ++a) {
    for (std::int64_t p = 0; p < k; ++p) {
      for (std::int64_t b0 = 0; b0 < inner; b0 += 4) {
        int nonzero = 0;
        for (std::int64_t b = b0; b < b0 + 4 && b < inner; ++b) {
          const std::int64_t o = along_out ? b : a, i = along_out ? a : b;
          nonzero += w[static_cast<std::size_t>((o * ci + i) * k + p)] != 0.0f;
        }
        if (nonzero > 2) return false;
      }
    }
  }
  return true;
}

}  // namespace

Result<std::vector<ConvSparsity>> conv_sparsity(const std::string& onnx_path) {
  std::ifstream in(onnx_path, std::ios::binary);
  onnx::ModelProto m;
  if (!in || !m.ParseFromIstream(&in) || !m.has_graph()) {
    return Error(err::kInvalidFile, "sparse_infer: cannot read the ONNX model {}", onnx_path);
  }
  std::map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : m.graph().initializer()) inits[t.name()] = &t;
  std::vector<ConvSparsity> out;
  for (const auto& n : m.graph().node()) {
    if (n.op_type() != "Conv" || n.input_size() < 2) continue;
    auto it = inits.find(n.input(1));
    if (it == inits.end() || it->second->data_type() != onnx::TensorProto::FLOAT || it->second->dims_size() != 4) {
      continue;
    }
    const onnx::TensorProto& t = *it->second;
    ConvSparsity s;
    s.name = n.name().empty() ? n.output(0) : n.name();
    s.out_channels = t.dims(0);
    s.in_channels = t.dims(1);
    s.ratio = "0%";
    std::int64_t group = 1;
    for (const auto& a : n.attribute()) {
      if (a.name() == "group") group = a.i();
    }
    const std::vector<float> w = weight_values(t);
    const std::int64_t k = t.dims(2) * t.dims(3);
    if (group != 1) {
      s.why_dense = "group is not 1";
    } else if (s.in_channels % 32 != 0 || s.out_channels % 32 != 0) {
      s.why_dense = "input and output channels must be multiples of 32";
    } else if (static_cast<std::int64_t>(w.size()) != s.out_channels * s.in_channels * k) {
      s.why_dense = "weight size does not match its shape";
    } else if (four_two(w, s.out_channels, s.in_channels, k, false)) {
      s.ratio = "50% (IC)";
    } else if (four_two(w, s.out_channels, s.in_channels, k, true)) {
      s.ratio = "50% (OC)";
    } else {
      s.why_dense = "weights are not 4:2 sparse along either direction";
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace svp::rknn_convert
