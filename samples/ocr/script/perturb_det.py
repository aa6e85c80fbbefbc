#!/usr/bin/python3
"""Perturbations of the float PP-OCR detector's input or weights that are not svp_atc's
quantizers, for measuring how much of compare_eval.py's det figure (IoU >= 0.9 against
the float boxes) the float pipeline loses by itself (det_floor.sh; docs/quantization.md,
"PP-OCR int8 end to end").

    perturb_det.py pages SRC_DIR DST_DIR MODE [SEED]
        Each SRC_DIR/<page>.png written to DST_DIR as 8-bit RGB, perturbed; the .txt truth
        files copied. MODE (values are uint8 levels, results clipped to 0..255):
          pm1       every R, G and B value +1 or -1 (seeded, equally likely)
          z1        every value -1, 0 or +1 (seeded, equally likely)
          fracP     a fraction P of the values (e.g. frac0.1) +1 or -1, the rest unchanged
          shiftN    every value +N (N may be negative)
          txN, tyN  the page moved right (down) by N pixels, the new columns (rows) copies
                    of the first one (paper); undo the move in the boxes with unshift
          none      unchanged (an RGB copy of the palette pages: the same boxes)
    perturb_det.py fp16 SRC.onnx DST.onnx
        The model with every float32 tensor (initializers and Constant nodes' values)
        rounded to float16 and back; values beyond float16's range are kept. Same byte
        length, so the protobuf is patched in place (no onnx package needed).
    perturb_det.py w8 SRC.onnx DST.onnx
        The model with its Conv and ConvTranspose weights rounded to symmetric int8 per
        output channel (max|w| / 127, as svp_atc and tests/oracle/qdq_reference.cpp do),
        kept as float32: int8 weights with float activations. Per-channel rounding commutes
        with folding a BatchNormalization into the Conv, so rounding before the fold is the
        same as after it.
    perturb_det.py w8noise SRC.onnx DST.onnx [SEED]
        Those weights with, instead of the rounding, seeded uniform noise of the same step
        (+-scale/2 per output channel): perturbations the size of int8 weight rounding.
    perturb_det.py unshift IN.tsv OUT.tsv DX DY
        An ocr_eval TSV with DX subtracted from every x and DY from every y.
    perturb_det.py onerow FLOAT.tsv
        For each box, the thresholded region DB's unclip grew it from (ratio 2.0, d = area *
        ratio / perimeter: db_postprocess.h), and the IoU of the box with the box of that
        region one pixel row taller, or shorter: how many boxes one row costs the det figure.

Needs numpy and Pillow (pages only).
"""
import os
import shutil
import sys

import numpy as np


def perturb_pages(src, dst, mode, seed):
    from PIL import Image

    os.makedirs(dst, exist_ok=True)
    rng = np.random.default_rng(seed)
    pm = np.array([-1, 1], np.int16)
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if name.endswith(".txt"):
            shutil.copy(path, dst)
            continue
        if not name.endswith(".png"):
            continue
        a = np.asarray(Image.open(path).convert("RGB")).astype(np.int16)
        if mode == "pm1":
            a = a + rng.choice(pm, size=a.shape)
        elif mode == "z1":
            a = a + rng.integers(-1, 2, size=a.shape, dtype=np.int16)
        elif mode.startswith("frac"):
            a = a + rng.choice(pm, size=a.shape) * (rng.random(a.shape) < float(mode[4:]))
        elif mode.startswith("shift"):
            a = a + int(mode[5:])
        elif mode.startswith("tx"):
            n = int(mode[2:])
            a = np.concatenate([np.repeat(a[:, :1], n, 1), a[:, :-n]], 1)
        elif mode.startswith("ty"):
            n = int(mode[2:])
            a = np.concatenate([np.repeat(a[:1], n, 0), a[:-n]], 0)
        elif mode != "none":
            raise ValueError(f"unknown mode {mode}")
        Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "RGB").save(os.path.join(dst, name))


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b, start, end):
    """(field number, wire type, varint value or None, (start, end) of the payload or None)."""
    i = start
    while i < end:
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
            yield f, wt, v, None
        elif wt in (1, 5):
            n = 8 if wt == 1 else 4
            yield f, wt, None, (i, i + n)
            i += n
        elif wt == 2:
            n, i = varint(b, i)
            yield f, wt, None, (i, i + n)
            i += n
        else:
            raise ValueError(f"protobuf wire type {wt} at byte {i}")


def packed_varints(b, s, t):
    out, i = [], s
    while i < t:
        v, i = varint(b, i)
        out.append(v)
    return out


def round_weights(mode, src, dst, seed=0):
    """mode fp16: every float32 tensor through float16; w8: Conv and ConvTranspose weights
    to symmetric int8 per output channel (max|w| / 127, nearest even), values kept float;
    w8noise: those weights plus uniform noise of the int8 step (+-scale/2), seeded."""
    rng = np.random.default_rng(seed)
    buf = bytearray(open(src, "rb").read())
    count = {"tensors": 0, "values": 0, "kept": 0}
    # onnx.proto: ModelProto.graph = 7; GraphProto.node = 1, .initializer = 5;
    # NodeProto.input = 1, .op_type = 4, .attribute = 5; AttributeProto.t = 5, .g = 6;
    # TensorProto.dims = 1, .data_type = 2 (1 = FLOAT), .float_data = 4 (packed), .name = 8,
    # .raw_data = 9.
    axis_of = {}  # w8, w8noise: a Conv or ConvTranspose weight's name -> its output-channel axis

    def tensor(a, e, name=None):
        """name: the Constant node's output the tensor is the value of (else its own)."""
        dtype, spans, dims = None, [], []
        for f, wt, v, span in fields(buf, a, e):
            if f == 1:
                dims += [v] if wt == 0 else packed_varints(buf, *span)
            elif f == 2 and wt == 0:
                dtype = v
            elif f == 8 and wt == 2 and name is None:
                name = bytes(buf[span[0]:span[1]]).decode()
            elif f in (4, 9) and wt == 2:
                spans.append(span)
        if dtype != 1 or (mode != "fp16" and name not in axis_of):
            return
        for s, t in spans:
            x = np.frombuffer(bytes(buf[s:t]), "<f4")
            if mode == "fp16":
                with np.errstate(over="ignore"):
                    y = x.astype(np.float16).astype("<f4")
                big = ~np.isfinite(y) & np.isfinite(x)
                y[big] = x[big]
                count["kept"] += int(big.sum())
            else:
                w = np.moveaxis(x.reshape(dims), axis_of[name], 0)
                scale = np.abs(w).reshape(w.shape[0], -1).max(1) / 127
                scale = np.where(scale > 0, scale, 1).reshape((-1,) + (1,) * (w.ndim - 1))
                if mode == "w8":
                    w = np.clip(np.round(w / scale), -127, 127) * scale
                else:
                    w = w + rng.uniform(-0.5, 0.5, w.shape) * scale
                y = np.moveaxis(w, 0, axis_of[name])
                y = y.astype("<f4").reshape(-1)
            buf[s:t] = y.tobytes()
            count["tensors"] += 1
            count["values"] += x.size

    def text(span):
        return bytes(buf[span[0]:span[1]]).decode()

    def node(a, e, patch):
        """patch=False: note the weights of Conv and ConvTranspose; True: round tensors."""
        op, inputs, outputs, attrs = None, [], [], []
        for f, wt, _, span in fields(buf, a, e):
            if wt == 2 and f == 1:
                inputs.append(text(span))
            elif wt == 2 and f == 2:
                outputs.append(text(span))
            elif wt == 2 and f == 4:
                op = text(span)
            elif wt == 2 and f == 5:
                attrs.append(span)
        if not patch:
            if op in ("Conv", "ConvTranspose") and len(inputs) > 1:
                axis_of[inputs[1]] = 0 if op == "Conv" else 1
            return
        for span in attrs:
            for f2, wt2, _, span2 in fields(buf, *span):
                if wt2 == 2 and f2 == 5:
                    tensor(*span2, name=outputs[0] if op == "Constant" and outputs else None)
                elif wt2 == 2 and f2 == 6:
                    graph(*span2)

    def graph(a, e):
        items = list(fields(buf, a, e))
        for patch in (False, True):  # every Conv first: w8 needs to know the weights
            for f, wt, _, span in items:
                if wt == 2 and f == 1:
                    node(*span, patch)
        for f, wt, _, span in items:
            if wt == 2 and f == 5:
                tensor(*span)

    for f, wt, _, span in fields(buf, 0, len(buf)):
        if f == 7 and wt == 2:
            graph(*span)
    with open(dst, "wb") as out:
        out.write(buf)
    what = {"fp16": "rounded to float16", "w8": "rounded to int8 per output channel",
            "w8noise": "given noise of the int8 step"}[mode]
    print(f"perturb_det.py: {count['values']} float32 values in {count['tensors']} tensors {what} "
          f"({count['kept']} beyond float16's range kept): {dst}")


def unshift(src, dst, dx, dy):
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as g:
        g.write(f.readline())
        for row in f:
            c = row.rstrip("\n").split("\t")
            for i in range(2, 10):
                c[i] = f"{float(c[i]) - (dx if i % 2 == 0 else dy):.2f}"
            g.write("\t".join(c) + "\n")


def one_row(path):
    import math

    boxes = []
    with open(path, encoding="utf-8") as f:
        f.readline()
        for row in f:
            xy = [float(v) for v in row.split("\t")[2:10]]
            p = [(xy[i], xy[i + 1]) for i in range(0, 8, 2)]
            a, b = math.dist(p[0], p[1]), math.dist(p[1], p[2])
            boxes.append((max(a, b), min(a, b)))

    def grow(w, h):
        d = w * h / (w + h)  # area * 2.0 / perimeter
        return w + 2 * d, h + 2 * d

    heights, ious, below = [], [], {1: 0, -1: 0}
    for big_w, big_h in boxes:
        lo, hi = 0.0, big_h  # the region (w, h) with grow(w, h) == (big_w, big_h)
        for _ in range(60):
            h = (lo + hi) / 2
            d = (big_h - h) / 2
            w = big_w - 2 * d
            lo, hi = (lo, h) if w * h / (w + h) > d else (h, hi)
        heights.append(h)
        for step in (1, -1):
            w2, h2 = grow(w, h + step)  # nested boxes: IoU is the ratio of the areas
            v = min(big_w * big_h, w2 * h2) / max(big_w * big_h, w2 * h2)
            ious.append(v)
            below[step] += v < 0.9
    print(f"{len(boxes)} boxes, {min(b[1] for b in boxes):.1f}-{max(b[1] for b in boxes):.1f} px high, from "
          f"thresholded regions {min(heights):.1f}-{max(heights):.1f} px high; one row taller: IoU < 0.9 for "
          f"{below[1]}, one row shorter: {below[-1]} (IoU {min(ious):.3f}-{max(ious):.3f})")


def main(argv):
    if len(argv) >= 5 and argv[1] == "pages":
        perturb_pages(argv[2], argv[3], argv[4], int(argv[5]) if len(argv) > 5 else 0)
    elif len(argv) in (4, 5) and argv[1] in ("fp16", "w8", "w8noise"):
        round_weights(argv[1], argv[2], argv[3], int(argv[4]) if len(argv) > 4 else 0)
    elif len(argv) == 3 and argv[1] == "onerow":
        one_row(argv[2])
    elif len(argv) == 6 and argv[1] == "unshift":
        unshift(argv[2], argv[3], float(argv[4]), float(argv[5]))
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
