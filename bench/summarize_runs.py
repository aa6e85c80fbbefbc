#!/usr/bin/env python3
"""Aggregates several runtime_bench outputs: medians of the per-run values, per figure.

usage: bench/summarize_runs.py run1.txt run2.txt ...   (prints a Markdown table)

For each figure: median over runs of P50, P99, floor P50, floor P99, of the per-run
ratios figure/floor (P50 and P99; each ratio is taken within one run, against the floor
measured in that run), and how many runs met the target. "met" in the table judges the
target against the median values (for the ratio target: the median per-run ratio).
"""
import re
import shlex
import statistics
import sys


def parse(path):
    rows, machine = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("MACHINE "):
                machine = line.strip()[len("MACHINE "):]
            if not line.startswith("RESULT "):
                continue
            kv = dict(tok.split("=", 1) for tok in shlex.split(line.strip())[1:])
            rows[kv["id"]] = kv
    return machine, rows


def us(ns):
    return f"{float(ns) / 1000:.2f}"


def target_met(target, p50, p99, ratio):
    ok = True
    for t in filter(None, (x.strip() for x in target.split(";"))):
        m = re.match(r"(P50|P99|ratio) <= ([0-9.]+)( us)?", t)
        if not m:
            continue
        limit = float(m.group(2))
        value = {"P50": p50 / 1000, "P99": p99 / 1000, "ratio": ratio}[m.group(1)]
        ok = ok and value <= limit
    return ok


def main(paths):
    runs = [parse(p) for p in paths]
    print(f"{len(runs)} runs:")
    for p, (machine, _) in zip(paths, runs):
        print(f"- `{p}`: {machine}")
    print()
    ids = [i for i in runs[0][1].keys() if not i.startswith("env.")]
    env_ids = [i for i in runs[0][1].keys() if i.startswith("env.")]
    if env_ids:
        print("Placement survey (medians; round trips in µs, queue in ns/item):\n")
        print("| placement | F1 rtt P50 | F1 rtt P99 | F2 rtt P50 | F2 rtt P99 | F1.queue ns/item |")
        print("|---|---:|---:|---:|---:|---:|")
        names = {"env.same": "both threads on one CPU", "env.cross": "threads on two CPUs", "env.free": "unpinned"}
        for i in env_ids:
            rs = [r[i] for _, r in runs if i in r]
            med = lambda k: statistics.median(float(r[k]) for r in rs)
            print(f"| {names.get(i, i)} | {us(med('f1_rtt_p50_ns'))} | {us(med('f1_rtt_p99_ns'))} "
                  f"| {us(med('f2_rtt_p50_ns'))} | {us(med('f2_rtt_p99_ns'))} | {med('queue_ns'):.0f} |")
        print()
    print("| id | figure | P50 µs | P99 µs | floor | floor P50 µs | floor P99 µs | ratio P50 | ratio P99 "
          "| F2 floor P50 µs | ratio P50 vs F2 | target | met (median) | runs met |")
    print("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---|---:|")
    for i in ids:
        rs = [r[i] for _, r in runs if i in r]
        med = lambda k: statistics.median(float(r[k]) for r in rs)
        per_run = lambda a, b: statistics.median(
            float(r[a]) / float(r[b]) if float(r[b]) > 0 else 0.0 for r in rs)
        p50, p99 = med("p50_ns"), med("p99_ns")
        ratio_target = med("ratio")
        target = rs[0].get("target", "")
        has_target = bool(target)
        met = target_met(target, p50, p99, ratio_target) if has_target else None
        runs_met = sum(1 for r in rs if r["met"] == "1")
        f2 = rs[0]["floor2"]
        cells = [i, rs[0].get("name", ""), us(p50), us(p99), rs[0]["floor"], us(med("floor_p50_ns")),
                 us(med("floor_p99_ns")), f"{per_run('p50_ns', 'floor_p50_ns'):.2f}",
                 f"{per_run('p99_ns', 'floor_p99_ns'):.2f}"]
        if f2 != "-":
            cells += [f"{f2} {us(med('floor2_p50_ns'))}", f"{per_run('p50_ns', 'floor2_p50_ns'):.2f}"]
        else:
            cells += ["-", "-"]
        ratio_note = f" (median ratio {ratio_target:.2f})" if "ratio" in target else ""
        cells += [(target or "(info)") + ratio_note, "-" if met is None else ("yes" if met else "**no**"),
                  f"{runs_met}/{len(rs)}" if has_target else "-"]
        print("| " + " | ".join(cells) + " |")

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
