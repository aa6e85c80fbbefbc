// Loading the three models and the recogniser's gears (see ocr_models.h).
#include "ocr_models.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace ocr {
namespace acl = svp::acl;

namespace {

// C calls the C++ API does not wrap (gears, AIPP information) fail the C++ way.
void check(svp_acl_error rc, const char* function) {
  if (rc != SVP_ACL_SUCCESS) throw acl::error(rc, function, svp_acl_get_recent_err_msg());
}

constexpr std::int32_t kRecPriority = 1;  // higher than the default 3 of det and cls

std::vector<std::uint8_t> read_model(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    throw std::runtime_error("cannot open the model " + path +
                             " (compile it with script/compile_model.sh: samples/README.md)");
  }
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The size the model's first layer receives after AIPP: the AIPP information's output dims.
void aipp_output_size(const acl::model& m, int* w, int* h) {
  svp_acl_aipp_info info{};
  check(svp_acl_mdl_get_first_aipp_info(m.id(), 0, &info), "svp_acl_mdl_get_first_aipp_info");
  const svp_acl_mdl_io_dims& out = info.out_dims[0].aipp_out_dims;
  if (info.shape_count == 0 || out.dim_count != 4) throw std::runtime_error("unexpected AIPP output dims");
  *h = static_cast<int>(out.dims[2]);
  *w = static_cast<int>(out.dims[3]);
}

Stage load(const acl::runtime& rt, const acl::context& ctx, const std::string& path, const char* name,
           std::int32_t priority, std::size_t in_flight, const boost::asio::any_io_executor& ex) {
  Stage s;
  s.name = name;
  acl::model_config config = acl::model_config::create();
  config.priority(priority);
  s.model = acl::model(rt, read_model(path), config);
  s.stream = acl::stream(ctx);
  s.datasets = std::make_unique<DatasetPool>(rt, s.model, in_flight, ex);
  svp_acl_mdl_aipp_type type{};
  std::size_t attached = 0;
  check(svp_acl_mdl_get_input_aipp_type(s.model.id(), 0, &type, &attached), "svp_acl_mdl_get_input_aipp_type");
  if (type == SVP_ACL_DATA_WITHOUT_AIPP) {
    throw std::runtime_error(path + " has no AIPP on its input: compile it with script/compile_model.sh");
  }
  return s;
}

}  // namespace

OcrModels::OcrModels(const acl::runtime& rt, const acl::context& ctx, const std::string& dir, std::size_t in_flight,
                     boost::asio::any_io_executor executor) {
  det = load(rt, ctx, dir + "/ppocr_det.om", "det", 3, in_flight, executor);
  cls = load(rt, ctx, dir + "/ppocr_cls.om", "cls", 3, in_flight, executor);
  rec = load(rt, ctx, dir + "/ppocr_rec.om", "rec", kRecPriority, in_flight, executor);
  aipp_output_size(det.model, &det.input_w, &det.input_h);
  aipp_output_size(cls.model, &cls.input_w, &cls.input_h);

  // The recogniser's gears, and at each the output's time steps (the description follows
  // the selected gear). The datasets were made before any selection, at the largest gear,
  // so they are large enough for every gear.
  const acl::model_desc desc = rec.model.describe();
  check(svp_acl_mdl_get_input_index_by_name(desc.native_handle(), SVP_ACL_DYNAMIC_TENSOR_NAME, &rec_dynamic_index_), "svp_acl_mdl_get_input_index_by_name");
  svp_acl_mdl_hw hw{};
  check(svp_acl_mdl_get_dynamic_hw(desc.native_handle(), rec_dynamic_index_, &hw), "svp_acl_mdl_get_dynamic_hw");
  if (hw.hw_count == 0) throw std::runtime_error(dir + "/ppocr_rec.om has no resolution gears");
  const acl::model_io& io = rec.datasets->any();
  for (std::size_t g = 0; g < hw.hw_count; ++g) {
    RecGear gear{static_cast<int>(hw.hw[g][0]), static_cast<int>(hw.hw[g][1]), 0};
    acl::aipp_set aipp(rt, 1);
    // What the static configurations of det and cls say (script/aipp_*.cfg), per gear.
    aipp.input_format(SVP_ACL_RGB888_U8)
        .src_image_size(gear.width, gear.height)
        .rbuv_swap(true)
        .mean(127.5f, 127.5f, 127.5f, 0)
        .var_reci(1 / 127.5f, 1 / 127.5f, 1 / 127.5f, 1);
    rec_aipp_.push_back(std::move(aipp));
    gears.push_back(gear);
  }
  for (std::size_t g = 0; g < gears.size(); ++g) {
    select_gear(g, io);
    const acl::tensor_desc out = rec.model.describe().output(0);
    if (out.dims.size() != 3) throw std::runtime_error("the recogniser's output is not [1, T, classes]");
    gears[g].steps = static_cast<std::size_t>(out.dims[1]);
    rec_classes = static_cast<std::size_t>(out.dims[2]);
  }
  // Narrowest first, keeping each gear's AIPP set beside it.
  std::vector<std::size_t> order(gears.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return gears[a].width < gears[b].width; });
  std::vector<RecGear> sorted_gears;
  std::vector<acl::aipp_set> sorted_aipp;
  for (std::size_t i : order) {
    sorted_gears.push_back(gears[i]);
    sorted_aipp.push_back(std::move(rec_aipp_[i]));
  }
  gears = std::move(sorted_gears);
  rec_aipp_ = std::move(sorted_aipp);
  rec.input_h = gears.back().height;
  rec.input_w = gears.back().width;
}

std::size_t OcrModels::gear_for(int width) const {
  for (std::size_t g = 0; g < gears.size(); ++g) {
    if (gears[g].width >= width) return g;
  }
  return gears.size() - 1;
}

void OcrModels::select_gear(std::size_t g, const acl::model_io& io) {
  const RecGear& gear = gears.at(g);
  check(svp_acl_mdl_set_dynamic_hw_size(rec.model.id(), io.inputs().native_handle(), rec_dynamic_index_,
                                      static_cast<std::uint64_t>(gear.height), static_cast<std::uint64_t>(gear.width)), "svp_acl_mdl_set_dynamic_hw_size");
  rec_aipp_.at(g).apply_to_input(rec.model, io, 0);
}

}  // namespace ocr
