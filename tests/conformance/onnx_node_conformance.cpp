// ONNX backend conformance: every test case of Debian's libonnx-testdata (node/,
// pytorch-converted/, pytorch-operator/) compiled with --compile_mode=float and run through
// the C API, its outputs compared with the shipped ones (float, double and float16 with rtol
// 1e-3, atol 1e-4; integers and booleans exactly).
//
//   onnx_node_conformance [--data DIR] [--filter SUBSTRING] [--every N] [--json OUT.json] [--check]
//
// Each case runs in a child process (a crash or hang in one case is that case's failure,
// not the run's). Prints a line per failing case and the totals; --json writes every
// case's result for docs/ops.md (tools/gen_ops_md.py). --check exits non-zero when a case
// of the CNN op set fails that is not in the known-failures list below, or a listed
// one passes (the list must shrink as the cases are fixed). --every N runs every Nth case
// of the sorted list (the sanitizer builds, where each forked case costs far more).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include "acl/svp_acl.h"
#include "acl/svp_acl_mdl.h"
#include "compiler/compile.h"
#include "compiler/passes/placement.h"
#include "kernels/kernels.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The op set the compiler must run completely (issue 11): a case counts as CNN when its
// model's single op is one of these.
const std::set<std::string> kCnnOps = {
    "Conv", "ConvTranspose", "Gemm", "MatMul", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
    "BatchNormalization", "Add", "Sub", "Mul", "Div", "Concat", "Reshape", "Flatten", "Transpose", "Squeeze",
    "Unsqueeze", "Slice", "Split", "Pad", "Resize", "Softmax", "ReduceMean", "ReduceMax", "Relu", "LeakyRelu",
    "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Clip", "PRelu"};

// CNN-set cases that do not pass yet, each with the reason. --check fails if one of these
// passes (take it off the list) or another CNN case fails.
const std::map<std::string, std::string> kKnownCnnFailures = {
    {"node/test_reshape_allowzero_reordered",
     "zero-size tensors: the model format requires every dimension > 0"},
    {"node/test_slice_start_out_of_bounds",
     "zero-size tensors: the model format requires every dimension > 0"},
    {"node/test_split_zero_size_splits",
     "zero-size tensors: the model format requires every dimension > 0"},
};

struct Case {
  std::string name;   // "node/test_conv_with_strides_padding"
  fs::path dir;
};

struct Outcome {
  std::string status;  // pass | fail | unsupported | crash
  std::string message;
  std::string op;      // the single op of node tests ("" for multi-op models)
  std::int64_t opset = 0;
  std::vector<std::string> dtypes;
  std::string target;  // where the compiled model runs the op: "npu", "aicpu", "" when not compiled
};

bool read_proto(const fs::path& p, google::protobuf::MessageLite* m) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  return m->ParseFromArray(s.data(), static_cast<int>(s.size()));
}

// Dense little-endian bytes of a TensorProto of a fixed-width type; false for others.
bool tensor_data(const onnx::TensorProto& t, std::vector<std::uint8_t>* out, std::size_t* elem) {
  std::size_t n = 1;
  for (auto d : t.dims()) n *= static_cast<std::size_t>(d);
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT: case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32: *elem = 4; break;
    case onnx::TensorProto::INT64: case onnx::TensorProto::DOUBLE: case onnx::TensorProto::UINT64: *elem = 8; break;
    case onnx::TensorProto::INT16: case onnx::TensorProto::UINT16: case onnx::TensorProto::FLOAT16: *elem = 2; break;
    case onnx::TensorProto::INT8: case onnx::TensorProto::UINT8: case onnx::TensorProto::BOOL: *elem = 1; break;
    default: return false;
  }
  out->assign(n * *elem, 0);
  if (t.has_raw_data()) {
    if (t.raw_data().size() != out->size()) return false;
    std::memcpy(out->data(), t.raw_data().data(), out->size());
    return true;
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::uint8_t* p = out->data() + i * *elem;
    switch (t.data_type()) {
      case onnx::TensorProto::FLOAT: { float v = t.float_data(static_cast<int>(i)); std::memcpy(p, &v, 4); break; }
      case onnx::TensorProto::DOUBLE: { double v = t.double_data(static_cast<int>(i)); std::memcpy(p, &v, 8); break; }
      case onnx::TensorProto::INT64: { std::int64_t v = t.int64_data(static_cast<int>(i)); std::memcpy(p, &v, 8); break; }
      case onnx::TensorProto::UINT64: case onnx::TensorProto::UINT32: {
        std::uint64_t v = t.uint64_data(static_cast<int>(i));
        std::memcpy(p, &v, *elem);
        break;
      }
      default: { std::int32_t v = t.int32_data(static_cast<int>(i)); std::memcpy(p, &v, *elem); break; }
    }
  }
  return true;
}

std::string compare(const onnx::TensorProto& want, const std::vector<std::uint8_t>& got_bytes) {
  std::vector<std::uint8_t> w;
  std::size_t elem = 0;
  if (!tensor_data(want, &w, &elem)) return "expected output of an unsupported type";
  if (w.size() != got_bytes.size()) {
    return "output size " + std::to_string(got_bytes.size()) + " bytes, expected " + std::to_string(w.size());
  }
  const int type = want.data_type();
  if (type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE || type == onnx::TensorProto::FLOAT16) {
    // Floating outputs of every width with the same tolerance.
    auto value = [&](const std::vector<std::uint8_t>& bytes, std::size_t i) -> double {
      if (type == onnx::TensorProto::DOUBLE) {
        double d;
        std::memcpy(&d, bytes.data() + 8 * i, 8);
        return d;
      }
      if (type == onnx::TensorProto::FLOAT16) {
        std::uint16_t h;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
        const double mag = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(m + 1024, e - 25);
        return (h & 0x8000) ? -mag : mag;
      }
      float f;
      std::memcpy(&f, bytes.data() + 4 * i, 4);
      return f;
    };
    std::vector<double> av(w.size() / elem), bv(w.size() / elem);
    for (std::size_t i = 0; i < av.size(); ++i) {
      av[i] = value(got_bytes, i);
      bv[i] = value(w, i);
    }
    const double* a = av.data();
    const double* b = bv.data();
    double worst = 0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < av.size(); ++i) {
      const bool both_nan = std::isnan(a[i]) && std::isnan(b[i]);
      const double err = both_nan || a[i] == b[i] ? 0 : std::fabs(a[i] - b[i]);  // equal infinities match
      const double tol = 1e-4 + 1e-3 * std::fabs(b[i]);
      if (!(err <= tol) && (std::isnan(err) || err / tol > worst)) {
        worst = std::isnan(err) ? 1e30 : err / tol;
        at = i;
      }
    }
    if (worst > 1) {
      std::ostringstream m;
      m << "element " << at << ": " << a[at] << " vs expected " << b[at];
      return m.str();
    }
    return "";
  }
  return std::memcmp(w.data(), got_bytes.data(), w.size()) == 0 ? "" : "integer outputs differ";
}

// Runs one case in this (child) process.
Outcome run_case(const Case& c) {
  Outcome o;
  onnx::ModelProto m;
  if (!read_proto(c.dir / "model.onnx", &m)) return {"unsupported", "model.onnx does not parse", "", 0, {}, ""};
  for (const auto& op : m.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") o.opset = op.version();
  }
  if (m.graph().node_size() == 1) o.op = m.graph().node(0).op_type();
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) inits.insert(t.name());
  std::vector<std::string> input_names;
  for (const auto& in : m.graph().input()) {
    if (!inits.count(in.name())) input_names.push_back(in.name());
  }
  const fs::path data = c.dir / "test_data_set_0";
  std::vector<onnx::TensorProto> inputs(input_names.size()), outputs;
  for (std::size_t i = 0; i < input_names.size(); ++i) {
    if (!read_proto(data / ("input_" + std::to_string(i) + ".pb"), &inputs[i])) {
      return {"unsupported", "input_" + std::to_string(i) + ".pb missing (optional or sequence input)", o.op, o.opset,
              {}, ""};
    }
    o.dtypes.push_back(onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(inputs[i].data_type())));
  }
  for (int i = 0;; ++i) {
    onnx::TensorProto t;
    const fs::path p = data / ("output_" + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    if (!read_proto(p, &t)) return {"unsupported", "output .pb does not parse", o.op, o.opset, o.dtypes, ""};
    outputs.push_back(std::move(t));
  }
  // Parameter inputs — int64 tensors (Reshape's shape, Slice's starts, Gather's indices)
  // and the parameter slots of Resize, Pad, Clip and OneHot (depth) — are known when an
  // NPU model is compiled, so they become initializers holding the test's values
  // (docs/ops.md says so). An int64 tensor that is a node's first input is its data (Trilu
  // of int64, Max of int64) and stays a model input, as does the model's last input.
  std::set<std::string> parameters, data_inputs;
  for (const auto& node : m.graph().node()) {
    const std::string& op = node.op_type();
    const int first = (op == "Resize" || op == "Pad" || op == "Clip" || op == "Upsample" || op == "OneHot") ? 1
                                                                                                            : 1 << 30;
    for (int k = first; k < node.input_size(); ++k) parameters.insert(node.input(k));
    if (node.input_size() > 0) data_inputs.insert(node.input(0));
  }
  bool rewritten = false;
  for (std::size_t i = 0; i < inputs.size();) {
    const bool int64_parameter =
        inputs[i].data_type() == onnx::TensorProto::INT64 && !data_inputs.count(input_names[i]) && inputs.size() > 1;
    if (!int64_parameter && !parameters.count(input_names[i])) {
      ++i;
      continue;
    }
    onnx::TensorProto* init = m.mutable_graph()->add_initializer();
    *init = inputs[i];
    init->set_name(input_names[i]);
    for (int k = 0; k < m.graph().input_size(); ++k) {
      if (m.graph().input(k).name() == input_names[i]) {
        m.mutable_graph()->mutable_input()->DeleteSubrange(k, 1);
        break;
      }
    }
    inputs.erase(inputs.begin() + static_cast<std::ptrdiff_t>(i));
    input_names.erase(input_names.begin() + static_cast<std::ptrdiff_t>(i));
    rewritten = true;
  }
  svp::compiler::CompileOptions opt;
  opt.model = (c.dir / "model.onnx").string();
  if (rewritten) {
    opt.model = (fs::temp_directory_path() / ("svp_conformance_" + std::to_string(::getpid()) + ".onnx")).string();
    std::ofstream(opt.model, std::ios::binary) << m.SerializeAsString();
  }
  opt.compile_mode = "float";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::vector<std::int64_t> dims(inputs[i].dims().begin(), inputs[i].dims().end());
    if (std::count(dims.begin(), dims.end(), 0) > 0) {
      return {"unsupported", "input \"" + input_names[i] + "\" is empty (model inputs have no zero dimension)",
              o.op, o.opset, o.dtypes, ""};
    }
    if (!dims.empty()) opt.input_shape.emplace_back(input_names[i], dims);
  }
  auto compiled = svp::compiler::compile(opt);
  if (rewritten) fs::remove(opt.model);
  if (!compiled.ok()) return {"unsupported", compiled.status().message(), o.op, o.opset, o.dtypes, ""};
  for (const auto& layer : compiled->model.program.layers) {
    if (layer.op == o.op) o.target = svp::model::target_name(layer.target);
  }
  const auto& image = compiled->model.image;
  if (svp_acl_init(nullptr) != SVP_ACL_SUCCESS || svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS) {
    return {"crash", "runtime init failed", o.op, o.opset, o.dtypes, ""};
  }
  std::uint32_t id = 0;
  if (svp_acl_mdl_load_from_mem(image.data(), image.size(), &id) != SVP_ACL_SUCCESS) {
    return {"unsupported", std::string("load: ") + svp_acl_get_recent_err_msg(), o.op, o.opset, o.dtypes, ""};
  }
  svp_acl_mdl_desc* desc = svp_acl_mdl_create_desc();
  svp_acl_mdl_get_desc(desc, id);
  svp_acl_mdl_dataset* in = svp_acl_mdl_create_dataset();
  svp_acl_mdl_dataset* out = svp_acl_mdl_create_dataset();
  const std::size_t n_in = svp_acl_mdl_get_num_inputs(desc);
  // Rows of the dense test data go to strided device buffers, and back for the outputs.
  auto row_geometry = [&](bool input, std::size_t i, std::size_t* rows, std::size_t* row_bytes, std::size_t* stride) {
    svp_acl_mdl_io_dims d;
    if (input) svp_acl_mdl_get_input_dims(desc, i, &d); else svp_acl_mdl_get_output_dims(desc, i, &d);
    const std::size_t elem = svp_acl_data_type_size(input ? svp_acl_mdl_get_input_data_type(desc, i)
                                                          : svp_acl_mdl_get_output_data_type(desc, i)) / 8;
    *rows = 1;
    for (std::size_t k = 0; k + 1 < d.dim_count; ++k) *rows *= static_cast<std::size_t>(d.dims[k]);
    *row_bytes = d.dim_count ? static_cast<std::size_t>(d.dims[d.dim_count - 1]) * elem : elem;
    *stride = input ? svp_acl_mdl_get_input_default_stride(desc, i) : svp_acl_mdl_get_output_default_stride(desc, i);
  };
  std::vector<void*> mem;
  for (std::size_t i = 0; i < n_in; ++i) {
    const std::size_t size = svp_acl_mdl_get_input_size_by_index(desc, i);
    void* p = nullptr;
    svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY);
    std::memset(p, 0, size);
    mem.push_back(p);
    if (i < inputs.size()) {
      std::vector<std::uint8_t> bytes;
      std::size_t elem = 0;
      if (!tensor_data(inputs[i], &bytes, &elem)) return {"unsupported", "input type", o.op, o.opset, o.dtypes, ""};
      std::size_t rows = 0, row_bytes = 0, stride = 0;
      row_geometry(true, i, &rows, &row_bytes, &stride);
      for (std::size_t r = 0; r < rows && (r + 1) * row_bytes <= bytes.size(); ++r) {
        std::memcpy(static_cast<std::uint8_t*>(p) + r * stride, bytes.data() + r * row_bytes, row_bytes);
      }
    }
    svp_acl_mdl_add_dataset_buffer(in, svp_acl_create_data_buffer(p, size, svp_acl_mdl_get_input_default_stride(desc, i)));
  }
  const std::size_t n_out = svp_acl_mdl_get_num_outputs(desc);
  for (std::size_t i = 0; i < n_out; ++i) {
    const std::size_t size = svp_acl_mdl_get_output_size_by_index(desc, i);
    void* p = nullptr;
    svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY);
    mem.push_back(p);
    svp_acl_mdl_add_dataset_buffer(out,
                                   svp_acl_create_data_buffer(p, size, svp_acl_mdl_get_output_default_stride(desc, i)));
  }
  if (svp_acl_mdl_execute(id, in, out) != SVP_ACL_SUCCESS) {
    return {"fail", std::string("execute: ") + svp_acl_get_recent_err_msg(), o.op, o.opset, o.dtypes, o.target};
  }
  if (n_out != outputs.size()) {
    return {"fail", "the model has " + std::to_string(n_out) + " outputs, the test " + std::to_string(outputs.size()),
            o.op, o.opset, o.dtypes, o.target};
  }
  for (std::size_t i = 0; i < n_out; ++i) {
    std::size_t rows = 0, row_bytes = 0, stride = 0;
    row_geometry(false, i, &rows, &row_bytes, &stride);
    std::vector<std::uint8_t> dense(rows * row_bytes);
    const auto* p = static_cast<const std::uint8_t*>(mem[n_in + i]);
    for (std::size_t r = 0; r < rows; ++r) std::memcpy(dense.data() + r * row_bytes, p + r * stride, row_bytes);
    const std::string diff = compare(outputs[i], dense);
    if (!diff.empty()) {
      return {"fail", "output " + std::to_string(i) + ": " + diff, o.op, o.opset, o.dtypes, o.target};
    }
  }
  o.status = "pass";
  return o;
}

// Forks, runs the case in the child, and reads its outcome back through a pipe.
Outcome run_isolated(const Case& c) {
  int fds[2];
  if (pipe(fds) != 0) return {"crash", "pipe failed", "", 0, {}, ""};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(60);  // a hanging case dies instead of stalling the run
    setenv("SVP_ACL_LOG_LEVEL", "4", 1);  // the outcome carries the message
    const Outcome o = run_case(c);
    const std::string text = json{{"status", o.status}, {"message", o.message}, {"op", o.op}, {"opset", o.opset},
                                  {"dtypes", o.dtypes}, {"target", o.target}}.dump();
    const ssize_t w = write(fds[1], text.data(), text.size());
    (void)w;
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  ssize_t n = 0;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  try {
    const json j = json::parse(text);
    return {j["status"], j["message"], j["op"], j["opset"], j["dtypes"].get<std::vector<std::string>>(), j["target"]};
  } catch (const std::exception&) {
    const std::string why = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                                : "exit status " + std::to_string(WEXITSTATUS(status));
    return {"crash", "the case crashed (" + why + ")", "", 0, {}, ""};
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string root = "/usr/share/libonnx-testdata/data", filter, json_out;
  bool check = false;
  std::size_t every = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--data" && i + 1 < argc) root = argv[++i];
    else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (a == "--json" && i + 1 < argc) json_out = argv[++i];
    else if (a == "--check") check = true;
    else if (a == "--every" && i + 1 < argc) every = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: %s [--data DIR] [--filter S] [--every N] [--json OUT] [--check]\n", argv[0]);
      return 2;
    }
  }
  std::vector<Case> cases;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator"}) {
    const fs::path dir = fs::path(root) / suite;
    if (!fs::is_directory(dir)) {
      std::fprintf(stderr, "%s is missing: install Debian's libonnx-testdata (scripts/deps.sh does)\n", dir.c_str());
      return 3;
    }
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = std::string(suite) + "/" + e.path().filename().string();
      if (fs::exists(e.path() / "model.onnx") && name.find(filter) != std::string::npos) cases.push_back({name, e.path()});
    }
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  if (every > 1) {
    std::vector<Case> sampled;
    for (std::size_t i = 0; i < cases.size(); i += every) sampled.push_back(cases[i]);
    cases = std::move(sampled);
  }
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, int> totals, single_totals, cnn_totals;
  json results = json::array();
  int unexpected = 0;
  for (const Case& c : cases) {
    const Outcome o = run_isolated(c);
    ++totals[o.status];
    const bool single = c.name.rfind("node/", 0) == 0 && c.name.find("_expanded") == std::string::npos;
    if (single) ++single_totals[o.status];
    const bool cnn = single && kCnnOps.count(o.op) > 0;
    if (cnn) ++cnn_totals[o.status];
    const bool known = kKnownCnnFailures.count(c.name) > 0;
    if (cnn && o.status != "pass" && !known) {
      ++unexpected;
      std::printf("CNN-SET %s %s: %s\n", o.status.c_str(), c.name.c_str(), o.message.c_str());
    } else if (cnn && o.status == "pass" && known) {
      ++unexpected;
      std::printf("NOW-PASSES %s: remove it from kKnownCnnFailures\n", c.name.c_str());
    } else if (o.status == "fail" || o.status == "crash") {
      std::printf("%s %s: %s\n", o.status.c_str(), c.name.c_str(), o.message.c_str());
    }
    // Where the op runs: the compiler's placement rule for its type (docs/ops.md's column;
    // "" when svp-acl has no kernel for it), and where this case's compiled model put it.
    const auto& kernel_ops = svp::kernels::supported_ops();
    const bool has_kernel = std::find(kernel_ops.begin(), kernel_ops.end(), o.op) != kernel_ops.end();
    results.push_back({{"case", c.name}, {"status", o.status}, {"message", o.message}, {"op", o.op},
                       {"opset", o.opset}, {"dtypes", o.dtypes}, {"cnn", cnn},
                       {"placement", has_kernel ? svp::compiler::npu_placement_rule(o.op) : ""},
                       {"target", o.target}});
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto line = [](const char* what, std::map<std::string, int>& t) {
    const int all = t["pass"] + t["fail"] + t["unsupported"] + t["crash"];
    std::printf("%s: %d cases, %d passed (%.1f %%), %d failed, %d unsupported, %d crashed\n", what, all, t["pass"],
                all ? 100.0 * t["pass"] / all : 0.0, t["fail"], t["unsupported"], t["crash"]);
  };
  line("all suites", totals);
  line("single-op node cases", single_totals);
  line("CNN op set", cnn_totals);
  std::printf("%.1f s\n", secs);
  if (!json_out.empty()) std::ofstream(json_out) << results.dump(1);
  if (check && unexpected > 0) {
    std::printf("%d CNN-set cases differ from the known-failures list\n", unexpected);
    return 1;
  }
  return 0;
}
