#include "compiler/builder.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "kernels/kernels.h"
#include "model/format.h"
#include "ops/op_def.h"

namespace svp::compiler {

using namespace model;  // NOLINT(google-build-using-namespace): the builder fills in the IR

namespace {

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

std::optional<std::uint64_t> dense_bytes(DType dtype, const std::vector<std::int64_t> &dims) {
  Tensor t;
  t.dims = dims;
  auto n = t.elements();
  std::uint64_t bytes = 0;
  if (!n || __builtin_mul_overflow(*n, dtype_size(dtype), &bytes)) return std::nullopt;
  return bytes;
}

Tensor tensor_of(const std::string &name, DType dtype, std::vector<std::int64_t> dims, Layout layout, Quant quant,
                 Placement placement) {
  Tensor t;
  t.name = name;
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.layout = layout;
  t.quant = std::move(quant);
  t.placement = placement;
  return t;
}

}  // namespace

ModelBuilder::ModelBuilder(std::string model_name) {
  program_.name = std::move(model_name);
  program_.compiler.producer_version = "svp-acl ModelBuilder";
}

TensorId ModelBuilder::fail(Status s) {
  if (status_.ok()) status_ = std::move(s);
  return -1;
}

TensorId ModelBuilder::add_tensor(Tensor t) {
  if (!status_.ok()) return -1;
  // Sizes of invalid shapes are left 0; validate() reports them with the
  // tensor's name.
  if (auto bytes = dense_bytes(t.dtype, t.dims); bytes && is_valid(t.dtype)) t.size = *bytes;
  program_.tensors.push_back(std::move(t));
  return static_cast<TensorId>(program_.tensors.size() - 1);
}

TensorId ModelBuilder::add_input(const std::string &name, DType dtype, std::vector<std::int64_t> dims, Layout layout,
                                 Quant quant) {
  Tensor t = tensor_of(name, dtype, std::move(dims), layout, std::move(quant), Placement::kModelInput);
  t.io_index = num_inputs_;
  const TensorId id = add_tensor(std::move(t));
  if (id >= 0) ++num_inputs_;
  return id;
}

TensorId ModelBuilder::add_constant(const std::string &name, DType dtype, std::vector<std::int64_t> dims,
                                    const void *data, std::size_t bytes, Quant quant, Layout layout) {
  if (!status_.ok()) return -1;
  const auto expected = dense_bytes(dtype, dims);
  if (!is_valid(dtype) || !expected || *expected != bytes || (bytes > 0 && data == nullptr)) {
    return fail(Error(err::kInvalidParam, "constant \"{}\": {} bytes of data for {} dims of {}", name, bytes,
                      dims.size(), is_valid(dtype) ? dtype_name(dtype) : "an invalid type"));
  }
  Tensor t = tensor_of(name, dtype, std::move(dims), layout, std::move(quant), Placement::kWeights);
  t.offset = align_up(weights_.size(), kBufferAlign);
  weights_.resize(static_cast<std::size_t>(t.offset), 0);
  const auto *p = static_cast<const std::uint8_t *>(data);
  weights_.insert(weights_.end(), p, p + bytes);
  return add_tensor(std::move(t));
}

LayerRef ModelBuilder::add_layer(const std::string &name, const std::string &op, std::vector<TensorId> inputs,
                                 LayerOptions options) {
  LayerRef ref;
  if (!status_.ok()) return ref;
  auto layer_error = [&](int code, const std::string &msg) {
    fail(Status(code, fmt::format("layer \"{}\" ({}): {}", name, op, msg)));
    return ref;
  };
  const Tensor *first = nullptr;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const TensorId id = inputs[k];
    if (id == -1) continue;
    if (!valid_id(id)) return layer_error(err::kInvalidParam, fmt::format("input {} is not a tensor id ({})", k, id));
    if (first == nullptr) first = &program_.tensors[static_cast<std::size_t>(id)];
  }

  // Output shapes: given, or inferred by the kernels' shape functions.
  std::vector<std::vector<std::int64_t>> shapes = options.output_shapes;
  if (shapes.empty()) {
    std::vector<kernels::Shape> in_shapes;
    std::vector<TensorView> views(inputs.size());
    std::vector<const TensorView *> consts(inputs.size(), nullptr);
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      if (inputs[k] == -1) {
        in_shapes.emplace_back();
        continue;
      }
      const Tensor &t = program_.tensors[static_cast<std::size_t>(inputs[k])];
      in_shapes.push_back(t.dims);
      if (t.placement == Placement::kWeights) {
        views[k].dtype = t.dtype;
        views[k].dims = t.dims;
        views[k].data = weights_.data() + t.offset;
        views[k].quant = t.quant.empty() ? nullptr : &t.quant;
        consts[k] = &views[k];
      }
    }
    auto inferred = kernels::infer_shapes(op, options.attrs, in_shapes, consts);
    if (!inferred.ok()) return layer_error(inferred.status().code(), inferred.status().message());
    shapes = std::move(*inferred);
  }
  const std::size_t n = shapes.size();
  if (n == 0) return layer_error(err::kInvalidParam, "no output");
  auto size_ok = [n](std::size_t s) { return s == 0 || s == n; };
  if (!size_ok(options.output_dtypes.size()) || !size_ok(options.output_quants.size()) ||
      !size_ok(options.output_layouts.size()) || !size_ok(options.output_names.size())) {
    return layer_error(err::kInvalidParam, fmt::format("{} outputs but {} dtypes, {} quants, {} layouts, {} names", n,
                                                       options.output_dtypes.size(), options.output_quants.size(),
                                                       options.output_layouts.size(), options.output_names.size()));
  }
  if (first == nullptr && options.output_dtypes.empty()) {
    return layer_error(err::kInvalidParam, "no input to take the output data type from; give output_dtypes");
  }

  Layer layer;
  layer.name = name;
  layer.op = op;
  layer.attrs = std::move(options.attrs);
  layer.inputs = std::move(inputs);
  layer.target = options.target;
  std::vector<Tensor> outs(n);
  for (std::size_t i = 0; i < n; ++i) {
    Tensor &t = outs[i];
    t.name = !options.output_names.empty() ? options.output_names[i] : n == 1 ? name : fmt::format("{}:{}", name, i);
    t.dtype = !options.output_dtypes.empty() ? options.output_dtypes[i] : first->dtype;
    t.dims = std::move(shapes[i]);
    if (!options.output_quants.empty()) {
      t.quant = options.output_quants[i];
    } else if (first != nullptr && t.dtype == first->dtype) {
      t.quant = first->quant;
    }
    if (!options.output_layouts.empty()) {
      t.layout = options.output_layouts[i];
    } else {
      t.layout = first != nullptr && first->dims.size() == t.dims.size() ? first->layout : Layout::kND;
    }
    t.placement = Placement::kWorkBuf;
  }
  ref.layer = static_cast<std::int32_t>(program_.layers.size());
  for (Tensor &t : outs) {
    const TensorId id = add_tensor(std::move(t));
    layer.outputs.push_back(id);
    ref.outputs.push_back(id);
  }
  program_.layers.push_back(std::move(layer));
  starts_segment_.push_back(pending_segment_start_);
  pending_segment_start_ = false;
  return ref;
}

void ModelBuilder::add_output(TensorId tensor, const std::string &rename) {
  if (!status_.ok()) return;
  if (!valid_id(tensor)) {
    fail(Error(err::kInvalidParam, "add_output: {} is not a tensor id", tensor));
    return;
  }
  Tensor &t = program_.tensors[static_cast<std::size_t>(tensor)];
  if (t.placement != Placement::kWorkBuf) {
    const char *what = t.placement == Placement::kModelInput    ? "a model input"
                       : t.placement == Placement::kModelOutput ? "already a model output"
                                                                : "a constant";
    fail(Error(err::kInvalidParam, "add_output: tensor \"{}\" is {}, not an intermediate layer output", t.name, what));
    return;
  }
  t.placement = Placement::kModelOutput;
  t.io_index = num_outputs_++;
  if (!rename.empty()) t.name = rename;
}

void ModelBuilder::begin_segment() {
  if (segment_mode_ == SegmentMode::kEvery) {
    fail(Error(err::kInvalidParam, "begin_segment() and segment_every() cannot be combined"));
    return;
  }
  segment_mode_ = SegmentMode::kManual;
  pending_segment_start_ = true;
}

void ModelBuilder::segment_every(std::size_t n) {
  if (segment_mode_ == SegmentMode::kManual || n == 0) {
    fail(Error(err::kInvalidParam,
               n == 0 ? "segment_every(0)" : "begin_segment() and segment_every() cannot be combined"));
    return;
  }
  segment_mode_ = SegmentMode::kEvery;
  segment_every_ = n;
}

void ModelBuilder::set_inout_reuse(TensorId io_tensor, std::int32_t type) {
  if (!status_.ok()) return;
  if (!valid_id(io_tensor)) {
    fail(Error(err::kInvalidParam, "set_inout_reuse: {} is not a tensor id", io_tensor));
    return;
  }
  program_.tensors[static_cast<std::size_t>(io_tensor)].inout_reuse = type;
}

void ModelBuilder::set_aipp(TensorId input, std::string json) {
  if (!status_.ok()) return;
  if (!valid_id(input)) {
    fail(Error(err::kInvalidParam, "set_aipp: {} is not a tensor id", input));
    return;
  }
  program_.tensors[static_cast<std::size_t>(input)].aipp = std::move(json);
}

void ModelBuilder::set_compiler_info(std::string producer_version, std::string command_line) {
  program_.compiler.producer_version = std::move(producer_version);
  program_.compiler.command_line = std::move(command_line);
}

std::vector<Segment> ModelBuilder::make_segments() const {
  std::vector<Segment> segs;
  const auto &layers = program_.layers;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    bool start = i == 0 || layers[i].target != layers[i - 1].target;
    switch (segment_mode_) {
      case SegmentMode::kPerLayer:
        start = true;
        break;
      case SegmentMode::kEvery:
        start = start || static_cast<std::size_t>(segs.back().end - segs.back().begin) >= segment_every_;
        break;
      case SegmentMode::kManual:
        start = start || starts_segment_[i];
        break;
    }
    if (start) segs.push_back({static_cast<std::int32_t>(i), static_cast<std::int32_t>(i)});
    segs.back().end = static_cast<std::int32_t>(i + 1);
  }
  return segs;
}

Result<BuiltModel> ModelBuilder::build() const& { return finish(weights_); }

Result<BuiltModel> ModelBuilder::build() && { return finish(std::move(weights_)); }

Result<BuiltModel> ModelBuilder::build_without_image() && { return finish(std::move(weights_), false); }

Result<BuiltModel> ModelBuilder::finish(std::vector<std::uint8_t> weights, bool image) const {
  if (!status_.ok()) return status_;
  BuiltModel m;
  m.program = program_;
  m.weights = std::move(weights);
  m.program.segments = make_segments();
  // A recurrent net runs at most the time steps of its recurrent layers' input (validate()
  // checks that they agree).
  m.program.flags.max_total_t = 0;
  for (const model::Layer& l : m.program.layers) {
    if (!model::is_recurrent_op(l.op) || l.inputs.empty() || l.inputs[0] < 0) continue;
    const auto steps = model::recurrent_time_steps(l, m.program.tensors[static_cast<std::size_t>(l.inputs[0])].dims);
    if (steps && *steps > 0) m.program.flags.max_total_t = static_cast<std::uint64_t>(*steps);
    break;
  }
  m.program.flags.task_buf_size = task_buf_size_for(m.program.layers.size());
  SVP_RETURN_IF_ERROR(plan_work_buf(&m.program));
  SVP_RETURN_IF_ERROR(m.program.validate(m.weights.size()));
  if (image) m.image = write_model(m.program, m.weights.data(), m.weights.size());
  return m;
}

// ---------------------------------------------------------------------------------------
std::uint64_t task_buf_size_for(std::size_t layers) { return 4096 + 256 * static_cast<std::uint64_t>(layers); }

namespace {

// The runtime folds the elementwise layers that follow a convolution or a matrix product
// into it (kernels/onednn/program.cpp: post-ops, a residual sum, a bias and GELU): that
// layer then writes the chain's last output while it still reads its own input. Were the
// input's memory given to that output (free by then in layer order), the runtime would
// have to compute into scratch and copy (PP-OCR, MobileNetV2: a 4.8 MB copy per run). So
// the input lives to the end of the chain the runtime could fold. A chain it does not
// fold only keeps the input a few layers longer.
void extend_inputs_over_fusable_chains(const Program &p, std::vector<std::int32_t> *last) {
  constexpr std::size_t kMaxChain = 8;  // longer than any group the runtime folds
  const std::size_t n = last->size();
  for (std::size_t li = 0; li < p.layers.size(); ++li) {
    const model::Layer &l = p.layers[li];
    const ops::FastPath fast = ops::op_def(l.op).fast;
    if ((fast != ops::FastPath::kConvolution && fast != ops::FastPath::kInnerProduct) || l.outputs.size() != 1) continue;
    std::int32_t cur = l.outputs[0];
    std::size_t end = li;
    for (std::size_t j = li + 1; j < p.layers.size() && j <= li + kMaxChain; ++j) {
      const model::Layer &f = p.layers[j];
      const ops::OpClass c = ops::op_def(f.op).op_class;
      if ((c != ops::OpClass::kActivation && c != ops::OpClass::kElementwise) || f.outputs.size() != 1) break;
      // Each step reads the one before (SiLU too: Sigmoid(t), then Mul(t, that)).
      if (std::find(f.inputs.begin(), f.inputs.end(), cur) == f.inputs.end()) break;
      cur = f.outputs[0];
      end = j;
    }
    if (end == li) continue;
    for (std::int32_t t : l.inputs) {
      if (t >= 0 && static_cast<std::size_t>(t) < n)
        (*last)[static_cast<std::size_t>(t)] = std::max((*last)[static_cast<std::size_t>(t)], static_cast<std::int32_t>(end));
    }
  }
}

}  // namespace

Status plan_work_buf(Program *program) {
  Program &p = *program;
  const std::size_t n = p.tensors.size();
  std::vector<std::int32_t> def(n, -1), last(n, -1);
  for (std::size_t li = 0; li < p.layers.size(); ++li) {
    const auto l = static_cast<std::int32_t>(li);
    for (std::int32_t t : p.layers[li].inputs) {
      if (t >= 0 && static_cast<std::size_t>(t) < n) last[static_cast<std::size_t>(t)] = l;
    }
    for (std::int32_t t : p.layers[li].outputs) {
      if (t >= 0 && static_cast<std::size_t>(t) < n && def[static_cast<std::size_t>(t)] == -1) {
        def[static_cast<std::size_t>(t)] = l;
        last[static_cast<std::size_t>(t)] = std::max(last[static_cast<std::size_t>(t)], l);
      }
    }
  }
  extend_inputs_over_fusable_chains(p, &last);
  struct Item {
    std::size_t tensor;
    std::int32_t def, last;
    std::uint64_t size, offset;
  };
  std::vector<Item> items;
  for (std::size_t i = 0; i < n; ++i) {
    Tensor &t = p.tensors[i];
    if (t.placement != Placement::kWorkBuf) continue;
    t.offset = 0;
    // Unproduced or read-before-produced tensors are left at 0 for validate()
    // to report.
    if (def[i] < 0 || last[i] < def[i]) continue;
    items.push_back({i, def[i], last[i], t.size, 0});
  }
  // With a reuse type that involves inputs/outputs, their memory is part of the
  // arena: pre-placed, busy from the start to the last reader (inputs) or from
  // the producer to the end (outputs). Intermediates fill the gaps and never
  // straddle a non-joined boundary.
  std::vector<Item> fixed;
  std::vector<std::uint64_t> hard_boundaries;
  std::uint64_t work_base = 0;
  if (reuses_io(p.flags.buffer_reuse)) {
    const auto parts = arena_parts(p);
    if (!parts) return Error(err::kParseModel, "the buffer-reuse arena size overflows");
    for (const ArenaPart &part : *parts) {
      if (!part.joined && part.offset > 0) hard_boundaries.push_back(part.offset);
      if (part.kind == ArenaPart::Kind::kWorkBuf) {
        work_base = part.offset;
        continue;
      }
      const auto ti = static_cast<std::size_t>(part.tensor);
      const bool in = part.kind == ArenaPart::Kind::kInput;
      fixed.push_back(
          {ti, in ? -1 : def[ti], in ? last[ti] : std::numeric_limits<std::int32_t>::max(), part.size, part.offset});
    }
  }
  // Greedy first fit in a given order. Largest-first is best for a plain
  // work_buf; with pre-placed inputs, placing the latest-born tensors first
  // lets them take the input memory that is free by then, so both orders are
  // tried and the smaller plan wins.
  auto place = [&](std::vector<Item> &order) {
    std::vector<const Item *> placed, conflicts;
    for (const Item &f : fixed) placed.push_back(&f);
    std::uint64_t peak = work_base;
    for (Item &it : order) {
      conflicts.clear();
      for (const Item *q : placed) {
        if (q->def <= it.last && it.def <= q->last) conflicts.push_back(q);
      }
      std::sort(conflicts.begin(), conflicts.end(), [](const Item *a, const Item *b) { return a->offset < b->offset; });
      // Lowest offset that neither overlaps a conflicting item nor straddles a
      // boundary.
      std::uint64_t off = 0;
      for (bool moved = true; moved;) {
        moved = false;
        for (std::uint64_t b : hard_boundaries) {
          if (off < b && off + it.size > b) {
            off = align_up(b, kBufferAlign);
            moved = true;
          }
        }
        for (const Item *q : conflicts) {
          if (off < q->offset + q->size && q->offset < off + it.size) {
            off = align_up(q->offset + q->size, kBufferAlign);
            moved = true;
          }
        }
      }
      it.offset = off;
      peak = std::max(peak, off + it.size);
      placed.push_back(&it);
    }
    return peak;
  };
  std::vector<Item> by_size = items;
  std::sort(by_size.begin(), by_size.end(), [](const Item &a, const Item &b) {
    if (a.size != b.size) return a.size > b.size;
    if (a.def != b.def) return a.def < b.def;
    return a.tensor < b.tensor;
  });
  std::uint64_t peak = place(by_size);
  const std::vector<Item> *best = &by_size;
  std::vector<Item> by_birth = items;
  if (!fixed.empty()) {
    std::sort(by_birth.begin(), by_birth.end(), [](const Item &a, const Item &b) {
      if (a.def != b.def) return a.def > b.def;
      if (a.size != b.size) return a.size > b.size;
      return a.tensor < b.tensor;
    });
    const std::uint64_t alt = place(by_birth);
    if (alt < peak) {
      peak = alt;
      best = &by_birth;
    }
  }
  for (const Item &it : *best) p.tensors[it.tensor].offset = it.offset;
  p.flags.work_buf_size = std::max<std::uint64_t>(kBufferAlign, align_up(peak - work_base, kBufferAlign));
  return Status::Ok();
}

}  // namespace svp::compiler
