#!/usr/bin/env python3
"""Medians over runs of the METRIC lines of priority_load_bench outputs.

usage: bench/summarize_metrics.py run1.txt run2.txt ...   (prints a Markdown table:
metric, median, min, max, number of runs, and each run's value in order)
"""
import statistics
import sys


def main(paths):
    values, units, order = {}, {}, []
    for p in paths:
        with open(p) as f:
            for line in f:
                if line.startswith("MACHINE "):
                    print(f"- `{p}`: {line.strip()[8:]}")
                if not line.startswith("METRIC "):
                    continue
                _, key, value, unit = line.split()
                if key not in values:
                    values[key] = []
                    order.append(key)
                values[key].append(float(value))
                units[key] = unit
    print()
    print("| metric | median | min | max | runs | per run |")
    print("|---|---:|---:|---:|---:|---|")
    for k in order:
        v = values[k]
        print(f"| {k} | {statistics.median(v):.3f} {units[k]} | {min(v):.3f} | {max(v):.3f} | {len(v)} | "
              + " ".join(f"{x:.3g}" for x in v) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
