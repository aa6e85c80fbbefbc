// svp::acl models: load/unload, descriptions (tensors by name with dims, data type,
// format and stride), datasets, and model_io, which builds the input and output datasets
// of a model in one call following the vendor procedure (spec §2.2), with stride-aware
// views of every tensor.
//
// Ownership. A model holds the runtime and, when loaded from a std::vector, its image
// (the vendor does not copy images). A dataset owns the data buffers added to it, and
// they their memory. Asynchronous executions (svp/acl/asio.hpp) hold the model and the
// datasets until they complete, so destroying the handles early is safe: the model is
// unloaded and the memory freed after the last execution that uses them.
// Threading: one thread at a time per object; a model may be executed from several
// threads. Errors: svp/acl/error.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "acl/svp_acl_mdl.h"
#include "svp/acl/error.hpp"
#include "svp/acl/memory.hpp"
#include "svp/acl/runtime.hpp"

namespace svp::acl {

namespace detail {
struct model_state {
  runtime_token runtime;
  std::shared_ptr<const std::vector<std::uint8_t>> image;  // null: caller keeps the image
  std::uint32_t id = 0;
  ~model_state() { (void)svp_acl_mdl_unload(id); }
};
struct config_state {
  svp_acl_mdl_config_handle* handle = nullptr;
  ~config_state() { (void)svp_acl_mdl_destroy_config_handle(handle); }
};
struct desc_state {
  runtime_token runtime;
  svp_acl_mdl_desc* handle = nullptr;
  ~desc_state() { (void)svp_acl_mdl_destroy_desc(handle); }
};
struct dataset_state {
  svp_acl_mdl_dataset* handle = nullptr;
  std::vector<std::shared_ptr<buffer_state>> buffers;  // in index order
  ~dataset_state() { (void)svp_acl_mdl_destroy_dataset(handle); }
};
}  // namespace detail

// One input or output of a model as the description reports it.
struct tensor_desc {
  std::size_t index = 0;
  std::string name;
  std::vector<std::int64_t> dims;
  svp_acl_data_type data_type = SVP_ACL_DT_UNDEFINED;
  svp_acl_format format = SVP_ACL_FORMAT_UNDEFINED;
  std::size_t size = 0;            // one batch item at the default stride (task/work_buf: all)
  std::size_t default_stride = 0;  // bytes between rows

  std::size_t element_bits() const { return svp_acl_data_type_size(data_type); }
  // Dense bytes of one row (the last dimension).
  std::size_t row_bytes() const {
    return dims.empty() ? 0 : static_cast<std::size_t>(dims.back()) * ((element_bits() + 7) / 8);
  }
  // Rows of one batch item (product of all dimensions but the last).
  std::size_t rows() const {
    std::size_t r = 1;
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) r *= static_cast<std::size_t>(dims[i]);
    return r;
  }
};

// Scheduling attributes of a model (svp_acl_mdl_create_config_handle /
// svp_acl_mdl_destroy_config_handle): given when loading (model(rt, image, config)) or
// applied to a loaded model (model::configure). Unset attributes keep their defaults.
class model_config {
 public:
  model_config() = default;  // empty; use model_config::create
  static model_config create() {
    model_config c;
    detail::raise_if(c.open());
    return c;
  }
  model_config(model_config&&) noexcept = default;
  model_config& operator=(model_config&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  svp_acl_mdl_config_handle* native_handle() const noexcept { return state_ ? state_->handle : nullptr; }

  model_config& priority(std::int32_t p) { return set(SVP_ACL_MDL_PRIORITY_INT32, &p, sizeof p); }
  model_config& preemption(bool on) {
    const std::int32_t v = on ? 1 : 0;
    return set(SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL, &v, sizeof v);
  }
  model_config& step_promotion_ms(std::uint32_t ms) { return set(SVP_ACL_MDL_PRIORITY_UP_STEP_TIMEOUT_UINT32, &ms, sizeof ms); }
  model_config& top_promotion_ms(std::uint32_t ms) { return set(SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32, &ms, sizeof ms); }

  // Sets any attribute (value as svp_acl_mdl_set_config_opt expects it).
  model_config& set(svp_acl_mdl_config_attr attr, const void* value, std::size_t size) {
    if (!state_) detail::raise_if(detail::moved_from("svp::acl::model_config"));
    detail::raise_if(
        detail::call(svp_acl_mdl_set_config_opt(state_->handle, attr, value, size), "svp_acl_mdl_set_config_opt"));
    return *this;
  }

 private:
  detail::status open() {
    svp_acl_mdl_config_handle* h = svp_acl_mdl_create_config_handle();
    if (h == nullptr) {
      return detail::fail(SVP_ACL_ERROR_BAD_ALLOC, "svp_acl_mdl_create_config_handle", svp_acl_get_recent_err_msg());
    }
    state_ = std::make_shared<detail::config_state>();
    state_->handle = h;
    return {};
  }
  std::shared_ptr<detail::config_state> state_;
};

class model;

// svp_acl_mdl_create_desc + svp_acl_mdl_get_desc / svp_acl_mdl_destroy_desc.
class model_desc {
 public:
  model_desc() = default;
  explicit model_desc(const model& m);
  model_desc(const model& m, std::error_code& ec);
  model_desc(model_desc&&) noexcept = default;
  model_desc& operator=(model_desc&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  const svp_acl_mdl_desc* native_handle() const noexcept { return state_ ? state_->handle : nullptr; }

  // All inputs including task_buf and work_buf (M), the data inputs (M - 2), the outputs.
  std::size_t num_inputs() const noexcept { return svp_acl_mdl_get_num_inputs(native_handle()); }
  std::size_t num_data_inputs() const noexcept { return num_inputs() >= 2 ? num_inputs() - 2 : 0; }
  std::size_t num_outputs() const noexcept { return svp_acl_mdl_get_num_outputs(native_handle()); }

  tensor_desc input(std::size_t index) const { return describe(true, index); }
  tensor_desc output(std::size_t index) const { return describe(false, index); }
  // By name; throws SVP_ACL_ERROR_INVALID_PARAM naming the tensor when there is none.
  tensor_desc input(std::string_view name) const { return describe(true, find(true, name)); }
  tensor_desc output(std::string_view name) const { return describe(false, find(false, name)); }
  tensor_desc task_buf() const { return input(num_inputs() - 2); }
  tensor_desc work_buf() const { return input(num_inputs() - 1); }

 private:
  friend class model;
  std::size_t find(bool in, std::string_view name) const {
    std::size_t index = 0;
    const std::string n(name);
    detail::raise_if(in ? detail::call(svp_acl_mdl_get_input_index_by_name(native_handle(), n.c_str(), &index),
                                       "svp_acl_mdl_get_input_index_by_name")
                        : detail::call(svp_acl_mdl_get_output_index_by_name(native_handle(), n.c_str(), &index),
                                       "svp_acl_mdl_get_output_index_by_name"));
    return index;
  }
  tensor_desc describe(bool in, std::size_t index) const {
    const svp_acl_mdl_desc* d = native_handle();
    if (d == nullptr) detail::raise_if(detail::moved_from("svp::acl::model_desc"));
    svp_acl_mdl_io_dims dims{};
    detail::raise_if(in ? detail::call(svp_acl_mdl_get_input_dims(d, index, &dims), "svp_acl_mdl_get_input_dims")
                        : detail::call(svp_acl_mdl_get_output_dims(d, index, &dims), "svp_acl_mdl_get_output_dims"));
    tensor_desc t;
    t.index = index;
    t.name = dims.name;
    t.dims.assign(dims.dims, dims.dims + dims.dim_count);
    t.data_type = in ? svp_acl_mdl_get_input_data_type(d, index) : svp_acl_mdl_get_output_data_type(d, index);
    t.format = in ? svp_acl_mdl_get_input_format(d, index) : svp_acl_mdl_get_output_format(d, index);
    t.size = in ? svp_acl_mdl_get_input_size_by_index(d, index) : svp_acl_mdl_get_output_size_by_index(d, index);
    t.default_stride =
        in ? svp_acl_mdl_get_input_default_stride(d, index) : svp_acl_mdl_get_output_default_stride(d, index);
    return t;
  }
  detail::status open(const model& m);

  std::shared_ptr<detail::desc_state> state_;
};

// A loaded model (svp_acl_mdl_load_from_mem / svp_acl_mdl_unload).
class model {
 public:
  model() = default;
  // Loads an image the model keeps (moved in): nothing else to keep alive.
  model(const runtime& rt, std::vector<std::uint8_t> image) {
    detail::raise_if(open(rt, std::make_shared<const std::vector<std::uint8_t>>(std::move(image))));
  }
  model(const runtime& rt, std::vector<std::uint8_t> image, std::error_code& ec) {
    detail::assign(open(rt, std::make_shared<const std::vector<std::uint8_t>>(std::move(image))), ec);
  }
  // As above with scheduling attributes (svp_acl_mdl_load_with_config; the load attributes
  // are set on `config` here).
  model(const runtime& rt, std::vector<std::uint8_t> image, model_config& config) {
    detail::raise_if(open(rt, std::make_shared<const std::vector<std::uint8_t>>(std::move(image)), &config));
  }
  // Loads an image the caller keeps valid and unchanged until the model is unloaded.
  model(const runtime& rt, const void* image, std::size_t size) { detail::raise_if(open_borrowed(rt, image, size)); }

  model(model&&) noexcept = default;
  model& operator=(model&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  std::uint32_t id() const noexcept { return state_ ? state_->id : 0; }
  model_desc describe() const { return model_desc(*this); }

  // Applies the scheduling attributes set on `config` to later executions
  // (svp_acl_mdl_set_model_config).
  void configure(const model_config& config) {
    if (!state_ || !config) detail::raise_if(detail::moved_from("svp::acl::model::configure"));
    detail::raise_if(detail::call(svp_acl_mdl_set_model_config(state_->id, config.native_handle()),
                                  "svp_acl_mdl_set_model_config"));
  }

  // Synchronous execution on the default stream of `ctx` (made current on this thread).
  template <class In, class Out>
  void execute(const context& ctx, const In& in, const Out& out) {
    detail::raise_if(run(ctx, in.native_handle(), out.native_handle()));
  }
  template <class In, class Out>
  void execute(const context& ctx, const In& in, const Out& out, std::error_code& ec) {
    detail::assign(run(ctx, in.native_handle(), out.native_handle()), ec);
  }

  const std::shared_ptr<detail::model_state>& state() const noexcept { return state_; }

 private:
  detail::status open(const runtime& rt, std::shared_ptr<const std::vector<std::uint8_t>> image,
                      model_config* config = nullptr) {
    detail::status st = open_borrowed(rt, image->data(), image->size(), config);
    if (!st.failed()) state_->image = std::move(image);
    return st;
  }
  detail::status open_borrowed(const runtime& rt, const void* image, std::size_t size,
                               model_config* config = nullptr) {
    if (!rt) return detail::moved_from("svp::acl::model");
    std::uint32_t id = 0;
    detail::status st;
    if (config == nullptr) {
      st = detail::call(svp_acl_mdl_load_from_mem(image, size, &id), "svp_acl_mdl_load_from_mem");
    } else {
      if (!*config) return detail::moved_from("svp::acl::model");
      const std::size_t type = SVP_ACL_MDL_LOAD_FROM_MEM;
      config->set(SVP_ACL_MDL_LOAD_TYPE_SIZET, &type, sizeof type);
      config->set(SVP_ACL_MDL_MEM_ADDR_PTR, &image, sizeof image);
      config->set(SVP_ACL_MDL_MEM_SIZET, &size, sizeof size);
      st = detail::call(svp_acl_mdl_load_with_config(config->native_handle(), &id), "svp_acl_mdl_load_with_config");
    }
    if (st.failed()) return st;
    state_ = std::make_shared<detail::model_state>();
    state_->runtime = rt.token();
    state_->id = id;
    return {};
  }
  detail::status run(const context& ctx, const svp_acl_mdl_dataset* in, const svp_acl_mdl_dataset* out) {
    if (!state_ || !ctx) return detail::moved_from("svp::acl::model::execute");
    detail::status st = detail::make_current(ctx.native_handle());
    if (st.failed()) return st;
    return detail::call(svp_acl_mdl_execute(state_->id, in, out), "svp_acl_mdl_execute");
  }

  std::shared_ptr<detail::model_state> state_;
};

inline detail::status model_desc::open(const model& m) {
  if (!m) return detail::moved_from("svp::acl::model_desc");
  svp_acl_mdl_desc* d = svp_acl_mdl_create_desc();
  if (d == nullptr) return detail::fail(SVP_ACL_ERROR_BAD_ALLOC, "svp_acl_mdl_create_desc", svp_acl_get_recent_err_msg());
  auto s = std::make_shared<detail::desc_state>();
  s->runtime = m.state()->runtime;
  s->handle = d;
  detail::status st = detail::call(svp_acl_mdl_get_desc(d, m.id()), "svp_acl_mdl_get_desc");
  if (!st.failed()) state_ = std::move(s);
  return st;
}
inline model_desc::model_desc(const model& m) { detail::raise_if(open(m)); }
inline model_desc::model_desc(const model& m, std::error_code& ec) { detail::assign(open(m), ec); }

// An ordered list of data buffers (svp_acl_mdl_create_dataset / _destroy_dataset). It owns
// the buffers added to it.
class dataset {
 public:
  dataset() = default;  // empty; use dataset::create
  static dataset create() {
    dataset d;
    detail::raise_if(d.open());
    return d;
  }
  static dataset create(std::error_code& ec) {
    dataset d;
    detail::assign(d.open(), ec);
    return d;
  }
  dataset(dataset&&) noexcept = default;
  dataset& operator=(dataset&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  svp_acl_mdl_dataset* native_handle() const noexcept { return state_ ? state_->handle : nullptr; }
  std::size_t size() const noexcept { return state_ ? state_->buffers.size() : 0; }
  svp_acl_data_buffer* buffer(std::size_t i) const noexcept { return svp_acl_mdl_get_dataset_buffer(native_handle(), i); }

  // Appends `b` (its position is its input/output index) and takes ownership of it.
  void add(data_buffer b) { detail::raise_if(append(std::move(b))); }
  void add(data_buffer b, std::error_code& ec) { detail::assign(append(std::move(b)), ec); }

  const std::shared_ptr<detail::dataset_state>& state() const noexcept { return state_; }

 private:
  detail::status open() {
    svp_acl_mdl_dataset* h = svp_acl_mdl_create_dataset();
    if (h == nullptr) {
      return detail::fail(SVP_ACL_ERROR_BAD_ALLOC, "svp_acl_mdl_create_dataset", svp_acl_get_recent_err_msg());
    }
    state_ = std::make_shared<detail::dataset_state>();
    state_->handle = h;
    return {};
  }
  detail::status append(data_buffer b) {
    if (!state_ || !b) return detail::moved_from("svp::acl::dataset::add");
    detail::status st =
        detail::call(svp_acl_mdl_add_dataset_buffer(state_->handle, b.native_handle()), "svp_acl_mdl_add_dataset_buffer");
    if (!st.failed()) state_->buffers.push_back(b.state());
    return st;
  }

  std::shared_ptr<detail::dataset_state> state_;
};

// A stride-aware view of one tensor in a data buffer: `rows()` rows of `row_bytes()`
// bytes per batch item, `stride()` bytes apart; the padding between rows is never read
// or written by the copy helpers.
class tensor_view {
 public:
  tensor_view() = default;
  tensor_view(tensor_desc desc, void* data, std::size_t stride, std::uint64_t batch)
      : desc_(std::move(desc)), data_(static_cast<std::byte*>(data)), stride_(stride), batch_(batch) {}

  const tensor_desc& desc() const noexcept { return desc_; }
  std::size_t stride() const noexcept { return stride_; }
  std::size_t rows() const noexcept { return desc_.rows(); }
  std::size_t row_bytes() const noexcept { return desc_.row_bytes(); }
  std::uint64_t batch() const noexcept { return batch_; }
  // Dense bytes of one batch item.
  std::size_t dense_bytes() const noexcept { return rows() * row_bytes(); }

  std::byte* row(std::size_t r, std::uint64_t item = 0) const {
    check_item(item, "svp::acl::tensor_view::row");
    if (r >= rows()) raise_range("svp::acl::tensor_view::row", "row " + std::to_string(r), rows());
    return data_ + (item * rows() + r) * stride_;
  }
  template <class T>
  T* row_as(std::size_t r, std::uint64_t item = 0) const {
    check_type<T>("svp::acl::tensor_view::row_as");
    return reinterpret_cast<T*>(row(r, item));
  }

  // Copies dense row-major bytes of one batch item in (write) or out (read).
  void write(const void* dense, std::size_t bytes, std::uint64_t item = 0) const { copy(dense, bytes, item, true); }
  void read(void* dense, std::size_t bytes, std::uint64_t item = 0) const {
    copy(dense, bytes, item, false);
  }
  template <class T>
  void assign(const std::vector<T>& values, std::uint64_t item = 0) const {
    check_type<T>("svp::acl::tensor_view::assign");
    write(values.data(), values.size() * sizeof(T), item);
  }
  template <class T>
  std::vector<T> to_vector(std::uint64_t item = 0) const {
    check_type<T>("svp::acl::tensor_view::to_vector");
    check_item(item, "svp::acl::tensor_view::to_vector");
    std::vector<T> v(dense_bytes() / sizeof(T));
    read(v.data(), v.size() * sizeof(T), item);
    return v;
  }

 private:
  [[noreturn]] static void raise_range(const char* fn, const std::string& what, std::size_t limit) {
    detail::raise_if(detail::fail(SVP_ACL_ERROR_INVALID_PARAM, fn, what + " is out of range (" + std::to_string(limit) + ")"));
    std::abort();  // not reached
  }
  void check_item(std::uint64_t item, const char* fn) const {
    if (data_ == nullptr) detail::raise_if(detail::moved_from(fn));
    if (item >= batch_) raise_range(fn, "batch item " + std::to_string(item), batch_);
  }
  template <class T>
  void check_type(const char* fn) const {
    if (sizeof(T) * 8 != desc_.element_bits()) {
      detail::raise_if(detail::fail(SVP_ACL_ERROR_INVALID_PARAM, fn,
                                    "tensor '" + desc_.name + "' has " + std::to_string(desc_.element_bits()) +
                                        "-bit elements, not " + std::to_string(sizeof(T) * 8) + "-bit ones"));
    }
  }
  void copy(const void* dense, std::size_t bytes, std::uint64_t item, bool in) const {
    const char* fn = in ? "svp::acl::tensor_view::write" : "svp::acl::tensor_view::read";
    check_item(item, fn);
    if (bytes != dense_bytes()) {
      detail::raise_if(detail::fail(SVP_ACL_ERROR_INVALID_PARAM, fn,
                                    "tensor '" + desc_.name + "' holds " + std::to_string(dense_bytes()) +
                                        " dense bytes per batch item, not " + std::to_string(bytes)));
    }
    const std::size_t rb = row_bytes();
    std::byte* base = data_ + item * rows() * stride_;
    for (std::size_t r = 0; r < rows(); ++r) {
      if (in) {
        std::memcpy(base + r * stride_, static_cast<const std::byte*>(dense) + r * rb, rb);
      } else {
        std::memcpy(static_cast<std::byte*>(const_cast<void*>(dense)) + r * rb, base + r * stride_, rb);
      }
    }
  }

  tensor_desc desc_;
  std::byte* data_ = nullptr;
  std::size_t stride_ = 0;
  std::uint64_t batch_ = 1;
};

struct io_options {
  std::uint64_t batch = 1;  // batch items (svp_acl_mdl_set_dynamic_batch_size when != 1)
  bool cached = false;      // data inputs and outputs in cached memory (flush/invalidate!)
  // Row stride per data tensor (inputs and outputs); 0 or an empty function = the
  // default. Must be a multiple of 16 and at least the default stride.
  std::function<std::size_t(const tensor_desc&)> stride;
};

// The datasets of one model built as the vendor sample does (spec §2.2): one allocation
// per data input (size × batch at its stride), then task_buf and work_buf, then one per
// output; all zeroed (and flushed when cached). Owns everything it allocated.
class model_io {
 public:
  model_io() = default;
  model_io(const runtime& rt, const model& m, const io_options& options = {}) {
    detail::raise_if(build(rt, m, options));
  }
  model_io(const runtime& rt, const model& m, const io_options& options, std::error_code& ec) {
    detail::assign(build(rt, m, options), ec);
  }
  model_io(model_io&&) noexcept = default;
  model_io& operator=(model_io&&) noexcept = default;

  explicit operator bool() const noexcept { return static_cast<bool>(inputs_); }
  const dataset& inputs() const noexcept { return inputs_; }
  const dataset& outputs() const noexcept { return outputs_; }
  const model_desc& desc() const noexcept { return desc_; }
  std::uint64_t batch() const noexcept { return batch_; }

  tensor_view input(std::size_t index) const { return view(true, desc_.input(index)); }
  tensor_view input(std::string_view name) const { return view(true, desc_.input(name)); }
  tensor_view output(std::size_t index) const { return view(false, desc_.output(index)); }
  tensor_view output(std::string_view name) const { return view(false, desc_.output(name)); }

  // Cached memory only (no-ops otherwise): after writing inputs / before reading outputs.
  void flush_inputs() { maintain(inputs_, true); }
  void invalidate_outputs() { maintain(outputs_, false); }

 private:
  detail::status build(const runtime& rt, const model& m, const io_options& o) {
    if (!rt || !m) return detail::moved_from("svp::acl::model_io");
    std::error_code ec;
    model_desc d(m, ec);
    if (ec) return detail::fail(ec.value(), "svp_acl_mdl_get_desc", last_failure().message);
    desc_ = std::move(d);
    batch_ = o.batch;
    dataset in = dataset::create(ec);
    if (ec) return detail::fail(ec.value(), "svp_acl_mdl_create_dataset", last_failure().message);
    dataset out = dataset::create(ec);
    if (ec) return detail::fail(ec.value(), "svp_acl_mdl_create_dataset", last_failure().message);
    const std::size_t m_in = desc_.num_inputs();
    if (m_in < 2) {
      return detail::fail(SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::model_io",
                          "the model reports " + std::to_string(m_in) + " inputs; task_buf and work_buf are missing");
    }
    for (std::size_t i = 0; i < m_in; ++i) {
      const bool data = i + 2 < m_in;
      detail::status st = add(rt, in, desc_.input(i), data, o);
      if (st.failed()) return st;
    }
    for (std::size_t i = 0; i < desc_.num_outputs(); ++i) {
      detail::status st = add(rt, out, desc_.output(i), true, o);
      if (st.failed()) return st;
    }
    if (o.batch != 1) {
      std::size_t dyn = 0;
      detail::status st = detail::call(
          svp_acl_mdl_get_input_index_by_name(desc_.native_handle(), SVP_ACL_DYNAMIC_TENSOR_NAME, &dyn),
          "svp_acl_mdl_get_input_index_by_name");
      if (st.failed()) return st;
      st = detail::call(svp_acl_mdl_set_dynamic_batch_size(m.id(), in.native_handle(), dyn, o.batch),
                        "svp_acl_mdl_set_dynamic_batch_size");
      if (st.failed()) return st;
    }
    inputs_ = std::move(in);
    outputs_ = std::move(out);
    return {};
  }

  detail::status add(const runtime& rt, dataset& ds, const tensor_desc& t, bool data, const io_options& o) {
    std::size_t stride = t.default_stride;
    std::size_t size = t.size;
    if (data) {
      const std::size_t want = o.stride ? o.stride(t) : 0;
      if (want != 0) {
        if (want % 16 != 0 || want < t.default_stride) {
          return detail::fail(SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::model_io",
                              "stride " + std::to_string(want) + " for tensor '" + t.name +
                                  "' must be a multiple of 16 and at least the default stride " +
                                  std::to_string(t.default_stride));
        }
        size = t.default_stride == 0 ? size : size / t.default_stride * want;
        stride = want;
      }
      size *= o.batch;
    }
    std::error_code ec;
    data_buffer b;
    if (data && o.cached) {
      cached_memory mem(rt, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY, ec);
      if (ec) return detail::fail(ec.value(), "svp_acl_rt_malloc_cached", last_failure().message);
      std::memset(mem.data(), 0, size);
      mem.flush(ec);
      if (ec) return detail::fail(ec.value(), "svp_acl_rt_mem_flush", last_failure().message);
      b = data_buffer(mem, stride);
    } else {
      device_memory mem(rt, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY, ec);
      if (ec) return detail::fail(ec.value(), "svp_acl_rt_malloc", last_failure().message);
      std::memset(mem.data(), 0, size);
      b = data_buffer(mem, stride);
    }
    ds.add(std::move(b), ec);
    if (ec) return detail::fail(ec.value(), "svp_acl_mdl_add_dataset_buffer", last_failure().message);
    return {};
  }

  tensor_view view(bool in, const tensor_desc& t) const {
    const dataset& ds = in ? inputs_ : outputs_;
    svp_acl_data_buffer* b = ds.buffer(t.index);
    if (b == nullptr) detail::raise_if(detail::moved_from("svp::acl::model_io"));
    return tensor_view(t, svp_acl_get_data_buffer_addr(b), svp_acl_get_data_buffer_stride(b), batch_);
  }

  void maintain(const dataset& ds, bool flush) {
    for (const auto& b : ds.state() ? ds.state()->buffers : std::vector<std::shared_ptr<detail::buffer_state>>{}) {
      if (!b->memory || !b->memory->cached) continue;
      detail::raise_if(flush ? detail::call(svp_acl_rt_mem_flush(b->memory->data, b->memory->size), "svp_acl_rt_mem_flush")
                             : detail::call(svp_acl_rt_mem_invalidate(b->memory->data, b->memory->size),
                                            "svp_acl_rt_mem_invalidate"));
    }
  }

  model_desc desc_;
  dataset inputs_;
  dataset outputs_;
  std::uint64_t batch_ = 1;
};

}  // namespace svp::acl
