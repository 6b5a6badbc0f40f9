#!/usr/bin/env python3
"""tools/alone_summary.py on made-up gemm_bench JSON: each case's TFLOP/s in its group and alone
side by side, the difference, the kept GEMM; a case only timed alone; an empty folder refused."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                      "alone_summary.py")


def write(folder, name, entries):
    with open(os.path.join(folder, name), "w") as f:
        json.dump({"context": {}, "benchmarks": entries}, f)


def case(name, tflops, label):
    return {"name": name + "/manual_time", "run_type": "iteration", "TFLOPS": tflops,
            "label": label}


def summary(folder):
    return subprocess.run([sys.executable, SCRIPT, folder], capture_output=True, text=True)


class AloneSummaryTest(unittest.TestCase):
    def test_pairs_each_case_alone_with_its_group(self):
        with tempfile.TemporaryDirectory() as folder:
            write(folder, "group_0.json", [case("FP8Block/Fprop/qkv", 1000.0, "cuBLASLt algo 66"),
                                           case("FP8Block/Dgrad/qkv", 900.0, "cuBLASLt algo 66")])
            write(folder, "alone_0_a.json",
                  [case("FP8Block/Fprop/qkv", 1056.0, "CUTLASS 128x128 [kept at 1.0 us of 2]")])
            write(folder, "alone_0_b.json", [case("FP8Block/Wgrad/qkv", 800.0, "cuBLASLt")])
            result = summary(folder)
            self.assertEqual(result.returncode, 0, result.stderr)
            lines = result.stdout.splitlines()
            fprop = next(line for line in lines if line.startswith("FP8Block/Fprop/qkv "))
            self.assertIn("1000", fprop)
            self.assertIn("1056", fprop)
            self.assertIn("+5.6%", fprop)
            self.assertTrue(fprop.endswith("CUTLASS 128x128"), fprop)
            # Timed alone only: no group figure, no difference.
            wgrad = next(line for line in lines if line.startswith("FP8Block/Wgrad/qkv "))
            self.assertNotIn("%", wgrad)
            # Timed in the group only: not listed.
            self.assertFalse(any(line.startswith("FP8Block/Dgrad/qkv") for line in lines))

    def test_a_folder_without_cases_alone_is_an_error(self):
        with tempfile.TemporaryDirectory() as folder:
            write(folder, "group_0.json", [case("FP8Block/Fprop/qkv", 1000.0, "cuBLASLt")])
            result = summary(folder)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("no case timed alone", result.stderr)


if __name__ == "__main__":
    unittest.main()
