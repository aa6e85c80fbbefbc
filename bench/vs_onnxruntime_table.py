#!/usr/bin/env python3
"""The table of bench/vs_onnxruntime.sh: medians over rounds of each engine's P50 and P99
per model, batch and thread count, the ratios measured in the same rounds, and issue 28's
targets, each printed PASS or MISS (reported, never asserted):

  - int8 <= 1.0x the float time on every model, <= 0.5x on every CNN;
  - fp32 <= 1.0x onnxruntime on every model;
  - int8 <= 1.0x onnxruntime running the QDQ export of the same quantization;
  - int8 >= 2.5x faster than onnxruntime fp32 on ResNet-18 and ResNet-50;
  - with --contend, two-thread times <= 1.2x onnxruntime's under the same contention
    (svp fp32 against onnxruntime fp32, svp int8 against onnxruntime QDQ);
  - ResNet-18 load <= 50 ms (issue 15).

  bench/vs_onnxruntime_table.py results.jsonl
"""
import collections
import json
import statistics
import sys

ENGINES = ("svp_fp32", "svp_int8", "onnxruntime", "onnxruntime_qdq")


def verdict(ok):
    return "PASS" if ok else "MISS"


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    by = collections.defaultdict(list)
    kind = {}
    contended = any(r.get("contended") for r in rows)
    for r in rows:
        by[(r["model"], r["batch"], r["threads"], r["engine"])].append(r)
        kind[r["model"]] = r.get("kind", "cnn")
    keys = sorted({k[:3] for k in by}, key=lambda k: (k[0], k[1], k[2]))
    med = lambda rs, f: statistics.median(r[f] for r in rs)
    cell = lambda rs: f"{med(rs, 'p50_ms'):.2f} / {med(rs, 'p99_ms'):.2f}" if rs else "—"
    print()
    if contended:
        print("Under contention: one CPU-bound process per CPU beside every run.")
        print()
    print("| model | batch | threads | svp fp32 P50 / P99 ms | svp int8 P50 / P99 ms | ort fp32 P50 / P99 ms "
          "| ort QDQ P50 / P99 ms | int8 / fp32 | fp32 / ort | int8 / ort QDQ | ort / int8 "
          "| load ms svp fp32 / ort | rounds |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    verdicts = []
    for model, batch, threads in keys:
        f, i, o, q = (by.get((model, batch, threads, e), []) for e in ENGINES)
        if not (f and i and o):
            continue
        # Ratios per round (same round = same machine state), then their median.
        rounds = sorted({r["round"] for r in f} & {r["round"] for r in o} & {r["round"] for r in i})
        p50 = lambda rs, n: next(r["p50_ms"] for r in rs if r["round"] == n)
        ratio = lambda a, b, rs: statistics.median(p50(a, n) / p50(b, n) for n in rs)
        int8_vs_fp32 = ratio(i, f, rounds)
        fp32_vs_ort = ratio(f, o, rounds)
        ort_vs_int8 = ratio(o, i, rounds)
        q_rounds = [n for n in rounds if any(r["round"] == n for r in q)]
        int8_vs_qdq = ratio(i, q, q_rounds) if q_rounds else None
        print(f"| {model} | {batch} | {threads} | {cell(f)} | {cell(i)} | {cell(o)} | {cell(q)} "
              f"| {int8_vs_fp32:.2f} | {fp32_vs_ort:.2f} | "
              f"{'—' if int8_vs_qdq is None else f'{int8_vs_qdq:.2f}'} | {ort_vs_int8:.2f} "
              f"| {med(f, 'load_ms'):.1f} / {med(o, 'load_ms'):.1f} | {len(rounds)} |")
        tag = f"{model} b{batch} t{threads}:"
        limit = 0.5 if kind.get(model) == "cnn" else 1.0
        verdicts.append(f"{tag} int8 <= {limit}x float: {verdict(int8_vs_fp32 <= limit)} ({int8_vs_fp32:.2f}x)")
        verdicts.append(f"{tag} fp32 <= 1.0x onnxruntime: {verdict(fp32_vs_ort <= 1.0)} ({fp32_vs_ort:.2f}x)")
        if int8_vs_qdq is not None:
            verdicts.append(f"{tag} int8 <= 1.0x onnxruntime QDQ: {verdict(int8_vs_qdq <= 1.0)} "
                            f"({int8_vs_qdq:.2f}x)")
        if model in ("resnet18", "resnet50"):
            verdicts.append(f"{tag} int8 >= 2.5x faster than onnxruntime fp32: "
                            f"{verdict(ort_vs_int8 >= 2.5)} ({ort_vs_int8:.2f}x)")
        if contended and threads == 2:
            r = fp32_vs_ort
            verdicts.append(f"{tag} contended fp32 <= 1.2x onnxruntime fp32: {verdict(r <= 1.2)} ({r:.2f}x)")
            if int8_vs_qdq is not None:
                r = int8_vs_qdq
                verdicts.append(f"{tag} contended int8 <= 1.2x onnxruntime QDQ: {verdict(r <= 1.2)} ({r:.2f}x)")
        if model == "resnet18" and batch == 1 and not contended:
            load = med(f, "load_ms")
            verdicts.append(f"{tag} load <= 50 ms: {verdict(load <= 50)} ({load:.1f} ms)")
    print()
    for v in verdicts:
        print(v)


if __name__ == "__main__":
    main()
