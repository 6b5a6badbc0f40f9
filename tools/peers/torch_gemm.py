"""The torch GEMM peer: which of gemm_bench's cases torch times, with which call, and the
operands each pass multiplies, made and checked as gemm_bench makes them.

- BF16/{pass}/{op}/native/M:/K:/N: -- torch.matmul in the layouts a framework launches (Fprop TN,
  Dgrad NN, Wgrad NT).
- FP8Current/{pass}/{op}/prequant/M:/K:/N: -- torch._scaled_mm with one FP32 scale per tensor,
  E4M3 data and E5M2 gradients, TN only (transposed copies made outside timing), fast
  accumulation in Fprop.
- FP8Block/{pass}/{op}/prequant/M:/K:/N: -- torch.nn.functional.scaled_mm with
  ScalingType.BlockWise1x128 and BlockWise128x128 (as in PyTorch 2.11): gemmscope's recipe
  (bench/recipes/fp8_block_recipe.cpp, quant/fp8/block.h): E4M3 everywhere, power-of-2 FP32
  scales, X and dY 1x128 along each copy's contraction dimension, W 128x128; 1x128 x 128x128 in
  Fprop and Dgrad, 1x128 x 1x128 in Wgrad; no fast accumulation. PyTorch runs these through
  cuBLASLt's VEC128_32F and BLK128x128_32F scale modes (aten/src/ATen/native/cuda/ScaledBlas.cpp,
  sm_90 and cuBLASLt >= 12.9 only), the library gemm_bench's cublaslt provider runs: this pair
  checks gemm_bench's harness (operands, scale layouts, timing), it is not a faster kernel.
  torch lays a 1x128 operand's scales out with leading dimension `rows` where cuBLASLt reads
  roundup(rows, 4), so a case with such an operand's rows not a multiple of 4 is refused.
- FP8Rowwise/{pass}/{op}/prequant/M:/K:/N: -- torch._scaled_mm with rowwise scales, scale_a
  [M, 1] and scale_b [1, N] (cuBLASLt's OUTER_VEC_32F on sm_90 with cuBLAS 12.9+): gemmscope's
  recipe (bench/recipes/fp8_rowwise_recipe.cpp, quant/fp8/rowwise.h), torchao's "rowwise": E4M3
  everywhere, one power-of-2 FP32 scale per row of each stored copy along its contraction
  dimension, fast accumulation in Fprop only.
- FP8RowwiseBF16Wgrad/{pass}/{op}/prequant/M:/K:/N: -- torchao's "rowwise_with_gw_hp": Fprop as
  FP8Rowwise's; Dgrad dY per token by W's transposed copy with one power-of-2 scale for the
  whole tensor (torchao rounds it too: round_scales_to_power_of_2 holds for every cast of the
  recipe), handed to torch._scaled_mm as that scale repeated over a [1, N] vector, so the call
  stays rowwise; Wgrad in BF16, BF16's torch.matmul.
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
- FP8Rowwise/{pass}/{expert_up|expert_down}/prequant/G:/M:/K:/N: -- torch._scaled_grouped_mm
  (aten/src/ATen/native/cuda/GroupedBlas.cpp; on sm_90 a CUTLASS pointer-array kernel,
  ScaledGroupMM.cu, E4M3 by E4M3, BF16 out, each group's FP32 row and column scales applied in
  the epilogue), in the same layouts as BF16's but with the transposed copies FP8 needs (a
  row-major, b column-major), each expert's tensors quantized as tensors of their own, as
  gemm_bench's grouped cast does (every expert its own scales): Fprop x [R', in] per token (scale_a [R']) by
  w [G, out, in].transpose(-2, -1) per expert and output row (scale_b [G, out]); Dgrad dy
  [R', out] per token by the copy Wᵀ [G, in, out].transpose(-2, -1) per expert and input column
  (scale_b [G, in]); Wgrad the copies dYᵀ [out, R'] by Xᵀ [in, R'].t(), each row scaled over its
  expert's tokens alone (scale_a [G·out], scale_b [G·in], expert-major, as the kernel reads them
  at scale + g·out and scale + g·in) -> dW [G, out, in]. Fast accumulation in Fprop only.
  Each expert's rows are padded with zero rows to a multiple of 16 (R' rows in all), as
  gemm_bench pads FP8 experts (TransformerEngine's get_align_size_for_quantization) and as the
  K-grouped Wgrad needs (16-byte TMA rows of E4M3 along K, GroupMMCommon.cuh); offs are the
  padded rows' running sums; the padding is timed, not counted in TFLOPS (counter padded_rows).
  in and out must be multiples of 16 (GroupedBlas.cpp), G at most 1023.
  FP8RowwiseBF16Wgrad's expert cases run the same way: Fprop as FP8Rowwise's, Dgrad with each
  expert's one W scale repeated over scale_b [G, in], Wgrad torch._grouped_mm in BF16 over the
  same padded rows.
  The scales are gemmscope's (block_scales): the amax of each line onto E4M3's 448, rounded
  down to a power of 2; for every line with a non-zero amax that is torchao's
  2^floor(log2(448 / max(amax, 1e-12))) (float8_utils.py), bit for bit; an all-zero line (a
  padding row) gets 1 where torchao gets 2^48, and both store zeros.

Left out, and why (PyTorch 2.11): FP8Current's and FP8Block's grouped cases.
torch._scaled_grouped_mm takes rowwise FP32 scales on sm_90 (a CUTLASS kernel, E4M3 by E4M3
only) and MXFP8 on sm_100: neither is FP8Current's recipe (each expert's tensors with one
scale, E5M2 gradients) nor FP8Block's (1x128 and 128x128 blocks). Each expert's tensorwise
scale spread over rowwise vectors would give Fprop the same arithmetic through another kernel,
but Dgrad and Wgrad's E5M2 gradients are refused, so those grouped FP8 cases are left out.
FP8Delayed's prequant GEMM is FP8Current's; autocast cases time gemmscope's own quantization
kernels; MXFP8 and NVFP4 need Blackwell.

Every FP8Block, FP8Rowwise(BF16Wgrad) and grouped case is checked once, outside timing, against
an FP32 product of the same (dequantized) operands, over the routed rows (padding dropped): a
relative error above REFERENCE_TOLERANCE means a wrong layout and fails the case.

One difference remains: gemm_bench's FP8Current and FP8Block groups also hold their `autocast`
cases, which a peer cannot run, so the peer's FP8 groups are a different mix and may hold a
different clock.
"""

import dataclasses
import math
from dataclasses import dataclass

from .cases import group_cases, group_heading, rows_text

# FP8 formats: torch dtype name and largest finite value. Scales map amax onto that value.
FP8 = {"e4m3": ("float8_e4m3fn", 448.0), "e5m2": ("float8_e5m2", 57344.0)}
# One fixed seed per training tensor (as gemm_bench seeds per role): every precision of a case
# multiplies the same data.
SEEDS = {"x": 0x5eed0001, "w": 0x5eed0002, "dy": 0x5eed0003}
# FP8Block's blocks (quant/fp8/scale_layout.h): 128 elements along the contraction dimension,
# 128x128 for weights; cuBLASLt pads the rows of a 1x128 scale tensor, and the block columns of
# a 128x128 one, to a multiple of 4.
SCALE_BLOCK = 128
SCALE_ALIGNMENT = 4
FP32_MAX = 3.4028234663852886e38
# torch._grouped_mm (aten/src/ATen/native/cuda/GroupMM.cu, GroupedMMUtils.h): fewer than 1024
# groups; every operand's leading stride a multiple of 16 bytes (8 BF16 elements).
GROUPED_MAX_GROUPS = 1023
GROUPED_ALIGNMENT = 8
# torch._scaled_mm: K and N multiples of 16. torch._scaled_grouped_mm (GroupedBlas.cpp): mat_a's
# last and mat_b's last two dimensions multiples of 16, fewer than 1024 groups (ScaledGroupMM.cu).
SCALED_MM_ALIGNMENT = 16
# Each expert's rows padded to a multiple of this in the FP8 recipes' expert cases, as gemm_bench
# pads them (bench/recipes/fp8_recipe.h, after TransformerEngine); torch._scaled_grouped_mm's
# K-grouped (Wgrad) GEMM needs it too: each expert's E4M3 rows along K start on 16 bytes.
FP8_EXPERT_ROW_ALIGNMENT = 16
# The largest relative error (Frobenius norm) against an FP32 product of the same operands that a
# checked case may have: BF16 rounding of the output gives about 0.1%; a scale or row misplaced
# by a wrong layout gives far more.
REFERENCE_TOLERANCE = 0.01


def ceil_div(value, divisor):
    return -(-value // divisor)


def round_up(value, multiple):
    return ceil_div(value, multiple) * multiple


def expert_row_alignment(case):
    """The multiple each expert's rows are padded to: FP8_EXPERT_ROW_ALIGNMENT in an FP8
    recipe's expert cases, as gemm_bench pads them; none in BF16's, as gemm_bench leaves them."""
    return 1 if case.precision == "BF16" else FP8_EXPERT_ROW_ALIGNMENT


def expert_layout(group_rows, alignment):
    """Each expert's first row once every expert's rows are rounded up to `alignment`, and the
    padded rows in all: ((start, ...), total)."""
    starts, total = [], 0
    for rows in group_rows:
        starts.append(total)
        total += round_up(rows, alignment)
    return tuple(starts), total


def case_layout(case):
    """expert_layout of a grouped case's rows, padded as its precision pads them."""
    return expert_layout(case.group_rows, expert_row_alignment(case))


def padding_rows(case):
    """The rows a grouped case's padding adds to its routed rows; 0 for a dense case."""
    return case_layout(case)[1] - case.routed_rows if case.grouped else 0


def with_expert_padding(case):
    """`case` with its padding_rows as its counter padded_rows, as gemm_bench reports its own."""
    return dataclasses.replace(case, padded_rows=padding_rows(case))


def stored_role_shape(case, role):
    """case.role_shape with a grouped case's routed rows (X's and dY's) padded per expert."""
    shape = case.role_shape(role)
    if role == "w" or not padding_rows(case):
        return shape
    return (shape[0] + padding_rows(case),) + shape[1:]


# One FP32 scale a stored row, handed to a rowwise-scaled call: "row" from the row's own amax;
# "tensor_rows" from the whole tensor's (each expert's), the same for every row.
ROW_SCALINGS = ("row", "tensor_rows")


@dataclass(frozen=True)
class Operand:
    role: str  # x, w or dy: the training tensor it is made from
    transposed_copy: bool  # a contiguous transposed ("columnwise") copy, made outside timing
    fmt: str  # bf16, e4m3 or e5m2
    read_transposed: bool  # the GEMM reads it through .t() (.transpose(-2, -1)): a free view
    scaling: str = ""  # FP8: "tensor", FP8Block's "1x128" or "128x128" blocks, or ROW_SCALINGS

    def stored_shape(self, case):
        shape = stored_role_shape(case, self.role)
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

    def scaled_per_expert_cols(self, case):
        """Whether its stored cols are the routed rows of all experts (Wgrad's copies of X and
        dY in a grouped case): each expert's columns are then scaled apart, every row once per
        expert."""
        return case.grouped and self.role != "w" and self.transposed_copy

    def row_scale_shape(self, case):
        """The shape of the contiguous FP32 scale tensor torch takes for a row-scaled operand
        (one scale a stored row), or None: torch._scaled_mm's [M, 1] for a, [1, N] for b (read
        transposed); torch._scaled_grouped_mm's [R'] for the routed rows, [G, rows] for stacked
        weights, [G·rows] for a K-grouped copy (expert-major: expert g's at g·rows)."""
        if self.scaling not in ROW_SCALINGS:
            return None
        stored = self.stored_shape(case)
        if not case.grouped:
            return (1, stored[0]) if self.read_transposed else (stored[0], 1)
        if len(stored) == 3:
            return stored[:2]
        if self.scaled_per_expert_cols(case):
            return (case.groups * stored[0],)
        return (stored[0],)

    def row_scale_text(self, case):
        """--dry-run's words on a row-scaled operand's scales."""
        shape = ", ".join(map(str, self.row_scale_shape(case)))
        if self.scaling == "tensor_rows":
            per = "one for each expert's tensor" if case.grouped else "one for the tensor"
            return f"{per}, repeated per row: scales FP32 [{shape}]"
        if self.scaled_per_expert_cols(case):
            return f"per row of each expert's columns: scales FP32 [{shape}]"
        return f"per row: scales FP32 [{shape}]"

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
        elif self.scaling in ROW_SCALINGS:
            text += ", " + self.row_scale_text(case)
        return text


MATMUL, SCALED_MM, BLOCK_SCALED_MM, GROUPED_MM, SCALED_GROUPED_MM = (
    "matmul", "scaled_mm", "block", "grouped", "scaled_grouped")


@dataclass(frozen=True)
class Plan:
    """out = a @ b. The orientation is gemm_bench's: PyTorch, like gemm_bench's GemmPlan, hands
    cuBLAS(Lt) a row-major product as its column-major transpose (b as cuBLAS's A, a as its B),
    so each pass below reaches cuBLAS with the same m, n, k and transposes as gemm_bench's."""
    a: Operand
    b: Operand
    fast_accum: bool  # FP8 only: cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM
    kind: str = MATMUL  # which call runs it: MATMUL, SCALED_MM, BLOCK_SCALED_MM, GROUPED_MM, ...

    @property
    def row_scaled(self):
        """A GEMM with one FP32 scale a row of each operand (FP8Rowwise's)."""
        return self.kind in (SCALED_MM, SCALED_GROUPED_MM) and self.a.scaling in ROW_SCALINGS

    def k_grouped(self, case):
        """A grouped GEMM whose experts' rows are its contraction (Wgrad: 2D by 2D)."""
        return case.grouped and len(self.b.view_shape(case)) == 2

    def out_shape(self, case):
        a, b = self.a.view_shape(case), self.b.view_shape(case)
        if self.k_grouped(case):
            return (case.groups, a[0], b[1])  # one [out, in] per expert
        return (a[0], b[-1])

    def call(self):
        if self.kind == GROUPED_MM:
            return "torch._grouped_mm(a, b, offs=offs)"
        if self.kind == SCALED_GROUPED_MM:
            return (f"torch._scaled_grouped_mm(a, b, scale_a, scale_b, offs=offs, "
                    f"out_dtype=torch.bfloat16, use_fast_accum={self.fast_accum})")
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


def op(role, fmt, copy=False, t=False, scaling=""):
    """An Operand, as the plans below spell them."""
    return Operand(role, copy, fmt, t, scaling)


def bf16_plan(case):
    """The layouts a training framework launches: Fprop TN, Dgrad NN, Wgrad NT. A grouped case
    reads the same tensors with one weight per expert, through torch._grouped_mm."""
    kind = GROUPED_MM if case.grouped else MATMUL
    return {
        "Fprop": Plan(op("x", "bf16"), op("w", "bf16", t=True), False, kind),  # X·Wᵀ
        "Dgrad": Plan(op("dy", "bf16"), op("w", "bf16"), False, kind),  # dY·W, W [out=K, in=N]
        # dW = dYᵀ·X, both read transposed from their [tokens, ...] storage; the output is
        # dW [out, in] = [N, M], laid out like W, as gemm_bench's Wgrad writes it. (x.t() @ dy
        # costs the same 2·M·K·N but writes dWᵀ and reaches cuBLAS with m and n swapped.)
        "Wgrad": Plan(op("dy", "bf16", t=True), op("x", "bf16"), False, kind),
    }[case.gemm_pass]


def rowwise_plan(case, dgrad_weight_scaling="row"):
    """torchao's rowwise recipe as gemm_bench runs it (bench/recipes/fp8_rowwise_recipe.cpp):
    E4M3 everywhere, one power-of-2 scale per row of each stored copy, along its contraction
    dimension; a row-major, b column-major (TN; torch._scaled_grouped_mm wants the same), so
    Dgrad and Wgrad read transposed copies. Fast accumulation in Fprop only, as torchao. W's
    copy in Dgrad is scaled `dgrad_weight_scaling` (rowwise_with_gw_hp: "tensor_rows")."""
    kind = SCALED_GROUPED_MM if case.grouped else SCALED_MM
    return {
        "Fprop": Plan(op("x", "e4m3", scaling="row"), op("w", "e4m3", t=True, scaling="row"),
                      True, kind),
        "Dgrad": Plan(op("dy", "e4m3", scaling="row"),
                      op("w", "e4m3", copy=True, t=True, scaling=dgrad_weight_scaling), False,
                      kind),
        "Wgrad": Plan(op("dy", "e4m3", copy=True, scaling="row"),
                      op("x", "e4m3", copy=True, t=True, scaling="row"), False, kind),
    }[case.gemm_pass]


def plan_for(case):
    """Which tensors each pass multiplies, in which layout and format."""
    if case.precision == "BF16":
        return bf16_plan(case)
    if case.precision == "FP8Rowwise":
        return rowwise_plan(case)
    if case.precision == "FP8RowwiseBF16Wgrad":
        # torchao's rowwise_with_gw_hp: W tensorwise in Dgrad (a rowwise call with its one scale
        # repeated), Wgrad in BF16 on the same (padded) rows.
        if case.gemm_pass == "Wgrad":
            return bf16_plan(case)
        return rowwise_plan(case, dgrad_weight_scaling="tensor_rows")
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
    if plan.kind in (GROUPED_MM, SCALED_GROUPED_MM):
        call = "torch._grouped_mm" if plan.kind == GROUPED_MM else "torch._scaled_grouped_mm"
        in_features, out_features = case.role_shape("x")[1], case.role_shape("dy")[1]
        if case.groups > GROUPED_MAX_GROUPS:
            return (f"{call} runs at most {GROUPED_MAX_GROUPS} groups "
                    f"(aten/src/ATen/native/cuda/GroupMM.cu, ScaledGroupMM.cu), this case has "
                    f"{case.groups}")
        if plan.kind == GROUPED_MM and (in_features % GROUPED_ALIGNMENT
                                        or out_features % GROUPED_ALIGNMENT):
            return (f"torch._grouped_mm needs 16-byte aligned rows: in ({in_features}) and out "
                    f"({out_features}) multiples of {GROUPED_ALIGNMENT} (GroupedMMUtils.h)")
        if plan.kind == SCALED_GROUPED_MM and (in_features % SCALED_MM_ALIGNMENT
                                               or out_features % SCALED_MM_ALIGNMENT):
            return (f"torch._scaled_grouped_mm needs in ({in_features}) and out "
                    f"({out_features}) multiples of {SCALED_MM_ALIGNMENT} (GroupedBlas.cpp)")
    if plan.kind == BLOCK_SCALED_MM or (plan.kind == SCALED_MM and plan.row_scaled):
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


def block_scales(torch, amax, fmt_max):
    """gemmscope's scale_from_amax with power_of_2 (quant/fp8/detail/scale_policy.h), block by
    block: fmt_max / amax (1 where amax is 0 or not finite, FLT_MAX where the quotient
    overflows), rounded down to a power of two by clearing its mantissa, so that its inverse is
    exact."""
    scale = torch.where((amax > 0) & torch.isfinite(amax), fmt_max / amax, torch.ones_like(amax))
    scale = torch.where(torch.isfinite(scale), scale, torch.full_like(scale, FP32_MAX))
    return (scale.view(torch.int32) & -0x800000).view(torch.float32)  # & 0xff800000


def expand_blocks(per_block, block_rows, rows, cols):
    """A [row blocks, col blocks] tensor spread over the [rows, cols] elements it scales."""
    return (per_block.repeat_interleave(block_rows, 0)
            .repeat_interleave(SCALE_BLOCK, 1)[:rows, :cols])


def quantize_block(torch, data, scaling, fmt):
    """FP8Block's cast of a row-major [rows, cols] BF16 tensor (quant/fp8/block.h), blocks along
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


def quantize_row_lines(torch, data, fmt):
    """FP8Rowwise's cast of a row-major [rows, cols] BF16 tensor (quant/fp8/rowwise.h): one
    power-of-2 scale per row, from its amax over every column: (E4M3 data, each row's
    dequantization scale [rows])."""
    dtype_name, fmt_max = FP8[fmt]
    amax = data.float().abs_().amax(dim=1)
    scale = block_scales(torch, amax, fmt_max)
    quantized = (data.float().mul_(scale.view(-1, 1)).clamp_(-fmt_max, fmt_max)
                 .to(getattr(torch, dtype_name)))
    return quantized, scale.reciprocal()


def quantize_tensor_lines(torch, data, fmt):
    """rowwise_with_gw_hp's tensorwise cast of a row-major [rows, cols] BF16 tensor: one scale
    from the whole tensor's amax, a power of 2 as torchao rounds it (round_scales_to_power_of_2
    holds for every cast of that recipe), given once a row so that a rowwise call takes it:
    (E4M3 data, each row's dequantization scale [rows], all equal)."""
    dtype_name, fmt_max = FP8[fmt]
    scale = block_scales(torch, data.abs().amax().float().reshape(1), fmt_max)
    quantized = (data.float().mul_(scale).clamp_(-fmt_max, fmt_max)
                 .to(getattr(torch, dtype_name)))
    return quantized, scale.reciprocal().expand(data.shape[0]).contiguous()


def expert_spans(case):
    """Each expert's (first, last + 1) row in the case's padded rows."""
    starts, total = case_layout(case)
    return list(zip(starts, starts[1:] + (total,)))


def quantize_rowwise(torch, case, spec, data):
    """A row-scaled operand's stored copy `data` quantized as gemm_bench quantizes it, each
    expert of a grouped operand as a tensor of its own (gemm_bench's grouped cast): (E4M3 data, the
    dequantization scale of each stored row: [rows]; [G, rows] for stacked weights [G, rows,
    cols], and for a K-grouped copy [rows, R'], whose rows are scaled over each expert's
    columns apart). Experts one at a time, so that no FP32 copy of all of them is made."""
    quantize = quantize_row_lines if spec.scaling == "row" else quantize_tensor_lines
    if data.dim() == 3:
        parts = [(expert,) for expert in range(data.shape[0])]
    elif spec.scaled_per_expert_cols(case):
        parts = [(slice(None), slice(start, end)) for start, end in expert_spans(case)]
    else:
        return quantize(torch, data, spec.fmt)
    stored = torch.empty(data.shape, dtype=torch.uint8, device=data.device)
    scale_inv = torch.empty(len(parts), data.shape[-2], dtype=torch.float32, device=data.device)
    for expert, part in enumerate(parts):
        quantized, scale_inv[expert] = quantize(torch, data[part], spec.fmt)
        stored[part] = quantized.view(torch.uint8)
    return stored.view(getattr(torch, FP8[spec.fmt][0])), scale_inv


class PerExpert:
    """Stacked experts' FP32 values made one expert at a time, as reference_error reads a 3D b
    (b.dim() == 3, b[g]), so that no FP32 copy of every expert's weight is held at once."""

    def __init__(self, values_of):
        self._values_of = values_of

    def dim(self):
        return 3

    def __getitem__(self, expert):
        return self._values_of(expert)


def dequantized_rows(case, spec, quantized, scale_inv, view):
    """The values a row-scaled operand's GEMM multiplies, as it reads them (`view`), FP32: a
    tensor, or PerExpert for stacked weights."""
    if quantized.dim() == 3:
        return PerExpert(lambda expert: view(
            quantized[expert].float().mul_(scale_inv[expert].view(-1, 1))))
    values = quantized.float()
    if not spec.scaled_per_expert_cols(case):
        return view(values.mul_(scale_inv.view(-1, 1)))
    for expert, (start, end) in enumerate(expert_spans(case)):
        values[:, start:end].mul_(scale_inv[expert].view(-1, 1))
    return view(values)


def block_scale_tensor(torch, scale_inv, scaling):
    """The scale tensor torch.nn.functional.scaled_mm takes (Operand.scale_layout): 1x128 with
    the rows fastest; 128x128 with the block columns fastest, padded to a multiple of 4 with
    1.0 as gemmscope pads them (quant/fp8/scale_layout.h)."""
    if scaling == "1x128":
        return scale_inv.t().contiguous().t()
    row_blocks, col_blocks = scale_inv.shape
    padded = torch.ones(row_blocks, round_up(col_blocks, SCALE_ALIGNMENT), dtype=torch.float32,
                        device=scale_inv.device)
    padded[:, :col_blocks] = scale_inv
    return padded.t()


def prepare_operand(torch, case, spec, source):
    """One operand made from `source` (its role's BF16 tensor, a grouped case's rows padded),
    quantized once outside timing: (the tensor the GEMM reads, its dequantization scale or None
    for BF16, a function giving the values the GEMM multiplies, as it reads them, for the
    reference check; None where there is none)."""
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
    if spec.scaling in ROW_SCALINGS:
        # One scale per stored row, over its cols (the contraction), in the shape the call takes.
        quantized, scale_inv = quantize_rowwise(torch, case, spec, data)
        scale = scale_inv.reshape(spec.row_scale_shape(case))
        return (view(quantized), scale,
                lambda: dequantized_rows(case, spec, quantized, scale_inv, view))
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


def pad_experts(torch, source, group_rows, starts, total):
    """The routed rows of `source` [R, ...] placed at each expert's start in [total, ...] zero
    rows: each expert padded with zero rows."""
    padded = torch.zeros((total,) + tuple(source.shape[1:]), dtype=source.dtype,
                         device=source.device)
    routed = 0
    for start, rows in zip(starts, group_rows):
        padded[start:start + rows] = source[routed:routed + rows]
        routed += rows
    return padded


def routed_rows(torch, tensor, case, starts, dim=0):
    """The routed rows of a tensor padded per expert along `dim` (each expert's rows from its
    start in `starts`), the padding dropped: [R, ...] from [R', ...]."""
    if tensor.shape[dim] == case.routed_rows:  # no padding
        return tensor
    return torch.cat([tensor.narrow(dim, start, rows)
                      for start, rows in zip(starts, case.group_rows)], dim)


def reference_error(torch, case, out, a, b):
    """The relative error (Frobenius norm) of `out` against the FP32 product of `a` and `b` (the
    values the GEMM multiplies, as it reads them); expert by expert in a grouped case, whose
    rows are the routed rows (no padding)."""
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


def routed_reference_error(torch, case, plan, out, a, b):
    """reference_error of a case whose experts' rows may be padded: the padding (zero rows,
    zero products) dropped from the output and the operands first."""
    if case.grouped:
        starts = case_layout(case)[0]
        if plan.k_grouped(case):
            a = routed_rows(torch, a, case, starts, dim=1)
            b = routed_rows(torch, b, case, starts)
        else:
            out = routed_rows(torch, out, case, starts)
            a = routed_rows(torch, a, case, starts)
    return reference_error(torch, case, out, a, b)


def expert_offsets(torch, case, device):
    """offs of a grouped call: the running sums of the experts' (padded) rows, int32."""
    starts, total = case_layout(case)
    return torch.tensor(list(starts[1:]) + [total], dtype=torch.int32, device=device)


def gemm_call(torch, case, plan, a, b, scale_a, scale_b):
    """The case's GEMM as a closure; ValueError where this PyTorch lacks the call."""
    if plan.kind == GROUPED_MM:
        if not hasattr(torch, "_grouped_mm"):
            raise ValueError(f"PyTorch {torch.__version__} has no torch._grouped_mm")
        offs = expert_offsets(torch, case, a.device)
        return lambda: torch._grouped_mm(a, b, offs=offs)
    if plan.kind == SCALED_GROUPED_MM:
        if not hasattr(torch, "_scaled_grouped_mm"):
            raise ValueError(f"PyTorch {torch.__version__} has no torch._scaled_grouped_mm")
        offs = expert_offsets(torch, case, a.device)
        return lambda: torch._scaled_grouped_mm(a, b, scale_a, scale_b, offs=offs,
                                                out_dtype=torch.bfloat16,
                                                use_fast_accum=plan.fast_accum)
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
    """Makes the case's operands (random N(0, 1) BF16, fixed seed per tensor, a grouped case's
    experts padded with zero rows as its precision pads them; FP8 copies quantized once, outside
    timing) on `device` and returns the GEMM as a closure. ValueError for a case torch cannot
    take (refusal) or whose first result is wrong."""
    reason = refusal(case, plan)
    if reason:
        raise ValueError(reason)
    sources = {}
    for role in (plan.a.role, plan.b.role):
        generator = torch.Generator(device=device).manual_seed(SEEDS[role])
        sources[role] = torch.randn(*case.role_shape(role), generator=generator,
                                    dtype=torch.bfloat16, device=device)
        if role != "w" and padding_rows(case):
            sources[role] = pad_experts(torch, sources[role], case.group_rows,
                                        *case_layout(case))
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
    if plan.kind in (BLOCK_SCALED_MM, GROUPED_MM, SCALED_GROUPED_MM) or plan.row_scaled:
        error = routed_reference_error(torch, case, plan, out, values_a(), values_b())
        if not error <= REFERENCE_TOLERANCE:
            raise ValueError(f"relative error {error:.2e} against an FP32 product of the same "
                             f"operands, above {REFERENCE_TOLERANCE:g}: a layout is wrong")
    return gemm


def expert_rows_text(case):
    """--dry-run's lines on a grouped case's rows: per expert, their padding, offs."""
    lines = [f"rows per expert ({case.groups} experts, {case.routed_rows} rows): "
             f"{rows_text(case.group_rows)}"]
    total = case_layout(case)[1]
    if expert_row_alignment(case) > 1:
        lines.append(f"padded to {expert_row_alignment(case)} rows an expert, as gemm_bench "
                     f"pads FP8 experts: {total} rows ({padding_rows(case)} of padding)")
        lines.append(f"offs: the padded rows' running sums, int32 [{case.groups}], last {total}")
    else:
        lines.append(f"offs: the rows' running sums, int32 [{case.groups}], last {total}")
    return lines


def scales_text(plan):
    """--dry-run's line on an FP8 call's scale_a and scale_b, or None."""
    if plan.row_scaled:
        return "FP32 dequantization scales (their shapes above), powers of 2"
    if plan.kind == SCALED_MM:
        return "FP32 scalars on the GPU, amax/max of each format (dequantization)"
    if plan.kind == BLOCK_SCALED_MM:
        return "FP32 dequantization scales per block, powers of 2"
    return None


def dry_run(cases, args):
    groups = group_cases(cases)
    for number, members in enumerate(groups, 1):
        print(group_heading(number, members))
        for _, case in members:
            plan = plan_for(case)
            print(f"  {case.name}")
            for line in expert_rows_text(case) if case.grouped else []:
                print(f"    {line}")
            print(f"    a: {plan.a.describe(case)}")
            print(f"    b: {plan.b.describe(case)}")
            if scales_text(plan):
                print(f"    scale_a, scale_b: {scales_text(plan)}")
            shape = ", ".join(map(str, plan.out_shape(case)))
            print(f"    {plan.call()} -> [{shape}] BF16, {case.flops / 1e9:.1f} GFLOP")
            reason = refusal(case, plan)
            if reason:
                print(f"    refused: {reason}")
    print(f"torch_peer: {len(cases)} cases in {len(groups)} group(s), {args.repetitions} "
          f"repetition(s) of each group, would write {args.out}")
