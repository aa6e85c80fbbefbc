// cpp_async_sample: the classifier of make_sample_model run with the C++ API
// (include/svp/acl.hpp) and Boost.Asio, the style the C++ API is meant for.
//
//   cpp_async_sample <dir>   (dir holds classifier.om, classifier.input.bin and
//                             classifier.expected.bin from make_sample_model)
//
// Four lanes, each with its own stream and datasets, classify the test images
// concurrently; a lane's completion handler (on the lane's strand of one io_context run by
// two threads) checks the result and submits the lane's next image. No error checks after
// every call: failures throw svp::acl::error with the function and the library's message,
// and the RAII objects release everything in the right order on the way out.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include "svp/acl.hpp"

namespace {

namespace acl = svp::acl;
namespace net = boost::asio;

constexpr int kLanes = 4;
constexpr int kRounds = 5;  // every image is classified kRounds times

std::vector<char> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

template <class T>
std::vector<T> as_vector(const std::vector<char>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

// One stream with its own datasets, processing its share of the work in order.
struct lane {
  lane(const acl::runtime& rt, const acl::context& ctx, const acl::model& m, net::io_context& ioc)
      : stream(ctx), io(rt, m), strand(net::make_strand(ioc)) {}
  acl::stream stream;
  acl::model_io io;
  net::strand<net::io_context::executor_type> strand;
  int next = 0;  // index into the lane's job list
  std::vector<int> images;
  int mismatches = 0;
  int done = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <dir with classifier.om>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  try {
    auto rt = acl::runtime::init();
    acl::device dev(rt, 0);
    acl::context ctx(dev);
    acl::model m(rt, as_vector<std::uint8_t>(read_file(dir + "/classifier.om")));
    const acl::model_desc desc = m.describe();
    const acl::tensor_desc in = desc.input(0);
    const acl::tensor_desc out = desc.output(0);
    std::printf("model: input %s (%zu rows of %zu bytes, stride %zu), output %s\n", in.name.c_str(), in.rows(),
                in.row_bytes(), in.default_stride, out.name.c_str());

    const std::vector<float> images = as_vector<float>(read_file(dir + "/classifier.input.bin"));
    const std::vector<float> expected = as_vector<float>(read_file(dir + "/classifier.expected.bin"));
    const std::size_t image_floats = in.rows() * in.row_bytes() / sizeof(float);
    const std::size_t classes = out.rows() * out.row_bytes() / sizeof(float);
    const int n_images = static_cast<int>(images.size() / image_floats);

    // The softmax runs on the AI-CPU: asynchronous executions need a serving thread.
    std::uint32_t aicpu_ops = 0;
    svp_acl_ext_get_mdl_aicpu_task_num(m.id(), &aicpu_ops);
    std::optional<acl::aicpu_worker> aicpu;
    if (aicpu_ops > 0) aicpu.emplace(ctx, 1);

    net::io_context ioc;
    std::vector<std::unique_ptr<lane>> lanes;
    for (int l = 0; l < kLanes; ++l) lanes.push_back(std::make_unique<lane>(rt, ctx, m, ioc));
    for (int job = 0; job < n_images * kRounds; ++job) lanes[job % kLanes]->images.push_back(job % n_images);

    // Submits the lane's next image; the completion checks it and submits the one after.
    std::function<void(lane&)> submit = [&](lane& l) {
      if (l.next == static_cast<int>(l.images.size())) return;
      const int image = l.images[l.next++];
      const std::vector<float> x(images.begin() + image * image_floats, images.begin() + (image + 1) * image_floats);
      l.io.input(0).assign(x);
      acl::async_execute(m, l.io, l.stream, net::bind_executor(l.strand, [&, image](boost::system::error_code ec) {
                           if (ec) {  // an NPU error: report it, stop this lane
                             std::fprintf(stderr, "image %d: %s\n", image, ec.message().c_str());
                             ++l.mismatches;
                             return;
                           }
                           const std::vector<float> y = l.io.output(0).to_vector<float>();
                           for (std::size_t c = 0; c < classes; ++c) {
                             if (std::fabs(y[c] - expected[image * classes + c]) > 1e-4f) {
                               ++l.mismatches;
                               break;
                             }
                           }
                           ++l.done;
                           submit(l);
                         }));
    };
    for (auto& l : lanes) submit(*l);
    std::thread helper([&] { ioc.run(); });
    ioc.run();  // returns when every lane has finished: each execution is outstanding work
    helper.join();

    int done = 0, mismatches = 0;
    for (auto& l : lanes) {
      done += l->done;
      mismatches += l->mismatches;
    }
    std::printf("%d executions on %d streams, %d mismatches\n", done, kLanes, mismatches);
    if (done != n_images * kRounds || mismatches != 0) return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cpp_async_sample: %s\n", e.what());
    return 1;
  }
  std::printf("cpp sample OK\n");
  return 0;
}
