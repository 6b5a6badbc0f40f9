#!/usr/bin/env python3
"""tools/trainer_peer.py without torch or a GPU: the ops and step sums it reads from a gemm_bench
run, which gemm_bench precision each recipe is compared with, how each recipe's layer is made
(with torch and torchao stood in for), the comparison it prints, and what it refuses. The steps
themselves are timed on the GPU machine (tools/gpu_check.sh trainer)."""
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")
sys.path.insert(0, TOOLS)
from peers.trainer_step import RECIPES, RunSteps, comparison_rows, make_layer  # noqa: E402

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


def write_run(test, benchmarks):
    """A gemm_bench JSON of `benchmarks` ({name: µs}) in a file removed after `test`."""
    handle = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    with handle:
        json.dump({"context": {}, "benchmarks": [
            {"name": name + "/manual_time", "run_name": name + "/manual_time",
             "run_type": "iteration", "real_time": us, "time_unit": "us"}
            for name, us in benchmarks.items()]}, handle)
    test.addCleanup(os.remove, handle.name)
    return handle.name


class RowwiseRecipes(unittest.TestCase):
    """torchao's rowwise recipes beside gemm_bench's FP8Rowwise and FP8RowwiseBF16Wgrad."""
    PASSES = {"Fprop": "M:4096/K:2048/N:5120", "Dgrad": "M:4096/K:5120/N:2048",
              "Wgrad": "M:2048/K:4096/N:5120"}

    def test_each_rowwise_recipe_is_compared_with_its_precisions_step_cases(self):
        self.assertEqual(RECIPES["rowwise"], ("FP8Rowwise", "step"))
        self.assertEqual(RECIPES["rowwise_with_gw_hp"], ("FP8RowwiseBF16Wgrad", "step"))
        times = {}
        for number, (precision, mode) in enumerate((("BF16", "native"), ("FP8Rowwise", "step"),
                                                    ("FP8RowwiseBF16Wgrad", "step"),
                                                    ("FP8Rowwise", "prequant"))):
            for offset, (gemm_pass, sizes) in enumerate(self.PASSES.items()):
                times[f"{precision}/{gemm_pass}/qkv/{mode}/{sizes}"] = 100.0 * number + offset
        run = RunSteps(write_run(self, times))
        self.assertEqual(run.ops, {"qkv": (4096, 2048, 5120)})
        rows = {recipe: (ours, peer, ratio) for op, recipe, ours, peer, ratio
                in comparison_rows(run, {("rowwise", "qkv"): 101.0,
                                         ("rowwise_with_gw_hp", "qkv"): 201.0})}
        # Fprop + Dgrad + Wgrad of the precision's step cases (not its prequant ones).
        self.assertEqual(rows["rowwise"], (303.0, 101.0, 3.0))
        self.assertEqual(rows["rowwise_with_gw_hp"], (603.0, 201.0, 3.0))
        self.assertEqual(rows["tensorwise"], (None, None, None))

    def test_the_float8_linear_recipes_are_torchaos_by_name_compiled_after_a_reset(self):
        calls = []
        linear = types.SimpleNamespace(weight=mock.Mock())
        torch = types.SimpleNamespace(
            bfloat16="bf16", no_grad=mock.MagicMock,
            nn=types.SimpleNamespace(Linear=lambda *args, **kwargs: linear,
                                     Sequential=lambda *layers: ("sequential", layers)),
            _dynamo=types.SimpleNamespace(reset=lambda: calls.append("reset")),
            compile=lambda model: calls.append("compile") or ("compiled", model))
        float8 = types.ModuleType("torchao.float8")
        float8.Float8LinearConfig = types.SimpleNamespace(
            from_recipe_name=lambda name: calls.append(f"config {name}") or f"config of {name}")
        float8.convert_to_float8_training = (
            lambda model, config: calls.append(f"convert with {config}") or ("float8", model))
        with mock.patch.dict(sys.modules, {"torchao": types.ModuleType("torchao"),
                                           "torchao.float8": float8}):
            for recipe in ("tensorwise", "rowwise", "rowwise_with_gw_hp"):
                with self.subTest(recipe=recipe):
                    calls.clear()
                    layer = make_layer(torch, recipe, 2048, 5120)
                    self.assertEqual(calls, [f"config {recipe}", f"convert with config of {recipe}",
                                             "reset", "compile"])
                    self.assertEqual(layer, ("compiled", ("float8", ("sequential", (linear,)))))
            self.assertIs(make_layer(torch, "bf16", 2048, 5120), linear)
            with self.assertRaisesRegex(ValueError, "unknown recipe 'rowwise_hp'"):
                make_layer(torch, "rowwise_hp", 2048, 5120)


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
        self.assertEqual(len(lines), 1 + 4 * len(RECIPES))
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
