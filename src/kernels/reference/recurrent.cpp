// The recurrent layers of ONNX (opset 7 and 14): LSTM, GRU and RNN, with every direction,
// optional input and output, the activation-function list with alpha/beta, clip,
// input_forget (LSTM), linear_before_reset (GRU) and layout 0/1.
//
// Semantics are ONNX's, with onnxruntime's answers where the operator text leaves a choice:
// - sequence_lens: batch entry b runs steps 0..len[b]-1 (0 <= len[b] <= seq_length); Y is
//   zero past them, Y_h/Y_c are the state after the last of them (zero for len[b] = 0);
//   the reverse direction runs t = len[b]-1 down to 0 for each entry.
// - clip bounds the input of every activation function (each gate's pre-activation and,
//   for LSTM, the cell state handed to h); the cell state itself is not clipped.
// - activation_alpha/beta are consumed in the order of the functions, each function taking
//   values only for the parameters it has; a missing value is that ONNX operator's default.
// - The activation list may name n functions or n per direction (n = 3 LSTM, 2 GRU, 1 RNN);
//   n for a bidirectional layer applies to both directions.
// The IR has no list-of-strings attribute: the ONNX importer stores `activations` as one
// string with the names separated by commas ("Sigmoid,Tanh,Tanh").
//
// Speed: per direction, X·Wᵀ for all steps is one matrix product before the loop, and each
// step multiplies the whole batch's hidden state by Rᵀ in one product (GRU with
// linear_before_reset=0 needs two: the reset gate comes first). W and R are transposed
// once per call so that the products' inner loops run over contiguous memory.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::detail {
namespace {

enum class Cell { kRnn, kGru, kLstm };

// Input slots (ONNX order).
constexpr std::size_t kX = 0, kW = 1, kR = 2, kB = 3, kSeqLens = 4, kInitH = 5, kInitC = 6, kP = 7;

std::int64_t gates_of(Cell c) { return c == Cell::kLstm ? 4 : c == Cell::kGru ? 3 : 1; }
std::size_t activations_of(Cell c) { return c == Cell::kLstm ? 3 : c == Cell::kGru ? 2 : 1; }
std::size_t outputs_of(Cell c) { return c == Cell::kLstm ? 3 : 2; }

// ---------------------------------------------------------------------------
// Activation functions.

enum class Act { kRelu, kTanh, kSigmoid, kAffine, kLeakyRelu, kThresholdedRelu, kScaledTanh, kHardSigmoid, kElu,
                 kSoftsign, kSoftplus };

struct Activation {
  Act kind = Act::kTanh;
  double alpha = 0, beta = 0;
};

struct ActName {
  const char* name;
  Act kind;
  bool has_alpha, has_beta;
  double alpha, beta;  // the ONNX operators' defaults
};

constexpr ActName kActs[] = {
    {"relu", Act::kRelu, false, false, 0, 0},
    {"tanh", Act::kTanh, false, false, 0, 0},
    {"sigmoid", Act::kSigmoid, false, false, 0, 0},
    {"affine", Act::kAffine, true, true, 1.0, 0.0},
    {"leakyrelu", Act::kLeakyRelu, true, false, 0.01, 0},
    {"thresholdedrelu", Act::kThresholdedRelu, true, false, 1.0, 0},
    {"scaledtanh", Act::kScaledTanh, true, true, 1.0, 1.0},
    {"hardsigmoid", Act::kHardSigmoid, true, true, 0.2, 0.5},
    {"elu", Act::kElu, true, false, 1.0, 0},
    {"softsign", Act::kSoftsign, false, false, 0, 0},
    {"softplus", Act::kSoftplus, false, false, 0, 0},
};

template <typename C>
C activate(const Activation& a, C x) {
  const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
  switch (a.kind) {
    case Act::kRelu: return x > C(0) ? x : C(0);
    case Act::kTanh: return std::tanh(x);
    case Act::kSigmoid: return C(1) / (C(1) + std::exp(-x));
    case Act::kAffine: return alpha * x + beta;
    case Act::kLeakyRelu: return x >= C(0) ? x : alpha * x;
    case Act::kThresholdedRelu: return x > alpha ? x : C(0);
    case Act::kScaledTanh: return alpha * std::tanh(beta * x);
    case Act::kHardSigmoid: return std::min(std::max(alpha * x + beta, C(0)), C(1));
    case Act::kElu: return x >= C(0) ? x : alpha * (std::exp(x) - C(1));
    case Act::kSoftsign: return x / (C(1) + std::fabs(x));
    case Act::kSoftplus:  // log(1 + e^x) without overflowing e^x
      return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
  return x;
}

// The comma-separated `activations` attribute (see the file comment) with its alpha/beta.
Result<std::vector<Activation>> parse_activations(const InferCtx& c, Cell cell, std::int64_t dirs) {
  const AttrReader r = c.attr();
  KN_ASSIGN(std::string text, r.s("activations", ""));
  KN_ASSIGN(std::vector<double> alphas, r.floats("activation_alpha", {}));
  KN_ASSIGN(std::vector<double> betas, r.floats("activation_beta", {}));
  const std::size_t n = activations_of(cell);
  std::vector<std::string> names;
  if (text.empty()) {
    names = cell == Cell::kLstm ? std::vector<std::string>{"sigmoid", "tanh", "tanh"}
            : cell == Cell::kGru ? std::vector<std::string>{"sigmoid", "tanh"}
                                 : std::vector<std::string>{"tanh"};
  } else {
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = text.find(',', start);
      std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      names.push_back(std::move(name));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (names.size() != n && names.size() != n * static_cast<std::size_t>(dirs)) {
    return Malformed(c.op, "attribute \"activations\" names {} functions; {} (or {} per direction) expected",
                     names.size(), n, n);
  }
  std::vector<Activation> out;
  std::size_t ai = 0, bi = 0;
  for (const std::string& name : names) {
    const ActName* found = nullptr;
    for (const ActName& a : kActs) {
      if (name == a.name) found = &a;
    }
    if (found == nullptr) {
      return Malformed(c.op,
                       "activation function \"{}\" is not one of Relu, Tanh, Sigmoid, Affine, LeakyRelu, "
                       "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus",
                       name);
    }
    Activation a{found->kind, found->alpha, found->beta};
    if (found->has_alpha && ai < alphas.size()) a.alpha = alphas[ai++];
    if (found->has_beta && bi < betas.size()) a.beta = betas[bi++];
    out.push_back(a);
  }
  if (out.size() == n && dirs == 2) out.insert(out.end(), out.begin(), out.end());  // the same for both
  return out;
}

// ---------------------------------------------------------------------------
// Shapes and attributes.

struct Setup {
  Cell cell = Cell::kRnn;
  std::int64_t T = 0, N = 0, I = 0, H = 0, D = 1, G = 1;  // steps, batch, input, hidden, directions, gates
  bool batch_first = false;                             // layout 1
  bool reverse = false;                                 // direction "reverse" (one direction)
  std::vector<Activation> acts;                         // activations_of(cell) per direction
  double clip = 0;                                      // 0: none
  bool input_forget = false;                            // LSTM
  bool linear_before_reset = false;                     // GRU
  std::vector<Shape> outputs;                           // Y, Y_h[, Y_c]
};

Result<Setup> recurrent_setup(const InferCtx& c, Cell cell) {
  Setup s;
  s.cell = cell;
  s.G = gates_of(cell);
  const AttrReader r = c.attr();
  const Shape& x = c.in[kX];
  const Shape& w = c.in[kW];
  const Shape& rr = c.in[kR];
  if (x.size() != 3 || w.size() != 3 || rr.size() != 3) {
    return Invalid(c.op, "X, W and R must be 3-D, got {}, {} and {}", shape_str(x), shape_str(w), shape_str(rr));
  }
  KN_ASSIGN(std::int64_t layout, r.i("layout", 0));
  if (layout != 0 && layout != 1) return Malformed(c.op, "attribute \"layout\" must be 0 or 1, got {}", layout);
  s.batch_first = layout == 1;
  s.T = s.batch_first ? x[1] : x[0];
  s.N = s.batch_first ? x[0] : x[1];
  s.I = x[2];
  KN_ASSIGN(std::string direction, r.s("direction", "forward"));
  if (direction == "forward" || direction == "reverse") {
    s.D = 1;
    s.reverse = direction == "reverse";
  } else if (direction == "bidirectional") {
    s.D = 2;
  } else {
    return Malformed(c.op, "attribute \"direction\" must be forward, reverse or bidirectional, got \"{}\"", direction);
  }
  // hidden_size is what exporters write; without it R's last dimension says the same.
  KN_ASSIGN(s.H, r.i("hidden_size", rr[2]));
  if (s.H <= 0 || s.H > kMaxElements) return Invalid(c.op, "hidden_size must be positive, got {}", s.H);
  const std::int64_t gh = s.G * s.H;
  if (w != Shape{s.D, gh, s.I}) {
    return Invalid(c.op, "W must be [{}, {}, {}] (directions, {} gates x hidden_size, input_size), got {}", s.D, gh,
                   s.I, s.G, shape_str(w));
  }
  if (rr != Shape{s.D, gh, s.H}) {
    return Invalid(c.op, "R must be [{}, {}, {}] (directions, {} gates x hidden_size, hidden_size), got {}", s.D, gh,
                   s.H, s.G, shape_str(rr));
  }
  if (c.has(kB) && c.in[kB] != Shape{s.D, 2 * gh}) {
    return Invalid(c.op, "B must be [{}, {}], got {}", s.D, 2 * gh, shape_str(c.in[kB]));
  }
  if (c.has(kSeqLens) && c.in[kSeqLens] != Shape{s.N}) {
    return Invalid(c.op, "sequence_lens must be [{}] (batch_size), got {}", s.N, shape_str(c.in[kSeqLens]));
  }
  const Shape state = s.batch_first ? Shape{s.N, s.D, s.H} : Shape{s.D, s.N, s.H};
  for (std::size_t i : {kInitH, kInitC}) {
    if (i == kInitC && cell != Cell::kLstm) continue;
    if (c.has(i) && c.in[i] != state) {
      return Invalid(c.op, "{} must be {}, got {}", i == kInitH ? "initial_h" : "initial_c", shape_str(state),
                     shape_str(c.in[i]));
    }
  }
  if (cell == Cell::kLstm && c.has(kP) && c.in[kP] != Shape{s.D, 3 * s.H}) {
    return Invalid(c.op, "P must be [{}, {}], got {}", s.D, 3 * s.H, shape_str(c.in[kP]));
  }
  KN_ASSIGN(s.acts, parse_activations(c, cell, s.D));
  if (r.has("clip")) {
    KN_ASSIGN(s.clip, r.f("clip", 0));
    if (!(s.clip > 0)) return Invalid(c.op, "attribute \"clip\" must be positive, got {}", s.clip);
  }
  if (cell == Cell::kLstm) {
    KN_ASSIGN(s.input_forget, r.flag("input_forget", false));
  }
  if (cell == Cell::kGru) {
    KN_ASSIGN(s.linear_before_reset, r.flag("linear_before_reset", false));
  }

  const std::size_t max_out = outputs_of(cell);
  if (c.num_outputs > max_out) {
    return Invalid(c.op, "has at most {} outputs ({}), got {}", max_out, cell == Cell::kLstm ? "Y, Y_h, Y_c" : "Y, Y_h",
                   c.num_outputs);
  }
  s.outputs.push_back(s.batch_first ? Shape{s.N, s.T, s.D, s.H} : Shape{s.T, s.D, s.N, s.H});
  for (std::size_t k = 1; k < max_out; ++k) s.outputs.push_back(state);
  if (c.num_outputs != 0) s.outputs.resize(c.num_outputs);
  return s;
}

template <Cell kCell>
Result<std::vector<Shape>> infer_recurrent(const InferCtx& c) {
  KN_ASSIGN(Setup s, recurrent_setup(c, kCell));
  return s.outputs;
}

// ---------------------------------------------------------------------------
// The computation, in C (float for float32/float16, double for float64).

// y[m, :] (+)= a[m, :] · bt for m < M, with bt = Bᵀ stored [K, N] row-major: the inner loop
// runs over y's and bt's rows, which the compiler vectorises.
template <typename C>
void gemm_rows(const C* a, std::int64_t M, std::int64_t K, const C* bt, std::int64_t N, C* y, bool accumulate) {
  if (!accumulate) std::fill(y, y + M * N, C(0));
  for (std::int64_t m = 0; m < M; ++m) {
    C* yr = y + m * N;
    for (std::int64_t k = 0; k < K; ++k) {
      const C av = a[m * K + k];
      if (av == C(0)) continue;
      const C* br = bt + k * N;
      for (std::int64_t n = 0; n < N; ++n) yr[n] += av * br[n];
    }
  }
}

// rows x cols (row-major) → cols x rows.
template <typename C>
std::vector<C> transposed(const C* m, std::int64_t rows, std::int64_t cols) {
  std::vector<C> t(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t k = 0; k < cols; ++k) t[static_cast<std::size_t>(k * rows + r)] = m[r * cols + k];
  }
  return t;
}

template <typename T>
std::vector<calc_t<T>> load_all(const TensorView& v) {
  std::vector<calc_t<T>> out(static_cast<std::size_t>(v.elements()));
  const T* p = v.as<const T>();
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = load(p[i]);
  return out;
}

// Sequence lengths (the execution's total_t is already folded in: kernels/time_steps.h).
Result<std::vector<std::int64_t>> sequence_lens(const RunCtx& c, const Setup& s) {
  std::vector<std::int64_t> lens(static_cast<std::size_t>(s.N), s.T);
  if (c.has(kSeqLens)) {
    for (std::int64_t b = 0; b < s.N; ++b) {
      const std::int64_t v = int_at(c.in[kSeqLens], b);
      if (v < 0 || v > s.T) {
        return Invalid(c.op, "sequence_lens[{}] = {} is outside 0..{} (seq_length)", b, v, s.T);
      }
      lens[static_cast<std::size_t>(b)] = v;
    }
  }
  return lens;
}

// One run of a recurrent layer on T tensors, computed in C: the inputs loaded, the working
// buffers of a direction and the results Y, Y_h, Y_c (zero where no step writes them).
template <typename T>
class Recurrence {
 public:
  using C = calc_t<T>;
  Recurrence(const RunCtx& c, const Setup& s, std::vector<std::int64_t> lens);

  // Runs direction d (0 forward or the only one, 1 the reverse half of bidirectional).
  void run_direction(std::int64_t d);
  // Stores Y, Y_h[, Y_c] into the outputs the layer has.
  void write(const RunCtx& c) const;

 private:
  // One direction's weights: activations, biases, Wᵀ and Rᵀ, peepholes (LSTM, or null).
  struct Direction {
    std::int64_t d;
    bool rev;
    const Activation* act;
    const C* wb;  // Wb[gates]
    const C* rb;  // Rb[gates]
    std::vector<C> wt, rt;  // [I, GH], [H, GH]
    const C* peep;
  };

  static std::size_t sz(std::int64_t n) { return static_cast<std::size_t>(n); }
  // Index of state (direction d, batch entry b) in initial_h / Y_h / Y_c.
  std::int64_t state_at(std::int64_t d, std::int64_t b) const {
    return (s_.batch_first ? b * s_.D + d : d * N_ + b) * H_;
  }
  std::int64_t y_at(std::int64_t t, std::int64_t d, std::int64_t b) const {
    return (s_.batch_first ? (b * T_ + t) * s_.D + d : (t * s_.D + d) * N_ + b) * H_;
  }
  C clipped(C v) const { return s_.clip > 0 ? std::min(std::max(v, -clip_), clip_) : v; }

  Direction direction(std::int64_t d) const;
  void input_products(const Direction& dir);
  void initial_state(std::int64_t d);
  void hidden_products(const Direction& dir);
  void step_entry(const Direction& dir, std::int64_t t, std::int64_t b);
  void lstm_step(const Direction& dir, C* gsum, C* hb, std::int64_t b);
  void gru_linear_step(const Direction& dir, const C* g, const C* gsum, C* hb);
  void gru_step(const Direction& dir, const C* g, const C* gsum, C* hb, std::int64_t b);
  void final_state(std::int64_t d);

  const Setup& s_;
  const std::int64_t T_, N_, I_, H_, GH_;
  const std::vector<std::int64_t> lens_;
  const std::int64_t max_len_;
  const C clip_;
  std::vector<C> x_;  // dense [T, N, I] rows (row t * N + b), whatever the layout
  std::vector<C> w_, r_, bias_, peep_, init_h_, init_c_;
  std::vector<C> y_, yh_, yc_;
  std::vector<C> xw_, hr_, h_, cell_, rh_, rhr_;
};

template <typename T>
Recurrence<T>::Recurrence(const RunCtx& c, const Setup& s, std::vector<std::int64_t> lens)
    : s_(s),
      T_(s.T),
      N_(s.N),
      I_(s.I),
      H_(s.H),
      GH_(s.G * s.H),
      lens_(std::move(lens)),
      max_len_(s.N == 0 ? 0 : *std::max_element(lens_.begin(), lens_.end())),
      clip_(static_cast<C>(s.clip)) {
  const std::vector<C> xin = load_all<T>(c.in[kX]);
  x_.resize(sz(T_ * N_ * I_));
  for (std::int64_t t = 0; t < T_; ++t) {
    for (std::int64_t b = 0; b < N_; ++b) {
      const std::int64_t src = s.batch_first ? (b * T_ + t) * I_ : (t * N_ + b) * I_;
      std::copy_n(xin.begin() + src, I_, x_.begin() + (t * N_ + b) * I_);
    }
  }
  w_ = load_all<T>(c.in[kW]);
  r_ = load_all<T>(c.in[kR]);
  bias_ = c.has(kB) ? load_all<T>(c.in[kB]) : std::vector<C>(sz(s.D * 2 * GH_), C(0));
  if (s.cell == Cell::kLstm && c.has(kP)) peep_ = load_all<T>(c.in[kP]);
  if (c.has(kInitH)) init_h_ = load_all<T>(c.in[kInitH]);
  if (s.cell == Cell::kLstm && c.has(kInitC)) init_c_ = load_all<T>(c.in[kInitC]);
  y_.assign(sz(T_ * s.D * N_ * H_), C(0));  // zero past every entry's length
  yh_.assign(sz(s.D * N_ * H_), C(0));
  yc_.assign(sz(s.D * N_ * H_), C(0));
  xw_.resize(sz(max_len_ * N_ * GH_));
  hr_.resize(sz(N_ * GH_));
  for (std::vector<C>* v : {&h_, &cell_, &rh_, &rhr_}) v->resize(sz(N_ * H_));
}

template <typename T>
typename Recurrence<T>::Direction Recurrence<T>::direction(std::int64_t d) const {
  Direction dir;
  dir.d = d;
  dir.rev = s_.D == 2 ? d == 1 : s_.reverse;
  dir.act = &s_.acts[sz(d) * activations_of(s_.cell)];
  dir.wb = bias_.data() + d * 2 * GH_;  // Wb[gates], then Rb[gates]
  dir.rb = dir.wb + GH_;
  dir.wt = transposed(w_.data() + d * GH_ * I_, GH_, I_);
  dir.rt = transposed(r_.data() + d * GH_ * H_, GH_, H_);
  dir.peep = peep_.empty() ? nullptr : peep_.data() + d * 3 * H_;
  return dir;
}

// X·Wᵀ + Wb (+ Rb where it adds outside the recurrence) for every step that runs.
template <typename T>
void Recurrence<T>::input_products(const Direction& dir) {
  gemm_rows(x_.data(), max_len_ * N_, I_, dir.wt.data(), GH_, xw_.data(), false);
  for (std::int64_t row = 0; row < max_len_ * N_; ++row) {
    C* p = xw_.data() + row * GH_;
    for (std::int64_t k = 0; k < GH_; ++k) {
      // GRU with linear_before_reset: Rbh sits inside rt ⊙ (Ht-1·Rhᵀ + Rbh).
      const bool rb_inside = s_.cell == Cell::kGru && s_.linear_before_reset && k >= 2 * H_;
      p[k] += dir.wb[k] + (rb_inside ? C(0) : dir.rb[k]);
    }
  }
}

template <typename T>
void Recurrence<T>::initial_state(std::int64_t d) {
  for (std::int64_t b = 0; b < N_; ++b) {
    for (std::int64_t k = 0; k < H_; ++k) {
      h_[sz(b * H_ + k)] = init_h_.empty() ? C(0) : init_h_[sz(state_at(d, b) + k)];
      cell_[sz(b * H_ + k)] = init_c_.empty() ? C(0) : init_c_[sz(state_at(d, b) + k)];
    }
  }
}

// Ht-1·Rᵀ for the whole batch (GRU without linear_before_reset: the z and r gates only;
// the candidate's product needs rt first).
template <typename T>
void Recurrence<T>::hidden_products(const Direction& dir) {
  if (s_.cell != Cell::kGru || s_.linear_before_reset) {
    gemm_rows(h_.data(), N_, H_, dir.rt.data(), GH_, hr_.data(), false);
    return;
  }
  std::fill(hr_.begin(), hr_.end(), C(0));
  for (std::int64_t b = 0; b < N_; ++b) {
    for (std::int64_t k = 0; k < H_; ++k) {
      const C hv = h_[sz(b * H_ + k)];
      if (hv == C(0)) continue;
      const C* rrow = dir.rt.data() + k * GH_;
      C* out = hr_.data() + b * GH_;
      for (std::int64_t n = 0; n < 2 * H_; ++n) out[n] += hv * rrow[n];
    }
  }
}

// Step t of batch entry b: the gates, the new state in h (and cell), and Y's row.
template <typename T>
void Recurrence<T>::step_entry(const Direction& dir, std::int64_t t, std::int64_t b) {
  const C* g = xw_.data() + (t * N_ + b) * GH_;
  C* hb = h_.data() + b * H_;
  C* gsum = hr_.data() + b * GH_;
  // Pre-activations, less the peepholes; GRU's candidate keeps Ht-1·Rhᵀ apart (below).
  const std::int64_t summed = s_.cell == Cell::kGru ? 2 * H_ : GH_;
  for (std::int64_t k = 0; k < summed; ++k) gsum[k] += g[k];
  if (s_.cell == Cell::kRnn) {
    for (std::int64_t k = 0; k < H_; ++k) hb[k] = activate(dir.act[0], clipped(gsum[k]));
  } else if (s_.cell == Cell::kLstm) {
    lstm_step(dir, gsum, hb, b);
  } else if (s_.linear_before_reset) {
    gru_linear_step(dir, g, gsum, hb);
  } else {
    gru_step(dir, g, gsum, hb, b);
  }
  std::copy_n(hb, H_, y_.begin() + y_at(t, dir.d, b));
}

// Gate order i, o, f, c; peepholes P = [Pi, Po, Pf].
template <typename T>
void Recurrence<T>::lstm_step(const Direction& dir, C* gsum, C* hb, std::int64_t b) {
  const Activation* act = dir.act;
  const C* p = dir.peep;
  C* cb = cell_.data() + b * H_;
  const std::int64_t H = H_;
  for (std::int64_t k = 0; k < H; ++k) {
    const C cprev = cb[k];
    const C ig = activate(act[0], clipped(gsum[k] + (p ? p[k] * cprev : C(0))));
    const C fg = s_.input_forget ? C(1) - ig
                                 : activate(act[0], clipped(gsum[2 * H + k] + (p ? p[2 * H + k] * cprev : C(0))));
    const C cg = activate(act[1], clipped(gsum[3 * H + k]));
    const C cnew = fg * cprev + ig * cg;
    const C og = activate(act[0], clipped(gsum[H + k] + (p ? p[H + k] * cnew : C(0))));
    cb[k] = cnew;
    hb[k] = og * activate(act[2], clipped(cnew));
  }
}

// Gate order z, r, h: ht = g(Xt·Whᵀ + Wbh + rt ⊙ (Ht-1·Rhᵀ + Rbh)).
template <typename T>
void Recurrence<T>::gru_linear_step(const Direction& dir, const C* g, const C* gsum, C* hb) {
  const Activation* act = dir.act;
  const std::int64_t H = H_;
  for (std::int64_t k = 0; k < H; ++k) {
    const C z = activate(act[0], clipped(gsum[k]));
    const C rg = activate(act[0], clipped(gsum[H + k]));
    const C cand = activate(act[1], clipped(g[2 * H + k] + rg * (gsum[2 * H + k] + dir.rb[2 * H + k])));
    hb[k] = (C(1) - z) * cand + z * hb[k];
  }
}

// ht = g(Xt·Whᵀ + (rt ⊙ Ht-1)·Rhᵀ + Rbh + Wbh): rt ⊙ Ht-1 first, then its product.
template <typename T>
void Recurrence<T>::gru_step(const Direction& dir, const C* g, const C* gsum, C* hb, std::int64_t b) {
  const Activation* act = dir.act;
  const std::int64_t H = H_;
  C* rhb = rh_.data() + b * H;
  for (std::int64_t k = 0; k < H; ++k) rhb[k] = activate(act[0], clipped(gsum[H + k])) * hb[k];
  C* cand = rhr_.data() + b * H;
  std::copy_n(g + 2 * H, H, cand);
  for (std::int64_t k = 0; k < H; ++k) {
    const C v = rhb[k];
    if (v == C(0)) continue;
    const C* rrow = dir.rt.data() + k * GH_ + 2 * H;
    for (std::int64_t n = 0; n < H; ++n) cand[n] += v * rrow[n];
  }
  for (std::int64_t k = 0; k < H; ++k) {
    const C z = activate(act[0], clipped(gsum[k]));
    hb[k] = (C(1) - z) * activate(act[1], clipped(cand[k])) + z * hb[k];
  }
}

// Y_h / Y_c of direction d: the state after each entry's last step.
template <typename T>
void Recurrence<T>::final_state(std::int64_t d) {
  for (std::int64_t b = 0; b < N_; ++b) {
    if (lens_[sz(b)] == 0) continue;  // zero, as onnxruntime answers
    std::copy_n(h_.begin() + b * H_, H_, yh_.begin() + state_at(d, b));
    std::copy_n(cell_.begin() + b * H_, H_, yc_.begin() + state_at(d, b));
  }
}

template <typename T>
void Recurrence<T>::run_direction(std::int64_t d) {
  const Direction dir = direction(d);
  input_products(dir);
  initial_state(d);
  for (std::int64_t step = 0; step < max_len_; ++step) {
    hidden_products(dir);
    for (std::int64_t b = 0; b < N_; ++b) {
      if (step >= lens_[sz(b)]) continue;
      step_entry(dir, dir.rev ? lens_[sz(b)] - 1 - step : step, b);
    }
  }
  final_state(d);
}

template <typename T>
void Recurrence<T>::write(const RunCtx& c) const {
  const std::vector<C>* results[] = {&y_, &yh_, &yc_};
  for (std::size_t o = 0; o < c.out.size(); ++o) {
    T* dst = c.out[o].as<T>();
    const std::vector<C>& src = *results[o];
    for (std::size_t i = 0; i < src.size(); ++i) dst[i] = store<T>(src[i]);
  }
}

template <typename T>
Status run_typed(const RunCtx& c, const Setup& s) {
  KN_ASSIGN(std::vector<std::int64_t> lens, sequence_lens(c, s));
  Recurrence<T> rec(c, s, std::move(lens));
  for (std::int64_t d = 0; d < s.D; ++d) rec.run_direction(d);
  rec.write(c);
  return Status::Ok();
}

template <Cell kCell>
Status recurrent_float(const RunCtx& c) {
  KN_ASSIGN(Setup s, with_infer_ctx(c, [](const InferCtx& ic) { return recurrent_setup(ic, kCell); }));
  const DType t = c.in[kX].dtype;
  for (std::size_t i = 0; i < c.in.size(); ++i) {
    if (i == kSeqLens || !c.has(i)) continue;
    if (c.in[i].dtype != t || has_quant(c.in[i])) {
      return BadType(c.op, "input {} is {} but X is {}", i, type_desc(c.in[i]), type_desc(c.in[kX]));
    }
  }
  if (c.has(kSeqLens) && (c.in[kSeqLens].dtype != DType::kInt32 || has_quant(c.in[kSeqLens]))) {
    return BadType(c.op, "sequence_lens must be int32, got {}", type_desc(c.in[kSeqLens]));
  }
  for (const TensorView& o : c.out) {
    if (o.dtype != t || has_quant(o)) return BadType(c.op, "outputs must be {} as X, got {}", type_desc(c.in[kX]), type_desc(o));
  }
  Status st = Status::Ok();
  const bool ok = visit_types<kFloatTypes>(t, [&](auto tag) { st = run_typed<decltype(tag)>(c, s); });
  if (!ok) return bad_type(c.op, "X", c.in[kX], kFloatTypes);
  return st;
}

// Quantized tensors (int8 with scales, from an A8W8 model) go through float.
template <Cell kCell>
Status run_recurrent(const RunCtx& c) {
  return run_via_float(c, recurrent_float<kCell>);
}

}  // namespace

void add_recurrent_ops(std::vector<OpDef>& ops) {
  ops.push_back({"LSTM", 3, 8, infer_recurrent<Cell::kLstm>, run_recurrent<Cell::kLstm>});
  ops.push_back({"GRU", 3, 6, infer_recurrent<Cell::kGru>, run_recurrent<Cell::kGru>});
  ops.push_back({"RNN", 3, 6, infer_recurrent<Cell::kRnn>, run_recurrent<Cell::kRnn>});
}

}  // namespace svp::kernels::detail
