#!/usr/bin/env bash
# The one list of Debian 12 packages this project needs, and their installer.
#   scripts/deps.sh          install whatever of the list is missing (as root, or through sudo)
#   scripts/deps.sh --list   print the list on one line, space-separated (for deps_audit, CI)
#   scripts/deps.sh --model-tools   also install what the model scripts need (scripts/models:
#                            training and exporting ONNX models with PyTorch); neither the
#                            build, the tests nor CI need these
# Every other script and CI take the list from here; nothing is to be installed by hand.
set -euo pipefail

# Build: compiler, build tools and the libraries the library, tools and tests compile against.
build=(cmake ninja-build g++ pkg-config
       libspdlog-dev libfmt-dev nlohmann-json3-dev zlib1g-dev
       libdnnl-dev            # oneDNN: the kernels' fast paths
       ocl-icd-opencl-dev     # oneDNN's CMake package looks for OpenCL; libdnnl-dev only Recommends it
       libonnx-dev libprotobuf-dev protobuf-compiler  # the ONNX importer of svp_atc; text-format configs
       libboost-dev           # Boost.Asio: the C++ API's completions (include/svp/acl.hpp)
       libcli11-dev           # command lines of the tools (svp_prof, svp_atc, svp_run)
       libyaml-cpp-dev        # rknn_convert: rknn-toolkit2's YAML model configuration
       libpng-dev libjpeg62-turbo-dev   # svp_atc: JPEG/PNG calibration images (--image_list)
       libssl-dev             # OpenSSL's libcrypto (AES-GCM): encrypted RKNN models (librknnrt, rknn.api)
       python3-dev pybind11-dev python3-numpy)  # the Python package (svp_acl, rknn.api)
# Tests, benchmarks and tools only (the library itself needs none of these).
tests=(libgtest-dev libgmock-dev  # GoogleTest
       libbenchmark-dev           # Google Benchmark: bench/
       clang libclang-rt-14-dev   # libFuzzer: the fuzz targets (model loader, ONNX importer)
       libopencv-dev              # OpenCV: the AIPP oracle in tests and the AIPP benchmark
       python3                    # bench/summarize_runs.py and test helpers
       python3-pytest             # the Python package's tests
       libonnx-testdata           # ONNX node conformance tests of the compiler
       dataset-fashion-mnist      # labelled data: accuracy tests and the main job (Fashion-MNIST)
       opencv-doc                 # photos of another origin: the YOLO demo's calibration and test images
       chromium                   # headless: the HTML report tests (svp_prof)
       strace                     # CI's dependency audit (deps_audit traces the build)
       ccache)                    # developers' rebuild cache; used only when asked for
                                  # (-DCMAKE_CXX_COMPILER_LAUNCHER=ccache), never required
# Model scripts only (scripts/models/*.py, run with Debian's /usr/bin/python3): the
# committed ONNX files were made with these; regenerating them is optional. The same for
# the OCR sample's committed documents (samples/ocr/script/render_documents.py: Pillow and
# the DejaVu fonts).
model_tools=(python3-torch python3-torchvision python3-pil fonts-dejavu-core)
packages=("${build[@]}" "${tests[@]}")
# Node.js and npm: the test-only npm packages (scripts/npm_deps.sh). The project's machines
# ship Node.js 20 with its own npm; on a plain Debian 12 the distribution's packages do.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

case "${1:-}" in
  --list) echo "${packages[*]}"; exit 0 ;;
  --model-tools) packages+=("${model_tools[@]}") ;;
  "") ;;
  *) echo "usage: $0 [--list | --model-tools]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "svp-acl: installing missing Debian packages: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
