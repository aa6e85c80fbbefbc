#!/usr/bin/env bash
# The main job: install dependencies, build, and run the end-to-end demos on the software
# NPU: a real offline model executed the way vendor samples do (sync, async on two streams
# with callbacks and an AI-CPU worker) with acl.json profiling on, its profile turned into
# CSVs, a Chrome trace and an HTML timeline by svp_prof, then multi-stream work with events,
# callbacks and preemption.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# The same configuration as scripts/test.sh's normal build, so the tests reuse this build.
read -r -a cfg <<<"$(scripts/test.sh --print-config normal)"
cmake -S . -B "${cfg[0]}" "${cfg[@]:1}" >/dev/null
cmake --build build -j2 --target npu_pipeline_demo make_sample_model model_sample svp_prof
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
