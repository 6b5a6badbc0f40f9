#!/usr/bin/env python3
"""tools/torch_peer.py (the package tools/peers/) without torch or a GPU: which gemm_bench names
it takes, the rows per expert of grouped cases, each pass's operands and call, what it refuses,
and --dry-run's output. The timing itself runs on the GPU machine (tools/gpu_check.sh peer,
peer_moe)."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from peers import benchmark_json, cli, timing, torch_gemm  # noqa: E402
from peers import cases as case_names  # noqa: E402

# Names as gemm_bench --benchmark_list_tests prints them (qwen3-30b-a3b --expert_parallel=8).
FPROP_UP = "BF16/Fprop/expert_up/native/G:16/M:32768/K:2048/N:1536/manual_time"
DGRAD_DOWN = "BF16/Dgrad/expert_down/native/G:16/M:32768/K:2048/N:768/manual_time"
WGRAD_UP = "BF16/Wgrad/expert_up/native/G:16/M:2048/K:32768/N:1536/manual_time"
LISTED = [
    "BF16/Fprop/qkv/native/M:4096/K:2048/N:5120/manual_time",
    FPROP_UP,
    DGRAD_DOWN,
    WGRAD_UP,
    "FP8Current/Fprop/qkv/prequant/M:4096/K:2048/N:5120/manual_time",
    "FP8Current/Fprop/qkv/autocast/M:4096/K:2048/N:5120/manual_time",
    "FP8Current/Fprop/expert_up/prequant/G:16/M:32768/K:2048/N:1536/manual_time",
    "FP8Block/Fprop/qkv/prequant/M:4096/K:2048/N:5120/manual_time",
    "FP8Block/Wgrad/expert_up/prequant/G:16/M:2048/K:32768/N:1536/manual_time",
    "MXFP8/Fprop/qkv/prequant/M:4096/K:2048/N:5120/manual_time",
    "BF16/Quantize/x/rowwise/G:16/R:32768/C:2048",
]
ROWS = (2048,) * 16


def case(name, rows=ROWS):
    parsed = case_names.parse_case(name)
    return case_names.attach_group_rows([parsed], rows)[0]


class CaseNames(unittest.TestCase):
    def test_keeps_bf16_native_and_fp8_prequant_dense_and_bf16_grouped(self):
        names = [c.name for c in case_names.select_cases(LISTED)]
        self.assertEqual(names, [LISTED[0], FPROP_UP, DGRAD_DOWN, WGRAD_UP, LISTED[4], LISTED[7]])

    def test_grouped_name_parses_groups_and_sizes(self):
        parsed = case_names.parse_case(FPROP_UP.replace("/manual_time", ""))
        self.assertEqual(parsed.name, FPROP_UP)
        self.assertEqual((parsed.precision, parsed.gemm_pass, parsed.groups), ("BF16", "Fprop", 16))
        self.assertEqual((parsed.m, parsed.k, parsed.n), (32768, 2048, 1536))
        self.assertTrue(parsed.grouped)
        self.assertEqual(parsed.group_key, "BF16/Experts")

    def test_grouped_fp8_cases_are_left_out_and_counted(self):
        self.assertIsNone(case_names.parse_case(LISTED[6]))
        self.assertIsNone(case_names.parse_case(LISTED[8]))
        self.assertEqual(case_names.left_out_grouped_fp8(LISTED), 2)
        self.assertEqual(case_names.left_out_grouped_fp8(LISTED, "^FP8Block"), 1)
        self.assertEqual(case_names.left_out_grouped_fp8(LISTED, "^BF16"), 0)

    def test_routed_rows_and_shapes_of_each_pass(self):
        fprop, dgrad, wgrad = (case_names.parse_case(n) for n in (FPROP_UP, DGRAD_DOWN, WGRAD_UP))
        self.assertEqual([c.routed_rows for c in (fprop, dgrad, wgrad)], [32768] * 3)
        self.assertEqual(fprop.role_shape("x"), (32768, 2048))
        self.assertEqual(fprop.role_shape("w"), (16, 1536, 2048))  # [G, out, in]
        self.assertEqual(dgrad.role_shape("dy"), (32768, 2048))  # Dgrad: K = out
        self.assertEqual(dgrad.role_shape("w"), (16, 2048, 768))
        self.assertEqual(wgrad.role_shape("x"), (32768, 2048))  # Wgrad: M = in, K = rows
        self.assertEqual(wgrad.role_shape("dy"), (32768, 1536))

    def test_groups_split_dense_from_grouped_cases_of_a_precision(self):
        cases = case_names.attach_group_rows(case_names.select_cases(LISTED), ROWS)
        keys = [members[0][1].group_key for members in case_names.group_cases(cases)]
        self.assertEqual(keys, ["BF16", "BF16/Experts", "FP8Current", "FP8Block"])


class ExpertRows(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(case_names.parse_expert_rows("3,0,5"), (3, 0, 5))
        for bad in ("3,x", "0,0", "-1,4", ""):
            with self.assertRaises(ValueError):
                case_names.parse_expert_rows(bad)

    def test_experts_without_rows_are_left_out(self):
        name = "BF16/Fprop/expert_up/native/G:2/M:8/K:64/N:32/manual_time"
        attached = case_names.attach_group_rows([case_names.parse_case(name)], (0, 3, 0, 5))
        self.assertEqual(attached[0].group_rows, (3, 5))

    def test_rows_that_do_not_give_g_and_m_are_refused(self):
        cases = case_names.select_cases([FPROP_UP])
        with self.assertRaisesRegex(ValueError, "G=16, 32768 rows"):
            case_names.attach_group_rows(cases, (2048,) * 15)
        with self.assertRaisesRegex(ValueError, "G=16, 32768 rows"):
            case_names.attach_group_rows(cases, (2048,) * 15 + (2047,))

    def test_grouped_cases_need_rows_dense_ones_do_not(self):
        with self.assertRaisesRegex(ValueError, "--context_from"):
            case_names.attach_group_rows(case_names.select_cases([FPROP_UP]), None)
        dense = case_names.select_cases([LISTED[0]])
        self.assertEqual(case_names.attach_group_rows(dense, None), dense)

    def test_rows_text_folds_runs(self):
        self.assertEqual(case_names.rows_text((5, 5, 5, 4, 7, 7)), "5 x3, 4, 7 x2")

    def write_context(self, context):
        handle = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        with handle:
            json.dump({"context": context, "benchmarks": []}, handle)
        self.addCleanup(os.remove, handle.name)
        return handle.name

    def test_rows_from_a_gemm_bench_context(self):
        path = self.write_context({"model": "qwen3-30b-a3b", "expert_parallel": "8",
                                   "routing": "skewed:1", "expert_rows": "7,0,9"})
        flags = ["--model=qwen3-30b-a3b", "--expert_parallel=8", "--routing=skewed"]
        self.assertEqual(case_names.expert_rows_from_context(path, flags), (7, 0, 9))
        self.assertEqual(case_names.expert_rows_from_context(path, []), (7, 0, 9))

    def test_a_context_of_another_workload_is_refused(self):
        path = self.write_context({"model": "qwen3-30b-a3b", "expert_parallel": "1",
                                   "routing": "skewed:1.5", "expert_rows": "7,9"})
        for flags in (["--model=qwen3-30b-a3b"], ["--model=deepseek-v3", "--routing=skewed:1.5"],
                      ["--expert_parallel=8", "--routing=skewed:1.5"]):
            with self.assertRaises(SystemExit):
                case_names.expert_rows_from_context(path, flags)

    def test_a_context_without_rows_is_refused(self):
        path = self.write_context({"model": "llama3-8b"})
        with self.assertRaisesRegex(SystemExit, "no expert_rows"):
            case_names.expert_rows_from_context(path, [])


class Plans(unittest.TestCase):
    def test_grouped_bf16_passes(self):
        expected = {  # a's view, b's view, output, as torch._grouped_mm takes them
            FPROP_UP: ((32768, 2048), (16, 2048, 1536), (32768, 1536)),
            DGRAD_DOWN: ((32768, 2048), (16, 2048, 768), (32768, 768)),
            WGRAD_UP: ((1536, 32768), (32768, 2048), (16, 1536, 2048)),  # dW [G, out, in]
        }
        for name, (a, b, out) in expected.items():
            c = case(name)
            plan = torch_gemm.plan_for(c)
            self.assertEqual(plan.kind, torch_gemm.GROUPED_MM)
            self.assertEqual((plan.a.view_shape(c), plan.b.view_shape(c), plan.out_shape(c)),
                             (a, b, out), name)
            self.assertIsNone(torch_gemm.refusal(c, plan))
            self.assertEqual(plan.call(), "torch._grouped_mm(a, b, offs=offs)")

    def test_fp8_block_scale_layouts_are_cublaslt_layouts(self):
        c = case("FP8Block/Fprop/attn_out/prequant/M:4096/K:640/N:2048/manual_time")
        plan = torch_gemm.plan_for(c)
        self.assertEqual(plan.kind, torch_gemm.BLOCK_SCALED_MM)
        self.assertFalse(plan.fast_accum)
        # x 1x128: [rows, ceil(K/128)], rows fastest; w 128x128: [roundup(ceil(K/128), 4),
        # ceil(out/128)], padded block columns fastest.
        self.assertEqual(plan.a.scale_layout(c), ((4096, 5), (1, 4096)))
        self.assertEqual(plan.b.scale_layout(c), ((8, 16), (1, 8)))
        self.assertIn("ScalingType.BlockWise1x128, scale_b, ScalingType.BlockWise128x128",
                      plan.call())
        wgrad = case("FP8Block/Wgrad/attn_out/prequant/M:640/K:4096/N:2048/manual_time")
        plan = torch_gemm.plan_for(wgrad)
        self.assertEqual((plan.a.scaling, plan.b.scaling), ("1x128", "1x128"))
        self.assertEqual((plan.a.fmt, plan.b.fmt), ("e4m3", "e4m3"))  # E4M3 gradients
        self.assertEqual(plan.out_shape(wgrad), (2048, 640))

    def test_fp8_rowwise_scales_one_per_row_of_each_stored_copy(self):
        # torchao's rowwise: every operand E4M3, scale_a [M, 1] and scale_b [1, N]; Fprop alone
        # accumulates fast; Dgrad and Wgrad read the transposed copies, scaled per their rows.
        fprop = case("FP8Rowwise/Fprop/qkv/prequant/M:4096/K:2048/N:5120/manual_time")
        plan = torch_gemm.plan_for(fprop)
        self.assertEqual(plan.kind, torch_gemm.SCALED_MM)
        self.assertTrue(plan.fast_accum)
        self.assertEqual((plan.a.scaling, plan.b.scaling), ("row", "row"))
        self.assertEqual((plan.a.fmt, plan.b.fmt), ("e4m3", "e4m3"))
        self.assertIsNone(torch_gemm.refusal(fprop, plan))
        wgrad = case("FP8Rowwise/Wgrad/qkv/prequant/M:2048/K:4096/N:5120/manual_time")
        plan = torch_gemm.plan_for(wgrad)
        self.assertFalse(plan.fast_accum)
        self.assertEqual((plan.a.role, plan.a.transposed_copy), ("dy", True))
        self.assertEqual((plan.b.role, plan.b.transposed_copy), ("x", True))
        self.assertEqual(plan.out_shape(wgrad), (5120, 2048))
        odd = case("FP8Rowwise/Fprop/qkv/prequant/M:4096/K:2056/N:5120/manual_time")
        self.assertIn("multiples of 16", torch_gemm.refusal(odd, torch_gemm.plan_for(odd)))

    def test_refusals(self):
        many = case("BF16/Fprop/expert_up/native/G:1024/M:1024/K:64/N:32/manual_time",
                    (1,) * 1024)
        self.assertIn("1023 groups", torch_gemm.refusal(many, torch_gemm.plan_for(many)))
        odd = case("BF16/Wgrad/expert_up/native/G:2/M:60/K:10/N:32/manual_time", (4, 6))
        self.assertIn("16-byte aligned", torch_gemm.refusal(odd, torch_gemm.plan_for(odd)))
        rows = case("FP8Block/Fprop/qkv/prequant/M:4094/K:2048/N:512/manual_time")
        self.assertIn("VEC128_32F", torch_gemm.refusal(rows, torch_gemm.plan_for(rows)))
        k = case("FP8Block/Fprop/qkv/prequant/M:4096/K:2040/N:512/manual_time")
        self.assertIn("multiples of 16", torch_gemm.refusal(k, torch_gemm.plan_for(k)))


class Counters(unittest.TestCase):
    def test_grouped_cases_carry_gemm_bench_counters(self):
        run = timing.GroupRun([], True, 0.5, timing.TARGET_REACHED, 1.0, None)
        values = benchmark_json.counters(case(FPROP_UP), [1000.0] * 10, run)
        self.assertEqual((values["G"], values["padded_rows"]), (16, 0))
        self.assertAlmostEqual(values["TFLOPS"], 2 * 32768 * 2048 * 1536 / 1e-3 / 1e12)
        dense = benchmark_json.counters(case(LISTED[0]), [1000.0] * 10, run)
        self.assertNotIn("G", dense)


class DryRun(unittest.TestCase):
    def dry_run(self, *flags):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
            handle.write("\n".join(LISTED) + "\n")
        self.addCleanup(os.remove, handle.name)
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            cli.main([f"--cases={handle.name}", "--dry-run", *flags])
        return stdout.getvalue(), stderr.getvalue()

    def test_grouped_cases_print_rows_and_call(self):
        out, err = self.dry_run("--expert_rows=" + ",".join(["2048"] * 16 + ["0"]))
        self.assertIn("group 2: BF16/Experts, 3 case(s)", out)
        self.assertIn("rows per expert (16 experts, 32768 rows): 2048 x16", out)
        self.assertIn("b: w BF16 [16, 2048, 1536] column-major per expert", out)
        self.assertIn("torch._grouped_mm(a, b, offs=offs) -> [16, 1536, 2048] BF16", out)
        self.assertIn("torch.nn.functional.scaled_mm(a, b, scale_a, ScalingType.BlockWise1x128",
                      out)
        self.assertIn("6 cases in 4 group(s)", out)
        self.assertIn("2 grouped FP8 case(s) left out", err)

    def test_grouped_cases_without_rows_are_left_out_with_a_note(self):
        out, err = self.dry_run()
        self.assertIn("3 grouped case(s) left out: they need gemm_bench's rows per expert", err)
        self.assertIn("3 cases in 3 group(s)", out)
        self.assertNotIn("expert_", out)
        with self.assertRaisesRegex(SystemExit, "no BF16 native"):
            self.dry_run("--filter=expert_")

    def test_rows_that_are_not_the_cases_stop_the_run(self):
        with self.assertRaisesRegex(SystemExit, "are not those of"):
            self.dry_run("--expert_rows=2048,2048")


if __name__ == "__main__":
    unittest.main()
