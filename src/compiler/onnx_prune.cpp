#include "compiler/onnx_prune.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <vector>

namespace svp::compiler {
namespace {

std::vector<float> prune_floats(const onnx::TensorProto& t) {
  std::vector<float> v;
  if (t.has_raw_data()) {
    v.resize(t.raw_data().size() / sizeof(float));
    std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(float));
  } else {
    v.assign(t.float_data().begin(), t.float_data().end());
  }
  return v;
}

void prune_store(onnx::TensorProto* t, const std::vector<float>& v) {
  t->clear_float_data();
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
}

std::int64_t prune_group(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "group") return a.i();
  }
  return 1;
}

struct PruneGraph {
  onnx::GraphProto* g;
  std::map<std::string, onnx::TensorProto*> inits;
  std::map<std::string, int> uses;  // node inputs naming each tensor
  std::map<std::string, std::vector<std::pair<int, int>>> consumers;  // (node, input slot)
  std::set<std::string> outputs;

  explicit PruneGraph(onnx::GraphProto* graph) : g(graph) {
    for (auto& t : *g->mutable_initializer()) inits[t.name()] = &t;
    for (int i = 0; i < g->node_size(); ++i) {
      const auto& n = g->node(i);
      for (int k = 0; k < n.input_size(); ++k) {
        ++uses[n.input(k)];
        consumers[n.input(k)].emplace_back(i, k);
      }
    }
    for (const auto& o : g->output()) outputs.insert(o.name());
  }

  // A float initializer used by one node input only (safe to rewrite), else nullptr.
  onnx::TensorProto* owned(const std::string& name) {
    auto it = inits.find(name);
    if (it == inits.end() || uses[name] != 1 || it->second->data_type() != onnx::TensorProto::FLOAT) return nullptr;
    return it->second;
  }

  bool prunable_conv(const onnx::NodeProto& n) {
    return n.op_type() == "Conv" && prune_group(n) == 1 && n.input_size() >= 2 && owned(n.input(1)) != nullptr &&
           owned(n.input(1))->dims_size() >= 3 && (n.input_size() < 3 || n.input(2).empty() || owned(n.input(2)));
  }

  // The Convs the channel reaches through Relus only; false when it reaches anything else.
  bool follow(const std::string& start, std::int64_t channels, std::vector<int>* convs,
              std::vector<std::string>* tensors) {
    std::vector<std::string> todo = {start};
    while (!todo.empty()) {
      const std::string t = todo.back();
      todo.pop_back();
      tensors->push_back(t);
      if (outputs.count(t) > 0 || consumers[t].empty()) return false;
      for (const auto& [node, slot] : consumers[t]) {
        const auto& n = g->node(node);
        if (n.op_type() == "Relu" && slot == 0 && n.output_size() == 1) {
          todo.push_back(n.output(0));
        } else if (slot == 0 && prunable_conv(n) && owned(n.input(1))->dims(1) == channels) {
          convs->push_back(node);
        } else {
          return false;
        }
      }
    }
    return !convs->empty();
  }

  // Removes the zero output channels of node `a`; the bytes removed.
  std::int64_t prune(int a, std::int64_t* channels_removed) {
    const auto& node = g->node(a);
    if (!prunable_conv(node) || node.output_size() != 1) return 0;
    onnx::TensorProto* w = owned(node.input(1));
    onnx::TensorProto* b = node.input_size() >= 3 && !node.input(2).empty() ? owned(node.input(2)) : nullptr;
    const std::int64_t co = w->dims(0);
    const std::vector<float> wv = prune_floats(*w);
    const std::vector<float> bv = b != nullptr ? prune_floats(*b) : std::vector<float>{};
    if (co <= 0 || wv.size() % static_cast<std::size_t>(co) != 0 || (b != nullptr && bv.size() != static_cast<std::size_t>(co))) {
      return 0;
    }
    const std::size_t per = wv.size() / static_cast<std::size_t>(co);
    std::vector<std::int64_t> keep;
    for (std::int64_t c = 0; c < co; ++c) {
      bool zero = b == nullptr || bv[c] == 0.0f;
      for (std::size_t k = 0; zero && k < per; ++k) zero = wv[c * per + k] == 0.0f;
      if (!zero) keep.push_back(c);
    }
    if (keep.empty() || static_cast<std::int64_t>(keep.size()) == co) return 0;
    std::vector<int> convs;
    std::vector<std::string> tensors;
    if (!follow(node.output(0), co, &convs, &tensors)) return 0;
    std::int64_t removed = 0;
    std::vector<float> nw, nb;
    for (std::int64_t c : keep) {
      nw.insert(nw.end(), wv.begin() + c * per, wv.begin() + (c + 1) * per);
      if (b != nullptr) nb.push_back(bv[c]);
    }
    removed += static_cast<std::int64_t>((wv.size() - nw.size() + bv.size() - nb.size()) * sizeof(float));
    prune_store(w, nw);
    w->set_dims(0, static_cast<std::int64_t>(keep.size()));
    if (b != nullptr) {
      prune_store(b, nb);
      b->set_dims(0, static_cast<std::int64_t>(keep.size()));
    }
    for (int c : convs) {
      onnx::TensorProto* cw = owned(g->node(c).input(1));
      const std::vector<float> cv = prune_floats(*cw);
      const std::int64_t out_ch = cw->dims(0);
      const std::size_t k = cv.size() / static_cast<std::size_t>(out_ch * co);
      std::vector<float> nv;
      for (std::int64_t o = 0; o < out_ch; ++o) {
        for (std::int64_t i : keep) {
          const auto at = cv.begin() + static_cast<std::ptrdiff_t>((o * co + i) * static_cast<std::int64_t>(k));
          nv.insert(nv.end(), at, at + static_cast<std::ptrdiff_t>(k));
        }
      }
      removed += static_cast<std::int64_t>((cv.size() - nv.size()) * sizeof(float));
      prune_store(cw, nv);
      cw->set_dims(1, static_cast<std::int64_t>(keep.size()));
    }
    // Recorded shapes of the narrowed tensors would contradict them.
    auto* info = g->mutable_value_info();
    const std::set<std::string> narrowed(tensors.begin(), tensors.end());
    for (int i = info->size() - 1; i >= 0; --i) {
      if (narrowed.count(info->Get(i).name()) > 0) info->DeleteSubrange(i, 1);
    }
    *channels_removed += co - static_cast<std::int64_t>(keep.size());
    return removed;
  }
};

}  // namespace

Result<PruneStats> prune_onnx(const std::string& in_path, const std::string& out_path) {
  std::ifstream in(in_path, std::ios::binary);
  if (!in) return Error(err::kInvalidParam, "model_pruning: cannot read the ONNX model {}", in_path);
  onnx::ModelProto m;
  if (!m.ParseFromIstream(&in) || !m.has_graph()) {
    return Error(err::kParseModel, "model_pruning: {} is not an ONNX model", in_path);
  }
  for (const auto& t : m.graph().initializer()) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
      return Error(err::kFeatureUnsupported, "model_pruning of a model with external data ({}) is not implemented "
                   "yet in svp-acl", t.name());
    }
  }
  PruneStats stats;
  for (const auto& t : m.graph().initializer()) {
    if (t.data_type() == onnx::TensorProto::FLOAT) {
      stats.weight_bytes_before += static_cast<std::int64_t>(prune_floats(t).size() * sizeof(float));
    }
  }
  PruneGraph pg(m.mutable_graph());
  for (int i = 0; i < m.graph().node_size(); ++i) stats.weight_bytes_removed += pg.prune(i, &stats.channels_removed);
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  if (!out || !m.SerializeToOstream(&out)) return Error(err::kInvalidFile, "model_pruning: cannot write {}", out_path);
  return stats;
}

}  // namespace svp::compiler
