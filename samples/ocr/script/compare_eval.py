#!/usr/bin/python3
"""Compares the OCR pipeline's per-line results (ocr_eval's TSV files) of float and int8
models on the evaluation pages, against the pages' truth and against each other.

    compare_eval.py PAGES_DIR FLOAT.tsv INT8.tsv [CLS.tsv REC.tsv] [--require=rec,det,cls]

INT8.tsv, CLS.tsv or REC.tsv may be "-" (the run was not made); its figures are left out, and
requiring a target judged on it is an error.

FLOAT.tsv: all three models float; INT8.tsv: all three int8 (end to end). The optional
CLS.tsv and REC.tsv isolate one stage: float detector with the int8 classifier (float
recogniser), and float detector and classifier with the int8 recogniser; those runs cut
exactly the float run's lines, so their decisions compare line by line.

Figures (issue 12's PP-OCR targets):
- exact lines: a truth line counts when one recognised line of its page equals it (each
  recognised line matched once), so extra or missing boxes cost only their own lines;
  target: int8 within 1 point of float;
- detection: every float box matched to the int8 box of its page with the highest IoU
  (rotated rectangles, exact polygon intersection); target: IoU >= 0.9 for >= 95 %;
- direction classifier: the same decision (turned or not) as float; target: >= 99 %,
  judged on CLS.tsv when given (the int8 classifier on float's crops), else end to end,
  where it is counted over float boxes whose best int8 box has IoU >= 0.5.

Exit status 1 when a target named in --require is missed (all figures are printed either
way), 2 on bad input. Standard library only: the tests run it without extra packages.
"""
import collections
import os
import sys


def read_truth(pages_dir):
    truth = {}
    for name in sorted(os.listdir(pages_dir)):
        if name.endswith(".png"):
            with open(os.path.join(pages_dir, name[:-4] + ".txt"), encoding="utf-8") as f:
                truth[name] = [l.rstrip("\r\n") for l in f if l.strip()]
    if not truth:
        raise ValueError(f"{pages_dir} holds no .png page")
    return truth


def read_run(path, pages):
    """{page: [(polygon, flipped, text)]} in line order; every page present."""
    run = {p: [] for p in pages}
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        if header[:2] != ["page", "line"] or header[-1] != "text":
            raise ValueError(f"{path}: not an ocr_eval TSV (header {header[:3]}...)")
        for n, row in enumerate(f, 2):
            cols = row.rstrip("\n").split("\t")
            if len(cols) != len(header):
                raise ValueError(f"{path}:{n}: {len(cols)} columns, the header has {len(header)}")
            if cols[0] not in run:
                raise ValueError(f"{path}:{n}: page {cols[0]} is not in the pages directory")
            xy = [float(v) for v in cols[2:10]]
            run[cols[0]].append(([(xy[i], xy[i + 1]) for i in range(0, 8, 2)], cols[10] == "1", cols[13]))
    return run


def area(poly):
    s = 0.0
    for i, (x0, y0) in enumerate(poly):
        x1, y1 = poly[(i + 1) % len(poly)]
        s += x0 * y1 - x1 * y0
    return s / 2


def clip(subject, clipper):
    """Sutherland-Hodgman: the part of convex `subject` inside convex `clipper`."""
    sign = 1.0 if area(clipper) > 0 else -1.0
    out = subject
    for i, a in enumerate(clipper):
        b = clipper[(i + 1) % len(clipper)]
        inside = lambda p: sign * ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])) >= 0
        src, out = out, []
        for j, p in enumerate(src):
            q = src[(j + 1) % len(src)]
            if inside(p):
                out.append(p)
            if inside(p) != inside(q):
                # Where segment p-q crosses the line a-b.
                dx, dy = q[0] - p[0], q[1] - p[1]
                ex, ey = b[0] - a[0], b[1] - a[1]
                den = dx * ey - dy * ex
                if den != 0:
                    t = ((a[0] - p[0]) * ey - (a[1] - p[1]) * ex) / den
                    out.append((p[0] + t * dx, p[1] + t * dy))
        if not out:
            return []
    return out


def iou(p, q):
    inter = clip(p, q)
    i = abs(area(inter)) if len(inter) >= 3 else 0.0
    u = abs(area(p)) + abs(area(q)) - i
    return i / u if u > 0 else 0.0


def exact_lines(run, truth):
    exact = 0
    for page, lines in truth.items():
        got = collections.Counter(text for _, _, text in run[page])
        for t in lines:
            if got[t] > 0:
                got[t] -= 1
                exact += 1
    return exact


def pct(n, d):
    return 100.0 * n / d if d else 0.0


def main(argv):
    require = set()
    args = []
    for a in argv[1:]:
        if a.startswith("--require="):
            require = {r for r in a.split("=", 1)[1].split(",") if r}
        else:
            args.append(a)
    if len(args) not in (3, 5) or not require <= {"rec", "det", "cls"}:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        truth = read_truth(args[0])
        fl = read_run(args[1], truth)
        # "-": that run was not made (int8_eval.sh's ONLY=cls runs what its target needs).
        q, cls_run, rec_run = [read_run(a, truth) if a != "-" else None for a in (args[2:5] + ["-", "-"])[:3]]
    except (OSError, ValueError) as e:
        print(f"compare_eval.py: {e}", file=sys.stderr)
        return 2
    total = sum(len(t) for t in truth.values())
    results = {}
    ef = exact_lines(fl, truth)

    if q is not None:
        eq = exact_lines(q, truth)
        print(f"pages {len(truth)}, truth lines {total}; boxes found: float {sum(map(len, fl.values()))}, "
              f"int8 {sum(map(len, q.values()))}")
        print(f"exact lines: float {ef}/{total} = {pct(ef, total):.2f} %, int8 {eq}/{total} = {pct(eq, total):.2f} % "
              f"({pct(eq, total) - pct(ef, total):+.2f} points)")
        results["rec"] = pct(eq, total) >= pct(ef, total) - 1.0
        end_to_end(truth, fl, q, results)
    else:
        print(f"pages {len(truth)}, truth lines {total}; exact lines: float {ef}/{total} = {pct(ef, total):.2f} % "
              f"(no end-to-end int8 run)")

    if cls_run is not None:
        agree = lines = 0
        for page in truth:
            if len(cls_run[page]) != len(fl[page]):
                print(f"compare_eval.py: {page}: the CLS run has {len(cls_run[page])} lines, float "
                      f"{len(fl[page])}: it must use the float detector", file=sys.stderr)
                return 2
            for (_, f1, _), (_, f2, _) in zip(fl[page], cls_run[page]):
                lines += 1
                agree += f1 == f2
        print(f"direction, int8 classifier on the float crops: {agree}/{lines} = {pct(agree, lines):.2f} % turned as "
              f"float")
        # The classifier's own agreement: the same crops as float (end to end, the int8
        # detector's different boxes change the crops too).
        results["cls"] = pct(agree, lines) >= 99.0
    if rec_run is not None:
        er = exact_lines(rec_run, truth)
        print(f"exact lines, int8 recogniser on the float crops: {er}/{total} = {pct(er, total):.2f} % "
              f"({pct(er, total) - pct(ef, total):+.2f} points)")

    missed = []
    for name, what in (("rec", "int8 exact lines within 1 point of float"),
                       ("det", "int8 boxes IoU >= 0.9 for >= 95 % of float boxes"),
                       ("cls", "direction agreement >= 99 %")):
        if name not in results:
            if name in require:
                print(f"compare_eval.py: target {name} is required but the run it is judged on was not given",
                      file=sys.stderr)
                return 2
            continue
        state = "met" if results[name] else "MISSED"
        print(f"target {name} ({what}): {state}{' (required)' if name in require else ''}")
        if name in require and not results[name]:
            missed.append(name)
    if missed:
        print(f"FAILED: required targets missed: {', '.join(missed)}")
        return 1
    print("compare_eval OK")
    return 0


def end_to_end(truth, fl, q, results):
    """Detection and direction figures of the all-int8 run against float."""
    boxes = good = same_dir = compared_dir = 0
    ious = []
    for page in truth:
        for poly, flipped, _ in fl[page]:
            best, best_flip = 0.0, None
            for qpoly, qflipped, _ in q[page]:
                v = iou(poly, qpoly)
                if v > best:
                    best, best_flip = v, qflipped
            boxes += 1
            ious.append(best)
            good += best >= 0.9
            if best >= 0.5:
                compared_dir += 1
                same_dir += best_flip == flipped
    ious.sort()
    median = ious[len(ious) // 2] if ious else 0.0
    print(f"detection: {good}/{boxes} float boxes = {pct(good, boxes):.2f} % have an int8 box with IoU >= 0.9 "
          f"(median best IoU {median:.3f}, lowest {ious[0] if ious else 0:.3f})")
    print(f"direction, end to end: {same_dir}/{compared_dir} = {pct(same_dir, compared_dir):.2f} % of the lines "
          f"matched at IoU >= 0.5 turned as float")
    results["det"] = pct(good, boxes) >= 95.0
    results["cls"] = pct(same_dir, compared_dir) >= 99.0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
