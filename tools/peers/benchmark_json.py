"""Google Benchmark's JSON, as its JSON reporter writes it (an entry per repetition of a case,
then the aggregates), with gemm_bench's counters and label notes, so that compare.py and
tools/run_diff.py read a peer's file as they read gemm_bench's; and the table a run prints as
cases are timed."""

import json
import math
import os
import statistics

from .timing import TIMED_OUT, clock_event_text, mean_and_noise


def counters(case, samples_us, run):
    mean, noise = mean_and_noise(samples_us)
    values = {
        "TFLOPS": case.flops / (mean * 1e-6) / 1e12,
        "M": case.m, "K": case.k, "N": case.n,
        # As gemm_bench's; padded_rows: the rows the peer's kernel pads the experts with.
        **({"G": case.groups, "padded_rows": case.padded_rows} if case.grouped else {}),
        "samples": len(samples_us),
        "noise_pct": noise * 100,
        "settled": 1 if run.settled else 0,
        "settle_ms": run.settle_s * 1000,
    }
    if run.clocks is not None:
        values["sm_clock_mhz"] = run.clocks.sm_clock_mhz
        if run.clocks.power_w is not None:
            values["power_w"] = run.clocks.power_w
        if run.clocks.temperature_c is not None:
            values["temperature_c"] = run.clocks.temperature_c
    return values


def label(samples_us, run, settings, algorithm=""):
    """gemm_bench's label: what ran (`algorithm`, where the peer names its kernel), then its
    notes on the measurement, in its words: clock slowdowns seen while sampling, settling given
    up, the noise target missed at --max_time."""
    notes = []
    slowdowns = clock_event_text(run.clocks.event_reasons) if run.clocks is not None else ""
    if slowdowns:
        notes.append(f"clocks: {slowdowns}")
    if not run.settled:
        notes.append(f"not settled after {run.settle_s:.1f} s")
    noise = mean_and_noise(samples_us)[1] * 100
    # The group stops at --max_time for all its members; only those above the target say so
    # (as gemm_bench's labels do).
    if run.verdict == TIMED_OUT and not noise <= settings.max_noise_pct:
        noise_text = f"{noise:.2f}" if math.isfinite(noise) else "n/a"
        notes.append(f"noise {noise_text}% > {settings.max_noise_pct:.2f}% after "
                     f"{run.sampling_s:.1f} s")
    return " ".join(([algorithm] if algorithm else []) + [f"[{note}]" for note in notes])


# The keys of a Google Benchmark entry that are not counters.
RUN_KEYS = {"name", "family_index", "per_family_instance_index", "run_name", "run_type",
            "repetitions", "repetition_index", "threads", "iterations", "real_time", "cpu_time",
            "time_unit", "label"}


def run_entry(case, family_index, repetitions, repetition_index):
    """The keys Google Benchmark's JSON reporter writes first for one repetition of a case."""
    return {"name": case.name, "family_index": family_index, "per_family_instance_index": 0,
            "run_name": case.name, "run_type": "iteration", "repetitions": repetitions,
            "repetition_index": repetition_index, "threads": 1}


def iteration_entry(case, family_index, repetitions, repetition_index, samples_us, run,
                    settings, algorithm=""):
    mean = mean_and_noise(samples_us)[0]
    entry = run_entry(case, family_index, repetitions, repetition_index)
    # One "iteration" whose time is the samples' mean, as gemm_bench's manual time is per
    # iteration.
    entry.update({"iterations": 1, "real_time": mean, "cpu_time": mean, "time_unit": "us"})
    note = label(samples_us, run, settings, algorithm)
    if note:
        entry["label"] = note
    entry.update(counters(case, samples_us, run))
    return entry


def error_entry(case, family_index, repetitions, repetition_index, message):
    entry = run_entry(case, family_index, repetitions, repetition_index)
    entry.update({"error_occurred": True, "error_message": message, "iterations": 0,
                  "real_time": 0, "cpu_time": 0, "time_unit": "us"})
    return entry


def _stddev(values):
    return statistics.stdev(values) if len(values) > 1 else 0.0


def _cv(values):
    mean = statistics.fmean(values)
    return _stddev(values) / mean if mean else 0.0


# Google Benchmark's default statistics: name, function, unit. cv is a fraction ("percentage"
# unit) and is written as is, not rescaled like times.
AGGREGATES = (("mean", statistics.fmean, "time"), ("median", statistics.median, "time"),
              ("stddev", _stddev, "time"), ("cv", _cv, "percentage"))


def aggregate_entries(iterations):
    """Google Benchmark's aggregates over the successful repetitions of one case (none for fewer
    than two): each statistic of the times and of every counter; iterations = repetitions used."""
    if len(iterations) < 2:
        return []
    first = iterations[0]
    counter_names = [key for key in first
                     if key not in RUN_KEYS and all(key in it for it in iterations)]
    entries = []
    for name, function, unit in AGGREGATES:
        entry = {"name": f"{first['run_name']}_{name}", "family_index": first["family_index"],
                 "per_family_instance_index": 0, "run_name": first["run_name"],
                 "run_type": "aggregate", "repetitions": first["repetitions"], "threads": 1,
                 "aggregate_name": name, "aggregate_unit": unit, "iterations": len(iterations)}
        for key in ("real_time", "cpu_time"):
            entry[key] = function([it[key] for it in iterations])
        entry["time_unit"] = first["time_unit"]
        # As Google Benchmark: the label only where every repetition has the same one.
        if len({it.get("label") for it in iterations}) == 1 and "label" in first:
            entry["label"] = first["label"]
        for key in counter_names:
            entry[key] = function([it[key] for it in iterations])
        entries.append(entry)
    return entries


def cpu_mhz():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("cpu MHz"):
                    return int(float(line.split(":")[1]))
    except OSError:
        pass
    return 0


def write_json(path, context, entries):
    """Writes the whole file each time (after every group), so an interrupted run keeps what it
    measured; through a temporary file, so a reader never sees half of it."""
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        json.dump({"context": context, "benchmarks": entries}, f, indent=2)
        f.write("\n")
    os.replace(temporary, path)


TABLE_HEADER = (f"{'case':<72} {'mean us':>10} {'TFLOP/s':>8} {'noise %':>7} {'samples':>7} "
                f"{'settle ms':>9} {'MHz':>5} {'W':>4}")


def table_row(entry):
    if entry.get("error_occurred"):
        return f"{entry['name']:<72} error: {entry['error_message']}"
    clock = f"{entry['sm_clock_mhz']:5.0f}" if "sm_clock_mhz" in entry else f"{'-':>5}"
    power = f"{entry['power_w']:4.0f}" if "power_w" in entry else f"{'-':>4}"
    note = f"  {entry['label']}" if "label" in entry else ""
    return (f"{entry['name']:<72} {entry['real_time']:10.1f} {entry['TFLOPS']:8.1f} "
            f"{entry['noise_pct']:7.2f} {entry['samples']:7d} {entry['settle_ms']:9.0f} "
            f"{clock} {power}{note}")


def report_entries(cases, results):
    """Google Benchmark's order: each case's repetitions, then their aggregates, case by case."""
    entries = []
    for family_index in range(len(cases)):
        case_entries = results.get(family_index, [])
        entries.extend(case_entries)
        entries.extend(aggregate_entries([e for e in case_entries if not e.get("error_occurred")]))
    return entries
