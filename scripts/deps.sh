#!/usr/bin/env bash
# Installs the Debian 12 packages the build needs, if any is missing.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config python3
          libgtest-dev libgmock-dev libspdlog-dev libfmt-dev nlohmann-json3-dev zlib1g-dev
          libdnnl-dev libbenchmark-dev  # oneDNN: kernel fast paths; Google Benchmark: bench/model_bench
          clang libclang-rt-14-dev  # clang: the model-loader fuzz test (libFuzzer)
          libopencv-dev  # OpenCV: the AIPP oracle in tests and the AIPP benchmark (not the library)
          libcli11-dev  # CLI11: command line of tools/svp_prof (the profile reader)
          chromium)  # only for the svp_prof HTML report test (headless); the tool does not need it
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
