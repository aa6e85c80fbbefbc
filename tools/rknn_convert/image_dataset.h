// Image lines of a vendor dataset list (rknn_convert's `dataset`): rknn-toolkit2 reads
// JPEG/PNG files as the model's raw input (pixels 0..255, RGB, or BGR with
// quant_img_RGB2BGR), normalised by mean_values/std_values inside the model. svp-acl's
// calibration reads tensors, so each image becomes a raw float32 tensor file in NCHW
// (the ONNX input's layout) and the list is rewritten to name those files.
#pragma once

#include <string>

#include "common/status.h"
#include "compiler/options.h"

namespace svp::rknn_convert {

// The list `options.image_list` with its image lines (.jpg/.jpeg/.png) replaced by
// tensors written into `work_dir`; returns the list to calibrate from (the original when
// it names no image). Errors name the line: an image whose size is not the input's
// (resizing is not implemented yet), a model with more than one input or an input that is
// not [1, 3, H, W], .bmp files, unreadable images.
Result<std::string> images_to_tensors(const compiler::CompileOptions& options, bool rgb2bgr,
                                      const std::string& work_dir);

}  // namespace svp::rknn_convert
