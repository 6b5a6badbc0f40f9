#!/usr/bin/env python3
"""Each case's TFLOP/s timed in its group (group_*.json: the entry's cases together, as a sweep
times them) and timed alone (alone_*.json: one process, one case), side by side, with what ran
it. The public block-scaled figures gemmscope is measured against were timed alone after a 2 s
warm-up; tools/gpu_check.sh's stage `alone` writes both files of every case that way.

    tools/alone_summary.py DIR

Reads Google Benchmark JSON; plain Python 3, no third-party modules."""
import glob
import os
import sys

from run_diff import case_entries


def entries(paths):
    """name -> the case's entry (run_diff.case_entries), over every file in paths; the first file
    that has a case gives it."""
    found = {}
    for path in paths:
        for name, entry in case_entries(path).items():
            found.setdefault(name, entry)
    return found


def implementation(label):
    """The kept GEMM of a label: its text before the first bracket, shortened."""
    kept = label.split("[")[0].strip()
    return kept if len(kept) <= 70 else kept[:67] + "..."


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: alone_summary.py DIR (the folder stage alone writes)")
    folder = sys.argv[1]
    grouped = entries(sorted(glob.glob(os.path.join(folder, "group_*.json"))))
    alone = entries(sorted(glob.glob(os.path.join(folder, "alone_*.json"))))
    if not alone:
        sys.exit(f"alone_summary.py: no case timed alone in {folder}")
    print(f"{'case':<80} {'group':>7} {'alone':>7} {'diff':>6}  kept alone")
    for name, entry in alone.items():
        tflops = entry.get("TFLOPS")
        if tflops is None:
            continue
        in_group = grouped.get(name, {}).get("TFLOPS")
        group_text = f"{in_group:7.0f}" if in_group else f"{'-':>7}"
        diff = f"{100 * (tflops / in_group - 1):+5.1f}%" if in_group else f"{'':>6}"
        short = name[:-len("/manual_time")] if name.endswith("/manual_time") else name
        print(f"{short:<80} {group_text} {tflops:7.0f} {diff}  "
              f"{implementation(entry.get('label', ''))}")


if __name__ == "__main__":
    main()
