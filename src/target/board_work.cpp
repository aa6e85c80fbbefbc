#include "target/board_work.h"

#include <algorithm>
#include <string>

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

// A 4-D tensor of one spatial element ([N, C, 1, 1]: a pooled, per-channel value).
bool per_channel_only(const model::Tensor& t) { return t.dims.size() == 4 && t.dims[2] == 1 && t.dims[3] == 1; }

// The channel-wise multiply of a squeeze-and-excitation gate (WorkClass::kBroadcast): a
// binary elementwise op with spatial output one of whose data operands is [N, C, 1, 1], or
// the Expand of one to the output's shape (as torch's expand_as exports it).
bool channel_broadcast(const model::Program& p, const model::Layer& L, const std::vector<std::int32_t>& producer) {
  if (L.op != "Mul" && L.op != "Add" && L.op != "Sub" && L.op != "Div") return false;
  if (L.outputs.empty()) return false;
  const model::Tensor& y = p.tensors[static_cast<std::size_t>(L.outputs[0])];
  if (y.dims.size() != 4 || y.dims[2] * y.dims[3] <= 1) return false;
  for (std::int32_t t : L.inputs) {
    if (t < 0) continue;
    const model::Tensor& x = p.tensors[static_cast<std::size_t>(t)];
    if (x.placement == Placement::kWeights) continue;
    if (per_channel_only(x)) return true;
    const std::int32_t from = producer[static_cast<std::size_t>(t)];
    if (from < 0) continue;
    const model::Layer& e = p.layers[static_cast<std::size_t>(from)];
    if (e.op == "Expand" && !e.inputs.empty() && e.inputs[0] >= 0 &&
        per_channel_only(p.tensors[static_cast<std::size_t>(e.inputs[0])])) {
      return true;
    }
  }
  return false;
}

// Ops a board compiler folds into the convolution before them.
bool foldable(const std::string& op) {
  const ops::OpDef& def = ops::op_def(op);
  if (def.op_class == ops::OpClass::kActivation) return true;
  return op == "Add" || op == "Sub" || op == "Mul";
}

}  // namespace

std::vector<std::int32_t> segment_ends(const model::Program& program) {
  std::vector<std::int32_t> ends;
  for (const model::Segment& s : program.segments) ends.push_back(s.end);
  if (ends.empty()) ends.push_back(static_cast<std::int32_t>(program.layers.size()));
  return ends;
}

std::vector<LayerWork> program_work(const model::Program& p, const std::vector<std::uint64_t>& macs,
                                    const std::vector<Unit>* units, const std::vector<Precision>* precisions) {
  const std::size_t n = p.layers.size();
  std::vector<LayerWork> work(n);
  std::vector<std::int32_t> producer(p.tensors.size(), -1);
  std::vector<std::vector<std::size_t>> readers(p.tensors.size());
  for (std::size_t l = 0; l < n; ++l) {
    const model::Layer& L = p.layers[l];
    LayerWork& w = work[l];
    w.unit = units != nullptr && l < units->size() ? (*units)[l]
             : L.target == model::Target::kAiCpu   ? Unit::kCpu
                                                   : Unit::kNpu;
    w.precision = precisions != nullptr && l < precisions->size() ? (*precisions)[l] : precision_of(p, L);
    w.work = channel_broadcast(p, L, producer) ? WorkClass::kBroadcast : work_class(p, L);
    w.macs = l < macs.size() ? macs[l] : 0;
    for (std::int32_t t : L.outputs) producer[static_cast<std::size_t>(t)] = static_cast<std::int32_t>(l);
    for (std::int32_t t : L.inputs) {
      if (t >= 0) readers[static_cast<std::size_t>(t)].push_back(l);
    }
  }
  // Feature maps passed between layers of one unit at one precision may stay in the
  // on-chip buffer (board_time.h decides by size); the rest go through DDR.
  auto same_engine = [&](std::size_t a, std::size_t b) {
    return work[a].unit == work[b].unit && work[a].precision == work[b].precision;
  };
  std::size_t head = 0;  // the layer a chain of folded ops runs in
  for (std::size_t l = 0; l < n; ++l) {
    const model::Layer& L = p.layers[l];
    LayerWork& w = work[l];
    std::int32_t from_previous = -1;  // a data input only this layer reads, produced by layer l - 1
    bool from_previous_on_chip = false;
    for (std::int32_t t : L.inputs) {
      if (t < 0) continue;
      const std::size_t i = static_cast<std::size_t>(t);
      const model::Tensor& x = p.tensors[i];
      const std::uint64_t e = elements_of(x);
      if (x.placement == Placement::kWeights) {
        w.weight_elements += e;
        continue;
      }
      if (w.work == WorkClass::kPool) w.elements += e;
      const bool on_chip = x.placement == Placement::kWorkBuf && producer[i] >= 0 &&
                           same_engine(static_cast<std::size_t>(producer[i]), l);
      (on_chip ? w.in_chained : w.in_elements) += e;
      if (readers[i].size() == 1 && producer[i] >= 0 && static_cast<std::size_t>(producer[i]) + 1 == l &&
          work[l - 1].unit == w.unit) {
        from_previous = t;
        from_previous_on_chip = on_chip;
      }
    }
    for (std::int32_t t : L.outputs) {
      const std::size_t i = static_cast<std::size_t>(t);
      const std::uint64_t e = elements_of(p.tensors[i]);
      if (w.work != WorkClass::kPool) w.elements += e;
      bool on_chip = p.tensors[i].placement == Placement::kWorkBuf && !readers[i].empty();
      for (std::size_t r : readers[i]) on_chip = on_chip && same_engine(l, r);
      (on_chip ? w.out_chained : w.out_elements) += e;
    }
    // An activation or a binary elementwise op reading the output of a convolution (or of
    // an op already folded into one) that nothing else reads: board compilers run it in the
    // convolution's pass (Conv + Add + Relu), which then reads the op's other operands and
    // writes its outputs instead of the intermediate.
    // An activation folds across a change of precision (the cube's output stage applies it);
    // a binary op needs its operands in one format. The output stage works element by
    // element on the convolution's result, so the folded op's output must be the size of its
    // input from the chain: a channel-broadcast multiply reading a [N, C, 1, 1] gate (an SE
    // block's) writes a larger tensor and is a pass of its own.
    const bool activation = ops::op_def(L.op).op_class == ops::OpClass::kActivation;
    std::uint64_t out_e = 0;
    for (std::int32_t t : L.outputs) out_e += elements_of(p.tensors[static_cast<std::size_t>(t)]);
    const bool same_size =
        from_previous >= 0 && out_e == elements_of(p.tensors[static_cast<std::size_t>(from_previous)]);
    if (l > 0 && from_previous >= 0 && same_size && w.work != WorkClass::kBroadcast && foldable(L.op) &&
        (activation || from_previous_on_chip) &&
        is_cube(work[head].work) &&
        (head == l - 1 || work[l - 1].fused)) {
      const std::uint64_t e = elements_of(p.tensors[static_cast<std::size_t>(from_previous)]);
      w.fused = true;
      LayerWork& h = work[head];
      h.in_elements += w.in_elements - (from_previous_on_chip ? 0 : std::min(w.in_elements, e));
      h.in_chained += w.in_chained - (from_previous_on_chip ? std::min(w.in_chained, e) : 0);
      h.weight_elements += w.weight_elements;
      std::uint64_t& intermediate = from_previous_on_chip ? h.out_chained : h.out_elements;
      intermediate -= std::min(intermediate, e);
      h.out_chained += w.out_chained;
      h.out_elements += w.out_elements;
    } else {
      head = l;
    }
  }
  return work;
}

}  // namespace svp::target
