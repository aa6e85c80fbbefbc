// The RKNN NPU's native layouts (rknn_layout.h).
#include "runtime/rknn_layout.h"

#include <cstring>
#include <string_view>

#include <fmt/format.h>

namespace svp::runtime::rknn {
namespace {

std::size_t type_bytes(int type) {
  switch (type) {
    case RKNN_TENSOR_INT8:
    case RKNN_TENSOR_UINT8:
    case RKNN_TENSOR_BOOL: return 1;
    case RKNN_TENSOR_FLOAT16:
    case RKNN_TENSOR_BFLOAT16:
    case RKNN_TENSOR_INT16:
    case RKNN_TENSOR_UINT16: return 2;
    case RKNN_TENSOR_INT64: return 8;
    default: return 4;
  }
}

std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return a == 0 ? v : (v + a - 1) / a * a; }

std::string dims_text(const std::uint32_t* d, std::uint32_t n) {
  std::string s = "[";
  for (std::uint32_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

void set_dims(rknn_tensor_attr& a, std::initializer_list<std::uint64_t> dims) {
  std::memset(a.dims, 0, sizeof a.dims);
  a.n_dims = 0;
  std::uint64_t n = 1;
  for (std::uint64_t d : dims) {
    a.dims[a.n_dims++] = static_cast<std::uint32_t>(d);
    n *= d;
  }
  a.n_elems = static_cast<std::uint32_t>(n);
}

}  // namespace

std::uint32_t native_c2(const target::DeviceProfile& platform, int type) {
  switch (type) {
    case RKNN_TENSOR_INT8:
    case RKNN_TENSOR_UINT8: return platform.c2_int8;
    case RKNN_TENSOR_FLOAT16:
    case RKNN_TENSOR_FLOAT32: return platform.c2_fp16;
    default: return 0;
  }
}

std::uint32_t input_width_align(const target::DeviceProfile& platform) {
  return std::string_view(platform.name) == "RK3566" ? 8 : 16;
}

rknn_tensor_attr native_attr(const rknn_tensor_attr& normal, const std::vector<std::int64_t>& dims, bool input,
                             bool nhwc, const target::DeviceProfile& platform) {
  rknn_tensor_attr a = normal;
  const std::uint32_t c2 = native_c2(platform, normal.type);
  if (dims.size() != 4) return a;
  const auto N = static_cast<std::uint64_t>(dims[0]), C = static_cast<std::uint64_t>(dims[1]),
             H = static_cast<std::uint64_t>(dims[2]), W = static_cast<std::uint64_t>(dims[3]);
  const std::size_t es = type_bytes(normal.type);
  const bool few_channels = C == 1 || C == 3 || C == 4;
  if (input && (nhwc || few_channels || c2 == 0)) {
    if (c2 == 0 && !nhwc) {  // bool / int64 inputs: the NPU reads them in NCHW (guide 5.2.3)
      a.fmt = RKNN_TENSOR_NCHW;
      set_dims(a, {N, C, H, W});
      a.w_stride = static_cast<std::uint32_t>(W);
      a.size = a.size_with_stride = static_cast<std::uint32_t>(a.n_elems * es);
      return a;
    }
    a.fmt = RKNN_TENSOR_NHWC;
    set_dims(a, {N, H, W, C});
    a.w_stride = static_cast<std::uint32_t>(round_up(W, input_width_align(platform)));
    a.h_stride = 0;
    a.size = static_cast<std::uint32_t>(a.n_elems * es);
    a.size_with_stride = static_cast<std::uint32_t>(N * H * a.w_stride * C * es);
    return a;
  }
  if (!input && nhwc) {
    a.fmt = RKNN_TENSOR_NHWC;
    set_dims(a, {N, H, W, C});
    a.w_stride = 0;
    a.size = a.size_with_stride = static_cast<std::uint32_t>(a.n_elems * es);
    return a;
  }
  if (c2 == 0) return a;  // int16/int32/... outputs stay as the model declares them
  const std::uint64_t c1 = (C + c2 - 1) / c2;
  a.fmt = RKNN_TENSOR_NC1HWC2;
  set_dims(a, {N, c1, H, W, c2});
  a.w_stride = input ? static_cast<std::uint32_t>(W) : 0;
  a.h_stride = 0;
  a.size = a.size_with_stride = static_cast<std::uint32_t>(a.n_elems * es);
  return a;
}

std::uint64_t Layout::buffer_elems() const {
  switch (fmt) {
    case RKNN_TENSOR_NCHW:
    case RKNN_TENSOR_NHWC: return n * c * h_stride * w_stride;
    case RKNN_TENSOR_NC1HWC2: return n * ((c + c2 - 1) / c2) * h_stride * w_stride * c2;
    default: return elems;
  }
}

std::uint64_t Layout::offset(std::uint64_t i) const {
  if (fmt != RKNN_TENSOR_NCHW && fmt != RKNN_TENSOR_NHWC && fmt != RKNN_TENSOR_NC1HWC2) return i;
  const std::uint64_t x = i % w, y = (i / w) % h, ch = (i / (w * h)) % c, b = i / (w * h * c);
  switch (fmt) {
    case RKNN_TENSOR_NCHW: return ((b * c + ch) * h_stride + y) * w_stride + x;
    case RKNN_TENSOR_NHWC: return ((b * h_stride + y) * w_stride + x) * c + ch;
    default: {
      const std::uint64_t c1 = (c + c2 - 1) / c2;
      return (((b * c1 + ch / c2) * h_stride + y) * w_stride + x) * c2 + ch % c2;
    }
  }
}

std::string Layout::describe() const {
  switch (fmt) {
    case RKNN_TENSOR_NCHW: return fmt::format("NCHW [{}, {}, {}, {}] w_stride {} h_stride {}", n, c, h, w, w_stride, h_stride);
    case RKNN_TENSOR_NHWC: return fmt::format("NHWC [{}, {}, {}, {}] w_stride {} h_stride {}", n, h, w, c, w_stride, h_stride);
    case RKNN_TENSOR_NC1HWC2:
      return fmt::format("NC1HWC2 [{}, {}, {}, {}, {}] w_stride {} h_stride {}", n, (c + c2 - 1) / c2, h, w, c2, w_stride,
                         h_stride);
    default: return fmt::format("{} elements in model order", elems);
  }
}

bool layout_from_attr(const rknn_tensor_attr& attr, const std::vector<std::int64_t>& dims, bool nhwc_source,
                      Layout* out, std::string* why) {
  Layout l;
  l.elems = 1;
  for (std::int64_t d : dims) l.elems *= static_cast<std::uint64_t>(d);
  // Read as the int a C caller put there (any value).
  int fmt;
  std::memcpy(&fmt, &attr.fmt, sizeof fmt);
  const std::uint32_t* d = attr.dims;
  const std::string given = fmt::format("dims {}", dims_text(d, std::min<std::uint32_t>(attr.n_dims, RKNN_MAX_DIMS)));
  if (dims.size() != 4 || fmt == RKNN_TENSOR_UNDEFINED) {
    std::uint64_t n = attr.n_dims == 0 || attr.n_dims > RKNN_MAX_DIMS ? 0 : 1;
    for (std::uint32_t i = 0; i < attr.n_dims && i < RKNN_MAX_DIMS; ++i) n *= d[i];
    if (n != l.elems) {
      *why = fmt::format("{} hold {} elements, the tensor has {}", given, n, l.elems);
      return false;
    }
    *out = l;
    return true;
  }
  l.n = static_cast<std::uint64_t>(dims[0]);
  l.c = static_cast<std::uint64_t>(dims[1]);
  l.h = static_cast<std::uint64_t>(dims[2]);
  l.w = static_cast<std::uint64_t>(dims[3]);
  auto expect = [&](std::initializer_list<std::uint64_t> want, const char* order) {
    bool ok = attr.n_dims == want.size();
    std::size_t i = 0;
    for (std::uint64_t v : want) ok = ok && d[i++] == v;
    if (!ok) *why = fmt::format("{} do not describe the tensor in {} (expected {})", given, order, [&] {
      std::string s = "[";
      std::size_t k = 0;
      for (std::uint64_t v : want) s += (k++ ? ", " : "") + std::to_string(v);
      return s + "]";
    }());
    return ok;
  };
  switch (fmt) {
    case RKNN_TENSOR_NCHW:
      if (!expect({l.n, l.c, l.h, l.w}, "NCHW")) return false;
      break;
    case RKNN_TENSOR_NHWC:
      if (!expect({l.n, l.h, l.w, l.c}, "NHWC")) return false;
      break;
    case RKNN_TENSOR_NC1HWC2: {
      if (attr.n_dims != 5 || d[4] == 0) {
        *why = fmt::format("NC1HWC2 needs 5 dims [N, C1, H, W, C2] with C2 > 0, got {}", given);
        return false;
      }
      l.c2 = d[4];
      if (!expect({l.n, (l.c + l.c2 - 1) / l.c2, l.h, l.w, l.c2}, "NC1HWC2")) return false;
      break;
    }
    default:
      *why = fmt::format("fmt {} is not an rknn_tensor_format", fmt);
      return false;
  }
  l.fmt = fmt == RKNN_TENSOR_NC1HWC2 && nhwc_source ? RKNN_TENSOR_NHWC : fmt;
  if (l.fmt != RKNN_TENSOR_NC1HWC2) l.c2 = 1;
  l.w_stride = attr.w_stride == 0 ? l.w : attr.w_stride;
  l.h_stride = attr.h_stride == 0 ? l.h : attr.h_stride;
  if (l.w_stride < l.w || l.h_stride < l.h) {
    *why = fmt::format("w_stride {} / h_stride {} are smaller than the width {} / height {} (0 means no padding)",
                       attr.w_stride, attr.h_stride, l.w, l.h);
    return false;
  }
  // Strides of up to 2^32 each could overflow the element count: no tensor buffer is 2^40.
  const long double span = static_cast<long double>(l.n) * static_cast<long double>(l.c + l.c2) *
                           static_cast<long double>(l.h_stride) * static_cast<long double>(l.w_stride);
  if (span > static_cast<long double>(std::uint64_t{1} << 40)) {
    *why = fmt::format("w_stride {} / h_stride {} describe a buffer of about {:.3g} elements", attr.w_stride,
                       attr.h_stride, static_cast<double>(span));
    return false;
  }
  *out = l;
  return true;
}

void unpack(const Layout& layout, std::size_t es, const std::uint8_t* buffer, std::uint8_t* dense) {
  for (std::uint64_t i = 0; i < layout.elems; ++i) std::memcpy(dense + i * es, buffer + layout.offset(i) * es, es);
}

void pack(const Layout& layout, std::size_t es, const std::uint8_t* dense, std::uint8_t* buffer) {
  std::memset(buffer, 0, layout.buffer_elems() * es);
  for (std::uint64_t i = 0; i < layout.elems; ++i) std::memcpy(buffer + layout.offset(i) * es, dense + i * es, es);
}

}  // namespace svp::runtime::rknn
