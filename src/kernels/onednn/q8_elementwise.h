// Splitting the native int8 elementwise kernels (q8_table_apply, q8_binary) over the kernel
// threads. Why: with two kernel threads, the convolution before such a layer leaves half of
// its output in the other core's cache; one thread reading it all then waits on every
// line (PP-OCRv4 rec's HardSwish tables took 5× their one-thread time). Split in contiguous
// bands as the convolution split its rows, each thread mostly reads what it wrote, and the
// work halves. Elementwise results do not depend on the split.
//
// Threads: q8_split_rows opens an OpenMP region of up to `threads` threads; callers on the
// AI-CPU worker pass 1.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/tensor.h"

namespace svp::kernels::onednn {

// Elements below which a parallel region costs more than it saves (rec's 230 KB HardSwish
// maps halve on two threads). Session 43 had this at 1 M: beside svp_run's AI-CPU worker a
// region waited for its second thread. The cause was ours, and is fixed: AI-CPU layers
// opened two-thread regions from the worker's thread, whose second OpenMP team made
// libgomp shorten every spin-wait (FastProgram::threads_for), and the spin governor counted
// our own spinning waiters as contention (spinning_waiters()).
inline constexpr std::int64_t kQ8SplitFrom = std::int64_t{1} << 15;

// f(r0, r1) over bands of [0, rows), on up to `threads` threads when the rows hold enough
// elements (row_elements each), else once over all of them.
template <typename F>
void q8_split_rows(std::int64_t rows, std::int64_t row_elements, int threads, F&& f) {
  const int parts = static_cast<int>(std::min<std::int64_t>(std::max(threads, 1), rows));
  if (parts < 2 || rows * row_elements < kQ8SplitFrom) {
    f(std::int64_t{0}, rows);
    return;
  }
#pragma omp parallel for num_threads(parts) schedule(static)
  for (int k = 0; k < parts; ++k) f(rows * k / parts, rows * (k + 1) / parts);
}

// A band of an operand: its data and dims.
struct Q8Slice {
  void* data = nullptr;
  std::vector<std::int64_t> dims;
};

// The rows of a broadcasting binary op's output y: its first axis longer than 1 (earlier
// axes are 1, so a band of rows is contiguous in y and in every operand that has the axis).
struct Q8RowSplit {
  std::int64_t rows = 1, row_elements = 0;
  int axis = -1;  // in y's dims; -1: y has no axis longer than 1
  std::size_t rank = 0;

  // Rows [r0, r1) of operand v (right-aligned to y, numpy rules): sliced where it has the
  // axis at full length, else whole (it broadcasts along the axis).
  Q8Slice slice(const model::TensorView& v, std::int64_t r0, std::int64_t r1) const {
    Q8Slice s{v.data, v.dims};
    const std::int64_t j = axis - static_cast<std::int64_t>(rank - v.dims.size());
    if (axis < 0 || j < 0 || v.dims[static_cast<std::size_t>(j)] == 1) return s;
    std::int64_t inner = 1;
    for (std::size_t k = static_cast<std::size_t>(j) + 1; k < v.dims.size(); ++k) inner *= v.dims[k];
    s.data = static_cast<std::uint8_t*>(v.data) +
             static_cast<std::size_t>(r0 * inner) * model::dtype_size(v.dtype);
    s.dims[static_cast<std::size_t>(j)] = r1 - r0;
    return s;
  }
};

inline Q8RowSplit q8_row_split(const std::vector<std::int64_t>& y) {
  Q8RowSplit r;
  r.rank = y.size();
  std::int64_t total = 1;
  for (std::int64_t d : y) total *= d;
  for (std::size_t k = 0; k < y.size(); ++k) {
    if (y[k] > 1) {
      r.axis = static_cast<int>(k);
      r.rows = y[k];
      break;
    }
  }
  r.row_elements = r.rows > 0 ? total / r.rows : 0;
  return r;
}

}  // namespace svp::kernels::onednn
