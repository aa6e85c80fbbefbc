#!/usr/bin/env python3
"""The table of bench/vs_onnxruntime.sh: medians over rounds of each engine's P50 and P99
per model, batch and thread count, the ratios to onnxruntime measured in the same rounds,
and the issue's targets (fp32 time <= 1.0x onnxruntime's; int8 >= 2.5x faster than
onnxruntime fp32 on ResNet-18; ResNet-18 load <= 50 ms). Reported, never asserted.

  bench/vs_onnxruntime_table.py results.jsonl
"""
import collections
import json
import statistics
import sys


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    by = collections.defaultdict(list)
    for r in rows:
        by[(r["model"], r["batch"], r["threads"], r["engine"])].append(r)
    keys = sorted({k[:3] for k in by}, key=lambda k: (k[0], k[1], k[2]))
    med = lambda rs, f: statistics.median(r[f] for r in rs)
    print()
    print("| model | batch | threads | svp fp32 P50 / P99 ms | svp int8 P50 / P99 ms | onnxruntime P50 / P99 ms "
          "| fp32 / ort | ort / int8 | load ms svp fp32 / ort | rounds |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    verdicts = []
    for model, batch, threads in keys:
        f, i, o = (by.get((model, batch, threads, e), []) for e in ("svp_fp32", "svp_int8", "onnxruntime"))
        if not (f and i and o):
            continue
        # Ratios per round (same round = same machine state), then their median.
        rounds = sorted({r["round"] for r in f} & {r["round"] for r in o} & {r["round"] for r in i})
        p50 = lambda rs, n: next(r["p50_ms"] for r in rs if r["round"] == n)
        fp32_vs_ort = statistics.median(p50(f, n) / p50(o, n) for n in rounds)
        ort_vs_int8 = statistics.median(p50(o, n) / p50(i, n) for n in rounds)
        print(f"| {model} | {batch} | {threads} | {med(f, 'p50_ms'):.2f} / {med(f, 'p99_ms'):.2f} "
              f"| {med(i, 'p50_ms'):.2f} / {med(i, 'p99_ms'):.2f} | {med(o, 'p50_ms'):.2f} / {med(o, 'p99_ms'):.2f} "
              f"| {fp32_vs_ort:.2f} | {ort_vs_int8:.2f} | {med(f, 'load_ms'):.1f} / {med(o, 'load_ms'):.1f} "
              f"| {len(rounds)} |")
        verdicts.append(f"{model} b{batch} t{threads}: fp32 <= 1.0x onnxruntime: "
                        f"{'PASS' if fp32_vs_ort <= 1.0 else 'MISS'} ({fp32_vs_ort:.2f}x)")
        if model == "resnet18":
            verdicts.append(f"{model} b{batch} t{threads}: int8 >= 2.5x faster than onnxruntime fp32: "
                            f"{'PASS' if ort_vs_int8 >= 2.5 else 'MISS'} ({ort_vs_int8:.2f}x)")
            if batch == 1:
                load = med(f, "load_ms")
                verdicts.append(f"{model} b{batch} t{threads}: load <= 50 ms: {'PASS' if load <= 50 else 'MISS'} "
                                f"({load:.1f} ms)")
    print()
    for v in verdicts:
        print(v)


if __name__ == "__main__":
    main()
