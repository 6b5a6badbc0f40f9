#!/usr/bin/env python3
"""Summarises a `gemm_bench --verify` JSON: per precision and pass, the largest rel_err, the
range of recipe_err, and the cases that failed or were skipped, counted per message.

Usage: tools/verify_summary.py run.json [more.json ...]
"""
import collections
import json
import sys


def main(paths):
    rows = collections.defaultdict(list)
    problems = []
    for path in paths:
        with open(path) as f:
            # Google Benchmark writes bare NaN/Infinity; Python's json accepts them.
            run = json.load(f)
        for case in run["benchmarks"]:
            name = case["name"]
            if case.get("error_occurred") or case.get("skipped"):
                problems.append((name, case.get("error_message") or case.get("skip_message")))
                continue
            if "rel_err" in case:
                precision, pass_ = name.split("/")[:2]
                rows[(precision, pass_)].append((case["rel_err"], case.get("recipe_err")))
    print(f"{'precision':<11} {'pass':<6} {'cases':>5} {'max rel_err':>12} {'recipe_err':>17}")
    for (precision, pass_), values in sorted(rows.items()):
        rel = max(v[0] for v in values)
        recipe = [v[1] for v in values if v[1] is not None]
        span = f"{min(recipe):.4f}..{max(recipe):.4f}" if recipe else "-"
        print(f"{precision:<11} {pass_:<6} {len(values):>5} {rel:>12.2e} {span:>17}")
    print(f"{len(problems)} cases failed or were skipped")
    by_message = collections.defaultdict(list)
    for name, message in problems:
        by_message[message].append(name)
    for message, names in by_message.items():
        print(f"  {len(names)} x {message} (first: {names[0]})")
    return 1 if any("verification failed" in (m or "") for _, m in problems) else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
