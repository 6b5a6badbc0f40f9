#!/usr/bin/env python3
"""tools/deepgemm_peer.py (tools/peers/deepgemm_grouped.py) without torch, deep_gemm or a GPU:
which gemm_bench names it takes and why it leaves the others out, each expert's rows padded to
128, what it refuses, --dry-run's output (with torch and deep_gemm made unimportable), the side
by side table of --compare, and the commands of tools/gpu_check_deepgemm_peer.sh's stage. The
timing itself runs on the GPU machine (the stage peer_deepgemm)."""
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SCRIPT = os.path.join(ROOT, "tools", "deepgemm_peer.py")
STAGE = os.path.join(ROOT, "tools", "gpu_check_deepgemm_peer.sh")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from peers import benchmark_json, deepgemm_grouped as dg, runner, timing  # noqa: E402
from peers.cases import attach_group_rows  # noqa: E402

# qwen3-30b-a3b --expert_parallel=8, as gemm_bench --benchmark_list_tests names its cases.
FPROP_UP = "FP8Block/Fprop/expert_up/prequant/G:16/M:32768/K:2048/N:1536/manual_time"
FPROP_DOWN = "FP8Block/Fprop/expert_down/prequant/G:16/M:32768/K:768/N:2048/manual_time"
DGRAD_UP = "FP8Block/Dgrad/expert_up/prequant/G:16/M:32768/K:1536/N:2048/manual_time"
DGRAD_DOWN = "FP8Block/Dgrad/expert_down/prequant/G:16/M:32768/K:2048/N:768/manual_time"
LISTED = [
    "FP8Block/Fprop/qkv/prequant/M:4096/K:2048/N:5120/manual_time",
    FPROP_UP,
    FPROP_DOWN,
    DGRAD_UP,
    DGRAD_DOWN,
    "FP8Block/Wgrad/expert_up/prequant/G:16/M:2048/K:32768/N:1536/manual_time",
    "FP8Block/Fprop/expert_up/autocast/G:16/M:32768/K:2048/N:1536/manual_time",
    "FP8Block/Dgrad/expert_down/step/G:16/M:32768/K:2048/N:768/manual_time",
    "FP8Current/Fprop/expert_up/prequant/G:16/M:32768/K:2048/N:1536/manual_time",
    "BF16/Fprop/expert_up/native/G:16/M:32768/K:2048/N:1536/manual_time",
    "MXFP8/Dgrad/expert_up/prequant/G:16/M:32768/K:1536/N:2048/manual_time",
    "FP8Block/Quantize/x/rowwise/G:16/R:32768/C:2048",
    "",
]
ROWS = (2048,) * 16
# Ragged rows (2049 x3, 2045, 2048 x12) and two experts without rows: 3 x 127 + 3 = 384 rows
# of padding to whole blocks of 128.
RAGGED = "2049,0,2049,2049,2045" + ",2048" * 12 + ",0"


def case(name, rows=ROWS):
    parsed, reason = dg.classify(name)
    assert reason is None, reason
    return dg.with_padding(attach_group_rows([parsed], rows)[0])


class Selection(unittest.TestCase):
    def test_keeps_fp8block_prequant_expert_fprop_and_dgrad(self):
        cases, _ = dg.select_cases(LISTED)
        self.assertEqual([c.name for c in cases], [FPROP_UP, FPROP_DOWN, DGRAD_UP, DGRAD_DOWN])
        first = cases[0]
        self.assertEqual((first.precision, first.gemm_pass, first.groups),
                         ("FP8Block", "Fprop", 16))
        self.assertEqual((first.m, first.k, first.n), (32768, 2048, 1536))
        self.assertEqual(first.group_key, "FP8Block/Experts")

    def test_says_why_it_leaves_the_others_out(self):
        _, left_out = dg.select_cases(LISTED)
        self.assertEqual(left_out, {dg.LEFT_OUT_DENSE: 1, dg.LEFT_OUT_WGRAD: 1,
                                    dg.LEFT_OUT_MODE: 2, dg.LEFT_OUT_PRECISION: 3})

    def test_filter_searches_the_reported_name(self):
        names = [n.replace("/manual_time", "") for n in LISTED]
        cases, left_out = dg.select_cases(names, "^FP8Block/Dgrad/.*/manual_time$")
        self.assertEqual([c.name for c in cases], [DGRAD_UP, DGRAD_DOWN])
        self.assertEqual(left_out, {dg.LEFT_OUT_MODE: 1})

    def test_duplicates_once(self):
        cases, _ = dg.select_cases([FPROP_UP, FPROP_UP.replace("/manual_time", "")])
        self.assertEqual(len(cases), 1)


class Padding(unittest.TestCase):
    def test_each_expert_padded_to_128_rows(self):
        self.assertEqual(dg.padded_layout((130, 5, 256)), ((0, 256, 384), 640))
        ragged = case(FPROP_UP, tuple(int(r) for r in RAGGED.split(",")))
        self.assertEqual(ragged.padded_rows, 3 * 127 + 3)

    def test_balanced_presets_need_no_padding(self):
        for rows, groups in (((256,) * 128, 128), ((2048,) * 16, 16), ((1024,) * 32, 32)):
            name = f"FP8Block/Fprop/expert_up/prequant/G:{groups}/M:{sum(rows)}/K:2048/N:1536"
            self.assertEqual(case(name, rows).padded_rows, 0)

    def test_counters_carry_the_padding(self):
        run = timing.GroupRun([], True, 0.5, timing.TARGET_REACHED, 1.0, None)
        ragged = case(FPROP_UP, tuple(int(r) for r in RAGGED.split(",")))
        values = benchmark_json.counters(ragged, [1000.0] * 10, run)
        self.assertEqual((values["G"], values["padded_rows"]), (16, 384))
        # TFLOPS counts the routed rows only, as gemm_bench's.
        self.assertAlmostEqual(values["TFLOPS"], 2 * 32768 * 2048 * 1536 / 1e-3 / 1e12)


class Operands(unittest.TestCase):
    def test_fprop_multiplies_x_by_w_dgrad_dy_by_w_transposed(self):
        self.assertEqual(dg.operand_roles(case(FPROP_UP)), ("x", False))
        self.assertEqual(dg.operand_roles(case(DGRAD_UP)), ("dy", True))
        # DeepGEMM's rhs is [G, N, K]: W [G, out, in] in Fprop, Wᵀ [G, in, out] in Dgrad.
        fprop, dgrad = case(FPROP_UP), case(DGRAD_UP)
        self.assertEqual(fprop.role_shape("w"), (16, fprop.n, fprop.k))
        self.assertEqual(dgrad.role_shape("w"), (16, dgrad.k, dgrad.n))

    def test_refusals(self):
        self.assertIsNone(dg.refusal(case(FPROP_UP)))
        k = case("FP8Block/Fprop/expert_up/prequant/G:2/M:8/K:200/N:64", (3, 5))
        self.assertIn("K (200) a multiple of 128", dg.refusal(k))
        n = case("FP8Block/Dgrad/expert_up/prequant/G:2/M:8/K:256/N:100", (3, 5))
        self.assertIn("N (100) a multiple of 8", dg.refusal(n))


class Labels(unittest.TestCase):
    def test_the_kernel_heads_the_label_then_the_notes(self):
        run = timing.GroupRun([], False, 5.0, timing.TARGET_REACHED, 1.0, None)
        settings = timing.Settings(5, 0.5, 10, 1, 4, 8)
        text = benchmark_json.label([1.0] * 10, run, settings, "deep_gemm.f 128x160x128")
        self.assertEqual(text, "deep_gemm.f 128x160x128 [not settled after 5.0 s]")
        self.assertEqual(benchmark_json.label([1.0] * 10, run, settings),
                         "[not settled after 5.0 s]")

    def test_the_torch_peer_is_the_runner_default(self):
        self.assertEqual((runner.TORCH.name, runner.TORCH.executable), ("torch", "torch_peer.py"))


def run_script(*flags, cwd=None):
    """tools/deepgemm_peer.py as a user runs it, with torch and deep_gemm unimportable:
    (exit status, stdout, stderr)."""
    blocker = (
        "import runpy, sys\n"
        "class Blocked:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'deep_gemm', 'cuda'):\n"
        "            raise ImportError(name + ' is blocked in this test')\n"
        "sys.meta_path.insert(0, Blocked())\n"
        "sys.argv = sys.argv[1:]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", blocker, SCRIPT, *flags], cwd=cwd,
                          capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


class CommandLine(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)
        self.cases = self.write("cases.txt", "\n".join(LISTED + [
            "FP8Block/Dgrad/expert_down/prequant/G:16/M:32768/K:2000/N:768/manual_time"]) + "\n")

    def write(self, name, text):
        path = os.path.join(self.folder, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_dry_run_prints_rows_padding_operands_and_call(self):
        status, out, err = run_script(f"--cases={self.cases}", "--dry-run",
                                      f"--expert_rows={RAGGED}")
        self.assertEqual(status, 0, err)
        self.assertIn("group 1: FP8Block/Experts, 5 case(s)", out)
        self.assertIn("rows per expert (16 experts, 32768 rows): 2049 x3, 2045, 2048 x12", out)
        self.assertIn("padded to 128 rows an expert: 33152 rows (384 of padding)", out)
        self.assertIn("lhs: x E4M3 [33152, 2048] row-major (K-major), 1x128 scales FP32 "
                      "[33152, 16] column-major, TMA-aligned (strides (1, 33152))", out)
        self.assertIn("rhs: w E4M3 [16, 1536, 2048] ([G, N, K], K-major), 128x128 scales FP32 "
                      "[16, 12, 16] contiguous", out)
        self.assertIn("lhs: dy E4M3 [33152, 1536]", out)
        self.assertIn("rhs: wᵀ copy E4M3 [16, 2048, 1536] ([G, N, K], K-major), 128x128 scales "
                      "FP32 [16, 16, 12] contiguous", out)
        self.assertIn("m_indices: int32 [33152], each row's expert (0-15), -1 on padding rows",
                      out)
        self.assertIn("deep_gemm.m_grouped_gemm_fp8_fp8_bf16_nt_contiguous((lhs, lhs_scales), "
                      "(rhs, rhs_scales), out, m_indices) -> out [33152, 1536] BF16, "
                      "206.2 GFLOP", out)
        self.assertIn("refused: DeepGEMM's m-grouped contiguous kernel needs K (2000) a multiple "
                      "of 128", out)
        self.assertIn("5 cases in 1 group(s), 1 repetition(s) of each group, --launch=auto, "
                      "would write deepgemm.json", out)
        self.assertIn("2 FP8Block expert case(s) in autocast or step mode left out", err)
        self.assertIn("1 FP8Block Wgrad expert case(s) left out: Wgrad is K-grouped", err)
        self.assertIn("3 expert case(s) of other precisions left out", err)
        self.assertIn("1 dense case(s) left out", err)

    def test_wrong_precision_or_mode_alone_is_refused(self):
        status, _, err = run_script(f"--cases={self.cases}", "--dry-run",
                                    "--filter=^(BF16|FP8Current|MXFP8)/|/autocast/",
                                    f"--expert_rows={RAGGED}")
        self.assertEqual(status, 1)
        self.assertIn("3 expert case(s) of other precisions left out", err)
        self.assertIn("1 FP8Block expert case(s) in autocast or step mode left out", err)
        self.assertIn("deepgemm_peer: no FP8Block prequant Fprop or Dgrad expert case matched",
                      err)

    def test_cases_without_rows_per_expert_are_refused(self):
        status, _, err = run_script(f"--cases={self.cases}", "--dry-run")
        self.assertEqual(status, 1)
        self.assertIn("deepgemm_peer: 5 expert case(s) need gemm_bench's rows per expert", err)
        self.assertIn("--context_from=FILE", err)

    def test_rows_that_are_not_the_cases_are_refused(self):
        status, _, err = run_script(f"--cases={self.cases}", "--dry-run", "--expert_rows=7,9")
        self.assertEqual(status, 1)
        self.assertIn("(2 experts with rows, 16 rows) are not those of", err)

    def test_rows_from_a_gemm_bench_context(self):
        context = self.write("gemmscope.json", json.dumps({"context": {
            "model": "qwen3-30b-a3b", "expert_parallel": "8", "routing": "balanced",
            "expert_rows": ",".join(map(str, ROWS))}, "benchmarks": []}))
        status, out, err = run_script(f"--cases={self.cases}", "--dry-run",
                                      f"--context_from={context}")
        self.assertEqual(status, 0, err)
        self.assertIn("padded to 128 rows an expert: 32768 rows (0 of padding)", out)
        # A JSON with no rows is refused in the peer's name.
        no_rows = self.write("dense.json", json.dumps({"context": {"model": "llama3-8b"}}))
        status, _, err = run_script(f"--cases={self.cases}", "--dry-run",
                                    f"--context_from={no_rows}")
        self.assertEqual(status, 1)
        self.assertIn(f"deepgemm_peer: --context_from={no_rows}: its context has no expert_rows",
                      err)

    def test_a_context_of_another_workload_is_refused(self):
        context = self.write("gemmscope.json", json.dumps({"context": {
            "model": "qwen3-30b-a3b", "expert_parallel": "1", "expert_rows": "7,9"}}))
        status, _, err = run_script(f"--gemm_bench={os.path.join(self.folder, 'none')}",
                                    f"--context_from={context}", "--dry-run", "--",
                                    "--model=qwen3-30b-a3b", "--expert_parallel=8")
        self.assertEqual(status, 1)
        self.assertIn("deepgemm_peer: --context_from=", err)
        self.assertIn("is another workload: --expert_parallel=8 but the run had "
                      "expert_parallel 1", err)

    def test_help_names_the_launch_modes(self):
        status, out, _ = run_script("--help")
        self.assertEqual(status, 0)
        self.assertIn("--launch {auto,direct,graph}", out)
        self.assertIn("--compare DEEPGEMM_JSON GEMM_BENCH_JSON", out)


def entry(name, time_us, tflops, label="", **extra):
    return {"name": name, "run_name": name, "run_type": "iteration", "real_time": time_us,
            "TFLOPS": tflops, "label": label, **extra}


class Compare(unittest.TestCase):
    def test_cases_side_by_side(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        peer = os.path.join(folder, "deepgemm.json")
        ours = os.path.join(folder, "gemmscope.json")
        with open(peer, "w") as f:
            json.dump({"benchmarks": [
                entry(FPROP_UP, 200.0, 1030.9,
                      "deep_gemm.m_grouped_gemm_fp8_fp8_bf16_nt_contiguous fp8_gemm_kernel "
                      "128x160x128 [launch: direct]"),
                {"name": DGRAD_UP, "run_name": DGRAD_UP, "run_type": "iteration",
                 "error_occurred": True, "error_message": "DeepGEMM refused the call",
                 "real_time": 0},
                entry(FPROP_DOWN, 100.0, 1031.0)]}, f)
        with open(ours, "w") as f:
            json.dump({"benchmarks": [
                entry(FPROP_UP, 220.0, 937.2, "cutlass grouped 1x128x128x128 [kept at 220 us]"),
                entry(DGRAD_UP, 230.0, 896.4, "cutlass grouped")]}, f)
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            dg.main(["--compare", peer, ours])
        table = stdout.getvalue().splitlines()
        self.assertEqual(table[0], "| case | gemm_bench TFLOP/s | DeepGEMM TFLOP/s | "
                                   "gemm_bench / DeepGEMM | gemm_bench ran | DeepGEMM ran |")
        self.assertEqual(table[2], "| FP8Block/Fprop/expert_up/prequant/G:16/M:32768/K:2048/"
                                   "N:1536 | 937 | 1031 | 0.909x | cutlass grouped 1x128x128x128 "
                                   "| deep_gemm.m_grouped_gemm_fp8_fp8_bf16_nt_contiguous "
                                   "fp8_gemm_kernel 128x160x128 |")
        self.assertIn("DeepGEMM: DeepGEMM refused the call", table[3])
        self.assertEqual(len(table), 4)  # FPROP_DOWN is not in gemm_bench's file


@unittest.skipUnless(shutil.which("bash"), "needs bash")
class Stage(unittest.TestCase):
    """stage_peer_deepgemm with gpu_check.sh's helpers stubbed: the commands it would run."""

    def stage(self, with_release=True, **env):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        if with_release:
            os.makedirs(os.path.join(folder, "rel", "deep_gemm", "include", "deep_gemm"))
            open(os.path.join(folder, "rel", "deep_gemm", "__init__.py"), "w").close()
        for name in ("cute", "cutlass"):
            os.makedirs(os.path.join(folder, "cut", "include", name))
        os.makedirs(os.path.join(folder, "out"))
        script = (
            "out=out bench=build/bench/gemm_bench status=0\n"
            "default_moe_models='qwen3-30b-a3b;qwen3-30b-a3b --expert_parallel=8;deepseek-v3'\n"
            "run() { local name=$1; shift; printf '%s:' \"$name\" >>calls.txt; "
            "printf ' [%s]' \"$@\" >>calls.txt; echo >>calls.txt; }\n"
            "workloads() { local list; IFS=';' read -r -a list <<<\"$1\"; "
            "printf '%s\\n' \"${list[@]}\"; }\n"
            "moe_tag() { sed -e 's/ --expert_parallel=/_ep/' -e 's/[^A-Za-z0-9_.-]/_/g' "
            "<<<\"$1\"; }\n"
            f"source '{STAGE}'\n"
            "stage_peer_deepgemm\n"
            "echo \"status=$status\"\n")
        environment = {**os.environ, "DEEPGEMM_JIT_DIR": "rel", "CUTLASS_DIR": "cut",
                       "DEEPGEMM_JIT_COPY": os.path.join(folder, "copy"), "PATH": "/usr/bin:/bin",
                       **env}
        environment.pop("PYTHONPATH", None)
        done = subprocess.run(["bash", "-c", script], cwd=folder, env=environment,
                              capture_output=True, text=True, check=False)
        calls_path = os.path.join(folder, "calls.txt")
        calls = []
        if os.path.exists(calls_path):
            with open(calls_path) as f:
                # Where this machine has nvcc on PATH, the stage passes it to DeepGEMM; where it
                # has the GPU machine's torch environment, the stage runs its Python.
                calls = [re.sub(r" \[DG_JIT_NVCC_COMPILER=[^]]*\]", "", line)
                         .replace("[/opt/torch/.venv/bin/python]", "[python3]")
                         for line in f.read().splitlines()]
        return done.stdout, calls, folder

    def test_gemm_bench_then_the_peer_twice_then_gemm_bench_per_workload(self):
        out, calls, folder = self.stage(MOE_MODELS="qwen3-30b-a3b --expert_parallel=8;deepseek-v3")
        self.assertIn("status=0", out)
        self.assertEqual([c.split(":")[0] for c in calls], [
            f"peer_deepgemm_{tag}_{name}" for tag in ("qwen3-30b-a3b_ep8", "deepseek-v3")
            for name in ("gemmscope_1", "deepgemm_1", "deepgemm_2", "gemmscope_2")])
        filter_ = "^FP8Block/(Fprop|Dgrad)/expert_[a-z]+/prequant/G:"
        self.assertEqual(calls[0], (
            "peer_deepgemm_qwen3-30b-a3b_ep8_gemmscope_1: [build/bench/gemm_bench] "
            "[--model=qwen3-30b-a3b] [--expert_parallel=8] [--grouped=auto] "
            f"[--benchmark_filter={filter_}] [--list_kernels] "
            "[--benchmark_out=out/peer_deepgemm_qwen3-30b-a3b_ep8_gemmscope_1.json] "
            "[--benchmark_out_format=json]"))
        copy = os.path.join(folder, "copy")
        self.assertEqual(calls[1], (
            f"peer_deepgemm_qwen3-30b-a3b_ep8_deepgemm_1: [env] [PYTHONPATH={copy}] "
            "[DG_JIT_CACHE_DIR=/tmp/dg-cache] [python3] [tools/deepgemm_peer.py] "
            "[--gemm_bench=build/bench/gemm_bench] "
            "[--context_from=out/peer_deepgemm_qwen3-30b-a3b_ep8_gemmscope_1.json] "
            f"[--filter={filter_}] [--list_kernels] "
            "[--out=out/peer_deepgemm_qwen3-30b-a3b_ep8_deepgemm_1.json] [--] "
            "[--model=qwen3-30b-a3b] [--expert_parallel=8]"))
        # DeepGEMM's include folder holds CUTLASS's headers in the copy.
        for name in ("deep_gemm", "cute", "cutlass"):
            self.assertTrue(os.path.isdir(os.path.join(copy, "deep_gemm", "include", name)))

    def test_fewer_runs_and_the_default_workloads(self):
        _, calls, _ = self.stage(PEER_DEEPGEMM_RUNS="gemmscope_1 deepgemm_1")
        self.assertEqual([c.split(":")[0] for c in calls], [
            f"peer_deepgemm_{tag}_{name}"
            for tag in ("qwen3-30b-a3b", "qwen3-30b-a3b_ep8", "deepseek-v3")
            for name in ("gemmscope_1", "deepgemm_1")])

    def test_without_the_release_the_stage_fails_and_says_why(self):
        out, calls, _ = self.stage(with_release=False)
        self.assertEqual(calls, [])
        self.assertIn("needs DeepGEMM's JIT release in rel", out)
        self.assertIn("status=1", out)


if __name__ == "__main__":
    unittest.main()
