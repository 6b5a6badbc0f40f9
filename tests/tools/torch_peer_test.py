#!/usr/bin/env python3
"""tools/torch_peer.py (the package tools/peers/) without torch or a GPU: which gemm_bench names
it takes, the rows per expert of grouped cases (and their padding), each pass's operands, scales
and call, what it refuses, and --dry-run's output; where numpy is there, the operands made and
multiplied through fake_torch.py, a numpy stand-in whose GEMM calls check and read their
arguments as PyTorch's do. The timing itself runs on the GPU machine (tools/gpu_check.sh peer,
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

try:
    import numpy as np

    import fake_torch
except ImportError:  # the tests that multiply skip
    np = fake_torch = None

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
# The dry-run fixture's ragged rows: 2049 x3 and 2045 pad to 2064 x3 and 2048 (48 rows of
# padding at 16 rows an expert), two experts get none.
RAGGED = (2049, 0, 2049, 2049, 2045) + (2048,) * 12 + (0,)
# FP8Rowwise's expert cases on the same model (expert_up: in 2048, out 1536; expert_down: in 768,
# out 2048).
ROWWISE_FPROP_UP = "FP8Rowwise/Fprop/expert_up/prequant/G:16/M:32768/K:2048/N:1536/manual_time"
ROWWISE_DGRAD_DOWN = "FP8Rowwise/Dgrad/expert_down/prequant/G:16/M:32768/K:2048/N:768/manual_time"
ROWWISE_WGRAD_UP = "FP8Rowwise/Wgrad/expert_up/prequant/G:16/M:2048/K:32768/N:1536/manual_time"


def case(name, rows=ROWS):
    """A case as the torch peer's command makes it: rows per expert attached, then padded."""
    parsed = case_names.parse_case(name)
    return torch_gemm.with_expert_padding(case_names.attach_group_rows([parsed], rows)[0])


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

    def test_fp8_rowwise_prequant_cases_are_taken_grouped_too(self):
        variant = ROWWISE_DGRAD_DOWN.replace("FP8Rowwise/", "FP8RowwiseBF16Wgrad/")
        listed = [ROWWISE_FPROP_UP, variant,
                  "FP8RowwiseBF16Wgrad/Wgrad/qkv/prequant/M:2048/K:4096/N:5120/manual_time",
                  ROWWISE_FPROP_UP.replace("/prequant/", "/autocast/"),
                  "FP8RowwiseBF16Wgrad/Fprop/qkv/step/M:4096/K:2048/N:5120/manual_time"]
        self.assertEqual([c.name for c in case_names.select_cases(listed)], listed[:3])
        self.assertEqual(case_names.parse_case(variant).group_key, "FP8RowwiseBF16Wgrad/Experts")
        # Neither is counted with the grouped FP8 cases torch has no kernel for.
        self.assertEqual(case_names.left_out_grouped_fp8(listed), 0)

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


class RowwisePlans(unittest.TestCase):
    def test_fp8_experts_are_padded_to_16_rows_bf16_ones_not(self):
        self.assertEqual(torch_gemm.expert_layout((5, 17, 32), 16), ((0, 16, 48), 80))
        self.assertEqual(torch_gemm.expert_layout((5, 17, 32), 1), ((0, 5, 22), 54))
        self.assertEqual(case(ROWWISE_FPROP_UP, RAGGED).padded_rows, 48)
        self.assertEqual(case(ROWWISE_FPROP_UP, ROWS).padded_rows, 0)
        self.assertEqual(case(FPROP_UP, RAGGED).padded_rows, 0)
        self.assertEqual(case(LISTED[0]).padded_rows, 0)  # dense
        wgrad = case(ROWWISE_WGRAD_UP, RAGGED)
        self.assertEqual(wgrad.role_shape("x"), (32768, 2048))  # as gemm_bench names it
        self.assertEqual(torch_gemm.stored_role_shape(wgrad, "x"), (32816, 2048))
        self.assertEqual(torch_gemm.stored_role_shape(wgrad, "w"), (16, 1536, 2048))
        self.assertEqual(torch_gemm.expert_spans(wgrad)[:5],
                         [(0, 2064), (2064, 4128), (4128, 6192), (6192, 8240), (8240, 10288)])

    def test_grouped_fp8_rowwise_passes(self):
        # a's view, its scales, b's view, its scales, output, fast accumulation: as
        # torch._scaled_grouped_mm takes them (a row-major, b column-major, scales [R'], [G, N]
        # in 2D by 3D, [G·M] and [G·N] in 2D by 2D) over the 32816 padded rows.
        expected = {
            ROWWISE_FPROP_UP: ((32816, 2048), (32816,), (16, 2048, 1536), (16, 1536),
                               (32816, 1536), True),
            ROWWISE_DGRAD_DOWN: ((32816, 2048), (32816,), (16, 2048, 768), (16, 768),
                                 (32816, 768), False),
            ROWWISE_WGRAD_UP: ((1536, 32816), (16 * 1536,), (32816, 2048), (16 * 2048,),
                               (16, 1536, 2048), False),
        }
        for name, (a, scale_a, b, scale_b, out, fast) in expected.items():
            with self.subTest(name=name):
                c = case(name, RAGGED)
                plan = torch_gemm.plan_for(c)
                self.assertEqual(plan.kind, torch_gemm.SCALED_GROUPED_MM)
                self.assertEqual((plan.a.fmt, plan.b.fmt), ("e4m3", "e4m3"))
                self.assertEqual((plan.a.view_shape(c), plan.a.row_scale_shape(c),
                                  plan.b.view_shape(c), plan.b.row_scale_shape(c),
                                  plan.out_shape(c), plan.fast_accum),
                                 (a, scale_a, b, scale_b, out, fast))
                self.assertFalse(plan.a.read_transposed)
                self.assertTrue(plan.b.read_transposed)
                self.assertIsNone(torch_gemm.refusal(c, plan))
                self.assertIn("torch._scaled_grouped_mm(a, b, scale_a, scale_b, offs=offs",
                              plan.call())
        # Dgrad reads W's copy Wᵀ [G, in, out], scaled per input column; Wgrad X's and dY's
        # copies, scaled per feature over each expert's tokens apart.
        dgrad = torch_gemm.plan_for(case(ROWWISE_DGRAD_DOWN, RAGGED))
        self.assertEqual((dgrad.b.role, dgrad.b.transposed_copy), ("w", True))
        wgrad_case = case(ROWWISE_WGRAD_UP, RAGGED)
        wgrad = torch_gemm.plan_for(wgrad_case)
        self.assertTrue(wgrad.a.scaled_per_expert_cols(wgrad_case))
        self.assertTrue(wgrad.b.scaled_per_expert_cols(wgrad_case))
        self.assertFalse(dgrad.a.scaled_per_expert_cols(case(ROWWISE_DGRAD_DOWN, RAGGED)))

    def test_grouped_fp8_rowwise_refusals(self):
        odd = case("FP8Rowwise/Fprop/expert_down/prequant/G:2/M:8/K:2040/N:2048", (3, 5))
        self.assertIn("in (2040) and out (2048) multiples of 16",
                      torch_gemm.refusal(odd, torch_gemm.plan_for(odd)))
        many = case("FP8Rowwise/Fprop/expert_up/prequant/G:1024/M:1024/K:64/N:32", (1,) * 1024)
        self.assertIn("torch._scaled_grouped_mm runs at most 1023 groups",
                      torch_gemm.refusal(many, torch_gemm.plan_for(many)))
        # Ragged rows are padded, never refused: the K-grouped Wgrad's K is the padded rows.
        ragged = case("FP8Rowwise/Wgrad/expert_up/prequant/G:2/M:64/K:8/N:32", (3, 5))
        self.assertIsNone(torch_gemm.refusal(ragged, torch_gemm.plan_for(ragged)))

    def test_fp8_rowwise_bf16_wgrad_plans(self):
        fprop = case("FP8RowwiseBF16Wgrad/Fprop/qkv/prequant/M:4096/K:2048/N:5120/manual_time")
        self.assertEqual(torch_gemm.plan_for(fprop), torch_gemm.plan_for(
            case("FP8Rowwise/Fprop/qkv/prequant/M:4096/K:2048/N:5120/manual_time")))
        # Dgrad: dY per token, W's copy with one scale for the tensor, repeated over [1, N].
        dgrad = case("FP8RowwiseBF16Wgrad/Dgrad/qkv/prequant/M:4096/K:5120/N:2048/manual_time")
        plan = torch_gemm.plan_for(dgrad)
        self.assertEqual((plan.kind, plan.fast_accum), (torch_gemm.SCALED_MM, False))
        self.assertEqual((plan.a.scaling, plan.b.scaling), ("row", "tensor_rows"))
        self.assertEqual((plan.a.row_scale_shape(dgrad), plan.b.row_scale_shape(dgrad)),
                         ((4096, 1), (1, 2048)))
        self.assertTrue(plan.row_scaled)
        self.assertIn("one for the tensor, repeated per row", plan.b.describe(dgrad))
        # Wgrad: BF16's GEMM, dense and grouped; the grouped one on the padded rows.
        wgrad = case("FP8RowwiseBF16Wgrad/Wgrad/qkv/prequant/M:2048/K:4096/N:5120/manual_time")
        self.assertEqual(torch_gemm.plan_for(wgrad), torch_gemm.bf16_plan(wgrad))
        self.assertEqual(torch_gemm.plan_for(wgrad).call(), "torch.matmul(a, b)")
        grouped = case(ROWWISE_WGRAD_UP.replace("FP8Rowwise/", "FP8RowwiseBF16Wgrad/"), RAGGED)
        plan = torch_gemm.plan_for(grouped)
        self.assertEqual((plan.kind, plan.a.fmt), (torch_gemm.GROUPED_MM, "bf16"))
        self.assertEqual((plan.a.view_shape(grouped), plan.b.view_shape(grouped)),
                         ((1536, 32816), (32816, 2048)))
        grouped_dgrad = case(ROWWISE_DGRAD_DOWN.replace("FP8Rowwise/", "FP8RowwiseBF16Wgrad/"),
                             RAGGED)
        plan = torch_gemm.plan_for(grouped_dgrad)
        self.assertEqual((plan.kind, plan.b.scaling, plan.b.row_scale_shape(grouped_dgrad)),
                         (torch_gemm.SCALED_GROUPED_MM, "tensor_rows", (16, 768)))


def torchao_scale(amax):
    """torchao's round_scales_to_power_of_2 scale (float8_utils.py): 448 / max(amax, 1e-12) in
    float64, to float32, rounded down to a power of 2."""
    scale = np.float32(448.0 / np.maximum(np.float64(amax), 1e-12))
    return np.exp2(np.floor(np.log2(scale)))


@unittest.skipIf(fake_torch is None, "numpy is not installed")
class WithFakeTorch(unittest.TestCase):
    """The peer's own operand code on fake_torch: the calls refuse what PyTorch's refuse and
    read each expert's rows and scales where PyTorch's kernels read them."""
    ROWS = (5, 0, 17, 32)  # three experts with rows, padded to 16, 32, 32 in FP8 recipes
    NAMES = [f"{precision}/{name}" for precision in ("BF16", "FP8Rowwise", "FP8RowwiseBF16Wgrad")
             for name in ("Fprop/expert_up/prequant/G:3/M:54/K:32/N:48",
                          "Dgrad/expert_up/prequant/G:3/M:54/K:48/N:32",
                          "Wgrad/expert_up/prequant/G:3/M:32/K:54/N:48",
                          "Fprop/qkv/prequant/M:40/K:32/N:48",
                          "Dgrad/qkv/prequant/M:40/K:48/N:32",
                          "Wgrad/qkv/prequant/M:32/K:48/N:48")]

    def case(self, name):
        if name.startswith("BF16/"):  # BF16 is registered once, as native
            name = name.replace("/prequant/", "/native/")
        return case(name, self.ROWS)

    def sources(self, c):
        """The case's BF16 tensors as build_gemm draws them, unpadded, as numpy arrays."""
        return {role: fake_torch.randn(*c.role_shape(role), dtype=fake_torch.bfloat16,
                                       generator=fake_torch.Generator().manual_seed(seed)).array
                for role, seed in torch_gemm.SEEDS.items()}

    def expected(self, c):
        """The pass's product of the unquantized tensors, computed here from scratch: the fake's
        FP8 keeps values unrounded and the scales are powers of 2, so a right plan gives it."""
        t = self.sources(c)
        if not c.grouped:
            return {"Fprop": lambda: t["x"] @ t["w"].T, "Dgrad": lambda: t["dy"] @ t["w"],
                    "Wgrad": lambda: t["dy"].T @ t["x"]}[c.gemm_pass]()
        bounds = np.cumsum((0,) + c.group_rows)
        experts = [slice(bounds[e], bounds[e + 1]) for e in range(c.groups)]
        if c.gemm_pass == "Wgrad":
            return np.stack([t["dy"][rows].T @ t["x"][rows] for rows in experts])
        if c.gemm_pass == "Fprop":
            return np.concatenate([t["x"][rows] @ t["w"][e].T for e, rows in enumerate(experts)])
        return np.concatenate([t["dy"][rows] @ t["w"][e] for e, rows in enumerate(experts)])

    def test_every_plan_runs_and_gives_the_product_of_the_routed_rows(self):
        for name in self.NAMES:
            with self.subTest(name=name):
                c = self.case(name)
                plan = torch_gemm.plan_for(c)
                out = torch_gemm.build_gemm(fake_torch, c, plan, device="cpu")()
                self.assertEqual(tuple(out.shape), plan.out_shape(c))
                got = out
                if c.grouped and not plan.k_grouped(c):
                    got = torch_gemm.routed_rows(fake_torch, out, c,
                                                 torch_gemm.case_layout(c)[0])
                np.testing.assert_allclose(got.array, self.expected(c), rtol=1e-4, atol=1e-3)

    def test_padding_places_each_experts_rows_at_its_start(self):
        c = self.case("FP8Rowwise/Fprop/expert_up/prequant/G:3/M:54/K:32/N:48")
        source = fake_torch.tensor(np.arange(54, dtype=np.float32).reshape(54, 1),
                                   dtype=fake_torch.bfloat16)
        starts, total = torch_gemm.case_layout(c)
        padded = torch_gemm.pad_experts(fake_torch, source, c.group_rows, starts, total)
        column = padded.array[:, 0]
        self.assertEqual(total, 80)
        np.testing.assert_array_equal(column[0:5], np.arange(5))
        np.testing.assert_array_equal(column[16:33], np.arange(5, 22))
        np.testing.assert_array_equal(column[48:80], np.arange(22, 54))
        self.assertEqual(np.count_nonzero(column[5:16]) + np.count_nonzero(column[33:48]), 0)
        np.testing.assert_array_equal(
            torch_gemm.routed_rows(fake_torch, padded, c, starts).array[:, 0], np.arange(54))
        np.testing.assert_array_equal(
            torch_gemm.routed_rows(fake_torch, padded.t(), c, starts, dim=1).array[0],
            np.arange(54))

    def test_scales_are_torchaos_powers_of_2_per_row_and_expert(self):
        c = self.case("FP8Rowwise/Wgrad/expert_up/prequant/G:3/M:32/K:54/N:48")
        plan = torch_gemm.plan_for(c)
        dy = torch_gemm.pad_experts(
            fake_torch, fake_torch.tensor(self.sources(c)["dy"], dtype=fake_torch.bfloat16),
            c.group_rows, *torch_gemm.case_layout(c))
        _, scale, _ = torch_gemm.prepare_operand(fake_torch, c, plan.a, dy)
        self.assertEqual(scale.shape, (3 * 48,))
        for expert, (start, end) in enumerate(torch_gemm.expert_spans(c)):
            amax = np.abs(dy.array[start:end]).max(axis=0)  # each feature over its tokens
            np.testing.assert_array_equal(1 / scale.array[expert * 48:(expert + 1) * 48],
                                          torchao_scale(amax))
        # rowwise_with_gw_hp's W in Dgrad: one scale an expert, repeated over its columns.
        c = self.case("FP8RowwiseBF16Wgrad/Dgrad/expert_up/prequant/G:3/M:54/K:48/N:32")
        plan = torch_gemm.plan_for(c)
        w = fake_torch.tensor(self.sources(c)["w"], dtype=fake_torch.bfloat16)
        _, scale, _ = torch_gemm.prepare_operand(fake_torch, c, plan.b, w)
        self.assertEqual(scale.shape, (3, 32))
        for expert in range(3):
            np.testing.assert_array_equal(1 / scale.array[expert],
                                          torchao_scale(np.abs(w.array[expert]).max()))

    def test_expert_major_scales_are_what_the_kernel_reads(self):
        # Experts of very different magnitudes: each feature's scale differs from expert to
        # expert, so scales laid out feature-major (expert g's at g + 3·feature) multiply the
        # wrong products, and the reference check says so.
        c = self.case("FP8Rowwise/Wgrad/expert_up/prequant/G:3/M:32/K:54/N:48")
        plan = torch_gemm.plan_for(c)
        magnitude = np.repeat([1.0, 64.0, 1 / 64], c.group_rows)[:, None].astype(np.float32)
        operands = {}
        for role, values in self.sources(c).items():
            if role != "w":
                source = fake_torch.tensor(values * magnitude, dtype=fake_torch.bfloat16)
                operands[role] = torch_gemm.pad_experts(fake_torch, source, c.group_rows,
                                                        *torch_gemm.case_layout(c))
        a, scale_a, values_a = torch_gemm.prepare_operand(fake_torch, c, plan.a, operands["dy"])
        b, scale_b, values_b = torch_gemm.prepare_operand(fake_torch, c, plan.b, operands["x"])
        right = torch_gemm.gemm_call(fake_torch, c, plan, a, b, scale_a, scale_b)()
        self.assertLess(torch_gemm.routed_reference_error(fake_torch, c, plan, right, values_a(),
                                                          values_b()), 1e-6)
        feature_major = scale_a.reshape(3, 48).t().contiguous().reshape(3 * 48)
        wrong = torch_gemm.gemm_call(fake_torch, c, plan, a, b, feature_major, scale_b)()
        self.assertGreater(torch_gemm.routed_reference_error(fake_torch, c, plan, wrong,
                                                             values_a(), values_b()),
                           torch_gemm.REFERENCE_TOLERANCE)

    def test_the_fake_refuses_what_torch_refuses(self):
        c = self.case("FP8Rowwise/Fprop/expert_up/prequant/G:3/M:54/K:32/N:48")
        x = fake_torch.zeros(80, 32, dtype=fake_torch.float8_e4m3fn)
        w = fake_torch.zeros(3, 48, 32, dtype=fake_torch.float8_e4m3fn).transpose(-2, -1)
        offs = torch_gemm.expert_offsets(fake_torch, c, "cpu")
        scale_x = fake_torch.zeros(80, dtype=fake_torch.float32)
        call = fake_torch._scaled_grouped_mm
        with self.assertRaisesRegex(RuntimeError, "same first dimension"):
            call(x, w, scale_x, fake_torch.zeros(3, 32, dtype=fake_torch.float32), offs=offs)
        with self.assertRaisesRegex(RuntimeError, "2D tensor"):
            call(x, w, scale_x, fake_torch.zeros(3 * 48, dtype=fake_torch.float32), offs=offs)
        with self.assertRaisesRegex(RuntimeError, "Expected mat2 to be transposed"):
            call(x, w.contiguous(), scale_x, fake_torch.zeros(3, 48, dtype=fake_torch.float32),
                 offs=offs)
        # Unpadded experts in a K-grouped (Wgrad) call: each expert's K must be a multiple of 16.
        a = fake_torch.zeros(48, 64, dtype=fake_torch.float8_e4m3fn)
        b = fake_torch.zeros(32, 64, dtype=fake_torch.float8_e4m3fn).t()
        ragged = fake_torch.tensor([5, 64], dtype=fake_torch.int32)
        with self.assertRaisesRegex(RuntimeError, "multiple of 16"):
            call(a, b, fake_torch.zeros(96, dtype=fake_torch.float32),
                 fake_torch.zeros(64, dtype=fake_torch.float32), offs=ragged)


class Counters(unittest.TestCase):
    def test_grouped_cases_carry_gemm_bench_counters(self):
        run = timing.GroupRun([], True, 0.5, timing.TARGET_REACHED, 1.0, None)
        values = benchmark_json.counters(case(FPROP_UP), [1000.0] * 10, run)
        self.assertEqual((values["G"], values["padded_rows"]), (16, 0))
        self.assertAlmostEqual(values["TFLOPS"], 2 * 32768 * 2048 * 1536 / 1e-3 / 1e12)
        dense = benchmark_json.counters(case(LISTED[0]), [1000.0] * 10, run)
        self.assertNotIn("G", dense)
        # FP8Rowwise's padding is timed, not counted in TFLOPS, as gemm_bench's.
        padded = benchmark_json.counters(case(ROWWISE_FPROP_UP, RAGGED), [1000.0] * 10, run)
        self.assertEqual((padded["G"], padded["padded_rows"]), (16, 48))
        self.assertAlmostEqual(padded["TFLOPS"], values["TFLOPS"])


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
