// The SVP runtime from Python (svp_acl.Model, svp_acl.Stream; docs/python.md): a thin
// binding over the project's C++ API (include/svp/acl.hpp), itself a header over the C
// API. It converts between numpy and the model's strided datasets, checks arrays against
// the model description before anything reaches the runtime, releases the GIL around
// every call that can block, and runs Python completion callbacks with the GIL held on
// the context's report thread (the C++ API's asynchronous machinery, svp/acl/asio.hpp).
#include "svp_runtime.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "svp/acl.hpp"
#include "svp_run/aipp_input.h"
#include "svp_run/model_name.h"

namespace py = pybind11;
namespace acl = svp::acl;

namespace {

// The process's runtime, device 0 and one context, made by the first model or stream.
// librknnrt (the rknn half of this module) shares the software NPU's runtime singleton:
// when it started the runtime first, svp_acl_init refuses to start it again.
struct Env {
  acl::runtime rt;
  acl::device dev;
  acl::context ctx;
};
std::mutex g_env_mu;
Env* g_env = nullptr;  // never deleted: Python objects may outlive any teardown order

Env& env() {
  std::lock_guard<std::mutex> lock(g_env_mu);
  if (g_env == nullptr) {
    std::error_code ec;
    acl::runtime rt = acl::runtime::init(nullptr, ec);
    if (ec.value() == SVP_ACL_ERROR_REPEAT_INITIALIZE) {
      throw std::runtime_error(
          "svp_acl: svp_acl_init failed (" + acl::last_failure().message +
          "): the software NPU was already started in this process by librknnrt (rknn.api.RKNN.init_runtime): "
          "use svp_acl's runtime before RKNN's runtime in one process, or separate processes");
    }
    if (ec) throw std::runtime_error("svp_acl: svp_acl_init failed: " + acl::last_failure().message);
    auto* e = new Env{std::move(rt), {}, {}};
    e->dev = acl::device(e->rt, 0);
    e->ctx = acl::context(e->dev);
    g_env = e;
  }
  return *g_env;
}

// numpy dtype of an SVP data type; nullopt for the packed types (INT10 ...), which numpy
// has no element type for.
std::optional<py::dtype> numpy_dtype(svp_acl_data_type t) {
  switch (t) {
    case SVP_ACL_FLOAT: return py::dtype::of<float>();
    case SVP_ACL_FLOAT16: return py::dtype("float16");
    case SVP_ACL_INT8: return py::dtype::of<std::int8_t>();
    case SVP_ACL_UINT8: return py::dtype::of<std::uint8_t>();
    case SVP_ACL_INT16: return py::dtype::of<std::int16_t>();
    case SVP_ACL_UINT16: return py::dtype::of<std::uint16_t>();
    case SVP_ACL_INT32: return py::dtype::of<std::int32_t>();
    case SVP_ACL_UINT32: return py::dtype::of<std::uint32_t>();
    case SVP_ACL_INT64: return py::dtype::of<std::int64_t>();
    case SVP_ACL_UINT64: return py::dtype::of<std::uint64_t>();
    case SVP_ACL_DOUBLE: return py::dtype::of<double>();
    case SVP_ACL_BOOL: return py::dtype::of<bool>();
    default: return std::nullopt;
  }
}

const char* format_name(svp_acl_format f) {
  switch (f) {
    case SVP_ACL_FORMAT_NCHW: return "NCHW";
    case SVP_ACL_FORMAT_NHWC: return "NHWC";
    case SVP_ACL_FORMAT_ND: return "ND";
    case SVP_ACL_FORMAT_NC1HWC0: return "NC1HWC0";
    default: return "other";
  }
}

// Shape of a tensor for `batch` batch items: the items stacked along the first axis.
std::vector<py::ssize_t> batched_shape(const acl::tensor_desc& t, std::uint64_t batch) {
  std::vector<py::ssize_t> s(t.dims.begin(), t.dims.end());
  if (s.empty()) s.push_back(1);
  s[0] *= static_cast<py::ssize_t>(batch);
  return s;
}

std::string shape_text(const std::vector<py::ssize_t>& s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

py::dict describe(const acl::tensor_desc& t) {
  py::dict d;
  d["index"] = t.index;
  d["name"] = t.name;
  d["shape"] = py::tuple(py::cast(std::vector<std::int64_t>(t.dims)));
  const auto dt = numpy_dtype(t.data_type);
  d["dtype"] = dt ? py::object(*dt) : py::object(py::none());
  d["format"] = format_name(t.format);
  d["size"] = t.size;
  return d;
}

std::string dtype_name(const py::dtype& d) { return py::str(py::handle(d)).cast<std::string>(); }

// Raises naming the problem unless `a` is exactly what tensor `t` takes for `batch` items.
void check_input(const acl::tensor_desc& t, const py::array& a, std::uint64_t batch) {
  const auto want = numpy_dtype(t.data_type);
  if (!want) {
    throw py::type_error("input '" + t.name + "': its element type (svp_acl_data_type " +
                         std::to_string(static_cast<int>(t.data_type)) + ") has no numpy dtype; not implemented yet");
  }
  if (!a.dtype().is(*want) && a.dtype().num() != want->num()) {
    throw py::type_error("input '" + t.name + "' takes " + dtype_name(*want) + ", not " +
                         dtype_name(a.dtype()) + " (convert with .astype(np." +
                         dtype_name(*want) + "))");
  }
  const auto shape = batched_shape(t, batch);
  std::vector<py::ssize_t> got(a.shape(), a.shape() + a.ndim());
  if (got != shape) {
    throw py::value_error("input '" + t.name + "' takes shape " + shape_text(shape) + ", not " + shape_text(got) +
                          (batch != 1 ? " (" + std::to_string(batch) + " batch items along the first axis)" : ""));
  }
}

// One data input as the model's user sees it: its index in the model's input table and,
// for dynamic AIPP, the index of the parameter input attached to it.
struct DataInput {
  std::size_t index = 0;
  bool dynamic_aipp = false;
  std::size_t attached = 0;
};

// Dynamic AIPP parameters per data input (positions in `DataInput` order): the keys and
// values of an ais_bench [aipp_op] section, as svp_run's --aipp_config reads them.
using AippParams = std::map<std::size_t, std::map<std::string, std::string>>;

// A dynamic-AIPP input's source image: the parameters set on the dataset
// (svp_acl_mdl_set_input_aipp, through svp_run's own parameter builder), the input's stride
// queried again and the buffer re-strided, then the image's rows copied in, as svp_run
// and the vendor sample do (docs/aipp.md).
void fill_dynamic_aipp(const acl::model& m, const acl::model_desc& d, const acl::model_io& io, const DataInput& in,
                       const std::map<std::string, std::string>& params, const py::array& a, std::mutex& mu) {
  const std::string name = d.input(in.index).name;
  svp::run::SourceLayout src;
  svp_acl_mdl_aipp* aipp = nullptr;
  try {
    aipp = svp::run::make_aipp(params, "aipp of input '" + name + "'", &src);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
  std::unique_ptr<svp_acl_mdl_aipp, svp_acl_error (*)(svp_acl_mdl_aipp*)> owned(aipp, svp_acl_mdl_destroy_aipp);
  if (!a.dtype().is(py::dtype::of<std::uint8_t>()) || static_cast<std::size_t>(a.nbytes()) != src.bytes()) {
    throw py::value_error("input '" + name + "' has dynamic AIPP: it takes the source image, " + src.describe() +
                          " as uint8 (any shape), not " + std::to_string(a.nbytes()) + " bytes of " +
                          dtype_name(a.dtype()));
  }
  svp_acl_mdl_dataset* ds = const_cast<svp_acl_mdl_dataset*>(io.inputs().native_handle());
  std::lock_guard<std::mutex> lock(mu);  // the description's stride follows the last parameters set
  if (svp_acl_mdl_set_input_aipp(m.id(), ds, in.attached, aipp) != SVP_ACL_SUCCESS) {
    throw py::value_error("aipp of input '" + name + "': svp_acl_mdl_set_input_aipp: " + svp_acl_get_recent_err_msg());
  }
  const std::size_t stride = svp_acl_mdl_get_input_default_stride(d.native_handle(), in.index);
  svp_acl_data_buffer* b = svp_acl_mdl_get_dataset_buffer(ds, in.index);
  const std::size_t size = svp_acl_get_data_buffer_size(b);
  if (src.row_bytes > stride || src.rows * stride > size) {
    throw std::runtime_error("input '" + name + "': the model reports " + std::to_string(size) + " bytes at a stride of " +
                             std::to_string(stride) + ", too small for " + src.describe());
  }
  auto* base = static_cast<std::uint8_t*>(svp_acl_get_data_buffer_addr(b));
  if (svp_acl_update_data_buffer(b, base, size, stride) != SVP_ACL_SUCCESS) {
    throw std::runtime_error("svp_acl_update_data_buffer: " + std::string(svp_acl_get_recent_err_msg()));
  }
  py::array c = py::array::ensure(a, py::array::c_style);
  const auto* bytes = static_cast<const std::uint8_t*>(c.data());
  for (std::size_t r = 0; r < src.rows; ++r) std::memcpy(base + r * stride, bytes + r * src.row_bytes, src.row_bytes);
}

// A model's datasets filled from numpy arrays (checked first, with the GIL held).
acl::model_io make_io(const acl::model& m, const acl::model_desc& d, const std::vector<DataInput>& data,
                      const std::vector<py::array>& arrays, std::uint64_t batch, const AippParams& aipp,
                      std::mutex& aipp_mu) {
  const std::size_t n = data.size();
  if (arrays.size() != n) {
    throw py::value_error("the model has " + std::to_string(n) + " data input(s), " + std::to_string(arrays.size()) +
                          " array(s) given");
  }
  if (batch == 0) throw py::value_error("batch must be at least 1");
  for (const auto& kv : aipp) {
    if (kv.first >= n || !data[kv.first].dynamic_aipp) {
      throw py::value_error("aipp: input " + std::to_string(kv.first) + " is not a dynamic-AIPP input of the model");
    }
  }
  std::vector<acl::tensor_desc> ins;
  for (std::size_t i = 0; i < n; ++i) {
    ins.push_back(d.input(data[i].index));
    if (!data[i].dynamic_aipp) {
      check_input(ins.back(), arrays[i], batch);
    } else if (aipp.count(i) == 0) {
      throw py::value_error("input '" + ins.back().name + "' has dynamic AIPP: give its parameters with aipp={...} " +
                            "(the [aipp_op] keys of svp_run --aipp_config: input_format, src_image_size_w, "
                            "src_image_size_h, ...; docs/python.md)");
    } else if (batch != 1) {
      throw std::invalid_argument("batch > 1 with dynamic AIPP is not implemented yet in svp_acl.Model");
    }
  }
  acl::io_options o;
  o.batch = batch;
  std::optional<acl::model_io> io;
  {
    py::gil_scoped_release nogil;
    io.emplace(env().rt, m, o);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (data[i].dynamic_aipp) {
      fill_dynamic_aipp(m, d, *io, data[i], aipp.at(i), arrays[i], aipp_mu);
      continue;
    }
    py::array c = py::array::ensure(arrays[i], py::array::c_style);
    const acl::tensor_view v = io->input(data[i].index);
    const auto* bytes = static_cast<const std::uint8_t*>(c.data());
    for (std::uint64_t item = 0; item < batch; ++item) v.write(bytes + item * v.dense_bytes(), v.dense_bytes(), item);
  }
  return std::move(*io);
}

// The outputs of a finished execution as numpy arrays (GIL held).
py::list read_outputs(const acl::model_io& io) {
  py::list out;
  for (std::size_t i = 0; i < io.desc().num_outputs(); ++i) {
    const acl::tensor_view v = io.output(i);
    const auto dt = numpy_dtype(v.desc().data_type);
    if (!dt) {
      throw py::type_error("output '" + v.desc().name + "': its element type has no numpy dtype; not implemented yet");
    }
    py::array a(*dt, batched_shape(v.desc(), io.batch()));
    auto* bytes = static_cast<std::uint8_t*>(a.mutable_data());
    for (std::uint64_t item = 0; item < io.batch(); ++item) v.read(bytes + item * v.dense_bytes(), v.dense_bytes(), item);
    out.append(a);
  }
  return out;
}

class Stream;

using Resolution = std::pair<std::uint64_t, std::uint64_t>;  // (height, width)

class Model {
 public:
  Model(const py::bytes& image, std::optional<std::int32_t> priority) {
    std::string s = image;
    std::vector<std::uint8_t> bytes(s.begin(), s.end());
    name_ = svp::run::model_names(bytes).name;
    py::gil_scoped_release nogil;
    Env& e = env();
    e.ctx.make_current();
    if (priority) {
      acl::model_config c = acl::model_config::create();
      c.priority(*priority);
      model_ = acl::model(e.rt, std::move(bytes), c);
    } else {
      model_ = acl::model(e.rt, std::move(bytes));
    }
    desc_ = model_.describe();
    data_ = data_inputs(model_.id(), desc_);
    svp_acl_mdl_hw hw{};
    has_gears_ = svp_acl_mdl_get_dynamic_hw(desc_.native_handle(), 0, &hw) == SVP_ACL_SUCCESS && hw.hw_count > 0;
  }
  ~Model() {
    py::gil_scoped_release nogil;  // unloading may wait; executions in flight keep it loaded
    model_ = acl::model();
    desc_ = acl::model_desc();
  }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  py::list inputs() const {
    live();
    py::list l;
    for (const DataInput& in : data_) {
      py::dict t = describe(desc_.input(in.index));
      if (in.dynamic_aipp) t["aipp"] = "dynamic";
      l.append(t);
    }
    return l;
  }
  py::list outputs() const {
    live();
    py::list l;
    for (std::size_t i = 0; i < desc_.num_outputs(); ++i) l.append(describe(desc_.output(i)));
    return l;
  }
  std::vector<std::uint64_t> batches() const {
    live();
    svp_acl_mdl_batch b{};
    raise(svp_acl_mdl_get_dynamic_batch(desc_.native_handle(), &b), "svp_acl_mdl_get_dynamic_batch");
    return std::vector<std::uint64_t>(b.batch, b.batch + b.batch_count);
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> resolutions() const {
    live();
    svp_acl_mdl_hw hw{};
    raise(svp_acl_mdl_get_dynamic_hw(desc_.native_handle(), 0, &hw), "svp_acl_mdl_get_dynamic_hw");
    std::vector<std::pair<std::uint64_t, std::uint64_t>> v;
    for (std::size_t i = 0; i < hw.hw_count; ++i) v.emplace_back(hw.hw[i][0], hw.hw[i][1]);
    return v;
  }
  void set_priority(std::int32_t p) {
    live();
    py::gil_scoped_release nogil;
    acl::model_config c = acl::model_config::create();
    c.priority(p);
    model_.configure(c);
  }

  py::list execute(const std::vector<py::array>& arrays, std::uint64_t batch, const std::optional<Resolution>& hw,
                   const AippParams& aipp) {
    live();
    std::unique_lock<std::mutex> gear = select_gear(hw);
    acl::model_io io = make_io(model_, desc_, data_, arrays, batch, aipp, aipp_mu_);
    {
      py::gil_scoped_release nogil;
      model_.execute(env().ctx, io.inputs(), io.outputs());
      if (gear.owns_lock()) gear.unlock();
    }
    return read_outputs(io);
  }

  void execute_async(const std::vector<py::array>& arrays, Stream& s, py::function callback, std::uint64_t batch,
                     const std::optional<Resolution>& hw, const AippParams& aipp);
  const std::string& name() const { return name_; }

  void close() {
    py::gil_scoped_release nogil;
    model_ = acl::model();
    desc_ = acl::model_desc();
  }
  bool closed() const { return !model_; }

 private:
  void live() const {
    if (!model_) throw std::runtime_error("svp_acl.Model: the model was closed");
  }
  static void raise(svp_acl_error rc, const char* fn) {
    if (rc != SVP_ACL_SUCCESS) throw std::runtime_error(std::string(fn) + ": " + svp_acl_get_recent_err_msg());
  }
  // A resolution gear is the model's, not an execution's (svp_acl_mdl_set_dynamic_hw_size;
  // an execution runs at the gear selected when it is started): on a model with gears,
  // selecting one, checking and building the datasets and starting the execution happen
  // under one lock, taken without the GIL. `hw` None keeps the gear selected last.
  std::unique_lock<std::mutex> select_gear(const std::optional<Resolution>& hw) {
    std::unique_lock<std::mutex> lock(gear_mu_, std::defer_lock);
    if (!has_gears_) {
      if (hw) throw py::value_error("resolution: the model has no resolution gears (compiled without --dynamic_image_size)");
      return lock;
    }
    {
      py::gil_scoped_release nogil;
      lock.lock();
    }
    if (hw) {
      std::size_t index = 0;
      raise(svp_acl_mdl_get_input_index_by_name(desc_.native_handle(), SVP_ACL_DYNAMIC_TENSOR_NAME, &index),
            "svp_acl_mdl_get_input_index_by_name");
      acl::dataset any = acl::dataset::create();
      if (svp_acl_mdl_set_dynamic_hw_size(model_.id(), any.native_handle(), index, hw->first, hw->second) !=
          SVP_ACL_SUCCESS) {
        throw py::value_error("resolution (" + std::to_string(hw->first) + ", " + std::to_string(hw->second) +
                              "): " + svp_acl_get_recent_err_msg());
      }
    }
    return lock;
  }
  // The data inputs: every input but task_buf, work_buf and dynamic AIPP's parameter
  // inputs (those are filled from the aipp= parameters).
  static std::vector<DataInput> data_inputs(std::uint32_t id, const acl::model_desc& d) {
    std::vector<DataInput> all;
    std::set<std::size_t> attached;
    for (std::size_t i = 0; i < d.num_data_inputs(); ++i) {
      DataInput in;
      in.index = i;
      svp_acl_mdl_aipp_type type = SVP_ACL_DATA_WITHOUT_AIPP;
      if (svp_acl_mdl_get_input_aipp_type(id, i, &type, &in.attached) == SVP_ACL_SUCCESS &&
          type == SVP_ACL_DATA_WITH_DYNAMIC_AIPP) {
        in.dynamic_aipp = true;
        attached.insert(in.attached);
      }
      all.push_back(in);
    }
    std::vector<DataInput> data;
    for (const DataInput& in : all) {
      if (attached.count(in.index) == 0) data.push_back(in);
    }
    return data;
  }
  acl::model model_;
  acl::model_desc desc_;
  std::vector<DataInput> data_;
  std::string name_;                      // the name the model stores (the model dump selects by it)
  bool has_gears_ = false;
  std::mutex gear_mu_;
  std::mutex aipp_mu_;
};

// Every open stream, so that interpreter exit can drain them while Python still runs the
// callbacks (svp_acl._shutdown, registered with atexit).
std::mutex g_streams_mu;
std::set<Stream*> g_streams;

// Set while a Python completion callback runs (on the report thread): closing a stream
// there would wait for the callback that is running.
thread_local bool t_in_callback = false;

class Stream {
 public:
  Stream() {
    py::gil_scoped_release nogil;
    stream_ = std::make_shared<acl::stream>(env().ctx);
    std::lock_guard<std::mutex> lock(g_streams_mu);
    g_streams.insert(this);
  }
  ~Stream() {
    if (t_in_callback) {
      // Dropped by a callback: hand the stream to a thread that may wait for it.
      std::shared_ptr<acl::stream> s;
      {
        std::lock_guard<std::mutex> lock(mu_);
        s.swap(stream_);
      }
      std::lock_guard<std::mutex> lock(g_streams_mu);
      g_streams.erase(this);
      if (s) std::thread([s = std::move(s)]() mutable { s.reset(); }).detach();
      return;
    }
    close();
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Waits for the stream's work and its callbacks; raises the first error of that work.
  void synchronize() {
    if (t_in_callback) throw std::runtime_error("svp_acl.Stream.synchronize: not from a completion callback (it would wait for itself)");
    std::shared_ptr<acl::stream> s = handle();
    py::gil_scoped_release nogil;
    s->synchronize();
  }
  void close() {
    if (t_in_callback) throw std::runtime_error("svp_acl.Stream.close: not from a completion callback (it would wait for itself)");
    {
      std::lock_guard<std::mutex> lock(g_streams_mu);
      g_streams.erase(this);
    }
    std::shared_ptr<acl::stream> s;
    {
      std::lock_guard<std::mutex> lock(mu_);
      s.swap(stream_);
    }
    // Destroying the stream waits for its callbacks, which need the GIL.
    py::gil_scoped_release nogil;
    s.reset();
  }
  bool closed() const {
    std::lock_guard<std::mutex> lock(mu_);
    return !stream_;
  }
  std::shared_ptr<acl::stream> handle() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stream_) throw std::runtime_error("svp_acl.Stream: the stream was closed");
    return stream_;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<acl::stream> stream_;
};

// One asynchronous execution: what the NPU uses until it has finished, and the callback.
struct AsyncRun final : acl::detail::pending_op {
  std::shared_ptr<acl::detail::model_state> model;  // loaded until the execution is done
  std::shared_ptr<acl::stream> stream;              // set only while submitting
  acl::model_io io;
  py::object callback;  // created and destroyed with the GIL held
};

// Runs on the report thread (or inline when submitting failed): the outputs, or the
// error, to the callback with the GIL held. An exception of the callback is reported as
// unraisable (sys.unraisablehook), as Python does for callbacks nobody can catch.
void complete_run(acl::detail::pending_op* self, svp_acl_error rc, bool aborted) {
  std::unique_ptr<AsyncRun> run(static_cast<AsyncRun*>(self));
  if (!Py_IsInitialized()) {
    run->callback.release();  // the interpreter is gone: nothing to call, nothing to free
    return;
  }
  py::gil_scoped_acquire gil;
  const bool nested = t_in_callback;
  t_in_callback = true;
  try {
    std::string why;
    py::object outs = py::none();
    if (aborted) {
      why = "the execution was dropped unrun (its stream was torn down)";
    } else if (rc != SVP_ACL_SUCCESS) {
      why = "svp_acl_mdl_execute_async: " + acl::code_name(rc) + ": " + svp_acl_get_recent_err_msg();
    } else {
      try {
        outs = read_outputs(run->io);
      } catch (const std::exception& e) {  // the callback still hears of its execution
        why = e.what();
      }
    }
    if (why.empty()) {
      run->callback(outs, py::none());
    } else {
      run->callback(py::none(), py::str(why));
    }
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("svp_acl.Model.execute_async callback");
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    PyErr_WriteUnraisable(run->callback.ptr());
  }
  t_in_callback = nested;
  run->callback = py::object();
  py::gil_scoped_release nogil;  // freeing device memory and maybe unloading the model
  run.reset();
}

void Model::execute_async(const std::vector<py::array>& arrays, Stream& s, py::function callback,
                          std::uint64_t batch, const std::optional<Resolution>& hw, const AippParams& aipp) {
  live();
  std::shared_ptr<acl::stream> stream = s.handle();
  std::unique_lock<std::mutex> gear = select_gear(hw);
  auto run = std::make_unique<AsyncRun>();
  run->io = make_io(model_, desc_, data_, arrays, batch, aipp, aipp_mu_);
  run->model = model_.state();
  run->callback = std::move(callback);
  run->complete = &complete_run;
  const std::uint32_t id = model_.id();
  const svp_acl_mdl_dataset* in = run->io.inputs().native_handle();
  const svp_acl_mdl_dataset* out = run->io.outputs().native_handle();
  acl::detail::pending_op* op = run.release();  // owned by the callback from here on
  py::gil_scoped_release nogil;
  acl::detail::stream_state& st = *stream->state();
  acl::detail::launch(op, st, [&] {
    return acl::detail::call(svp_acl_mdl_execute_async(id, in, out, st.handle), "svp_acl_mdl_execute_async");
  });
  if (gear.owns_lock()) gear.unlock();
  stream.reset();  // without the GIL: the last handle of a closed stream waits for its callbacks
}

// File-mode profiling (svp_acl_prof_init / create_config / start; stop / destroy_config /
// finalize when stopped): a JOB directory below `result_dir` that tools/svp_prof reads
// (docs/profiling.md). Process-wide, as the C API's file mode is.
class Profiling {
 public:
  Profiling(const std::string& result_dir, std::uint64_t items) {
    py::gil_scoped_release nogil;
    Env& e = env();
    e.ctx.make_current();
    session_ = acl::prof_session(e.rt, result_dir);
    config_ = acl::prof_config(e.rt, {0}, items);
    run_ = acl::prof_collection(session_, config_);
  }
  ~Profiling() { stop(); }
  Profiling(const Profiling&) = delete;
  Profiling& operator=(const Profiling&) = delete;
  // Stops the collection and ends the session (end_info.json is written then).
  void stop() {
    py::gil_scoped_release nogil;
    run_ = acl::prof_collection();
    config_ = acl::prof_config();
    session_ = acl::prof_session();
  }
  bool stopped() const { return !session_; }

 private:
  acl::prof_session session_;
  acl::prof_config config_;
  acl::prof_collection run_;
};

// The model dump (docs/runtime.md "Model dump"): svp_acl_mdl_init_dump + set_dump with a
// configuration file, active for the models loaded until dump_stop (finalize_dump, which
// returns once every queued tensor is on disk).
void dump_start(const std::string& config_path) {
  py::gil_scoped_release nogil;
  env();
  if (svp_acl_mdl_init_dump() != SVP_ACL_SUCCESS) {
    throw std::runtime_error(std::string("svp_acl_mdl_init_dump: ") + svp_acl_get_recent_err_msg());
  }
  if (svp_acl_mdl_set_dump(config_path.c_str()) != SVP_ACL_SUCCESS) {
    const std::string why = svp_acl_get_recent_err_msg();
    (void)svp_acl_mdl_finalize_dump();
    throw std::invalid_argument("svp_acl_mdl_set_dump: " + why);
  }
}

void dump_stop() {
  py::gil_scoped_release nogil;
  if (svp_acl_mdl_finalize_dump() != SVP_ACL_SUCCESS) {
    throw std::runtime_error(std::string("svp_acl_mdl_finalize_dump: ") + svp_acl_get_recent_err_msg());
  }
}

// atexit: drains every open stream while the interpreter still runs callbacks, then stops
// the context's report thread (it would otherwise outlive the interpreter).
void drain_at_exit() {
  std::vector<std::shared_ptr<acl::stream>> open;
  {
    std::lock_guard<std::mutex> lock(g_streams_mu);
    for (Stream* s : g_streams) {
      if (!s->closed()) open.push_back(s->handle());
    }
  }
  py::gil_scoped_release nogil;
  for (auto& s : open) {
    std::error_code ec;
    s->synchronize(ec);
  }
  open.clear();
  std::lock_guard<std::mutex> lock(g_env_mu);
  if (g_env != nullptr && g_streams.empty()) {
    auto& state = *g_env->ctx.state();
    std::lock_guard<std::mutex> ctx_lock(state.mu);
    state.report.reset();
  }
}

}  // namespace

void bind_svp_runtime(py::module_& m) {
  py::class_<Stream>(m, "Stream", "An SVP stream: asynchronous executions on it run in order.")
      .def(py::init<>())
      .def("synchronize", &Stream::synchronize)
      .def("close", &Stream::close)
      .def_property_readonly("closed", &Stream::closed)
      .def("__enter__", [](Stream& s) -> Stream& { return s; }, py::return_value_policy::reference)
      .def("__exit__", [](Stream& s, const py::args&) { s.close(); });
  py::class_<Model>(m, "Model", "A loaded SVP model (svp_acl_mdl_load_from_mem).")
      .def(py::init<const py::bytes&, std::optional<std::int32_t>>(), py::arg("image"), py::arg("priority") = py::none())
      .def("inputs", &Model::inputs)
      .def("outputs", &Model::outputs)
      .def("batches", &Model::batches)
      .def("resolutions", &Model::resolutions)
      .def("set_priority", &Model::set_priority, py::arg("priority"))
      .def("execute", &Model::execute, py::arg("inputs"), py::arg("batch") = 1, py::arg("resolution") = py::none(),
           py::arg("aipp") = AippParams{})
      .def("execute_async", &Model::execute_async, py::arg("inputs"), py::arg("stream"), py::arg("callback"),
           py::arg("batch") = 1, py::arg("resolution") = py::none(), py::arg("aipp") = AippParams{})
      .def_property_readonly("name", &Model::name)
      .def("close", &Model::close)
      .def_property_readonly("closed", &Model::closed);
  py::class_<Profiling>(m, "Profiling", "File-mode profiling of the SVP runtime (svp_acl_prof_*).")
      .def(py::init<const std::string&, std::uint64_t>(), py::arg("result_dir"), py::arg("items"))
      .def("stop", &Profiling::stop)
      .def_property_readonly("stopped", &Profiling::stopped);
  m.attr("PROF_ACL_API") = SVP_ACL_PROF_ACL_API;
  m.attr("PROF_TASK_TIME") = SVP_ACL_PROF_TASK_TIME;
  m.attr("PROF_AICPU") = SVP_ACL_PROF_AICPU_TRACE;
  m.def("_shutdown", &drain_at_exit);
  m.def("_dump_start", &dump_start, py::arg("config_path"));
  m.def("_dump_stop", &dump_stop);
  m.def("read_aipp_config", &svp::run::read_aipp_config, py::arg("path"),
        "An ais_bench [aipp_op] file (svp_run --aipp_config) as a dict of its keys and values (strings).");
}
