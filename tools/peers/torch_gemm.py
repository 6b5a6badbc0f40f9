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

One difference remains: gemm_bench's FP8Current and FP8Block groups also hold their `autocast`
cases, which a peer cannot run, so the peer's FP8 groups are a different mix and may hold a
different clock.
"""

import itertools
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
# torch._scaled_mm: K and N multiples of 16.
SCALED_MM_ALIGNMENT = 16
# The largest relative error (Frobenius norm) against an FP32 product of the same operands that a
# checked case may have: BF16 rounding of the output gives about 0.1%; a scale or row misplaced
# by a wrong layout gives far more.
REFERENCE_TOLERANCE = 0.01


def ceil_div(value, divisor):
    return -(-value // divisor)


def round_up(value, multiple):
    return ceil_div(value, multiple) * multiple


@dataclass(frozen=True)
class Operand:
    role: str  # x, w or dy: the training tensor it is made from
    transposed_copy: bool  # a contiguous transposed ("columnwise") copy, made outside timing
    fmt: str  # bf16, e4m3 or e5m2
    read_transposed: bool  # the GEMM reads it through .t() (.transpose(-2, -1)): a free view
    scaling: str = ""  # FP8: "tensor", FP8Block's "1x128" or "128x128" blocks, or "row"

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
    if case.precision == "FP8Rowwise":
        # torchao's rowwise recipe as gemm_bench runs it (bench/recipes/fp8_rowwise_recipe.cpp):
        # E4M3 everywhere, one power-of-2 scale per row of each stored copy, along its
        # contraction dimension; torch._scaled_mm takes scale_a [M, 1] and scale_b [1, N]
        # (cuBLASLt's OUTER_VEC_32F on sm_90). Fast accumulation in Fprop only, as torchao.
        return {
            "Fprop": Plan(op("x", "e4m3", scaling="row"), op("w", "e4m3", t=True, scaling="row"),
                          True, SCALED_MM),
            "Dgrad": Plan(op("dy", "e4m3", scaling="row"),
                          op("w", "e4m3", copy=True, t=True, scaling="row"), False, SCALED_MM),
            "Wgrad": Plan(op("dy", "e4m3", copy=True, scaling="row"),
                          op("x", "e4m3", copy=True, t=True, scaling="row"), False, SCALED_MM),
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
    if plan.kind == BLOCK_SCALED_MM or plan.a.scaling == "row":
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
    if spec.scaling == "row":
        # One scale per stored row, over its cols (the contraction): a 1x(cols) block each.
        quantized, scale_inv = quantize_row_lines(torch, data, spec.fmt)
        # _scaled_mm's rowwise form: [M, 1] for a, [1, N] for b (b is read transposed).
        scale = scale_inv.view(1, -1) if spec.read_transposed else scale_inv.view(-1, 1)

        def dequantized_rows():
            return view(quantized.float().mul_(scale_inv.view(-1, 1)))

        return view(quantized), scale, dequantized_rows
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
    if plan.kind in (BLOCK_SCALED_MM, GROUPED_MM) or plan.a.scaling == "row":
        error = reference_error(torch, case, out, values_a(), values_b())
        if not error <= REFERENCE_TOLERANCE:
            raise ValueError(f"relative error {error:.2e} against an FP32 product of the same "
                             f"operands, above {REFERENCE_TOLERANCE:g}: a layout is wrong")
    return gemm


def dry_run(cases, args):
    groups = group_cases(cases)
    for number, members in enumerate(groups, 1):
        print(group_heading(number, members))
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
            if plan.kind == SCALED_MM and plan.a.scaling == "row":
                print("    scale_a, scale_b: FP32 dequantization scales per row of each stored "
                      "copy, powers of 2: scale_a [M, 1], scale_b [1, N]")
            elif plan.kind == SCALED_MM:
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
