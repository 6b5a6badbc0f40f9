#!/usr/bin/env python3
"""A peer on the same data: times gemm_bench's BF16 `native`, FP8Current `prequant` and FP8Block
`prequant` GEMM cases, dense and (BF16) grouped, with PyTorch under gemm_bench's timing rules, and
writes Google Benchmark JSON with gemm_bench's case names, so that Google Benchmark's compare.py
and tools/run_diff.py put the two side by side:

    tools/torch_peer.py --out=torch.json -- --model=llama3-8b
    compare.py benchmarks torch.json gemmscope.json

    # Expert (grouped) cases need the routed rows per expert of a gemm_bench run of the same flags:
    gemm_bench --model=deepseek-v3 --benchmark_filter='^BF16/.*/expert_' \\
        --benchmark_out=gemmscope.json --benchmark_out_format=json
    tools/torch_peer.py --context_from=gemmscope.json --filter='^BF16/.*/expert_' \\
        --out=torch.json -- --model=deepseek-v3

Usage: torch_peer.py [--gemm_bench=PATH | --cases=FILE] [--filter=REGEX] [--out=FILE]
                     [--expert_rows=LIST | --context_from=FILE]
                     [--repetitions=R] [--gpu_warmup=S] [--max_warmup=S] [timing options]
                     [--list_kernels] [--dry-run] [-- GEMM_BENCH_FLAGS...]

Cases come from `gemm_bench --benchmark_list_tests GEMM_BENCH_FLAGS...` (or one name a line in
FILE); the peer keeps those below and leaves every other out. --dry-run prints the groups, each
case's operands (and a grouped case's rows per expert) and its call, without importing torch.

- BF16/{pass}/{op}/native/M:/K:/N: -- torch.matmul in the layouts a framework launches (Fprop TN,
  Dgrad NN, Wgrad NT).
- FP8Current/{pass}/{op}/prequant/M:/K:/N: -- torch._scaled_mm with one FP32 scale per tensor,
  E4M3 data and E5M2 gradients, TN only (transposed copies made outside timing), fast
  accumulation in Fprop.
- FP8Block/{pass}/{op}/prequant/M:/K:/N: -- torch.nn.functional.scaled_mm with
  ScalingType.BlockWise1x128 and BlockWise128x128 (as in PyTorch 2.11): gemmscope's recipe
  (bench/recipes/fp8_block_recipe.cpp, quant/fp8_block.h): E4M3 everywhere, power-of-2 FP32
  scales, X and dY 1x128 along each copy's contraction dimension, W 128x128; 1x128 x 128x128 in
  Fprop and Dgrad, 1x128 x 1x128 in Wgrad; no fast accumulation. PyTorch runs these through
  cuBLASLt's VEC128_32F and BLK128x128_32F scale modes (aten/src/ATen/native/cuda/ScaledBlas.cpp,
  sm_90 and cuBLASLt >= 12.9 only), the library gemm_bench's cublaslt provider runs: this pair
  checks gemm_bench's harness (operands, scale layouts, timing), it is not a faster kernel.
  torch lays a 1x128 operand's scales out with leading dimension `rows` where cuBLASLt reads
  roundup(rows, 4), so a case with such an operand's rows not a multiple of 4 is refused.
- BF16/{pass}/{expert_up|expert_down}/native/G:/M:/K:/N: -- torch._grouped_mm, PyTorch's CUTLASS
  grouped GEMM (aten/src/ATen/native/cuda/GroupMM.cu), all experts in one launch, over the routed
  rows sorted by expert, offs = the running sums of the rows per expert (int32): Fprop
  x [R, in] by w [G, out, in].transpose(-2, -1); Dgrad dy [R, out] by w [G, out, in]; Wgrad
  dy.t() [out, R] by x [R, in] -> dW [G, out, in], K-grouped (2D by 2D). gemm_bench's
  `--grouped` (default `auto`: the fastest of its loop of cuBLASLt GEMMs, cuBLAS's grouped GEMM
  and its CUTLASS configurations) runs them its own way, so this pair says how far gemm_bench's
  BF16 baseline is from torch's. torch takes at most 1023 groups and
  16-byte aligned rows (in and out multiples of 8); other cases are refused with that reason.
  The rows per expert are gemm_bench's: it routes the tokens itself (shapes/routing.h) and
  records the timed rank's rows per expert in its JSON context (`expert_rows`), which
  --benchmark_list_tests does not print; give that JSON, from a run of the same model flags, with
  --context_from=FILE, or the rows with --expert_rows=LIST (without either, grouped cases are
  left out, with a note). Experts without rows are left out, as gemm_bench leaves them out; each
  grouped case's G and routed rows (M, or K in Wgrad) must match the rows given.

Left out, and why (PyTorch 2.11): grouped FP8 cases. torch._scaled_grouped_mm
(aten/src/ATen/native/cuda/GroupedBlas.cpp) takes rowwise FP32 scales on sm_90 (a CUTLASS
kernel, E4M3 by E4M3 only) and MXFP8 on sm_100: neither is FP8Current's recipe (each expert's
tensors with one scale, E5M2 gradients) nor FP8Block's (1x128 and 128x128 blocks). Each expert's
tensorwise scale spread over rowwise vectors would give Fprop the same arithmetic through another
kernel, but Dgrad and Wgrad's E5M2 gradients are refused, so every grouped FP8 case is left out.
FP8Delayed's prequant GEMM is FP8Current's; autocast cases time gemmscope's own quantization
kernels; MXFP8 and NVFP4 need Blackwell.

Every FP8Block and grouped case is checked once, outside timing, against an FP32 product of the
same (dequantized) operands: a relative error above REFERENCE_TOLERANCE means a wrong layout
and fails the case.

How cases are timed, as gemm_bench times them (bench/timing/steady_state_run.h): first the GPU is warmed
up as gemm_bench warms it up (bench/timing/gpu_warmup.h); then the cases of one
precision (its dense or its grouped cases, as gemm_bench groups them) form a group, prepared
together and run round-robin (one sample of each in turn), so
that every member is timed at the clock the group's mix of work holds, as in a training step.
The group first runs untimed until NVML shows the SM clock and board power settled (or
--max_settle); then it is sampled round-robin until every member's mean is known to
--max_noise with --min_samples, after --min_time (--min_time_capped at the power cap), or until
--max_time. A sample: the L2 is flushed (a buffer of twice its size zeroed) outside the events;
start event, the GEMM, stop event. Samples are enqueued in batches, the next while one runs, so
the GPU runs them back to back and host launch latency is not timed. The time reported is the
mean (less outliers; bench/timing/sample_statistics.h); each repetition is one whole run of the group.

One difference remains: gemm_bench's FP8Current and FP8Block groups also hold their `autocast`
cases, which a peer cannot run, so the peer's FP8 groups are a different mix and may hold a
different clock.
"""

import argparse
import collections
import dataclasses
import datetime
import itertools
import json
import math
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

CASE_RE = re.compile(
    r"^(?P<precision>BF16|FP8Current|FP8Block)/(?P<pass_>Fprop|Dgrad|Wgrad)/(?P<op>[^/]+)"
    r"/(?P<mode>[^/]+)(?:/G:(?P<groups>\d+))?/M:(?P<m>\d+)/K:(?P<k>\d+)/N:(?P<n>\d+)"
    r"(?:/manual_time)?$")
# BF16 is registered once as `native`; the FP8 recipes' `prequant` mode times the GEMM alone,
# which is what a peer can reproduce (their `autocast` quantization kernels are gemmscope's own).
PEER_MODES = {"BF16": "native", "FP8Current": "prequant", "FP8Block": "prequant"}
# Grouped cases torch has a matching kernel for (see the module's docstring).
GROUPED_PRECISIONS = {"BF16"}

# FP8 formats: torch dtype name and largest finite value. Scales map amax onto that value.
FP8 = {"e4m3": ("float8_e4m3fn", 448.0), "e5m2": ("float8_e5m2", 57344.0)}
# One fixed seed per training tensor (as gemm_bench seeds per role): every precision of a case
# multiplies the same data.
SEEDS = {"x": 0x5eed0001, "w": 0x5eed0002, "dy": 0x5eed0003}
# FP8Block's blocks (quant/fp8_scale_layout.h): 128 elements along the contraction dimension,
# 128x128 for weights; cuBLASLt pads the rows of a 1x128 scale tensor, and the block columns of
# a 128x128 one, to a multiple of 4.
SCALE_BLOCK = 128
SCALE_ALIGNMENT = 4
FP32_MAX = 3.4028234663852886e38
# torch._grouped_mm (aten/src/ATen/native/cuda/GroupMM.cu, GroupedMMUtils.h): fewer than 1024
# groups; every operand's leading stride a multiple of 16 bytes (8 BF16 elements).
GROUPED_MAX_GROUPS = 1023
GROUPED_ALIGNMENT = 8
# torch._scaled_mm: K and N multiples of 16.
SCALED_MM_ALIGNMENT = 16
# The largest relative error (Frobenius norm) against an FP32 product of the same operands that a
# checked case may have: BF16 rounding of the output gives about 0.1%; a scale or row misplaced
# by a wrong layout gives far more.
REFERENCE_TOLERANCE = 0.01
# How often the sampling loop checks the noise targets (each check sorts every member's
# samples), as gemm_bench's kStoppingCheckSeconds.
STOPPING_CHECK_S = 0.05
# Without NVML nothing says when the GPU has settled: settle this long instead (gemm_bench's
# kBlindSettleSeconds).
BLIND_SETTLE_S = 1.0

# gemm_bench's warm-up (bench/timing/gpu_warmup.h): BF16 GEMMs before the first group, at least
# --gpu_warmup seconds, then until the GPU's temperature has risen by less than
# WARMUP_MAX_RISE_C over WARMUP_WINDOW_S, at most --max_warmup seconds. At its power cap a GPU's
# clock depends on its temperature; without the warm-up the peer's first group ran 2-11 C cooler
# than gemm_bench's groups on three H100s.
WARMUP_WINDOW_S = 10.0
WARMUP_MAX_RISE_C = 1.0
WARMUP_GEMM_SIZE = 8192

# NVML. Field values in mW: the instant board power, and the one-second average the power
# limiter regulates (nvmlDeviceGetPowerUsage is that average on Ampere and later).
NVML_FI_DEV_POWER_AVERAGE = 185
NVML_FI_DEV_POWER_INSTANT = 186
NVML_PERIOD_S = 0.005
# nvmlClocksEventReason* bits that slow a GPU under load, named as gemm_bench's labels name them.
CLOCK_EVENT_SLOWDOWNS = ((0x4, "SW power cap"), (0x8, "HW slowdown"),
                         (0x20, "SW thermal slowdown"), (0x40, "HW thermal slowdown"),
                         (0x80, "HW power brake"))
# Any of them: a limiter (power or temperature) holds the clock down (gemm_bench's
# kClockSlowdowns), and sampling lasts --min_time_capped.
CLOCK_SLOWDOWN_BITS = 0x4 | 0x8 | 0x20 | 0x40 | 0x80

# gemm_bench's settle rule (bench/timing/settle_detector.h, SettleSettings): over the last 4 windows of
# 250 ms, every window's mean SM clock within 3% of the windows' common mean, and, in every
# window drawing at least 90% of the power limit, mean instant power within 8% of the mean
# one-second average. Under the power limiter the clock swings for seconds after a change of
# load; only at steady state do instant and averaged power agree while the clock stays in a band.
SETTLE_WINDOW_S = 0.25
SETTLE_WINDOWS = 4
SETTLE_CLOCK_BAND_PCT = 3.0
SETTLE_POWER_TOLERANCE_PCT = 8.0
SETTLE_CAPPED_SHARE_OF_LIMIT = 0.9


def ceil_div(value, divisor):
    return -(-value // divisor)


def round_up(value, multiple):
    return ceil_div(value, multiple) * multiple


@dataclass(frozen=True)
class Case:
    name: str  # as gemm_bench reports it, ending in /manual_time
    precision: str
    gemm_pass: str
    m: int
    k: int
    n: int
    groups: int = 0  # G of a grouped (expert) case; 0 for a dense case
    group_rows: tuple = ()  # a grouped case's rows per expert (attach_group_rows)

    @property
    def grouped(self):
        return self.groups > 0

    @property
    def group_key(self):
        """The group gemm_bench times the case with (bench/bench_session.h)."""
        return self.precision + ("/Experts" if self.grouped else "")

    @property
    def flops(self):
        return 2 * self.m * self.k * self.n

    def role_shape(self, role):
        """The row-major shape a training framework stores a tensor in, from the case's M, K, N
        (TransformerEngine's conventions: Fprop M=tokens K=in N=out; Dgrad M=tokens K=out N=in;
        Wgrad M=in K=tokens N=out). In a grouped case tokens are the routed rows of all experts,
        sorted by expert, and the weight is one [out, in] per expert: [G, out, in]."""
        tokens, in_features, out_features = {
            "Fprop": (self.m, self.k, self.n),
            "Dgrad": (self.m, self.n, self.k),
            "Wgrad": (self.k, self.m, self.n),
        }[self.gemm_pass]
        if role == "w":
            return ((self.groups,) if self.grouped else ()) + (out_features, in_features)
        return {"x": (tokens, in_features), "dy": (tokens, out_features)}[role]

    @property
    def routed_rows(self):
        """A grouped case's R, the rows of all experts: M, or K in Wgrad."""
        return self.k if self.gemm_pass == "Wgrad" else self.m


def parse_case(line):
    """A Case for a gemm_bench name the peer can time, else None."""
    match = CASE_RE.match(line.strip())
    if match is None or PEER_MODES[match["precision"]] != match["mode"]:
        return None
    groups = int(match["groups"]) if match["groups"] else 0
    if groups and match["precision"] not in GROUPED_PRECISIONS:
        return None
    name = match[0] if match[0].endswith("/manual_time") else match[0] + "/manual_time"
    return Case(name, match["precision"], match["pass_"], int(match["m"]), int(match["k"]),
                int(match["n"]), groups)


def left_out_grouped_fp8(lines, filter_regex=None):
    """How many of `lines` are grouped FP8 `prequant` cases matching `filter_regex`, which torch
    cannot time with their recipe (see the module's docstring)."""
    pattern = re.compile(filter_regex) if filter_regex else None
    return sum(1 for line in lines
               if (match := CASE_RE.match(line.strip())) and match["groups"]
               and match["precision"] not in GROUPED_PRECISIONS
               and PEER_MODES[match["precision"]] == match["mode"]
               and not (pattern and not pattern.search(match[0])))


def select_cases(lines, filter_regex=None):
    """The peer's cases among `lines`, in order, once each, matching `filter_regex` (searched in
    the reported name, as --benchmark_filter does)."""
    pattern = re.compile(filter_regex) if filter_regex else None
    cases, seen = [], set()
    for line in lines:
        case = parse_case(line)
        if case is None or case.name in seen or (pattern and not pattern.search(case.name)):
            continue
        seen.add(case.name)
        cases.append(case)
    return cases


def parse_expert_rows(text):
    """Rows per expert from "2048,2048,..." (gemm_bench's context `expert_rows`); ValueError
    unless they are non-negative integers, at least one positive."""
    try:
        rows = tuple(int(item) for item in text.split(","))
    except ValueError:
        raise ValueError(f"expected comma-separated rows per expert, got {text!r}") from None
    if min(rows) < 0 or max(rows) <= 0:
        raise ValueError(f"rows per expert must be non-negative, some positive: {text!r}")
    return rows


def routing_key(text):
    """gemm_bench's --routing value, comparable: "skewed" is "skewed:1", and "skewed:1.50" is
    "skewed:1.5", as gemm_bench's to_string writes them."""
    kind, _, alpha = text.partition(":")
    if kind != "skewed":
        return text
    try:
        return ("skewed", float(alpha) if alpha else 1.0)
    except ValueError:
        return text


def context_mismatches(context, bench_flags):
    """Where the workload flags after "--" disagree with a gemm_bench JSON's context (model,
    expert parallelism, routing): the rows per expert would then not be this workload's. No
    flags (cases from --cases): nothing to compare."""
    if not bench_flags:
        return []
    given = {}
    for flag in bench_flags:
        name, equals, value = flag.partition("=")
        if equals and name in ("--model", "--expert_parallel", "--routing"):
            given[name[2:]] = value
    given.setdefault("routing", "balanced (the default)")
    mismatches = []
    for key, value in given.items():
        recorded = context.get(key)
        same = (routing_key(value.split(" ")[0]) == routing_key(recorded)
                if key == "routing" and recorded else value == recorded)
        if recorded is not None and not same:
            mismatches.append(f"--{key}={value} but the run had {key} {recorded}")
    return mismatches


def expert_rows_from_context(path, bench_flags):
    """The rows per expert a gemm_bench JSON records in its context; SystemExit with the reason
    where it records none or was run with other workload flags than `bench_flags`."""
    try:
        with open(path) as f:
            context = json.load(f).get("context", {})
    except (OSError, ValueError) as error:
        sys.exit(f"torch_peer: --context_from={path}: {error}")
    if not context.get("expert_rows"):
        sys.exit(f"torch_peer: --context_from={path}: its context has no expert_rows "
                 "(a gemm_bench JSON of a mixture-of-experts model is needed)")
    mismatches = context_mismatches(context, bench_flags)
    if mismatches:
        sys.exit(f"torch_peer: --context_from={path} is another workload: "
                 + "; ".join(mismatches))
    try:
        return parse_expert_rows(context["expert_rows"])
    except ValueError as error:
        sys.exit(f"torch_peer: --context_from={path}: {error}")


def attach_group_rows(cases, expert_rows):
    """`cases` with each grouped case's rows per expert: the experts of `expert_rows` that got
    rows, in expert order (gemm_bench leaves the others out). ValueError naming every grouped
    case whose G or routed rows the rows do not give, or when there are grouped cases and no
    rows."""
    grouped = [case for case in cases if case.grouped]
    if not grouped:
        return cases
    if expert_rows is None:
        raise ValueError(
            f"{len(grouped)} grouped case(s) need gemm_bench's rows per expert, which "
            "--benchmark_list_tests does not print: pass --context_from=FILE (a gemm_bench JSON "
            "of the same model flags; its context's expert_rows) or --expert_rows=LIST, or "
            "leave them out")
    rows = tuple(r for r in expert_rows if r > 0)
    wrong = [f"{case.name} (G={case.groups}, {case.routed_rows} rows)" for case in grouped
             if case.groups != len(rows) or case.routed_rows != sum(rows)]
    if wrong:
        raise ValueError(f"the rows per expert given ({len(rows)} experts with rows, "
                         f"{sum(rows)} rows) are not those of " + ", ".join(wrong))
    return [dataclasses.replace(case, group_rows=rows) if case.grouped else case
            for case in cases]


def rows_text(rows):
    """Rows per expert, runs of equal counts folded: "2049 x3, 2048 x13"."""
    runs = []
    for r in rows:
        if runs and runs[-1][0] == r:
            runs[-1][1] += 1
        else:
            runs.append([r, 1])
    return ", ".join(f"{r} x{count}" if count > 1 else str(r) for r, count in runs)


@dataclass(frozen=True)
class Operand:
    role: str  # x, w or dy: the training tensor it is made from
    transposed_copy: bool  # a contiguous transposed ("columnwise") copy, made outside timing
    fmt: str  # bf16, e4m3 or e5m2
    read_transposed: bool  # the GEMM reads it through .t() (.transpose(-2, -1)): a free view
    scaling: str = ""  # FP8: "tensor", or FP8Block's "1x128" or "128x128" blocks

    def stored_shape(self, case):
        shape = case.role_shape(self.role)
        return shape[:-2] + shape[:-3:-1] if self.transposed_copy else shape

    def view_shape(self, case):
        shape = self.stored_shape(case)
        return shape[:-2] + shape[:-3:-1] if self.read_transposed else shape

    def scale_layout(self, case):
        """(shape, strides) of the scale tensor torch takes for a block-scaled operand, from its
        stored [rows, cols] (contracted along cols): 1x128 [rows, ceil(cols/128)] with the rows
        fastest (cuBLASLt's VEC128_32F when rows % 4 == 0); 128x128 [P, ceil(rows/128)], P =
        roundup(ceil(cols/128), 4), the block columns fastest (BLK128x128_32F). None otherwise."""
        if self.scaling not in ("1x128", "128x128"):
            return None
        rows, cols = self.stored_shape(case)
        if self.scaling == "1x128":
            return (rows, ceil_div(cols, SCALE_BLOCK)), (1, rows)
        padded = round_up(ceil_div(cols, SCALE_BLOCK), SCALE_ALIGNMENT)
        return (padded, ceil_div(rows, SCALE_BLOCK)), (1, padded)

    def describe(self, case):
        name = self.role + ("ᵀ copy" if self.transposed_copy else "")
        view = self.view_shape(case)
        if not self.read_transposed:
            layout = "row-major"
        elif len(view) == 3:
            layout = "column-major per expert (.transpose(-2, -1) of row-major)"
        else:
            layout = "column-major (.t() of row-major)"
        text = f"{name} {self.fmt.upper()} [{', '.join(map(str, view))}] {layout}"
        scales = self.scale_layout(case)
        if scales:
            text += (f", {self.scaling} scales FP32 [{', '.join(map(str, scales[0]))}] "
                     f"strides ({', '.join(map(str, scales[1]))})")
        return text


MATMUL, SCALED_MM, BLOCK_SCALED_MM, GROUPED_MM = "matmul", "scaled_mm", "block", "grouped"


@dataclass(frozen=True)
class Plan:
    """out = a @ b. The orientation is gemm_bench's: PyTorch, like gemm_bench's GemmPlan, hands
    cuBLAS(Lt) a row-major product as its column-major transpose (b as cuBLAS's A, a as its B),
    so each pass below reaches cuBLAS with the same m, n, k and transposes as gemm_bench's."""
    a: Operand
    b: Operand
    fast_accum: bool  # FP8 only: cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM
    kind: str = MATMUL  # which call runs it: MATMUL, SCALED_MM, BLOCK_SCALED_MM, GROUPED_MM

    def out_shape(self, case):
        a, b = self.a.view_shape(case), self.b.view_shape(case)
        if case.grouped and len(b) == 2:
            return (case.groups, a[0], b[1])  # K-grouped: one [out, in] per expert
        return (a[0], b[-1])

    def call(self):
        if self.kind == GROUPED_MM:
            return "torch._grouped_mm(a, b, offs=offs)"
        if self.kind == BLOCK_SCALED_MM:
            recipe = {"1x128": "BlockWise1x128", "128x128": "BlockWise128x128"}
            return (f"torch.nn.functional.scaled_mm(a, b, scale_a, "
                    f"ScalingType.{recipe[self.a.scaling]}, scale_b, "
                    f"ScalingType.{recipe[self.b.scaling]}, output_dtype=torch.bfloat16, "
                    f"use_fast_accum={self.fast_accum})")
        if self.kind == SCALED_MM:
            return (f"torch._scaled_mm(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, "
                    f"use_fast_accum={self.fast_accum})")
        return "torch.matmul(a, b)"


def plan_for(case):
    """Which tensors each pass multiplies, in which layout and format."""
    def op(role, fmt, copy=False, t=False, scaling=""):
        return Operand(role, copy, fmt, t, scaling)

    if case.precision == "BF16":
        # The layouts a training framework launches: Fprop TN, Dgrad NN, Wgrad NT. A grouped
        # case reads the same tensors with one weight per expert, through torch._grouped_mm.
        kind = GROUPED_MM if case.grouped else MATMUL
        return {
            "Fprop": Plan(op("x", "bf16"), op("w", "bf16", t=True), False, kind),  # X·Wᵀ
            "Dgrad": Plan(op("dy", "bf16"), op("w", "bf16"), False, kind),  # dY·W, W [out=K, in=N]
            # dW = dYᵀ·X, both read transposed from their [tokens, ...] storage; the output is
            # dW [out, in] = [N, M], laid out like W, as gemm_bench's Wgrad writes it. (x.t() @ dy
            # costs the same 2·M·K·N but writes dWᵀ and reaches cuBLAS with m and n swapped.)
            "Wgrad": Plan(op("dy", "bf16", t=True), op("x", "bf16"), False, kind),
        }[case.gemm_pass]
    if case.precision == "FP8Block":
        # As FP8Current's layouts below, E4M3 everywhere: X and dY (and their copies) 1x128 along
        # the copy's contraction dimension, W 128x128 (its copy's grid is W's transposed); split
        # accumulation in every pass, as TransformerEngine's Float8BlockScaling.
        return {
            "Fprop": Plan(op("x", "e4m3", scaling="1x128"),
                          op("w", "e4m3", t=True, scaling="128x128"), False, BLOCK_SCALED_MM),
            "Dgrad": Plan(op("dy", "e4m3", scaling="1x128"),
                          op("w", "e4m3", copy=True, t=True, scaling="128x128"), False,
                          BLOCK_SCALED_MM),
            "Wgrad": Plan(op("dy", "e4m3", copy=True, scaling="1x128"),
                          op("x", "e4m3", copy=True, t=True, scaling="1x128"), False,
                          BLOCK_SCALED_MM),
        }[case.gemm_pass]
    # FP8 on Hopper is TN only: a row-major [rows, K], b column-major [K, cols] (.t() of a
    # row-major [cols, K] tensor), so Dgrad and Wgrad read transposed copies. Gradients are E5M2.
    # Fast accumulation in Fprop only, as TransformerEngine does.
    return {
        "Fprop": Plan(op("x", "e4m3", scaling="tensor"),
                      op("w", "e4m3", t=True, scaling="tensor"), True, SCALED_MM),
        "Dgrad": Plan(op("dy", "e5m2", scaling="tensor"),
                      op("w", "e4m3", copy=True, t=True, scaling="tensor"), False, SCALED_MM),
        # dW [out, in] = dYᵀ copy [out, tokens] · (Xᵀ copy [in, tokens]).t(): gemm_bench's Wgrad
        # (its left operand is dY's columnwise copy, its right X's), so cuBLASLt's A is Xᵀ E4M3
        # and its B dYᵀ E5M2, with m = in, n = out.
        "Wgrad": Plan(op("dy", "e5m2", copy=True, scaling="tensor"),
                      op("x", "e4m3", copy=True, t=True, scaling="tensor"), False, SCALED_MM),
    }[case.gemm_pass]


def refusal(case, plan):
    """Why torch cannot take `case` as gemm_bench runs it, or None. Checked before torch is
    asked, so that the reason is the layout rule, not a failure deep in a kernel."""
    if plan.kind == GROUPED_MM:
        in_features, out_features = case.role_shape("x")[1], case.role_shape("dy")[1]
        if case.groups > GROUPED_MAX_GROUPS:
            return (f"torch._grouped_mm runs at most {GROUPED_MAX_GROUPS} groups "
                    f"(aten/src/ATen/native/cuda/GroupMM.cu), this case has {case.groups}")
        if in_features % GROUPED_ALIGNMENT or out_features % GROUPED_ALIGNMENT:
            return (f"torch._grouped_mm needs 16-byte aligned rows: in ({in_features}) and out "
                    f"({out_features}) multiples of {GROUPED_ALIGNMENT} (GroupedMMUtils.h)")
    if plan.kind == BLOCK_SCALED_MM:
        if case.k % SCALED_MM_ALIGNMENT or case.n % SCALED_MM_ALIGNMENT:
            return (f"torch's scaled_mm needs K ({case.k}) and N ({case.n}) multiples of "
                    f"{SCALED_MM_ALIGNMENT}")
        for operand in (plan.a, plan.b):
            rows = operand.stored_shape(case)[0]
            if operand.scaling == "1x128" and rows % SCALE_ALIGNMENT:
                return (f"{operand.role}'s 1x128 scales: torch lays them out with leading "
                        f"dimension {rows} (its rows), cuBLASLt's VEC128_32F reads "
                        f"roundup({rows}, {SCALE_ALIGNMENT})")
    return None


# gemm_bench's sample statistics (bench/timing/sample_statistics.h): the mean of the samples, less
# those more than OUTLIER_FACTOR times off their median, and the half-width of its 95% interval
# from BATCHES consecutive batch means (Student's t with 7 degrees of freedom).
BATCHES = 8
OUTLIER_FACTOR = 1.5
STUDENT_T95 = 2.364624


def mean_and_noise(samples):
    """(mean, noise): the mean of the samples kept, and the half-width of its 95% interval
    relative to it (0.01 = 1%), infinite below BATCHES samples kept. Samples in time order."""
    if not samples:
        return 0.0, math.inf
    median = statistics.median(samples)
    kept = [x for x in samples if median / OUTLIER_FACTOR <= x <= median * OUTLIER_FACTOR]
    mean = statistics.fmean(kept)
    if len(kept) < BATCHES or mean <= 0:
        return mean, math.inf
    n = len(kept)
    batch_means = [statistics.fmean(kept[n * b // BATCHES:n * (b + 1) // BATCHES])
                   for b in range(BATCHES)]
    half_width = STUDENT_T95 * statistics.stdev(batch_means) / math.sqrt(BATCHES)
    return mean, half_width / mean


@dataclass(frozen=True)
class Reading:
    """One NVML reading; power in W, None where the GPU does not report it."""
    time: float  # time.monotonic()
    sm_clock_mhz: float
    instant_power_w: float
    average_power_w: float
    power_limit_w: float
    event_reasons: int  # nvmlClocksEventReason* bits
    temperature_c: float  # None where the GPU does not report it


class SettleDetector:
    """gemm_bench's settle rule (see SETTLE_*), fed readings in time order. Windows are
    consecutive, from the first reading on; a window with no readings (a gap) is no window at
    all. Each time a window closes, the last SETTLE_WINDOWS closed windows are judged. Once
    settled, stays settled."""

    def __init__(self):
        self.settled = False
        self._window_start = None
        self._current = []  # readings of the window being filled
        self._closed = collections.deque(maxlen=SETTLE_WINDOWS)

    def add(self, reading):
        if self.settled:
            return
        if self._window_start is None:
            self._window_start = reading.time
        if reading.time >= self._window_start + SETTLE_WINDOW_S:
            self._close_window()
            self._window_start += (math.floor((reading.time - self._window_start)
                                              / SETTLE_WINDOW_S) * SETTLE_WINDOW_S)
            if self.settled:
                return
        self._current.append(reading)

    def _close_window(self):
        if self._current:
            self._closed.append(self._current)
        self._current = []
        self.settled = len(self._closed) == SETTLE_WINDOWS and self._windows_agree()

    def _windows_agree(self):
        clocks = [statistics.fmean(r.sm_clock_mhz for r in window) for window in self._closed]
        centre = statistics.fmean(clocks)
        if centre <= 0:
            return False
        for window, clock in zip(self._closed, clocks):
            if abs(clock - centre) > SETTLE_CLOCK_BAND_PCT / 100 * centre:
                return False
            powered = [r for r in window if None not in
                       (r.instant_power_w, r.average_power_w, r.power_limit_w)]
            if not powered:
                continue  # no power readings: the clock alone decides
            instant = statistics.fmean(r.instant_power_w for r in powered)
            average = statistics.fmean(r.average_power_w for r in powered)
            limit = statistics.fmean(r.power_limit_w for r in powered)
            if average < SETTLE_CAPPED_SHARE_OF_LIMIT * limit:
                continue  # not regulated by the power limiter; instant power is noisier there
            if abs(instant - average) > SETTLE_POWER_TOLERANCE_PCT / 100 * average:
                return False
        return True


@dataclass(frozen=True)
class ClockSummary:
    """What NVML saw over a group's sampling phase."""
    sm_clock_mhz: float  # mean
    power_w: float  # mean instant power (the average where there is none); None without power
    event_reasons: int  # OR-ed over the readings
    temperature_c: float  # mean; None without temperature readings


def summarize(readings):
    """A ClockSummary of `readings`, None for none. The power is the instant one where NVML has
    it: the one-second average would still hold part of whatever ran before."""
    if not readings:
        return None
    powers = [r.instant_power_w if r.instant_power_w is not None else r.average_power_w
              for r in readings]
    powers = [p for p in powers if p is not None]
    reasons = 0
    for r in readings:
        reasons |= r.event_reasons
    temperatures = [r.temperature_c for r in readings if r.temperature_c is not None]
    return ClockSummary(statistics.fmean(r.sm_clock_mhz for r in readings),
                        statistics.fmean(powers) if powers else None, reasons,
                        statistics.fmean(temperatures) if temperatures else None)


def clock_event_text(reasons):
    """The slowdowns among NVML clock-event `reasons`, as gemm_bench's label names them."""
    return ", ".join(name for bit, name in CLOCK_EVENT_SLOWDOWNS if reasons & bit)


@dataclass(frozen=True)
class Settings:
    max_settle_s: float
    max_noise_pct: float
    min_samples: int
    min_time_s: float
    min_time_capped_s: float
    max_time_s: float


def noise_target_met(samples, settings):
    """gemm_bench's noise_target_met (bench/timing/stopping_rule.cpp)."""
    return (len(samples) >= settings.min_samples
            and mean_and_noise(samples)[1] * 100 <= settings.max_noise_pct)


CONTINUE, TARGET_REACHED, TIMED_OUT = "continue", "target reached", "timed out"


def sampling_verdict(settings, elapsed_s, targets_met, clock_limited):
    """gemm_bench's sampling_verdict (bench/timing/stopping_rule.cpp). Held down by a limiter (power or
    temperature), the clock swings with a period of about a second, so sampling lasts
    --min_time_capped to see several swings."""
    if elapsed_s >= settings.max_time_s:
        return TARGET_REACHED if targets_met else TIMED_OUT
    min_time = (max(settings.min_time_s, settings.min_time_capped_s) if clock_limited
                else settings.min_time_s)
    if targets_met and elapsed_s >= min_time:
        return TARGET_REACHED
    return CONTINUE


@dataclass(frozen=True)
class GroupRun:
    """One repetition of a group: settling, then sampling round-robin."""
    samples_us: list  # per member, in the members' order
    settled: bool  # without NVML: settled by assumption after BLIND_SETTLE_S, as gemm_bench
    settle_s: float
    verdict: str
    sampling_s: float
    clocks: ClockSummary  # None without NVML readings


def run_group(run_batch, monitor, settings, now=time.monotonic):
    """Settles and samples one group, as gemm_bench's GroupTimer::settle and ::sample.
    run_batch() enqueues whole rounds of the group and returns each member's GPU times in µs;
    monitor (None without NVML) is an NvmlMonitor."""
    if monitor is not None:
        monitor.start()
    limit = settings.max_settle_s if monitor is not None else min(BLIND_SETTLE_S,
                                                                  settings.max_settle_s)
    start = now()
    while True:
        run_batch()
        settle_s = now() - start
        if monitor is not None and monitor.settled():
            settled = True
            break
        if settle_s >= limit:
            settled = monitor is None
            break
    if monitor is not None:
        monitor.restart_summary()

    samples = None
    start = now()
    next_check, targets_met, verdict = 0.0, False, CONTINUE
    while verdict == CONTINUE:
        batch = run_batch()
        samples = samples or [[] for _ in batch]
        for member, times in zip(samples, batch):
            member.extend(times)
        elapsed = now() - start
        if elapsed >= next_check:
            targets_met = all(noise_target_met(member, settings) for member in samples)
            next_check = elapsed + STOPPING_CHECK_S
        clock_limited = monitor is not None and bool(monitor.event_reasons_so_far()
                                                     & CLOCK_SLOWDOWN_BITS)
        verdict = sampling_verdict(settings, elapsed, targets_met, clock_limited)
    clocks = monitor.stop() if monitor is not None else None
    return GroupRun(samples, settled, settle_s, verdict, elapsed, clocks)


class NvmlMonitor:
    """Reads the SM clock, instant and averaged board power and the clock-event reasons every
    5 ms on a host thread, which never touches the CUDA stream, so nothing is added to the
    timed work. Between start() and stop() the readings feed a SettleDetector, and those since
    restart_summary() (the sampling phase) are summarized by stop()."""

    def __init__(self, pynvml, handle):
        self._nvml = pynvml
        self._handle = handle
        self._power_limit_w = self._read_power_limit_w()
        self.power_source = self._probe_power_source()
        self._lock = threading.Lock()
        self._active = False
        self._detector = SettleDetector()
        self._phase = []  # readings since start() or restart_summary()
        self._phase_reasons = 0  # their clock-event reasons, OR-ed
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="nvml-monitor", daemon=True)
        self._thread.start()

    def _read_power_limit_w(self):
        """The enforced power limit, read once; None where NVML does not say (the settle rule's
        power criterion is then skipped)."""
        try:
            return self._nvml.nvmlDeviceGetEnforcedPowerLimit(self._handle) / 1000
        except self._nvml.NVMLError:
            return None

    def _read_power_w(self):
        """(instant, one-second average) in W, None for what NVML does not give."""
        nvml = self._nvml
        members = {0: "dVal", 1: "uiVal", 2: "ulVal", 3: "ullVal", 4: "sllVal", 5: "siVal"}
        instant = average = None
        try:
            values = nvml.nvmlDeviceGetFieldValues(
                self._handle, [NVML_FI_DEV_POWER_INSTANT, NVML_FI_DEV_POWER_AVERAGE])
            instant, average = (
                getattr(v.value, members[v.valueType]) / 1000
                if v.nvmlReturn == nvml.NVML_SUCCESS and v.valueType in members else None
                for v in values)
        except nvml.NVMLError:
            pass  # a driver without field values
        if average is None:
            try:
                average = nvml.nvmlDeviceGetPowerUsage(self._handle) / 1000
            except nvml.NVMLError:
                pass
        return instant, average

    def temperature_c(self):
        """The GPU's temperature now, from any thread; None where NVML does not give it."""
        return self._read_temperature_c()

    def _read_temperature_c(self):
        nvml = self._nvml
        try:
            return nvml.nvmlDeviceGetTemperature(self._handle, nvml.NVML_TEMPERATURE_GPU)
        except nvml.NVMLError:
            return None

    def _read_event_reasons(self):
        nvml = self._nvml
        # Named "ClocksThrottleReasons" before driver 535's bindings.
        read = getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
            nvml, "nvmlDeviceGetCurrentClocksThrottleReasons")
        try:
            return read(self._handle)
        except nvml.NVMLError:
            return 0

    def _probe_power_source(self):
        """For the JSON context: which power readings this GPU and driver give."""
        instant, average = self._read_power_w()
        limit = self._power_limit_w
        return (f"instant={'field 186' if instant is not None else 'none'} "
                f"average={'yes' if average is not None else 'none'} "
                f"limit_w={'none' if limit is None else f'{limit:g}'}")

    def _run(self):
        while not self._stop.wait(NVML_PERIOD_S):
            with self._lock:
                if not self._active:
                    continue
            try:
                clock = self._nvml.nvmlDeviceGetClockInfo(self._handle, self._nvml.NVML_CLOCK_SM)
            except self._nvml.NVMLError:
                continue  # a missed reading; the next one comes 5 ms later
            instant, average = self._read_power_w()
            reading = Reading(time.monotonic(), clock, instant, average, self._power_limit_w,
                              self._read_event_reasons(), self._read_temperature_c())
            with self._lock:
                if self._active:
                    self._detector.add(reading)
                    self._phase.append(reading)
                    self._phase_reasons |= reading.event_reasons

    def start(self):
        """Starts watching a group: a new settle detection, and a new summary."""
        with self._lock:
            self._active = True
            self._detector = SettleDetector()
            self._phase, self._phase_reasons = [], 0

    def settled(self):
        with self._lock:
            return self._detector.settled

    def restart_summary(self):
        """The summary stop() returns begins now (once settled), not at start()."""
        with self._lock:
            self._phase, self._phase_reasons = [], 0

    def event_reasons_so_far(self):
        with self._lock:
            return self._phase_reasons

    def stop(self):
        """Stops watching; the summary of the readings since restart_summary()."""
        with self._lock:
            self._active = False
            return summarize(self._phase)

    def close(self):
        self._stop.set()
        self._thread.join()


class TemperatureTrend:
    """gemm_bench's TemperatureTrend: fed readings in time order, settled once they span
    WARMUP_WINDOW_S and the newest is less than WARMUP_MAX_RISE_C above the one a window
    earlier."""

    def __init__(self):
        # (time, celsius): the newest reading at least a window old, and every one after it.
        self._readings = collections.deque()

    def add(self, time_s, celsius):
        self._readings.append((time_s, celsius))
        while len(self._readings) > 1 and self._readings[1][0] <= time_s - WARMUP_WINDOW_S:
            self._readings.popleft()

    def settled(self):
        if len(self._readings) < 2:
            return False
        (first_s, first_c), (last_s, last_c) = self._readings[0], self._readings[-1]
        return last_s - first_s >= WARMUP_WINDOW_S and last_c - first_c < WARMUP_MAX_RISE_C


def warm_up_gpu(torch, monitor, min_s, max_s, now=time.monotonic):
    """Busy BF16 GEMMs until the GPU is as warm as gemm_bench leaves it: (seconds, last
    temperature or None, whether it stopped rising)."""
    if min_s <= 0 and max_s <= 0:
        return 0.0, None, False
    size = WARMUP_GEMM_SIZE
    a = torch.randn(size, size, dtype=torch.bfloat16, device="cuda")
    b = torch.randn(size, size, dtype=torch.bfloat16, device="cuda")
    trend = TemperatureTrend()
    temperature, settled = None, False
    start = now()
    while True:
        for _ in range(10):
            torch.matmul(a, b)  # about 15 ms of work on an H100
        torch.cuda.synchronize()
        elapsed = now() - start
        if monitor is not None:
            reading = monitor.temperature_c()
            if reading is not None:
                temperature = reading
                trend.add(elapsed, reading)
        if elapsed < min_s:
            continue
        settled = trend.settled()
        if settled or elapsed >= max_s:
            return elapsed, temperature, settled


def warmup_context(temperature, settled):
    """gemm_bench's gpu_warmup_temperature text."""
    if temperature is None:
        return "unknown (no NVML)"
    return f"{int(temperature)} C, " + ("settled" if settled else "still rising at --max_warmup")


def open_nvml_monitor(torch):
    """(monitor, "ok") for the GPU torch calls device 0, matched by UUID since
    CUDA_VISIBLE_DEVICES renumbers devices; (None, reason) when NVML cannot watch it."""
    try:
        import pynvml
        pynvml.nvmlInit()
        # torch prints the UUID as 8-4-4-4-12 hex; NVML prefixes it with "GPU-".
        wanted = "gpu-" + str(torch.cuda.get_device_properties(0).uuid).lower()
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            uuid = pynvml.nvmlDeviceGetUUID(handle)
            uuid = uuid.decode() if isinstance(uuid, bytes) else uuid
            if uuid.lower() == wanted:
                return NvmlMonitor(pynvml, handle), "ok"
        return None, f"no NVML device has UUID {wanted}"
    except ImportError as error:
        return None, f"pynvml not importable: {error}"
    except Exception as error:  # pynvml.NVMLError and its many subclasses
        return None, f"NVML: {error}"


def block_scales(torch, amax, fmt_max):
    """gemmscope's scale_from_amax with power_of_2 (quant/fp8_scale_policy.h), block by block:
    fmt_max / amax (1 where amax is 0 or not finite, FLT_MAX where the quotient overflows),
    rounded down to a power of two by clearing its mantissa, so that its inverse is exact."""
    scale = torch.where((amax > 0) & torch.isfinite(amax), fmt_max / amax, torch.ones_like(amax))
    scale = torch.where(torch.isfinite(scale), scale, torch.full_like(scale, FP32_MAX))
    return (scale.view(torch.int32) & -0x800000).view(torch.float32)  # & 0xff800000


def expand_blocks(per_block, block_rows, rows, cols):
    """A [row blocks, col blocks] tensor spread over the [rows, cols] elements it scales."""
    return (per_block.repeat_interleave(block_rows, 0)
            .repeat_interleave(SCALE_BLOCK, 1)[:rows, :cols])


def quantize_block(torch, data, scaling, fmt):
    """FP8Block's cast of a row-major [rows, cols] BF16 tensor (quant/fp8_block.h), blocks along
    cols: (E4M3 data, the dequantization scale of each block, [ceil(rows/128) or rows,
    ceil(cols/128)])."""
    dtype_name, fmt_max = FP8[fmt]
    rows, cols = data.shape
    block_rows = SCALE_BLOCK if scaling == "128x128" else 1
    padded_rows = round_up(rows, block_rows)
    padding = (0, round_up(cols, SCALE_BLOCK) - cols, 0, padded_rows - rows)
    magnitude = torch.nn.functional.pad(data.float().abs_(), padding)
    amax = magnitude.view(padded_rows // block_rows, block_rows, -1, SCALE_BLOCK).amax(dim=(1, 3))
    del magnitude
    scale = block_scales(torch, amax, fmt_max)
    quantized = (data.float().mul_(expand_blocks(scale, block_rows, rows, cols))
                 .clamp_(-fmt_max, fmt_max).to(getattr(torch, dtype_name)))
    return quantized, scale.reciprocal()


def block_scale_tensor(torch, scale_inv, scaling):
    """The scale tensor torch.nn.functional.scaled_mm takes (Operand.scale_layout): 1x128 with
    the rows fastest; 128x128 with the block columns fastest, padded to a multiple of 4 with
    1.0 as gemmscope pads them (quant/fp8_scale_layout.h)."""
    if scaling == "1x128":
        return scale_inv.t().contiguous().t()
    row_blocks, col_blocks = scale_inv.shape
    padded = torch.ones(row_blocks, round_up(col_blocks, SCALE_ALIGNMENT), dtype=torch.float32,
                        device=scale_inv.device)
    padded[:, :col_blocks] = scale_inv
    return padded.t()


def prepare_operand(torch, case, spec, source):
    """One operand made from `source` (its role's BF16 tensor), quantized once outside timing:
    (the tensor the GEMM reads, its dequantization scale or None for BF16, a function giving the
    values the GEMM multiplies, as it reads them, for the reference check; None where there is
    none)."""
    data = source.transpose(-2, -1).contiguous() if spec.transposed_copy else source

    def view(tensor):
        return tensor.transpose(-2, -1) if spec.read_transposed else tensor

    if spec.fmt == "bf16":
        return view(data), None, lambda: view(data)
    dtype_name, fmt_max = FP8[spec.fmt]
    if spec.scaling == "tensor":
        # Current scaling: this tensor's amax maps onto the format's largest value; the cast
        # saturates, as TransformerEngine's does (torch's own cast would overflow to NaN).
        quant_scale = fmt_max / source.abs().amax().float()
        scaled = data.float().mul_(quant_scale).clamp_(-fmt_max, fmt_max)
        quantized = scaled.to(getattr(torch, dtype_name))
        del scaled
        return view(quantized), quant_scale.reciprocal(), None  # _scaled_mm's scales dequantize
    quantized, scale_inv = quantize_block(torch, data, spec.scaling, spec.fmt)
    scale = block_scale_tensor(torch, scale_inv, spec.scaling)
    if (tuple(scale.shape), tuple(scale.stride())) != spec.scale_layout(case):
        raise ValueError(f"{spec.role}'s scales are {tuple(scale.shape)} strides "
                         f"{tuple(scale.stride())}, expected {spec.scale_layout(case)}")

    def dequantized():
        rows, cols = quantized.shape
        block_rows = SCALE_BLOCK if spec.scaling == "128x128" else 1
        return view(quantized.float().mul_(expand_blocks(scale_inv, block_rows, rows, cols)))

    return view(quantized), scale, dequantized


def reference_error(torch, case, out, a, b):
    """The relative error (Frobenius norm) of `out` against the FP32 product of `a` and `b` (the
    values the GEMM multiplies, as it reads them); expert by expert in a grouped case."""
    if not case.grouped:
        reference = a.float() @ b.float()
        return float(torch.linalg.vector_norm(out.float() - reference)
                     / torch.linalg.vector_norm(reference))
    error = total = 0.0
    start = 0
    for group, rows in enumerate(case.group_rows):
        end = start + rows
        if b.dim() == 3:  # rows grouped: each expert's rows times its weight
            reference, got = a[start:end].float() @ b[group].float(), out[start:end]
        else:  # K-grouped: each expert's dW sums over its own rows
            reference, got = a[:, start:end].float() @ b[start:end].float(), out[group]
        error += float(torch.linalg.vector_norm(got.float() - reference)) ** 2
        total += float(torch.linalg.vector_norm(reference)) ** 2
        start = end
    return math.sqrt(error / total) if total > 0 else math.inf


def gemm_call(torch, case, plan, a, b, scale_a, scale_b):
    """The case's GEMM as a closure; ValueError where this PyTorch lacks the call."""
    if plan.kind == GROUPED_MM:
        if not hasattr(torch, "_grouped_mm"):
            raise ValueError(f"PyTorch {torch.__version__} has no torch._grouped_mm")
        offs = torch.tensor(list(itertools.accumulate(case.group_rows)), dtype=torch.int32,
                            device=a.device)
        return lambda: torch._grouped_mm(a, b, offs=offs)
    if plan.kind == BLOCK_SCALED_MM:
        functional = torch.nn.functional
        if not hasattr(functional, "scaled_mm"):
            raise ValueError(f"PyTorch {torch.__version__} has no torch.nn.functional.scaled_mm")
        recipe = {"1x128": functional.ScalingType.BlockWise1x128,
                  "128x128": functional.ScalingType.BlockWise128x128}
        recipe_a, recipe_b = recipe[plan.a.scaling], recipe[plan.b.scaling]
        return lambda: functional.scaled_mm(a, b, scale_a, recipe_a, scale_b, recipe_b,
                                            output_dtype=torch.bfloat16,
                                            use_fast_accum=plan.fast_accum)
    if plan.kind == SCALED_MM:
        return lambda: torch._scaled_mm(a, b, scale_a, scale_b, out_dtype=torch.bfloat16,
                                        use_fast_accum=plan.fast_accum)
    return lambda: torch.matmul(a, b)


def build_gemm(torch, case, plan, device="cuda"):
    """Makes the case's operands (random N(0, 1) BF16, fixed seed per tensor; FP8 copies
    quantized once, outside timing) on `device` and returns the GEMM as a closure. ValueError for
    a case torch cannot take (refusal) or whose first result is wrong."""
    reason = refusal(case, plan)
    if reason:
        raise ValueError(reason)
    sources = {}
    for role in (plan.a.role, plan.b.role):
        generator = torch.Generator(device=device).manual_seed(SEEDS[role])
        sources[role] = torch.randn(*case.role_shape(role), generator=generator,
                                    dtype=torch.bfloat16, device=device)
    a, scale_a, values_a = prepare_operand(torch, case, plan.a, sources[plan.a.role])
    b, scale_b, values_b = prepare_operand(torch, case, plan.b, sources[plan.b.role])
    del sources
    gemm = gemm_call(torch, case, plan, a, b, scale_a, scale_b)
    # One untimed call: an unsupported combination raises here, and a wrong plan shows.
    out = gemm()
    if tuple(out.shape) != plan.out_shape(case) or out.dtype != torch.bfloat16:
        raise ValueError(f"output {tuple(out.shape)} {out.dtype}, expected "
                         f"{plan.out_shape(case)} bfloat16")
    if not bool(torch.isfinite(out).all()):
        raise ValueError("non-finite values in the output")
    # The calls added after torch.matmul and tensorwise torch._scaled_mm (whose layouts the
    # kernel lists showed to be gemm_bench's) are checked against the reference.
    if plan.kind in (BLOCK_SCALED_MM, GROUPED_MM):
        error = reference_error(torch, case, out, values_a(), values_b())
        if not error <= REFERENCE_TOLERANCE:
            raise ValueError(f"relative error {error:.2e} against an FP32 product of the same "
                             f"operands, above {REFERENCE_TOLERANCE:g}: a layout is wrong")
    return gemm


class RoundRobinBatch:
    """Runs `rounds` rounds of a group per call — in each, one sample of every member in turn:
    L2 flush, start event, GEMM, stop event — and returns each member's GPU times in µs.

    Like gemm_bench, it keeps the GPU busy from one batch to the next: each call enqueues the
    next batch before it waits for the one already running, so the GPU never waits for the host
    and never idles between samples (idle time lowers the average power the limiter regulates,
    so a GPU that idles between samples clocks higher). The flush is outside the events; the
    host enqueues a sample (tens of µs) far faster than the GPU runs one (hundreds of µs), so no
    launch latency lands between the events once the first batch is under way, and that first
    batch falls in the untimed settling phase."""

    def __init__(self, torch, gemms, flush_buffer, rounds):
        self._gemms = gemms
        self._flush = flush_buffer
        self._event_sets = [[[(torch.cuda.Event(enable_timing=True),
                               torch.cuda.Event(enable_timing=True)) for _ in gemms]
                             for _ in range(rounds)] for _ in range(2)]
        self._running = None  # index of the event set whose batch is on the GPU

    def _enqueue(self, events):
        for round_events in events:
            for gemm, (start, stop) in zip(self._gemms, round_events):
                self._flush.zero_()
                start.record()
                gemm()
                stop.record()

    def __call__(self):
        if self._running is None:
            self._running = 0
            self._enqueue(self._event_sets[0])
        finished = self._event_sets[self._running]
        self._running ^= 1
        self._enqueue(self._event_sets[self._running])
        finished[-1][-1][1].synchronize()
        return [[start.elapsed_time(stop) * 1000 for start, stop in
                 (round_events[member] for round_events in finished)]
                for member in range(len(self._gemms))]


def group_cases(cases):
    """gemm_bench's groups among the peer's cases: all dense cases of one precision, and apart
    from them all its grouped (expert) cases, in the order of their first case; each member with
    its family index (its place among all cases)."""
    groups = {}
    for family_index, case in enumerate(cases):
        groups.setdefault(case.group_key, []).append((family_index, case))
    return list(groups.values())


def first_line(error):
    text = str(error).strip()
    return text.splitlines()[0] if text else repr(error)


def prepare_group(torch, members):
    """Builds the GEMMs of a group's members, in order: (prepared [(family_index, case, gemm)],
    failed [(family_index, case, message)], rest). When memory runs out after the first member,
    the group is what fits and `rest` are left for further groups, as gemm_bench does; a member
    that fails otherwise (unsupported by torch on this GPU: RuntimeError or ValueError; out of
    memory alone) is reported failed and the group goes on without it."""
    prepared, failed = [], []
    for position, (family_index, case) in enumerate(members):
        try:
            prepared.append((family_index, case, build_gemm(torch, case, plan_for(case))))
        except torch.cuda.OutOfMemoryError as error:
            if prepared:
                return prepared, failed, members[position:]
            failed.append((family_index, case, f"does not fit in GPU memory: {first_line(error)}"))
        except (RuntimeError, ValueError, TypeError) as error:
            failed.append((family_index, case, first_line(error)))
    return prepared, failed, []


def counters(case, samples_us, run):
    mean, noise = mean_and_noise(samples_us)
    values = {
        "TFLOPS": case.flops / (mean * 1e-6) / 1e12,
        "M": case.m, "K": case.k, "N": case.n,
        **({"G": case.groups, "padded_rows": 0} if case.grouped else {}),  # as gemm_bench's
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


def label(samples_us, run, settings):
    """gemm_bench's notes on a measurement, in its label's words: clock slowdowns seen while
    sampling, settling given up, the noise target missed at --max_time."""
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
    return " ".join(f"[{note}]" for note in notes)


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
                    settings):
    mean = mean_and_noise(samples_us)[0]
    entry = run_entry(case, family_index, repetitions, repetition_index)
    # One "iteration" whose time is the samples' mean, as gemm_bench's manual time is per
    # iteration.
    entry.update({"iterations": 1, "real_time": mean, "cpu_time": mean, "time_unit": "us"})
    note = label(samples_us, run, settings)
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


def time_group(torch, prepared, flush_buffer, monitor, settings, args):
    """Every repetition of one prepared group (each: settling, then sampling round-robin), as
    Google Benchmark entries by family index, printed as they come."""
    gemms = [gemm for _, _, gemm in prepared]
    # Whole rounds only, so that every batch keeps the round-robin order.
    batch = RoundRobinBatch(torch, gemms, flush_buffer, math.ceil(args.batch / len(gemms)))
    entries = {family_index: [] for family_index, _, _ in prepared}
    for repetition in range(args.repetitions):
        try:
            run = run_group(batch, monitor, settings)
        except RuntimeError as error:
            # A GEMM that ran once when built failed while timed (a CUDA error): like
            # gemm_bench, every member of the group fails; the same work would fail again.
            if monitor is not None:
                monitor.stop()
            for family_index, case, _ in prepared:
                entries[family_index].extend(
                    error_entry(case, family_index, args.repetitions, r, first_line(error))
                    for r in range(repetition, args.repetitions))
                print(table_row(entries[family_index][-1]), flush=True)
            break
        for (family_index, case, _), samples_us in zip(prepared, run.samples_us):
            entries[family_index].append(iteration_entry(
                case, family_index, args.repetitions, repetition, samples_us, run, settings))
            print(table_row(entries[family_index][-1]), flush=True)
    return entries


def kernel_list_text(torch, gemm, calls=5):
    """The GPU activities (kernels, memsets) that one call of `gemm` runs, in the order they
    first ran, each with its median duration, as gemm_bench's --list_kernels prints them: what
    torch.matmul and torch._scaled_mm ran, to set beside gemm_bench's cuBLASLt choice. From
    torch.profiler (CUPTI underneath, as gemm_bench's kernel timer); outside any timing."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as profiler:
        for _ in range(calls):
            gemm()
        torch.cuda.synchronize()
    durations = collections.defaultdict(list)  # name -> µs, in order of first appearance
    for event in sorted(profiler.events(), key=lambda e: e.time_range.start):
        if str(event.device_type).endswith("CUDA"):
            durations[event.name].append(event.time_range.elapsed_us())
    parts = []
    for name, values in durations.items():
        per_call = "" if len(values) == calls else f" ({len(values)} in {calls} calls)"
        parts.append(f"{name} {statistics.median(values):.1f} us{per_call}")
    return ", ".join(parts) if parts else "none recorded"


def measure_group(torch, members, flush_buffer, monitor, settings, args):
    """Prepares as many of `members` as fit and times them as one group: (entries by family
    index, the members left for a further group). The group's tensors die with this frame."""
    prepared, failed, rest = prepare_group(torch, members)
    if args.list_kernels:
        for _, case, gemm in prepared:
            print(f"kernels of {case.name}: {kernel_list_text(torch, gemm)}", file=sys.stderr,
                  flush=True)
    entries = {}
    for family_index, case, message in failed:
        entries[family_index] = [error_entry(case, family_index, args.repetitions, r, message)
                                 for r in range(args.repetitions)]
        print(table_row(entries[family_index][0]), flush=True)
    if prepared:
        entries.update(time_group(torch, prepared, flush_buffer, monitor, settings, args))
    return entries, rest


def report_entries(cases, results):
    """Google Benchmark's order: each case's repetitions, then their aggregates, case by case."""
    entries = []
    for family_index in range(len(cases)):
        case_entries = results.get(family_index, [])
        entries.extend(case_entries)
        entries.extend(aggregate_entries([e for e in case_entries if not e.get("error_occurred")]))
    return entries


def run(cases, args):
    import torch  # here, so that --dry-run and the pure-Python parts need no torch

    if not torch.cuda.is_available():
        sys.exit("torch_peer: no CUDA device visible to torch")
    properties = torch.cuda.get_device_properties(0)
    monitor, nvml_status = open_nvml_monitor(torch)
    if monitor is None:
        print(f"torch_peer: {nvml_status}: settling for a fixed {BLIND_SETTLE_S:g} s, "
              "no clock counters", file=sys.stderr)
    settings = Settings(args.max_settle, args.max_noise, args.min_samples, args.min_time,
                        args.min_time_capped, args.max_time)
    flush_buffer = torch.empty(2 * properties.L2_cache_size, dtype=torch.uint8, device="cuda")
    warmup_s, warmup_temperature, warmup_settled = warm_up_gpu(torch, monitor, args.gpu_warmup,
                                                               args.max_warmup)
    torch.cuda.empty_cache()
    print(f"torch_peer: warmed the GPU up for {warmup_s:.1f} s "
          f"({warmup_context(warmup_temperature, warmup_settled)})", file=sys.stderr, flush=True)
    context = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host_name": socket.gethostname(),
        "executable": "torch_peer.py",
        "num_cpus": os.cpu_count(),
        "mhz_per_cpu": cpu_mhz(),
        "cpu_scaling_enabled": False,
        "caches": [],
        "load_avg": list(os.getloadavg()),
        "library_build_type": "release",
        "device_name": torch.cuda.get_device_name(0),
        "compute_capability": "{}.{}".format(*torch.cuda.get_device_capability(0)),
        "torch_version": torch.__version__,
        "cuda_version": str(torch.version.cuda),
        "blas_library": str(torch.backends.cuda.preferred_blas_library()),
        "peer": "torch",
        "nvml": nvml_status,
        "power_source": monitor.power_source if monitor is not None else "none",
        "l2_flush_bytes": str(flush_buffer.numel()),
        "gpu_warmup_s": f"{warmup_s:f}",
        "gpu_warmup_temperature": warmup_context(warmup_temperature, warmup_settled),
        "timing": (f"groups=precision round_robin max_settle={args.max_settle} "
                   f"settle_windows={SETTLE_WINDOWS}x{SETTLE_WINDOW_S * 1000:g}ms "
                   f"clock_band_pct={SETTLE_CLOCK_BAND_PCT:g} "
                   f"power_tolerance_pct={SETTLE_POWER_TOLERANCE_PCT:g} "
                   f"max_noise={args.max_noise} min_samples={args.min_samples} "
                   f"min_time={args.min_time} min_time_capped={args.min_time_capped} "
                   f"max_time={args.max_time} batch={args.batch}"),
    }
    if any(case.grouped for case in cases):
        # The rows per expert timed, under gemm_bench's key, and where they came from.
        context["expert_rows"] = ",".join(map(str, args.expert_rows))
        context["expert_rows_from"] = args.expert_rows_from
    results = {}
    print(TABLE_HEADER, flush=True)
    for members in group_cases(cases):
        while members:
            entries, members = measure_group(torch, members, flush_buffer, monitor, settings,
                                             args)
            # The group's tensors died with measure_group's frame; give their memory back for
            # the next group.
            torch.cuda.empty_cache()
            results.update(entries)
            write_json(args.out, context, report_entries(cases, results))
    if monitor is not None:
        monitor.close()
    print(f"torch_peer: wrote {args.out}")


def dry_run(cases, args):
    groups = group_cases(cases)
    for number, members in enumerate(groups, 1):
        print(f"group {number}: {members[0][1].group_key}, {len(members)} case(s), prepared "
              "together and timed round-robin (split if they do not fit in GPU memory)")
        for _, case in members:
            plan = plan_for(case)
            print(f"  {case.name}")
            if case.grouped:
                print(f"    rows per expert ({case.groups} experts, {case.routed_rows} rows): "
                      f"{rows_text(case.group_rows)}")
                print(f"    offs: the rows' running sums, int32 [{case.groups}], last "
                      f"{case.routed_rows}")
            print(f"    a: {plan.a.describe(case)}")
            print(f"    b: {plan.b.describe(case)}")
            if plan.kind == SCALED_MM:
                print("    scale_a, scale_b: FP32 scalars on the GPU, amax/max of each format "
                      "(dequantization)")
            elif plan.kind == BLOCK_SCALED_MM:
                print("    scale_a, scale_b: FP32 dequantization scales per block, powers of 2")
            shape = ", ".join(map(str, plan.out_shape(case)))
            print(f"    {plan.call()} -> [{shape}] BF16, {case.flops / 1e9:.1f} GFLOP")
            reason = refusal(case, plan)
            if reason:
                print(f"    refused: {reason}")
    print(f"torch_peer: {len(cases)} cases in {len(groups)} group(s), {args.repetitions} "
          f"repetition(s) of each group, would write {args.out}")


def list_case_lines(args, bench_flags):
    if args.cases:
        with open(args.cases) as f:
            return f.read().splitlines()
    command = [args.gemm_bench, "--benchmark_list_tests", *bench_flags]
    try:
        listed = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        sys.exit(f"torch_peer: cannot run {args.gemm_bench} ({error}); build it or pass --cases")
    if listed.returncode != 0:
        sys.exit(f"torch_peer: {' '.join(command)} exited {listed.returncode}:\n"
                 f"{listed.stderr.strip()}")
    return listed.stdout.splitlines()


def parse_args(argv):
    # Everything after "--" goes to gemm_bench --benchmark_list_tests (model flags).
    bench_flags = []
    if "--" in argv:
        split = argv.index("--")
        argv, bench_flags = argv[:split], argv[split + 1:]
    parser = argparse.ArgumentParser(
        prog="torch_peer.py", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gemm_bench", default="build/bench/gemm_bench",
                        help="gemm_bench whose --benchmark_list_tests names the cases "
                             "(default %(default)s)")
    parser.add_argument("--cases", help="read case names from this file instead, one a line")
    parser.add_argument("--filter", help="keep only cases whose name matches this regex")
    rows = parser.add_mutually_exclusive_group()
    rows.add_argument("--context_from", metavar="FILE",
                      help="grouped cases: take the rows per expert from this gemm_bench JSON's "
                           "context (expert_rows), a run of the same model flags")
    rows.add_argument("--expert_rows", metavar="LIST",
                      help="grouped cases: the rows per expert of the rank timed, comma-separated "
                           "(gemm_bench's context expert_rows)")
    parser.add_argument("--out", default="torch.json",
                        help="Google Benchmark JSON to write (default %(default)s)")
    parser.add_argument("--repetitions", type=int, default=1,
                        help="runs of each group (settling and sampling); 2 or more adds "
                             "median/mean/stddev/cv aggregates")
    parser.add_argument("--gpu_warmup", type=float, default=3.0,
                        help="busy GEMMs before the first group for at least this many seconds, "
                             "then until the GPU's temperature stops rising, as gemm_bench does "
                             "(default 3)")
    parser.add_argument("--max_warmup", type=float, default=60.0,
                        help="... but no longer than this (default 60; 0: exactly --gpu_warmup)")
    parser.add_argument("--max_settle", type=float, default=5.0,
                        help="seconds of settling at most; then sampling starts anyway, counter "
                             "settled=0 (default 5)")
    parser.add_argument("--max_noise", type=float, default=0.5,
                        help="sample until every case's mean's 95%% interval half-width is at most "
                             "this percent of it (default 0.5)")
    parser.add_argument("--min_samples", type=int, default=10,
                        help="samples per case at least (default 10)")
    parser.add_argument("--min_time", type=float, default=1.0,
                        help="seconds of sampling at least (default 1)")
    parser.add_argument("--min_time_capped", type=float, default=4.0,
                        help="seconds of sampling at least when NVML reports a power or "
                             "thermal limiter while sampling (default 4)")
    parser.add_argument("--max_time", type=float, default=8.0,
                        help="seconds of sampling a group at most, even above --max_noise; the "
                             "label says so (default 8)")
    parser.add_argument("--batch", type=int, default=8,
                        help="samples enqueued before each synchronization, rounded up to "
                             "whole rounds of the group (default 8)")
    parser.add_argument("--list_kernels", action="store_true",
                        help="print the kernels of each case (name, median duration) to stderr, "
                             "as gemm_bench --list_kernels does")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the groups and each case's operands and call; torch is not "
                             "imported")
    args = parser.parse_args(argv)
    if args.cases and bench_flags:
        parser.error("flags after -- go to gemm_bench, which --cases does not run")
    if args.repetitions < 1 or args.batch < 1:
        parser.error("--repetitions and --batch must be at least 1")
    if args.min_samples < BATCHES:
        parser.error(f"--min_samples must be at least {BATCHES} (the mean's 95% interval comes "
                     f"from {BATCHES} batch means)")
    if min(args.max_noise, args.max_time) <= 0 or min(args.max_settle, args.min_time,
                                                      args.min_time_capped, args.gpu_warmup,
                                                      args.max_warmup) < 0:
        parser.error("--max_noise and --max_time must be positive, --max_settle, --min_time, "
                     "--min_time_capped, --gpu_warmup and --max_warmup not negative")
    for name in ("min_time", "min_time_capped"):
        if getattr(args, name) > args.max_time:
            parser.error(f"--{name} ({getattr(args, name)} s) is above --max_time "
                         f"({args.max_time} s)")
    if args.filter:
        try:
            re.compile(args.filter)
        except re.error as error:
            parser.error(f"--filter: {error}")
    if args.expert_rows is not None:
        try:
            args.expert_rows = parse_expert_rows(args.expert_rows)
        except ValueError as error:
            parser.error(f"--expert_rows: {error}")
        args.expert_rows_from = "--expert_rows"
    elif args.context_from:
        args.expert_rows = expert_rows_from_context(args.context_from, bench_flags)
        args.expert_rows_from = args.context_from
    else:
        args.expert_rows_from = None
    return args, bench_flags


def main(argv):
    args, bench_flags = parse_args(argv)
    lines = list_case_lines(args, bench_flags)
    left_out = left_out_grouped_fp8(lines, args.filter)
    if left_out:
        print(f"torch_peer: {left_out} grouped FP8 case(s) left out: torch._scaled_grouped_mm "
              "has neither tensorwise nor 1x128/128x128 scaling (the script's docstring says "
              "more)", file=sys.stderr)
    cases = select_cases(lines, args.filter)
    grouped = sum(1 for case in cases if case.grouped)
    if grouped and args.expert_rows is None:
        print(f"torch_peer: {grouped} grouped case(s) left out: they need gemm_bench's rows per "
              "expert, which --benchmark_list_tests does not print; pass --context_from=FILE (a "
              "gemm_bench JSON of the same model flags) or --expert_rows=LIST", file=sys.stderr)
        cases = [case for case in cases if not case.grouped]
    try:
        cases = attach_group_rows(cases, args.expert_rows)
    except ValueError as error:
        sys.exit(f"torch_peer: {error}")
    if not cases:
        sys.exit("torch_peer: no BF16 native, FP8Current prequant or FP8Block prequant GEMM "
                 "case matched")
    if args.dry_run:
        dry_run(cases, args)
    else:
        run(cases, args)


if __name__ == "__main__":
    main(sys.argv[1:])
