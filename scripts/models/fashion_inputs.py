#!/usr/bin/env python3
"""Writes the first N Fashion-MNIST *test* images as svp_run / ais_bench inputs: one .npy
per image (float32 [1,1,28,28], pixel / 255, the LeNet's input scaling), named
img_00000.npy ... in DIR, and their labels (one per line, in file order) in DIR/labels.txt.

    fashion_inputs.py DIR [N=10000] [DATASET_DIR=/usr/share/datasets/fashion-mnist]

Standard library only (the README's first command must not need numpy)."""
import gzip
import os
import struct
import sys


def npy_header(shape) -> bytes:
    # .npy version 1.0: magic, version, little-endian header length, a Python dict literal
    # padded with spaces so that the data starts at a multiple of 64 bytes.
    text = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % "".join(f"{d}, " for d in shape)
    pad = 64 - (10 + len(text) + 1) % 64
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text) + pad + 1) + (text + " " * pad + "\n").encode("ascii")


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    root = sys.argv[3] if len(sys.argv) > 3 else "/usr/share/datasets/fashion-mnist"
    os.makedirs(out, exist_ok=True)
    with gzip.open(f"{root}/t10k-images-idx3-ubyte.gz", "rb") as f, \
            gzip.open(f"{root}/t10k-labels-idx1-ubyte.gz", "rb") as lf:
        magic, count, rows, cols = struct.unpack(">IIII", f.read(16))
        lmagic, lcount = struct.unpack(">II", lf.read(8))
        if magic != 2051 or rows != 28 or cols != 28 or lmagic != 2049 or lcount != count:
            print(f"{root}: not the Fashion-MNIST 28x28 test set (magics {magic}, {lmagic})", file=sys.stderr)
            return 1
        n = min(n, count)
        header = npy_header((1, 1, rows, cols))
        labels = lf.read(n)
        for i in range(n):
            px = f.read(rows * cols)
            with open(os.path.join(out, f"img_{i:05d}.npy"), "wb") as o:
                o.write(header)
                o.write(struct.pack(f"<{rows * cols}f", *(p / 255.0 for p in px)))
    with open(os.path.join(out, "labels.txt"), "w", encoding="ascii") as o:
        o.write("".join(f"{b}\n" for b in labels))
    print(f"{n} test images in {out} (labels.txt beside them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
