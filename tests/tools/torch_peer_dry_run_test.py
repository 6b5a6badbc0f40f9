#!/usr/bin/env python3
"""tools/torch_peer.py --dry-run, as a user runs it, over a fixed list of gemm_bench names
(fixtures/torch_peer_cases.txt: dense BF16, FP8Current, FP8Block, FP8Rowwise and
FP8RowwiseBF16Wgrad cases of every pass, BF16 and FP8Rowwise(BF16Wgrad) expert cases, cases it
refuses and cases it leaves out): its whole output, stdout and stderr, and its exit status must
be fixtures/torch_peer_dry_run.txt's, which the script wrote before it became the package
tools/peers/ (and what later precisions added to it). A change that means to change the output
regenerates the file: torch_peer_dry_run_test.py --write_expected."""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
SCRIPT = os.path.join(HERE, "..", "..", "tools", "torch_peer.py")
EXPECTED = os.path.join(FIXTURES, "torch_peer_dry_run.txt")

# 16 experts with rows (three of 2049, one of 2045: runs fold in the rows text) and two without.
EXPERT_ROWS = "2049,0,2049,2049,2045" + ",2048" * 12 + ",0"
# Each run's flags after --cases=torch_peer_cases.txt --dry-run.
RUNS = (
    [f"--expert_rows={EXPERT_ROWS}"],
    [],  # the expert cases are left out, with a note
    ["--filter=^FP8Block", "--repetitions=3", "--out=peer.json"],
    ["--expert_rows=2048,2048"],  # rows that are not the cases': refused
    ["--filter=expert_"],  # nothing left without rows
    ["--filter=^MXFP8"],  # nothing the peer takes
)


def transcript():
    """Every run: the command, its stdout, its stderr and its exit status."""
    parts = []
    for flags in RUNS:
        command = ["--cases=torch_peer_cases.txt", "--dry-run", *flags]
        done = subprocess.run([sys.executable, SCRIPT, *command], cwd=FIXTURES,
                              capture_output=True, text=True, check=False)
        parts.append(f"$ tools/torch_peer.py {' '.join(command)}\n"
                     f"-- stdout\n{done.stdout}-- stderr\n{done.stderr}"
                     f"-- exit {done.returncode}\n")
    return "".join(parts)


class DryRunOutput(unittest.TestCase):
    def test_output_is_the_recorded_output(self):
        with open(EXPECTED, encoding="utf-8") as f:
            expected = f.read()
        self.maxDiff = None
        self.assertEqual(transcript(), expected)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write_expected"]:
        with open(EXPECTED, "w", encoding="utf-8") as f:
            f.write(transcript())
    else:
        unittest.main()
