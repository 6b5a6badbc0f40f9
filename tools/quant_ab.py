#!/usr/bin/env python3
"""Compares the quantization cases of two builds timed alternately (gpu_check.sh's `quantab`
stage): per case, the median share of copy bandwidth (pct_of_copy_bw) over the rounds of each
side, and the change. Rounds alternate so that drift in clocks and temperature falls on both.

Usage: tools/quant_ab.py BASELINE_PREFIX THIS_PREFIX
  reads BASELINE_PREFIX*.json and THIS_PREFIX*.json (Google Benchmark JSON output)
"""
import collections
import glob
import json
import statistics
import sys


def shares(prefix):
    paths = sorted(glob.glob(prefix + "*.json"))
    if not paths:
        sys.exit(f"quant_ab: no files match {prefix}*.json")
    by_case = collections.defaultdict(list)
    for path in paths:
        with open(path) as f:
            for case in json.load(f)["benchmarks"]:
                if "pct_of_copy_bw" in case:
                    by_case[case["name"]].append(case["pct_of_copy_bw"])
    return {name: statistics.median(values) for name, values in by_case.items()}


def main(baseline_prefix, this_prefix):
    baseline = shares(baseline_prefix)
    this = shares(this_prefix)
    print(f"{'case':<60} {'baseline %':>10} {'this %':>8} {'change':>7}")
    for name in sorted(set(baseline) | set(this)):
        old, new = baseline.get(name), this.get(name)
        old_text = f"{old:.1f}" if old is not None else "-"
        new_text = f"{new:.1f}" if new is not None else "-"
        change = f"{new - old:+.1f}" if old is not None and new is not None else "-"
        print(f"{name:<60} {old_text:>10} {new_text:>8} {change:>7}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
