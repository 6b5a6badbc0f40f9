#!/usr/bin/env python3
"""tools/trainer_peer.py without torch or a GPU: the ops and step sums it reads from a gemm_bench
run, the comparison it prints, and what it refuses. The steps themselves are timed on the GPU
machine (tools/gpu_check.sh trainer)."""
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")
sys.path.insert(0, TOOLS)
from peers.trainer_step import RECIPES, RunSteps, comparison_rows  # noqa: E402

SWEEP = os.path.join(HERE, "fixtures", "h200_te_tutorial_step_sweep.json")
PEER = os.path.join(HERE, "fixtures", "h200_te_tutorial_trainer_peer.json")


def case_us(name):
    """A case's time in µs, read the plain way from the fixture."""
    with open(SWEEP, encoding="utf-8") as f:
        for entry in json.load(f)["benchmarks"]:
            if entry["name"] == name + "/manual_time":
                assert entry["time_unit"] == "us"
                return entry["real_time"]
    raise KeyError(name)


class RunStepsFromAGemmBenchRun(unittest.TestCase):
    def test_the_ops_are_the_runs_with_their_bf16_fprop_shape(self):
        run = RunSteps(SWEEP)
        self.assertEqual(run.ops, {"qkv": (15872, 4096, 12288), "attn_out": (15872, 4096, 4096),
                                   "mlp_up": (15872, 4096, 16384),
                                   "mlp_down": (15872, 16384, 4096)})

    def test_a_step_is_the_sum_of_the_three_passes_step_cases(self):
        run = RunSteps(SWEEP)
        expected = (case_us("FP8Current/Fprop/qkv/step/M:15872/K:4096/N:12288")
                    + case_us("FP8Current/Dgrad/qkv/step/M:15872/K:12288/N:4096")
                    + case_us("FP8Current/Wgrad/qkv/step/M:4096/K:15872/N:12288"))
        self.assertAlmostEqual(run.step_us("FP8Current", "step", "qkv"), expected, places=6)
        # BF16 is compared in its native mode, FP8Block in step.
        self.assertIsNotNone(run.step_us("BF16", "native", "mlp_down"))
        self.assertIsNotNone(run.step_us("FP8Block", "step", "attn_out"))
        # Modes that are not a step, and precisions the peer has no recipe for, are there too,
        # but a missing pass makes no sum.
        self.assertIsNone(run.step_us("FP8Current", "step", "expert_up"))

    def test_every_op_and_recipe_compared_ours_over_the_peers(self):
        run = RunSteps(SWEEP)
        peer = {("tensorwise", "qkv"): 4000.0}
        rows = comparison_rows(run, peer)
        self.assertEqual(len(rows), len(run.ops) * len(RECIPES))
        qkv = [r for r in rows if r[0] == "qkv" and r[1] == "tensorwise"][0]
        self.assertAlmostEqual(qkv[4], run.step_us("FP8Current", "step", "qkv") / 4000.0)
        missing = [r for r in rows if r[0] == "attn_out" and r[1] == "bf16"][0]
        self.assertIsNone(missing[3])
        self.assertIsNone(missing[4])


class TheCommand(unittest.TestCase):
    def run_peer(self, *args):
        return subprocess.run([sys.executable, os.path.join(TOOLS, "trainer_peer.py"), *args],
                              capture_output=True, text=True, check=False)

    def test_peer_from_compares_a_run_with_an_earlier_peer_run_without_torch(self):
        result = self.run_peer(f"--steps_from={SWEEP}", f"--peer_from={PEER}")
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0].split(), ["op", "recipe", "ours", "ms", "peer", "ms",
                                            "ours/peer"])
        self.assertEqual(len(lines), 1 + 4 * 3)
        with open(PEER, encoding="utf-8") as f:
            peer = {(g["recipe"], g["op"]): g["peer_us"] for g in json.load(f)["groups"]}
        ours = RunSteps(SWEEP).step_us("FP8Current", "step", "mlp_up")
        row = [line for line in lines if line.split()[:2] == ["mlp_up", "tensorwise"]][0]
        self.assertEqual(row.split()[2:], [f"{ours / 1000:.3f}",
                                           f"{peer[('tensorwise', 'mlp_up')] / 1000:.3f}",
                                           f"{ours / peer[('tensorwise', 'mlp_up')]:.3f}"])

    def test_bad_arguments_exit_2_naming_the_flag(self):
        for args, says in ((["--steps_from=x", "--recipes=fp8"], "--recipes: unknown fp8"),
                           (["--steps_from=x", "--recipes="], "--recipes: unknown (none given)"),
                           (["--steps_from=x", "--first_steps=0"], "--first_steps"),
                           ([], "--steps_from")):
            with self.subTest(args=args):
                result = self.run_peer(*args)
                self.assertEqual(result.returncode, 2)
                self.assertIn(says, result.stderr)

    def test_a_run_without_dense_ops_is_refused(self):
        result = self.run_peer(f"--steps_from={os.path.join(HERE, 'fixtures', 'shapes_gb18_ns.json')}")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("has no dense op with a BF16 Fprop case", result.stderr)


if __name__ == "__main__":
    unittest.main()
