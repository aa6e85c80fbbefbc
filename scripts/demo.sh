#!/usr/bin/env bash
# The main job: install dependencies, build, and run the end-to-end demos on the software
# NPU: a real offline model executed the way vendor samples do (sync, async on two streams
# with callbacks and an AI-CPU worker), then multi-stream work with events, callbacks and
# preemption.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2 --target npu_pipeline_demo make_sample_model model_sample
mkdir -p build/samples/models
./build/samples/make_sample_model build/samples/models
./build/samples/model_sample build/samples/models
./build/samples/npu_pipeline_demo "$@"
