#!/bin/sh
# The Fashion-MNIST LeNet converted by the zoo-style samples/python/convert.py (fp and i8,
# calibrated on 32 training images as pixels), run on the first N test images by the
# classifier demo (normal and zero-copy API) and by rknn.api (load_rknn, init_runtime,
# inference on the same UINT8 NHWC pixels): every score identical (the demo writes them
# with %.9g, which float32 survives exactly).
#   check_python.sh PYTHON DEMO ZERO_COPY_DEMO OUT_DIR [N=50]
# Exit 77 without the dataset or rknn.api (a skip for ctest).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../../..
py=$1 normal=$2 zero_copy=$3 out=$4 n=${5:-50}
if ! "$py" -c "import rknn.api" 2>/dev/null; then
  echo "check_python.sh: rknn.api is not importable by $py"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
"$py" "$here/fashion_data.py" prepare "$out" "$n" || exit $?
# The model file's name carries convert.py's keyword ("lenet"): pixels / 255.
for m in fp i8; do
  "$py" "$root/samples/python/convert.py" "$root/models/lenet_fashion_mnist.onnx" rk3588 $m "$out/lenet_$m.rknn" \
    "$out/calib/dataset.txt" > "$out/convert_$m.log" 2>&1 || { cat "$out/convert_$m.log"; exit 1; }
  for demo in "$normal" "$zero_copy"; do
    "$demo" "$out/lenet_$m.rknn" "$out/images.u8" "$n" "$out/demo.txt" > /dev/null
    "$py" - "$out/lenet_$m.rknn" "$out/images.u8" "$out/demo.txt" "$m $(basename "$demo")" <<'PY'
import sys

import numpy as np
from rknn.api import RKNN

model, images, demo, what = sys.argv[1:]
rows = [line.split() for line in open(demo)]
pixels = np.fromfile(images, dtype=np.uint8).reshape(-1, 28, 28, 1)[:len(rows)]
rknn = RKNN()
assert rknn.load_rknn(model) == 0 and rknn.init_runtime() == 0
worst = 0.0
for row, image in zip(rows, pixels):
    (py,) = rknn.inference(inputs=[image[None]], data_format=["nhwc"])
    c = np.array([float(v) for v in row[2:]], dtype=np.float32)
    worst = max(worst, float(np.abs(py.ravel().astype(np.float64) - c).max()))
    if not np.array_equal(py.ravel().astype(np.float32), c):
        sys.exit("{}: image {}: python {} vs C {}".format(what, row[0], py.ravel(), c))
rknn.release()
print("{}: {} images, python and C scores identical (max |diff| {:g})".format(what, len(rows), worst))
PY
  done
done
echo "classifier: python and C outputs identical: fp and i8, normal and zero-copy demo"
