#!/usr/bin/env python3
"""Writes svp_atc calibration data for the Fashion-MNIST LeNet: the first N images of the
*training* set (never the test set the accuracy is measured on) of Debian's
dataset-fashion-mnist, one item per line as its 784 pixel values / 255 (the model's input
scaling), which `svp_atc --image_list=image:LIST` reads as they are.

    fashion_calibration.py OUT.txt [N=200] [DATASET_DIR=/usr/share/datasets/fashion-mnist]

Standard library only (the README's first command must not need numpy)."""
import gzip
import struct
import sys


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    root = sys.argv[3] if len(sys.argv) > 3 else "/usr/share/datasets/fashion-mnist"
    with gzip.open(f"{root}/train-images-idx3-ubyte.gz", "rb") as f:
        magic, count, rows, cols = struct.unpack(">IIII", f.read(16))
        if magic != 2051 or rows != 28 or cols != 28:
            print(f"{root}: not Fashion-MNIST 28x28 images (magic {magic})", file=sys.stderr)
            return 1
        n = min(n, count)
        with open(out, "w", encoding="ascii") as o:
            for _ in range(n):
                px = f.read(rows * cols)
                o.write(" ".join(f"{p / 255:.6g}" for p in px) + "\n")
    print(f"{out}: {n} calibration images")
    return 0


if __name__ == "__main__":
    sys.exit(main())
