#include "target/board_work.h"

#include <algorithm>

#include "ops/op_def.h"

namespace svp::target {
namespace {

using model::Placement;

std::uint64_t elements_of(const model::Tensor& t) { return t.elements().value_or(0); }

// An NPU layer computes at its data input's precision: 8-bit integers at A8W8, 16-bit at
// A16W8, anything else (float models, the fp16 ops of modes 5/6) in fp16.
Precision precision_of(const model::Program& p, const model::Layer& L) {
  for (std::int32_t t : L.inputs) {
    if (t < 0) continue;
    const model::Tensor& x = p.tensors[static_cast<std::size_t>(t)];
    if (x.placement == Placement::kWeights) continue;
    switch (x.dtype) {
      case model::DType::kInt8:
      case model::DType::kUint8: return Precision::kA8W8;
      case model::DType::kInt16:
      case model::DType::kUint16: return Precision::kA16W8;
      default: return Precision::kFp16;
    }
  }
  return Precision::kA8W8;
}

std::int64_t group_of(const model::Layer& L) {
  Result<std::int64_t> g = L.attrs.get_int("group", 1);
  return g.ok() ? *g : 1;
}

WorkClass work_class(const model::Program& p, const model::Layer& L) {
  const ops::OpDef& def = ops::op_def(L.op);
  switch (def.timing) {
    case ops::TimingClass::kCube: {
      if (def.macs == ops::MacRule::kGemm || def.macs == ops::MacRule::kMatMul ||
          def.macs == ops::MacRule::kRecurrent) {
        return WorkClass::kMatMul;
      }
      const std::int64_t group = group_of(L);
      if (group > 1 && !L.inputs.empty() && L.inputs[0] >= 0) {
        const model::Tensor& x = p.tensors[static_cast<std::size_t>(L.inputs[0])];
        if (x.dims.size() >= 2 && x.dims[1] == group) return WorkClass::kDepthwise;
      }
      return WorkClass::kConv;
    }
    case ops::TimingClass::kVector:
      return def.op_class == ops::OpClass::kPool ? WorkClass::kPool : WorkClass::kElementwise;
    case ops::TimingClass::kMove: return WorkClass::kMove;
    case ops::TimingClass::kFree: return WorkClass::kFree;
    case ops::TimingClass::kScalar: break;
  }
  return WorkClass::kElementwise;
}

}  // namespace

std::vector<std::int32_t> segment_ends(const model::Program& program) {
  std::vector<std::int32_t> ends;
  for (const model::Segment& s : program.segments) ends.push_back(s.end);
  if (ends.empty()) ends.push_back(static_cast<std::int32_t>(program.layers.size()));
  return ends;
}

std::vector<LayerWork> program_work(const model::Program& p, const std::vector<std::uint64_t>& macs) {
  const std::size_t n = p.layers.size();
  std::vector<std::int32_t> producer(p.tensors.size(), -1);
  std::vector<std::int32_t> readers(p.tensors.size(), 0);
  for (std::size_t l = 0; l < n; ++l) {
    for (std::int32_t t : p.layers[l].outputs) producer[static_cast<std::size_t>(t)] = static_cast<std::int32_t>(l);
    for (std::int32_t t : p.layers[l].inputs) {
      if (t >= 0) ++readers[static_cast<std::size_t>(t)];
    }
  }
  // A tensor is chained when the next layer is its only reader and it is not a model output.
  auto chained = [&](std::int32_t t, std::size_t reader) {
    const std::size_t i = static_cast<std::size_t>(t);
    return p.tensors[i].placement == Placement::kWorkBuf && readers[i] == 1 && producer[i] >= 0 &&
           static_cast<std::size_t>(producer[i]) + 1 == reader;
  };
  std::vector<LayerWork> work(n);
  std::size_t head = 0;  // the layer an activation chain folds into
  for (std::size_t l = 0; l < n; ++l) {
    const model::Layer& L = p.layers[l];
    LayerWork& w = work[l];
    w.unit = L.target == model::Target::kAiCpu ? Unit::kCpu : Unit::kNpu;
    w.precision = precision_of(p, L);
    w.work = work_class(p, L);
    w.macs = l < macs.size() ? macs[l] : 0;
    for (std::int32_t t : L.inputs) {
      if (t < 0) continue;
      const model::Tensor& x = p.tensors[static_cast<std::size_t>(t)];
      const std::uint64_t e = elements_of(x);
      if (x.placement == Placement::kWeights) {
        w.weight_elements += e;
      } else if (chained(t, l)) {
        w.in_chained += e;
      } else {
        w.in_elements += e;
      }
      if (w.work == WorkClass::kPool && x.placement != Placement::kWeights) w.elements += e;
    }
    for (std::int32_t t : L.outputs) {
      const std::uint64_t e = elements_of(p.tensors[static_cast<std::size_t>(t)]);
      if (w.work != WorkClass::kPool) w.elements += e;
      bool next_only = readers[static_cast<std::size_t>(t)] == 1 && l + 1 < n &&
                       p.tensors[static_cast<std::size_t>(t)].placement == Placement::kWorkBuf;
      if (next_only) {
        next_only = false;
        for (std::int32_t u : p.layers[l + 1].inputs) next_only = next_only || u == t;
      }
      (next_only ? w.out_chained : w.out_elements) += e;
    }
    // An activation reading only its chained producer, a convolution (or an activation
    // already folded into one), on the same unit: the board runs it in the producer's pass,
    // which then writes the activation's outputs instead of its own.
    const bool activation = ops::op_def(L.op).op_class == ops::OpClass::kActivation;
    if (l > 0 && activation && w.in_elements == 0 && w.in_chained > 0 && work[l - 1].unit == w.unit &&
        (is_cube(work[head].work) && (head == l - 1 || work[l - 1].fused))) {
      w.fused = true;
      LayerWork& h = work[head];
      h.out_chained -= std::min(h.out_chained, w.in_chained);
      h.out_chained += w.out_chained;
      h.out_elements += w.out_elements;
    } else {
      head = l;
    }
  }
  return work;
}

}  // namespace svp::target
