#!/usr/bin/env python3
"""Top-1 accuracy of classifier outputs written by svp_run --outfmt NPY (or BIN): the
files OUT_DIR/img_NNNNN_0.npy|.bin (float32 scores, ais_bench's naming: input base name,
then the output index) against INPUT_DIR/labels.txt (fashion_inputs.py).

    fashion_accuracy.py OUT_DIR INPUT_DIR [FLOOR_PERCENT]

Exits 1 if an output is missing or the accuracy is below FLOOR_PERCENT. Standard library only."""
import os
import struct
import sys


def scores(path: str):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".npy"):
        if data[:6] != b"\x93NUMPY":
            raise ValueError(f"{path}: not a .npy file")
        hlen = struct.unpack("<H", data[8:10])[0] if data[6] == 1 else struct.unpack("<I", data[8:12])[0]
        start = (10 if data[6] == 1 else 12) + hlen
        if b"'<f4'" not in data[:start]:
            raise ValueError(f"{path}: scores are not little-endian float32")
        data = data[start:]
    return struct.unpack(f"<{len(data) // 4}f", data)


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir, in_dir = sys.argv[1], sys.argv[2]
    floor = float(sys.argv[3]) if len(sys.argv) > 3 else None
    with open(os.path.join(in_dir, "labels.txt"), encoding="ascii") as f:
        labels = [int(line) for line in f if line.strip()]
    correct = 0
    for i, label in enumerate(labels):
        base = os.path.join(out_dir, f"img_{i:05d}_0")
        path = base + ".npy" if os.path.exists(base + ".npy") else base + ".bin"
        if not os.path.exists(path):
            print(f"missing output {base}.npy (or .bin): did svp_run run on {in_dir}?", file=sys.stderr)
            return 1
        s = scores(path)
        correct += max(range(len(s)), key=s.__getitem__) == label
    acc = 100.0 * correct / len(labels)
    print(f"top-1 accuracy {acc:.2f} % ({correct} of {len(labels)} test images)")
    if floor is not None and acc < floor:
        print(f"below the floor of {floor} %", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
