#!/usr/bin/env python3
"""How far apart two gemm_bench runs are, case by case: the per-case |difference| of the
reported times (median, p90, max, in percent of the first run's time), GEMM cases and
quantization cases apart, and the worst cases; then the mean difference of each group of cases
timed together (a whole group moving together is the GPU at another operating point for that
group, not noise in single cases), with the group's SM clock and temperature in each run where
NVML gave them (at the power cap a warmer GPU runs at another clock), flagging a group whose
slower run had the higher clock; where both runs read the GPC clock (gemm_bench --gpc_clock),
that clock too and the group's difference in GPC cycles; with --speedups, each run's per-layer speedups over BF16 (from
gemm_report --format=json) side by side.

    tools/run_diff.py a.json b.json [--speedups --report=build/tools/gemm_report]

Only plain iteration entries are compared (with repetitions, the median aggregate instead).
Reads Google Benchmark JSON; plain Python 3, no third-party modules."""
import argparse
import json
import subprocess
import sys


def case_entries(path, keep_failed=False):
    """name -> the entry of each case in a file (the median aggregate if there are
    repetitions); a failed or skipped case only with keep_failed, as its entry (error_occurred
    or skipped set)."""
    with open(path) as f:
        data = json.load(f)
    plain, medians = {}, {}
    for entry in data.get("benchmarks", []):
        if not keep_failed and (entry.get("error_occurred") or entry.get("skipped")):
            continue
        name = entry.get("run_name", entry["name"])
        if entry.get("run_type") == "aggregate":
            if entry.get("aggregate_name") == "median":
                medians[name] = entry
        else:
            plain.setdefault(name, entry)
    # A failed case has no aggregate: kept, it stays a plain entry beside the others' medians.
    return {**plain, **medians} if keep_failed else (medians or plain)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def describe(label, diffs):
    if not diffs:
        print(f"{label}: no cases in common")
        return
    values = [abs(d) for _, d in diffs]
    print(f"{label}: {len(values)} cases, |diff| median {percentile(values, 0.5):.2f}%, "
          f"p90 {percentile(values, 0.9):.2f}%, max {max(values):.2f}%")
    for name, d in sorted(diffs, key=lambda x: -abs(x[1]))[:3]:
        print(f"    {d:+.2f}%  {name}")


def group_of(name):
    """The group gemm_bench times a case with (bench/bench_session.h): its precision's GEMM
    cases, expert (grouped) GEMM cases, or quantization cases."""
    precision = name.split("/")[0]
    if "/Quantize/" in name:
        return precision + "/Quantize"
    if "/expert_" in name:
        return precision + "/Experts"
    return precision


def mean_counter(entries, names, counter):
    values = [entries[n][counter] for n in names if counter in entries[n]]
    return sum(values) / len(values) if values else None


def group_state(a, b, names):
    """The group's mean SM clock (NVML's), GPC clock (the performance monitors') and temperature
    in the first run and in the second, as text; empty where the runs do not have them (no NVML
    or no PM sampling, or runs from before the counter)."""
    parts = []
    for counter, unit, digits in (("sm_clock_mhz", " MHz", 0), ("gpc_clock_mhz", " MHz GPC", 0),
                                  ("temperature_c", " C", 1)):
        first, second = mean_counter(a, names, counter), mean_counter(b, names, counter)
        if first is not None and second is not None:
            parts.append(f"{first:.{digits}f} -> {second:.{digits}f}{unit}")
    return ("  " + ", ".join(parts)) if parts else ""


# A group whose slower run had the clearly higher SM clock. The same work at a higher clock
# runs faster; yet three H100s have each run a whole FP8 group 1.3-1.6% slower at a 6-7% higher
# NVML clock, at the same power and temperature, in one sweep of three to five, with no other
# sign in NVML (docs/timing.md). A run at another temperature can show
# it too (the peer's first group, 9 C cooler on one H100). The flag says which group to rerun.
SLOWER_AT_HIGHER_CLOCK_MIN_TIME_PCT = 0.5
SLOWER_AT_HIGHER_CLOCK_MIN_CLOCK_PCT = 2.0


def slower_at_higher_clock(time_pct, a, b, names):
    first = mean_counter(a, names, "sm_clock_mhz")
    second = mean_counter(b, names, "sm_clock_mhz")
    if not first or not second:
        return False
    clock_pct = 100.0 * (second - first) / first
    return (time_pct * clock_pct > 0 and abs(time_pct) >= SLOWER_AT_HIGHER_CLOCK_MIN_TIME_PCT
            and abs(clock_pct) >= SLOWER_AT_HIGHER_CLOCK_MIN_CLOCK_PCT)


def cycle_difference(time_pct, a, b, names):
    """The group's difference in GPC cycles per case (its time difference with the GPC clock's
    taken out), in percent; None unless both runs read the GPC clock (--gpc_clock). A time
    difference that vanishes in cycles is the GPU having run at another clock, not the GEMMs
    having done more work: on an H200 a BF16 group's 1.1% shifts between sweeps were within
    0.1% in cycles."""
    first = mean_counter(a, names, "gpc_clock_mhz")
    second = mean_counter(b, names, "gpc_clock_mhz")
    if not first or not second:
        return None
    return 100.0 * ((1 + time_pct / 100.0) * second / first - 1)


def describe_groups(diffs, a, b):
    groups = {}
    for name, d in diffs:
        groups.setdefault(group_of(name), []).append((name, d))
    print("by group (mean difference, range; SM clock, GPC clock and temperature, "
          "first -> second):")
    for group, members in groups.items():
        values = [d for _, d in members]
        names = [n for n, _ in members]
        mean = sum(values) / len(values)
        flag = ("  <- slower at a higher SM clock: rerun this group"
                if slower_at_higher_clock(mean, a, b, names) else "")
        cycles = cycle_difference(mean, a, b, names)
        in_cycles = f", in GPC cycles {cycles:+.2f}%" if cycles is not None else ""
        print(f"    {group:20s} {mean:+.2f}%  {min(values):+.2f}..{max(values):+.2f}%  "
              f"({len(values)} cases){group_state(a, b, names)}{in_cycles}{flag}")


def speedups(report, path):
    out = subprocess.run([report, "--format=json", path], check=True, capture_output=True,
                         text=True).stdout
    modes = json.loads(out)["modes"]
    return {(mode, precision): value for mode, body in modes.items()
            for precision, value in body.get("speedup_vs_bf16", {}).items() if value}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--speedups", action="store_true")
    parser.add_argument("--report", default="build/tools/gemm_report")
    args = parser.parse_args()
    a, b = case_entries(args.first), case_entries(args.second)
    common = sorted(set(a) & set(b))
    diffs = [(n, 100.0 * (b[n]["real_time"] - a[n]["real_time"]) / a[n]["real_time"])
             for n in common if a[n]["real_time"] > 0]
    describe("GEMM cases", [(n, d) for n, d in diffs if "/Quantize/" not in n])
    describe("quantization cases", [(n, d) for n, d in diffs if "/Quantize/" in n])
    if diffs:
        describe_groups(diffs, a, b)
    if args.speedups:
        sa, sb = speedups(args.report, args.first), speedups(args.report, args.second)
        print("per-layer speedup over BF16 (first, second, difference):")
        for key in sorted(set(sa) & set(sb)):
            print(f"    {key[0]:8s} {key[1]:11s} {sa[key]:.3f}x {sb[key]:.3f}x "
                  f"{100.0 * (sb[key] - sa[key]) / sa[key]:+.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
