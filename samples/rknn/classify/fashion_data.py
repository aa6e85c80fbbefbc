#!/usr/bin/env python3
"""The classifier demo's data and its check against onnxruntime (standard library only).

    fashion_data.py prepare OUT_DIR N [DATASET_DIR=/usr/share/datasets/fashion-mnist]
        OUT_DIR/images.u8: the first N Fashion-MNIST *test* images, 28x28x1 uint8 each (the
        demo's input); labels.txt; ort_input.npy: the same as float32 [N, 1, 28, 28], pixel
        / 255 (the ONNX LeNet's input); qdq_input.npy: the same as raw pixels (0..255; the
        QDQ export's input: its graph starts with the .rknn's / 255); calib/: 32 *training* images as raw pixels (0..255)
        float32 [1, 1, 28, 28] .npy items and dataset.txt (rknn_convert's int8 dataset).
    fashion_data.py compare DEMO_OUT.txt ORT_OUT.npy LABELS.txt float|int8 [QDQ_OUT.npy]
        float: top-1 of every image equal to onnxruntime's, each image's scores with cosine
        >= 0.9999. int8: top-1 of every image equal to onnxruntime's on QDQ_OUT.npy (the QDQ
        export of the very quantization the .rknn holds, run as written: same scales and
        zero points, so a difference is an int8 execution defect); against onnxruntime's
        float model, the accuracy within 0.3 points (svp_atc's int8 criterion), and its top-1
        differences printed (a tie at one int8 output level, or not) as information.
        Prints the figures; exit 1 when a criterion fails.
Exit 77 when the dataset is missing (a skip for ctest)."""
import gzip
import math
import os
import struct
import sys


def npy_header(shape) -> bytes:
    text = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % "".join(f"{d}, " for d in shape)
    pad = 64 - (10 + len(text) + 1) % 64
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text) + pad + 1) + (text + " " * pad + "\n").encode("ascii")


def read_idx(root, images, labels, n):
    with gzip.open(f"{root}/{images}", "rb") as f, gzip.open(f"{root}/{labels}", "rb") as lf:
        magic, count, rows, cols = struct.unpack(">IIII", f.read(16))
        lmagic, _ = struct.unpack(">II", lf.read(8))
        if magic != 2051 or lmagic != 2049 or rows != 28 or cols != 28:
            raise SystemExit(f"{root}: not Fashion-MNIST")
        n = min(n, count)
        return [f.read(784) for _ in range(n)], list(lf.read(n))


def prepare(out, n, root):
    if not os.path.exists(f"{root}/t10k-images-idx3-ubyte.gz"):
        print(f"fashion_data.py: {root} is missing (Debian's dataset-fashion-mnist)", file=sys.stderr)
        return 77
    os.makedirs(f"{out}/calib", exist_ok=True)
    images, labels = read_idx(root, "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz", n)
    with open(f"{out}/images.u8", "wb") as f:
        for px in images:
            f.write(px)
    with open(f"{out}/labels.txt", "w") as f:
        f.write("".join(f"{l}\n" for l in labels))
    with open(f"{out}/ort_input.npy", "wb") as f:
        f.write(npy_header((len(images), 1, 28, 28)))
        for px in images:
            f.write(struct.pack("<784f", *(p / 255 for p in px)))
    with open(f"{out}/qdq_input.npy", "wb") as f:
        f.write(npy_header((len(images), 1, 28, 28)))
        for px in images:
            f.write(struct.pack("<784f", *map(float, px)))
    calib, _ = read_idx(root, "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", 32)
    with open(f"{out}/calib/dataset.txt", "w") as lst:
        for k, px in enumerate(calib):
            with open(f"{out}/calib/item_{k:02d}.npy", "wb") as f:
                f.write(npy_header((1, 1, 28, 28)) + struct.pack("<784f", *map(float, px)))
            lst.write(f"item_{k:02d}.npy\n")
    return 0


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    header_len = struct.unpack("<H", data[8:10])[0]
    body = data[10 + header_len:]
    return struct.unpack(f"<{len(body) // 4}f", body)


def top1(scores):
    return max(range(len(scores)), key=lambda c: scores[c])  # the first of equal scores, as the demo


def compare(demo_out, ort_npy, labels_txt, mode, qdq_npy=None):
    demo = [line.split() for line in open(demo_out) if line.strip()]
    labels = [int(l) for l in open(labels_txt) if l.strip()]
    ort = read_npy(ort_npy)
    qdq = read_npy(qdq_npy) if qdq_npy else None
    classes = len(ort) // len(labels)
    if len(demo) != len(labels):
        print(f"compare: {len(demo)} demo results for {len(labels)} images")
        return 1
    differ, ties, qdq_differ, worst, right_demo, right_ort = [], [], [], 1.0, 0, 0
    for i, row in enumerate(demo):
        scores = [float(x) for x in row[2:]]
        ref = ort[i * classes:(i + 1) * classes]
        top_ort = top1(ref)
        if qdq is not None and int(row[1]) != top1(qdq[i * classes:(i + 1) * classes]):
            qdq_differ.append(i)
        if int(row[1]) != top_ort:
            # int8: an output level shared by onnxruntime's answer and another class is a tie
            # the int8 scores cannot break (the demo reports the first of them).
            (ties if mode == "int8" and scores[top_ort] == max(scores) else differ).append(i)
        right_demo += int(row[1]) == labels[i]
        right_ort += top_ort == labels[i]
        dot = sum(a * b for a, b in zip(scores, ref))
        cos = dot / math.sqrt(sum(a * a for a in scores) * sum(b * b for b in ref))
        worst = min(worst, cos)
    n = len(labels)
    if mode == "float":
        print(f"compare (float): {n} images, top-1 differs from onnxruntime on {len(differ)} {differ[:10]}; "
              f"accuracy {right_demo / n:.4f} (onnxruntime {right_ort / n:.4f}); worst score cosine {worst:.6f}")
        ok = not differ and worst >= 0.9999
    else:
        if qdq is None:
            print("compare: int8 needs onnxruntime's outputs on the QDQ export (QDQ_OUT.npy)")
            return 2
        print(f"compare (int8): {n} images, top-1 differs from onnxruntime on the QDQ export on {len(qdq_differ)} "
              f"{qdq_differ[:10]}; against onnxruntime's float model (information) it differs on "
              f"{len(differ) + len(ties)} ({len(ties)} of them ties of its class at the best int8 score) "
              f"{(differ + ties)[:10]}; accuracy {right_demo / n:.4f} (onnxruntime float {right_ort / n:.4f}); "
              f"worst score cosine with float {worst:.6f}")
        ok = not qdq_differ and abs(right_demo - right_ort) / n <= 0.003
    print("compare OK" if ok else "compare FAILED")
    return 0 if ok else 1


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "prepare":
        return prepare(sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "/usr/share/datasets/fashion-mnist")
    if len(sys.argv) in (6, 7) and sys.argv[1] == "compare":
        return compare(*sys.argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
