// Dynamic input shapes (rknn_set_input_shapes, RKNN_QUERY_INPUT_DYNAMIC_RANGE, the
// RKNN_QUERY_CURRENT_* attributes) on the software NPU's gears. An RKNN dynamic-shape model
// carries a list of shape sets (rknn-toolkit2's `dynamic_input`, one shape per input in each
// set); svp-acl builds such a model with gears: sets that differ in the batch only become
// batch gears (`--dynamic_batch_size`: the program holds one item and runs the set's batch
// as that many items), sets that differ in the height and width of image inputs become
// resolution gears (`--dynamic_image_size`: one derived program per gear); a model with both
// offers every batch at every resolution. Each context
// selects its own set (the model's gear settings are shared by every context running it),
// and its buffers are sized for the largest set, so switching never reallocates.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/rknn_ctx.h"

namespace svp::runtime::rknn {
namespace {

// The batch gears svp_atc / rknn_convert recorded ("--dynamic_batch_size=1,2,4" or
// "--dynamic_batch_size 1,2,4" in the image's command line): the image keeps only the
// largest, and RKNN applications are offered exactly the listed sets.
std::vector<std::uint64_t> recorded_batches(const std::string& command_line) {
  std::istringstream in(command_line);
  std::string tok, prev, list;
  static constexpr char kFlag[] = "--dynamic_batch_size";
  while (in >> tok) {
    if (tok.rfind(std::string(kFlag) + "=", 0) == 0)
      list = tok.substr(sizeof kFlag);
    else if (prev == kFlag)
      list = tok;
    prev = tok;
  }
  list.erase(std::remove(list.begin(), list.end(), '"'), list.end());
  list.erase(std::remove(list.begin(), list.end(), '\''), list.end());
  std::vector<std::uint64_t> out;
  std::stringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    try {
      const long long b = std::stoll(item);
      if (b <= 0) return {};
      out.push_back(static_cast<std::uint64_t>(b));
    } catch (const std::exception&) {
      return {};
    }
  }
  return out;
}

// The model's description of data input / output `i` of the context at shape set `s`.
model::IoDesc desc_at(const model::Model& m, bool input, std::size_t i, const ShapeSet& s) {
  const std::vector<model::IoDesc>& all = input ? m.inputs_at(s.gear) : m.outputs_at(s.gear);
  model::IoDesc d;
  if (input) {
    std::size_t n = 0;
    for (const model::IoDesc& x : all) {
      if (x.kind != model::IoKind::kData) continue;
      if (n++ == i) d = x;
    }
  } else {
    d = all[i];
  }
  if (s.batch > 1 && !d.dims.empty()) {
    d.dims[0] *= static_cast<std::int64_t>(s.batch);
    d.size *= s.batch;
  }
  return d;
}

// Dims as RKNN reports them (4-D inputs NHWC, the rest in model order).
std::vector<std::int64_t> reported(const std::vector<std::int64_t>& d, bool input) {
  if (input && d.size() == 4) return {d[0], d[2], d[3], d[1]};
  return d;
}

std::uint64_t elems_of(const std::vector<std::int64_t>& d) {
  std::uint64_t n = 1;
  for (std::int64_t x : d) n *= static_cast<std::uint64_t>(x);
  return n;
}

}  // namespace

void apply_shape(Ctx& c, const model::Model& m, std::size_t s) {
  for (int side = 0; side < 2; ++side) {
    const bool input = side == 0;
    std::vector<Io>& list = input ? c.inputs : c.outputs;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const model::IoDesc d = desc_at(m, input, i, c.shape_sets[s]);
      Io& io = list[i];
      io.desc.dims = d.dims;
      io.desc.stride = d.stride;
      io.desc.size = d.size;
      io.elems = elems_of(d.dims);
      fill_attr(io, static_cast<std::uint32_t>(i), input);
    }
  }
  c.shape = s;
}

int init_shapes(const char* fn, Ctx& c, const model::Model& m) {
  const model::ModelFlags& flags = m.program.flags;
  c.shape_sets.clear();
  std::vector<std::uint64_t> batches{1};
  if (!flags.dynamic_batch.empty()) {
    const std::uint64_t max = flags.dynamic_batch.back();
    batches = recorded_batches(m.program.compiler.command_line);
    if (batches.empty()) {  // compiled through the library: every batch up to the maximum
      for (std::uint64_t b = 1; b <= max; ++b) batches.push_back(b);
    }
    for (std::uint64_t b : batches) {
      if (b > max) {
        return fail(fn, RKNN_ERR_MODEL_INVALID,
                    fmt::format("the recorded batch gear {} exceeds the model's compiled maximum {}; rebuild the model",
                                b, max));
      }
    }
  }
  // Batch and resolution gears together: every batch at every resolution (any batch runs
  // at any gear), resolution-major in the gears' order.
  std::vector<std::int32_t> gears{-1};
  if (!flags.dynamic_hw.empty()) {
    gears.clear();
    for (std::size_t g = 0; g < m.gears.size(); ++g) gears.push_back(static_cast<std::int32_t>(g));
  }
  for (std::int32_t g : gears) {
    for (std::uint64_t b : batches) c.shape_sets.push_back({g, b});
  }
  if (c.shape_sets.size() > RKNN_MAX_DYNAMIC_SHAPE_NUM) {
    return not_implemented(fn, fmt::format("a model with {} shape sets (RKNN_QUERY_INPUT_DYNAMIC_RANGE holds {})",
                                           c.shape_sets.size(), RKNN_MAX_DYNAMIC_SHAPE_NUM));
  }
  // The largest set (the most input elements) is what INPUT_ATTR / OUTPUT_ATTR report and
  // what runs until rknn_set_input_shapes selects another.
  std::size_t largest = 0;
  std::uint64_t most = 0;
  for (std::size_t s = 0; s < c.shape_sets.size(); ++s) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) n += elems_of(desc_at(m, true, i, c.shape_sets[s]).dims);
    if (n > most) {
      most = n;
      largest = s;
    }
  }
  apply_shape(c, m, largest);
  for (auto* list : {&c.inputs, &c.outputs}) {
    for (Io& io : *list) {
      io.max_attr = io.attr;
      io.max_dims = io.desc.dims;
    }
  }
  return RKNN_SUCC;
}

std::string shape_sets_text(const Ctx& c, const model::Model& m) {
  std::string out;
  for (const ShapeSet& s : c.shape_sets) {
    std::string set;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      set += fmt::format("{}[{}]", i == 0 ? "" : " + ", fmt::join(reported(desc_at(m, true, i, s).dims, true), ","));
    }
    out += (out.empty() ? "" : "; ") + set;
  }
  return out;
}

namespace {

const model::Model* model_of(const char* fn, const Ctx& c, int* code) {
  auto loaded = c.rt->models().lookup(c.model->model_id);
  if (!loaded.ok()) {
    *code = fail(fn, RKNN_ERR_CTX_INVALID, loaded.status().message());
    return nullptr;
  }
  return loaded->model.get();
}

// The model-order dims `a` describes for input `io`: 4-D inputs NHWC (or NCHW), others in
// model order (fmt UNDEFINED); empty with *why when `a` does not describe a shape of it.
std::vector<std::int64_t> dims_from_attr(const rknn_tensor_attr& a, const Io& io, std::string* why) {
  const std::size_t rank = io.desc.dims.size();
  if (a.n_dims != rank) {
    *why = fmt::format("n_dims is {}, input {} (\"{}\") has {} dimensions", a.n_dims, a.index, io.desc.name, rank);
    return {};
  }
  std::vector<std::int64_t> d(rank);
  for (std::size_t k = 0; k < rank; ++k) d[k] = a.dims[k];
  const int fmt = raw_enum(a.fmt);
  if (rank == 4 && fmt == RKNN_TENSOR_NHWC) return {d[0], d[3], d[1], d[2]};
  if (rank == 4 && fmt == RKNN_TENSOR_NCHW) return d;
  if (rank != 4 && (fmt == RKNN_TENSOR_UNDEFINED || fmt == RKNN_TENSOR_NCHW || fmt == RKNN_TENSOR_NHWC)) return d;
  *why = fmt::format(
      "fmt {} does not describe input {} (\"{}\"): use RKNN_TENSOR_NHWC for a 4-D input, "
      "RKNN_TENSOR_UNDEFINED otherwise",
      fmt, a.index, io.desc.name);
  return {};
}

// Selects the set whose shapes equal `want` (model order; an empty entry matches anything).
int select(const char* fn, Ctx& c, const model::Model& m, const std::vector<std::vector<std::int64_t>>& want) {
  for (std::size_t s = 0; s < c.shape_sets.size(); ++s) {
    bool match = true;
    for (std::size_t i = 0; i < c.inputs.size() && match; ++i) {
      match = want[i].empty() || desc_at(m, true, i, c.shape_sets[s]).dims == want[i];
    }
    if (!match) continue;
    if (s != c.shape) {
      apply_shape(c, m, s);
      // New sizes: the application sets or binds its inputs and outputs again (the
      // vendor's flow: rknn_inputs_set / rknn_set_io_mem after each switch).
      c.input_set.assign(c.inputs.size(), false);
      for (Binding& b : c.in_bind) b = Binding{};
      for (Binding& b : c.out_bind) b = Binding{};
      // The outputs held (and RKNN_FLAG_ASYNC_MASK's snapshot) are the old set's: none of
      // the new set's exist until its first run.
      c.done_frame = 0;
      c.async_outputs.clear();
    }
    return RKNN_SUCC;
  }
  std::string asked;
  for (std::size_t i = 0; i < want.size(); ++i) {
    asked +=
        fmt::format("{}[{}]", i == 0 ? "" : " + ",
                    want[i].empty() ? std::string("any") : fmt::format("{}", fmt::join(reported(want[i], true), ",")));
  }
  return fail(fn, RKNN_ERR_INPUT_INVALID,
              fmt::format("{} is not one of the model's shape sets; allowed ({} sets, 4-D inputs as NHWC): {}", asked,
                          c.shape_sets.size(), shape_sets_text(c, m)));
}

}  // namespace

int set_input_shapes(Handle h, std::uint32_t n, const rknn_tensor_attr* attr, bool single) {
  const char* fn = single ? "rknn_set_input_shape" : "rknn_set_input_shapes";
  clear_last_error();
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  if (const int r = refuse_info_only(fn, c); r != RKNN_SUCC) return r;
  if (const int r = settle(fn, c); r != RKNN_SUCC) return r;  // the run in flight reads the buffers
  int code = RKNN_SUCC;
  const model::Model* m = model_of(fn, c, &code);
  if (m == nullptr) return code;
  if (m->program.flags.dynamic_batch.empty() && m->program.flags.dynamic_hw.empty()) {
    return fail(
        fn, RKNN_ERR_MODEL_INVALID,
        "the model has static shapes (build it with dynamic shapes: rknn_convert's models.configs.dynamic_input, "
        "or svp_atc's --dynamic_batch_size / --dynamic_image_size)");
  }
  if (!single && n != c.inputs.size()) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("n_inputs is {}, the model has {} inputs: give every input's shape", n, c.inputs.size()));
  }
  std::vector<std::vector<std::int64_t>> want(c.inputs.size());
  std::vector<bool> seen(c.inputs.size(), false);
  for (std::uint32_t k = 0; k < n; ++k) {
    const rknn_tensor_attr& a = attr[k];
    if (a.index >= c.inputs.size() || seen[a.index]) {
      return fail(
          fn, RKNN_ERR_PARAM_INVALID,
          a.index >= c.inputs.size()
              ? fmt::format("attr[{}].index {} is out of range (the model has {} inputs)", k, a.index, c.inputs.size())
              : fmt::format("attr[{}].index {} names an input twice", k, a.index));
    }
    seen[a.index] = true;
    std::string why;
    want[a.index] = dims_from_attr(a, c.inputs[a.index], &why);
    if (want[a.index].empty()) return fail(fn, RKNN_ERR_PARAM_INVALID, why);
  }
  if (single && c.inputs.size() > 1) {
    // One input given: the others keep their shapes when the set exists, else any set that
    // has this input's shape.
    std::vector<std::vector<std::int64_t>> keep = want;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      if (keep[i].empty()) keep[i] = c.inputs[i].desc.dims;
    }
    if (select(fn, c, *m, keep) == RKNN_SUCC) return RKNN_SUCC;
    clear_last_error();
  }
  return select(fn, c, *m, want);
}

// Rockchip's runtime answers a static-shape model with RKNN_ERR_MODEL_INVALID and "rknn model
// is static shape type, please export rknn with dynamic_shapes".
int query_dynamic_range(const char* fn, const Ctx& c, void* info, std::uint32_t size) {
  if (size < sizeof(rknn_input_range)) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("size {} is smaller than sizeof(rknn_input_range) = {}", size, sizeof(rknn_input_range)));
  }
  auto* r = static_cast<rknn_input_range*>(info);
  const std::uint32_t index = r->index;
  if (index >= c.inputs.size()) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("input index {} is out of range (the model has {} inputs)", index, c.inputs.size()));
  }
  int code = RKNN_SUCC;
  const model::Model* m = model_of(fn, c, &code);
  if (m == nullptr) return code;
  if (m->program.flags.dynamic_batch.empty() && m->program.flags.dynamic_hw.empty()) {
    return fail(fn, RKNN_ERR_MODEL_INVALID,
                "RKNN_QUERY_INPUT_DYNAMIC_RANGE: the model has static shapes (build it with dynamic shapes: "
                "rknn_convert's models.configs.dynamic_input); use RKNN_QUERY_INPUT_ATTR for its one input shape");
  }
  const Io& io = c.inputs[index];
  std::memset(r, 0, sizeof *r);
  r->index = index;
  r->shape_number = static_cast<std::uint32_t>(c.shape_sets.size());
  r->fmt = io.image ? RKNN_TENSOR_NHWC : RKNN_TENSOR_UNDEFINED;
  std::snprintf(r->name, sizeof r->name, "%s", io.desc.name.c_str());
  r->n_dims = static_cast<std::uint32_t>(io.desc.dims.size());
  for (std::size_t s = 0; s < c.shape_sets.size(); ++s) {
    const std::vector<std::int64_t> d = reported(desc_at(*m, true, index, c.shape_sets[s]).dims, true);
    for (std::size_t k = 0; k < d.size(); ++k) r->dyn_range[s][k] = static_cast<std::uint32_t>(d[k]);
  }
  return RKNN_SUCC;
}

}  // namespace svp::runtime::rknn
