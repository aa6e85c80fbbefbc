#!/usr/bin/env bash
# The main job: install dependencies, build, and run the end-to-end demo on the
# software NPU (multi-stream work with events, callbacks and preemption).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2 --target npu_pipeline_demo
./build/samples/npu_pipeline_demo "$@"
