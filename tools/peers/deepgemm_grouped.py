"""The DeepGEMM peer: gemm_bench's FP8Block `prequant` expert Fprop and Dgrad cases timed with
DeepGEMM's own m-grouped contiguous FP8 kernel, under gemm_bench's timing rules (timing.py, the
torch peer's runner.py), written as Google Benchmark JSON with gemm_bench's case names, so that
tools/run_diff.py and compare.py put the two side by side:

    gemm_bench --model=deepseek-v3 \\
        --benchmark_filter='^FP8Block/(Fprop|Dgrad)/expert_[a-z]+/prequant/G:' \\
        --benchmark_out=gemmscope.json --benchmark_out_format=json
    tools/deepgemm_peer.py --context_from=gemmscope.json \\
        --filter='^FP8Block/(Fprop|Dgrad)/expert_[a-z]+/prequant/G:' \\
        --out=deepgemm.json -- --model=deepseek-v3
    tools/run_diff.py deepgemm.json gemmscope.json

The command is tools/deepgemm_peer.py; this module is its command line, its cases and its
GEMM. Which DeepGEMM: the pure-Python JIT release, commit 03d0be3 (2025-07-02), whose
deep_gemm/include must also hold CUTLASS's cute/ and cutlass/ headers (its JIT compiles with
that folder alone on the include path) and whose DG_JIT_CACHE_DIR must be writable;
tools/gpu_check_deepgemm_peer.sh sets that up from .carry/deepgemm-jit and .carry/cutlass.

The cases, `FP8Block/{Fprop|Dgrad}/{expert_up|expert_down}/prequant/G:{g}/M:{m}/K:{k}/N:{n}`,
over the routed rows R = M of the g experts that got rows, sorted by expert (cases.py's
role_shape; the same seeded N(0, 1) data as the torch peer's), each run as

    deep_gemm.m_grouped_gemm_fp8_fp8_bf16_nt_contiguous((lhs, lhs_scales), (rhs, rhs_scales),
                                                       out, m_indices)

- lhs [M', K] E4M3, K-major: X [R, in] in Fprop (K = in), dY [R, out] in Dgrad (K = out);
  lhs_scales FP32 [M', K/128], one per 1x128 block along K, made column-major and TMA-aligned
  by deep_gemm.get_col_major_tma_aligned_tensor once, outside timing (a call given scales in
  another layout would transpose them inside the timed call).
- rhs [G, N, K] E4M3, K-major, the weight of each expert as DeepGEMM's NT kernel wants it: in
  Fprop W [G, out, in] itself (N = out); in Dgrad a transposed copy Wᵀ [G, in, out] (N = in,
  K = out), made outside timing; rhs_scales FP32 [G, N/128, K/128] contiguous, one per 128x128
  block of rhs (so in Dgrad the blocks of Wᵀ), as gemm_bench's FP8Block recipe makes them.
- Scales: gemmscope's (torch_gemm.py's quantize_block): powers of two, amax of each block onto
  E4M3's 448; DeepGEMM is handed the dequantization scales.
- **Padding.** DeepGEMM's contiguous layout needs each expert's rows in whole blocks of 128
  (deep_gemm.get_m_alignment_for_contiguous_layout()): each expert's routed rows are padded to
  a multiple of 128 (zero rows with scale 1), so M' = the sum of roundup(R_e, 128). m_indices
  (int32 [M']) holds each row's expert, -1 on padding rows; DeepGEMM skips a 64-row half block
  that starts on padding and computes the rest. The padded rows are timed (the GPU does the
  work) but not counted in TFLOPS, as gemm_bench does with its own padding (16 rows in FP8
  recipes; its DeepGEMM provider pads to 128 too); counter padded_rows says how many. The
  default workloads route 256, 2048 and 1024 rows an expert (balanced): no padding.
- out [M', N] BF16, as FP8Block's cases write; rows of padding are left as the kernel leaves
  them and never read.

DeepGEMM chooses its configuration from M', N, K and G (block 128 x BLOCK_N x 128, stages, TMA
multicast, SMs) and compiles one kernel per configuration with nvcc the first time (JIT; cached
in DG_JIT_CACHE_DIR). The peer compiles every case's kernel before the GPU warm-up, so the GPU
does not cool down while nvcc runs, and each case's label names the call and the configuration
(read from deep_gemm.jit_kernels.gemm.get_best_configs with the arguments the call gives it).

Each call of the function also does host work (its checks, the configuration lookup, four TMA
descriptors, the kernel's cache lookup, the launch through cuda-python). Timing with events is
right only while the host enqueues samples faster than the GPU runs them; --launch says how
each case is launched: `direct` calls the function in every sample; `graph` captures one call
in a CUDA graph once and replays it (the same kernel and arguments, one graph launch of host
work); `auto` (the default) measures the call's host and GPU time once, the GPU held busy so
that the calls run back to back, and replays a graph only where the host takes more than half
the GPU's time. The label says which, with both times.

Left out, with a note: expert cases of other precisions (the kernel multiplies E4M3 with 1x128
and 128x128 scales, FP8Block's recipe), FP8Block's autocast and step modes (they also time
gemmscope's quantization), and Wgrad (K-grouped, each expert's dW over its own rows: DeepGEMM's
k_grouped_wgrad_gemm_fp8_fp8_fp32_nt writes FP32 with 1x128 x 1x128 scales, FP8Block's Wgrad
writes BF16). Refused, with the reason, before DeepGEMM is asked: K not a multiple of 128 (the
contiguous kernel is given K as is and drops a last partial block of 128), N not a multiple of
8 (16-byte rows of out); a refused case, and one whose call DeepGEMM's own checks refuse,
fails in the JSON with the reason, and the other cases run. Cases need gemm_bench's rows per
expert (--context_from=FILE, its JSON of the same model flags, or --expert_rows=LIST), as the
torch peer's grouped cases do.

Each case is checked once, outside timing, against an FP32 product of the same dequantized
operands, expert by expert over the routed rows (torch_gemm.py's reference_error): a relative
error above REFERENCE_TOLERANCE fails the case.
"""

import dataclasses
import os
import sys
import time
import traceback

from .cases import (GEMM_RE, Case, attach_group_rows, group_cases, group_heading, reported_name,
                    rows_text, select_classified)
from .cli import check_peer_args, list_case_lines, peer_parser, split_bench_flags
from .runner import Peer, first_line, run
from .torch_gemm import (FP8, REFERENCE_TOLERANCE, SCALE_BLOCK, SEEDS, PerExpert, ceil_div,
                         expand_blocks, expert_layout, pad_experts, quantize_block,
                         reference_error, routed_rows)

PROG = "deepgemm_peer"
RELEASE = "03d0be3"  # DeepGEMM's pure-Python JIT release this peer is written for
API = "m_grouped_gemm_fp8_fp8_bf16_nt_contiguous"
CALL = f"deep_gemm.{API}((lhs, lhs_scales), (rhs, rhs_scales), out, m_indices)"
KERNEL = "fp8_gemm_kernel<GemmType::GroupedContiguous>"
# deep_gemm.get_m_alignment_for_contiguous_layout(): each expert's rows in whole blocks of it.
M_ALIGNMENT = 128
# The contiguous kernel's template takes K as given and loops over whole blocks of 128.
K_ALIGNMENT = SCALE_BLOCK
# out's rows (BF16) must be 16-byte aligned for its TMA store, and the kernel asserts N % 8.
N_ALIGNMENT = 8
INT32_MAX = 2**31 - 1
# --launch=auto replays a CUDA graph where the call's host time exceeds this share of its GPU
# time: each sample also enqueues the L2 flush and two events, so the host must keep well ahead.
HOST_SHARE_MAX = 0.5
# Calls timed once per case to compare host and GPU time, behind a sleep kernel of this many
# cycles (about 50 ms or more on a Hopper GPU) that holds the GPU while the host enqueues them.
LAUNCH_PROBE_CALLS = 20
LAUNCH_PROBE_HOLD_CYCLES = 100_000_000
LAUNCHES = ("auto", "direct", "graph")

# What the peer leaves out of the names it is given, and why: (what, why).
LEFT_OUT_DENSE = ("dense case(s)", "the peer times expert (grouped) cases; gemm_bench's "
                  "--provider=deepgemm runs DeepGEMM's dense kernel itself")
LEFT_OUT_PRECISION = ("expert case(s) of other precisions", "DeepGEMM's m-grouped kernel "
                      "multiplies E4M3 with 1x128 and 128x128 scales, FP8Block's recipe, only")
LEFT_OUT_WGRAD = ("FP8Block Wgrad expert case(s)", "Wgrad is K-grouped (each expert's dW over its "
                  "own rows); DeepGEMM's k_grouped_wgrad_gemm_fp8_fp8_fp32_nt writes FP32 with "
                  "1x128 x 1x128 scales, FP8Block's Wgrad writes BF16")
LEFT_OUT_MODE = ("FP8Block expert case(s) in autocast or step mode", "they also time gemmscope's "
                 "quantization; the peer times prequant, the GEMM alone")


def classify(line):
    """(Case, None) for a name the peer times, (None, reason) for a GEMM name (cases.py's
    GEMM_RE) it leaves out, (None, None) for anything else (quantization cases, blank lines)."""
    match = GEMM_RE.match(line.strip())
    if match is None:
        return None, None
    if not match["groups"]:
        return None, LEFT_OUT_DENSE
    if match["precision"] != "FP8Block":
        return None, LEFT_OUT_PRECISION
    if match["pass_"] == "Wgrad":
        return None, LEFT_OUT_WGRAD
    if match["mode"] != "prequant":
        return None, LEFT_OUT_MODE
    return Case(reported_name(line), "FP8Block", match["pass_"], int(match["m"]),
                int(match["k"]), int(match["n"]), int(match["groups"])), None


def select_cases(lines, filter_regex=None):
    """The peer's cases among `lines`, in order, once each, matching `filter_regex` (searched in
    the reported name, as --benchmark_filter does and as the torch peer searches); and how many
    matching GEMM names it leaves out, by reason (in the order first met): cases.py's
    select_classified with classify."""
    return select_classified(lines, classify, filter_regex)


def padded_layout(group_rows):
    """Each expert's first row in the padded rows, and their count M': each expert's rows
    rounded up to M_ALIGNMENT."""
    return expert_layout(group_rows, M_ALIGNMENT)


def with_padding(case):
    """`case` with the rows DeepGEMM's padding adds (counter padded_rows)."""
    return dataclasses.replace(case, padded_rows=padded_layout(case.group_rows)[1] - case.m)


def refusal(case):
    """Why DeepGEMM's contiguous kernel cannot take `case` as gemm_bench runs it, or None;
    checked before DeepGEMM is asked, so that the reason is the rule, not an assertion deep in
    its Python or a wrong result."""
    if case.k % K_ALIGNMENT:
        return (f"DeepGEMM's m-grouped contiguous kernel needs K ({case.k}) a multiple of "
                f"{K_ALIGNMENT}: it is compiled with K as given and drops a last partial block")
    if case.n % N_ALIGNMENT:
        return (f"DeepGEMM's kernel needs N ({case.n}) a multiple of {N_ALIGNMENT} (16-byte "
                "BF16 output rows for its TMA store)")
    if padded_layout(case.group_rows)[1] > INT32_MAX:
        return "more padded rows than m_indices (int32) can index"
    return None


def operand_roles(case):
    """(lhs's training tensor, whether rhs is the weight's transposed copy): Fprop multiplies X
    by W [G, out, in]; Dgrad dY by Wᵀ [G, in, out], DeepGEMM's [G, N, K] both times."""
    return ("x", False) if case.gemm_pass == "Fprop" else ("dy", True)


def shape_text(shape):
    return "[" + ", ".join(map(str, shape)) + "]"


def dry_run(cases, args):
    groups = group_cases(cases)
    for number, members in enumerate(groups, 1):
        print(group_heading(number, members))
        for _, case in members:
            starts, m_padded = padded_layout(case.group_rows)
            lhs_role, transposed = operand_roles(case)
            k_blocks, n_blocks = ceil_div(case.k, SCALE_BLOCK), ceil_div(case.n, SCALE_BLOCK)
            print(f"  {case.name}")
            print(f"    rows per expert ({case.groups} experts, {case.routed_rows} rows): "
                  f"{rows_text(case.group_rows)}")
            print(f"    padded to {M_ALIGNMENT} rows an expert: {m_padded} rows "
                  f"({case.padded_rows} of padding)")
            print(f"    lhs: {lhs_role} E4M3 {shape_text((m_padded, case.k))} row-major (K-major), "
                  f"1x128 scales FP32 {shape_text((m_padded, k_blocks))} column-major, "
                  f"TMA-aligned (strides (1, {m_padded}))")
            weight = "wᵀ copy" if transposed else "w"
            print(f"    rhs: {weight} E4M3 {shape_text((case.groups, case.n, case.k))} "
                  f"([G, N, K], K-major), 128x128 scales FP32 "
                  f"{shape_text((case.groups, n_blocks, k_blocks))} contiguous")
            print(f"    m_indices: int32 [{m_padded}], each row's expert (0-{case.groups - 1}), "
                  "-1 on padding rows")
            print(f"    {CALL} -> out {shape_text((m_padded, case.n))} BF16, "
                  f"{case.flops / 1e9:.1f} GFLOP")
            reason = refusal(case)
            if reason:
                print(f"    refused: {reason}")
    print(f"{PROG}: {len(cases)} cases in {len(groups)} group(s), {args.repetitions} "
          f"repetition(s) of each group, --launch={args.launch}, would write {args.out}")


def assertion_text(error):
    """DeepGEMM refuses with bare asserts: the failed line, where its message is empty."""
    message = str(error).strip()
    if message:
        return message.splitlines()[0]
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "an assertion failed"
    frame = frames[-1]
    return (f"assert in {os.path.basename(frame.filename)}:{frame.lineno}: "
            f"{(frame.line or '').strip()}")


def deepgemm_call(torch, function, *arguments):
    """One call of a DeepGEMM function; its refusals (asserts, its own Exceptions) as ValueError,
    so that the runner reports the case failed; out of memory and CUDA errors (RuntimeError) as
    they are."""
    try:
        return function(*arguments)
    except AssertionError as error:
        raise ValueError(f"DeepGEMM: {assertion_text(error)}") from None
    except (torch.cuda.OutOfMemoryError, RuntimeError, ValueError, TypeError):
        raise
    except Exception as error:  # DeepGEMM raises plain Exceptions (e.g. a TMA descriptor)
        raise ValueError(f"DeepGEMM: {type(error).__name__}: {first_line(error)}") from None


def make_operands(torch, case, random=True, device="cuda"):
    """The call's tensors on `device`: {lhs, lhs_scales, rhs, rhs_scales, out, m_indices}, and
    for the reference check lhs's dequantization scales [M', K/128] (lhs_scale_inv) and the
    padded layout. `random`: gemmscope's data, quantized as FP8Block quantizes it; else zeros
    with scales of 1, enough to compile the kernel (whose configuration depends on the shapes
    alone)."""
    lhs_role, transposed = operand_roles(case)
    starts, m_padded = padded_layout(case.group_rows)
    e4m3 = getattr(torch, FP8["e4m3"][0])
    m_indices = torch.full((m_padded,), -1, dtype=torch.int32, device=device)
    for expert, (start, rows) in enumerate(zip(starts, case.group_rows)):
        m_indices[start:start + rows] = expert
    k_blocks, n_blocks = ceil_div(case.k, SCALE_BLOCK), ceil_div(case.n, SCALE_BLOCK)
    if random:
        generator = torch.Generator(device=device).manual_seed(SEEDS[lhs_role])
        source = torch.randn(*case.role_shape(lhs_role), generator=generator,
                             dtype=torch.bfloat16, device=device)
        padded = pad_experts(torch, source, case.group_rows, starts, m_padded)
        del source
        # 1x128 blocks are rows of 128: padding rows quantize to zeros with scale 1 and leave
        # the routed rows as they would be unpadded.
        lhs, lhs_scale_inv = quantize_block(torch, padded, "1x128", "e4m3")
        del padded
        generator = torch.Generator(device=device).manual_seed(SEEDS["w"])
        weight = torch.randn(*case.role_shape("w"), generator=generator, dtype=torch.bfloat16,
                             device=device)  # [G, out, in]
        if transposed:
            weight = weight.transpose(1, 2).contiguous()  # Wᵀ [G, in, out]
        rhs_bytes = torch.empty(case.groups, case.n, case.k, dtype=torch.uint8, device=device)
        rhs_scales = torch.empty(case.groups, n_blocks, k_blocks, dtype=torch.float32,
                                 device=device)
        for expert in range(case.groups):
            quantized, scale_inv = quantize_block(torch, weight[expert], "128x128", "e4m3")
            rhs_bytes[expert] = quantized.view(torch.uint8)
            rhs_scales[expert] = scale_inv
        del weight
        rhs = rhs_bytes.view(e4m3)
    else:
        lhs = torch.zeros(m_padded, case.k, dtype=torch.uint8, device=device).view(e4m3)
        lhs_scale_inv = torch.ones(m_padded, k_blocks, dtype=torch.float32, device=device)
        rhs = torch.zeros(case.groups, case.n, case.k, dtype=torch.uint8, device=device).view(e4m3)
        rhs_scales = torch.ones(case.groups, n_blocks, k_blocks, dtype=torch.float32,
                                device=device)
    out = torch.empty(m_padded, case.n, dtype=torch.bfloat16, device=device)
    return {"lhs": lhs, "lhs_scale_inv": lhs_scale_inv, "rhs": rhs, "rhs_scales": rhs_scales,
            "out": out, "m_indices": m_indices, "starts": starts, "m_padded": m_padded}


def tma_aligned_scales(torch, deep_gemm, scale_inv):
    """lhs's scales as DeepGEMM reads them: column-major, TMA-aligned, made once here with its
    own helper; ValueError unless the helper then leaves them as they are, so that the timed call
    does not transpose them again."""
    scales = deep_gemm.get_col_major_tma_aligned_tensor(scale_inv)
    if deep_gemm.get_col_major_tma_aligned_tensor(scales) is not scales:
        raise ValueError(f"lhs scales {tuple(scales.shape)} strides {tuple(scales.stride())} are "
                         "not what DeepGEMM reads as they are: the timed call would transpose "
                         "them")
    return scales


def dequantized_experts(rhs, scale_inv):
    """rhs's experts dequantized one at a time, as reference_error reads them (b[g] the [K, N]
    factor of expert g's rows), so that no FP32 copy of all experts is made."""
    n, k = rhs.shape[1:]
    return PerExpert(lambda expert: rhs[expert].float().mul_(
        expand_blocks(scale_inv[expert], SCALE_BLOCK, n, k)).t())


def check_against_reference(torch, case, operands):
    """The relative error of the routed rows of `out` against an FP32 product of the same
    dequantized operands, expert by expert; ValueError above REFERENCE_TOLERANCE or for
    non-finite output."""
    starts, m_padded = operands["starts"], operands["m_padded"]
    got = routed_rows(torch, operands["out"], case, starts)
    if not bool(torch.isfinite(got).all()):
        raise ValueError("non-finite values in the output's routed rows")
    lhs_values = operands["lhs"].float().mul_(
        expand_blocks(operands["lhs_scale_inv"], 1, m_padded, case.k))
    lhs_values = routed_rows(torch, lhs_values, case, starts)
    error = reference_error(torch, case, got, lhs_values,
                            dequantized_experts(operands["rhs"], operands["rhs_scales"]))
    if not error <= REFERENCE_TOLERANCE:
        raise ValueError(f"relative error {error:.2e} against an FP32 product of the same "
                         f"operands, above {REFERENCE_TOLERANCE:g}: a layout is wrong")
    return got


def configuration_text(deep_gemm, case, m_padded):
    """The configuration DeepGEMM's call picks (get_best_configs with the call's arguments, a
    cached function), as text; what is known where this release lacks it."""
    try:
        from deep_gemm.jit_kernels.gemm import get_best_configs

        sms, block_m, block_n, stages, (multicast, on_a), _ = get_best_configs(
            m_padded, case.n, case.k, 1, deep_gemm.get_num_sms(), is_grouped_contiguous=True)
    except Exception as error:  # another release: the call ran, only the label is poorer
        return f"{KERNEL} (configuration unknown: {first_line(error)})"
    multicast_text = (f"TMA multicast {multicast} on {'A' if on_a else 'B'}" if multicast > 1
                      else "no TMA multicast")
    return (f"{KERNEL} {block_m}x{block_n}x{SCALE_BLOCK}, {stages} stages, {multicast_text}, "
            f"{sms} SMs")


def launch_times(torch, call):
    """(host µs, GPU µs) of one call, from LAUNCH_PROBE_CALLS calls enqueued behind a sleep
    kernel, so that the GPU runs them back to back; GPU µs is None where the host was still
    enqueuing when the sleep ended (the GPU time then holds gaps)."""
    torch.cuda.synchronize()
    start, stop = (torch.cuda.Event(enable_timing=True) for _ in range(2))
    if hasattr(torch.cuda, "_sleep"):  # without it, the GPU is not held: GPU µs is None
        torch.cuda._sleep(LAUNCH_PROBE_HOLD_CYCLES)
    start.record()
    begin = time.perf_counter()
    for _ in range(LAUNCH_PROBE_CALLS):
        call()
    host_us = (time.perf_counter() - begin) * 1e6 / LAUNCH_PROBE_CALLS
    held = not start.query()  # the sleep still ran: every call was enqueued before the first ran
    stop.record()
    stop.synchronize()
    gpu_us = start.elapsed_time(stop) * 1000 / LAUNCH_PROBE_CALLS
    return host_us, (gpu_us if held else None)


def graph_of(torch, call):
    """One call captured in a CUDA graph (after a call on the capture's side stream, as torch
    asks); the graph's replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, capture_error_mode="relaxed"):
        call()
    torch.cuda.synchronize()
    return graph.replay


def choose_launch(torch, case, call, operands, expected, launch):
    """The closure timed and the label's note on how: `call` itself, or the replay of a CUDA
    graph of it (checked to write what the call wrote)."""
    host_us, gpu_us = launch_times(torch, call)
    gpu_text = (f"{gpu_us:.0f} us" if gpu_us is not None
                else "unknown (the GPU ran the calls before the host had enqueued them)")
    times = f"the call takes {host_us:.0f} us on the host, {gpu_text} on the GPU"
    chosen = launch
    if launch == "auto":
        host_bound = gpu_us is None or host_us > HOST_SHARE_MAX * gpu_us
        chosen = "graph" if host_bound else "direct"
    if chosen == "graph":
        try:
            replay = graph_of(torch, call)
        except torch.cuda.OutOfMemoryError:
            raise
        except Exception as error:  # the capture refused, or DeepGEMM's asserts under capture
            why = f"{type(error).__name__}: {first_line(error)}"
            if launch == "graph":
                raise ValueError(f"cannot capture the call in a CUDA graph: {why}") from None
            # auto: a call that cannot be captured is timed as it is, and says so
            return call, f"launch: direct (no CUDA graph: {why}), {times}"
    if chosen == "direct":
        return call, f"launch: direct, {times}"
    operands["out"].zero_()
    replay()
    torch.cuda.synchronize()
    if not torch.equal(routed_rows(torch, operands["out"], case, operands["starts"]), expected):
        raise ValueError("the CUDA graph of the call wrote another result than the call")
    return replay, f"launch: CUDA graph of the call, {times}"


def build_gemm(torch, case, launch="auto", compile_only=False, device="cuda"):
    """Makes the case's operands and returns its DeepGEMM call as a closure whose `label` names
    the call, the configuration and how it is launched; the first call compiles the kernel (or
    finds it in DG_JIT_CACHE_DIR). ValueError for a case DeepGEMM cannot take (refusal, its own
    checks) or whose first result is wrong. compile_only: the first call on zeros, nothing
    returned."""
    reason = refusal(case)
    if reason:
        raise ValueError(reason)
    import deep_gemm

    function = getattr(deep_gemm, API)
    operands = make_operands(torch, case, random=not compile_only, device=device)
    lhs_scales = tma_aligned_scales(torch, deep_gemm, operands["lhs_scale_inv"])
    arguments = ((operands["lhs"], lhs_scales), (operands["rhs"], operands["rhs_scales"]),
                 operands["out"], operands["m_indices"])

    def call():
        function(*arguments)

    deepgemm_call(torch, function, *arguments)  # compiles (or loads) the kernel
    torch.cuda.synchronize()
    if compile_only:
        return None
    expected = check_against_reference(torch, case, operands).clone()
    timed, launch_note = choose_launch(torch, case, call, operands, expected, launch)
    del expected
    configuration = configuration_text(deep_gemm, case, operands["m_padded"])

    def gemm():
        timed()

    gemm.label = f"deep_gemm.{API} {configuration} [{launch_note}]"
    # A CUDA graph reads the operands by address: they live as long as the closure.
    gemm.operands = (arguments, lhs_scales)
    return gemm


def deepgemm_release(deep_gemm):
    """Where deep_gemm was imported from and what is known of its version."""
    package = os.path.dirname(os.path.abspath(deep_gemm.__file__))
    context = {"deep_gemm_path": package}
    commit_file = os.path.join(os.path.dirname(package), "COMMIT")  # the stage's carried copy
    try:
        with open(commit_file) as f:
            context["deep_gemm_commit"] = f.read().strip()
    except OSError:
        context["deep_gemm_commit"] = "unknown (no COMMIT beside the package)"
    try:
        from deep_gemm.jit.compiler import get_deep_gemm_version, get_nvcc_compiler

        context["deep_gemm_version"] = get_deep_gemm_version()  # a hash of its kernel headers
        nvcc, version = get_nvcc_compiler()
        context["deep_gemm_nvcc"] = f"{nvcc} {version}"
    except Exception as error:  # another release, or no nvcc: the compile says more
        context["deep_gemm_nvcc"] = f"unknown ({first_line(error)})"
    return context


class DeepGemmPeer:
    """The runner's Peer for DeepGEMM (runner.py): start() before the warm-up, build() per case.
    A case whose kernel failed to compile in start() fails again at once in build(), with the
    same reason, rather than after the warm-up with another nvcc run."""

    def __init__(self, launch):
        self.launch = launch
        self.compile_failures = {}  # case name -> reason

    def peer(self):
        return Peer("deepgemm", "deepgemm_peer.py", self.build, self.start)

    def build(self, torch, case):
        if case.name in self.compile_failures:
            raise ValueError(self.compile_failures[case.name])
        return build_gemm(torch, case, self.launch)

    def start(self, torch, cases):
        """Once, before the warm-up: DeepGEMM imported and checked, every case's kernel
        compiled (or found in DG_JIT_CACHE_DIR); the context's keys about it. SystemExit where
        it cannot run."""
        context = import_checked(torch)
        context["deep_gemm_launch"] = self.launch
        begin, compiled = time.monotonic(), 0
        for case in cases:
            if refusal(case):
                continue
            try:
                build_gemm(torch, case, self.launch, compile_only=True)
                compiled += 1
            except torch.cuda.OutOfMemoryError:
                pass  # alone it does not fit: its group says so
            except Exception as error:  # reported in the JSON when its group is prepared
                reason = first_line(error)
                self.compile_failures[case.name] = reason
                print(f"{PROG}: {case.name}: {reason} (compiling before the warm-up)",
                      file=sys.stderr, flush=True)
            torch.cuda.empty_cache()
        print(f"{PROG}: DeepGEMM's kernels for {compiled} case(s) compiled or found in the JIT "
              f"cache in {time.monotonic() - begin:.1f} s, before the warm-up", file=sys.stderr,
              flush=True)
        return context


def import_checked(torch):
    """deep_gemm imported, on a GPU it runs on, with CUTLASS's headers where its JIT looks for
    them: the context's keys about it; SystemExit with the reason otherwise."""
    major, minor = torch.cuda.get_device_capability(0)
    if (major, minor) != (9, 0):
        sys.exit(f"{PROG}: DeepGEMM {RELEASE}'s kernels are sm_90a (Hopper) only; this GPU is "
                 f"sm_{major}{minor}")
    try:
        import deep_gemm
    except Exception as error:  # ImportError, or its JIT's own checks at import
        sys.exit(f"{PROG}: cannot import deep_gemm ({type(error).__name__}: {first_line(error)}):"
                 f" put DeepGEMM {RELEASE}'s pure-Python release on PYTHONPATH (it needs "
                 "cuda-python's cuda.bindings); tools/gpu_check_deepgemm_peer.sh shows how")
    if not hasattr(deep_gemm, API) or not hasattr(deep_gemm, "get_col_major_tma_aligned_tensor"):
        sys.exit(f"{PROG}: {deep_gemm.__file__} has no deep_gemm.{API}: the peer is written for "
                 f"DeepGEMM's pure-Python JIT release {RELEASE}")
    context = deepgemm_release(deep_gemm)
    include = os.path.join(context["deep_gemm_path"], "include")
    missing = [name + "/" for name in ("cute", "cutlass")
               if not os.path.isdir(os.path.join(include, name))]
    if missing:
        sys.exit(f"{PROG}: {include} has no {' or '.join(missing)}: DeepGEMM's JIT compiles with "
                 "that folder alone on its include path, so CUTLASS's cute/ and cutlass/ headers "
                 "must be copied into it")
    context.update({
        "deep_gemm_jit_cache": os.environ.get("DG_JIT_CACHE_DIR", "~/.deep_gemm (the default)"),
        "deep_gemm_num_sms": str(deep_gemm.get_num_sms()),
        "deep_gemm_m_alignment": str(M_ALIGNMENT),
    })
    return context


def algorithm(entry):
    """What a case's label says ran, its notes ([...]) left out."""
    return entry.get("label", "").split(" [")[0]


def comparison_table(peer_path, ours_path):
    """The cases of the peer's JSON that gemm_bench's also has, side by side, as a Markdown
    table: TFLOP/s of each, gemm_bench's speed over DeepGEMM's (time over time), what each ran."""
    # tools/run_diff.py, beside the command (on the path as tools/alone_summary.py has it).
    from run_diff import case_entries
    peer = case_entries(peer_path, keep_failed=True)
    ours = case_entries(ours_path, keep_failed=True)
    lines = ["| case | gemm_bench TFLOP/s | DeepGEMM TFLOP/s | gemm_bench / DeepGEMM | "
             "gemm_bench ran | DeepGEMM ran |", "| --- | ---: | ---: | ---: | --- | --- |"]
    for name, theirs in peer.items():
        mine = ours.get(name)
        if mine is None:
            continue
        short = name.replace("/manual_time", "")
        failed = [f"{who}: {entry.get('error_message', 'error')}"
                  for who, entry in (("gemm_bench", mine), ("DeepGEMM", theirs))
                  if entry.get("error_occurred") or not entry.get("real_time")]
        if failed:
            lines.append(f"| {short} | | | | {'; '.join(failed)} | |")
            continue
        lines.append(f"| {short} | {mine.get('TFLOPS', 0):.0f} | {theirs.get('TFLOPS', 0):.0f} | "
                     f"{theirs['real_time'] / mine['real_time']:.3f}x | {algorithm(mine)} | "
                     f"{algorithm(theirs)} |")
    if len(lines) == 2:
        return f"no case of {peer_path} is in {ours_path}"
    return "\n".join(lines)


def add_launch_argument(parser):
    parser.add_argument("--launch", choices=LAUNCHES, default="auto",
                        help="direct: call DeepGEMM in every sample; graph: replay a CUDA graph "
                             "of one call; auto: direct unless the call's host time exceeds "
                             f"{HOST_SHARE_MAX:g} of its GPU time (default %(default)s)")


def parse_args(argv):
    """The flags, the torch peer's (cli.py's peer_parser), --launch and --compare."""
    argv, bench_flags = split_bench_flags(argv)
    parser = peer_parser("deepgemm_peer.py", __doc__.split("\n\n")[0], "deepgemm.json",
                         "print the groups and each case's operands and call; neither torch "
                         "nor deep_gemm is imported", add_peer_arguments=add_launch_argument)
    parser.add_argument("--compare", nargs=2, metavar=("DEEPGEMM_JSON", "GEMM_BENCH_JSON"),
                        help="print the cases of this peer's JSON and gemm_bench's side by side "
                             "(a Markdown table: TFLOP/s, gemm_bench's speed over DeepGEMM's, "
                             "what each ran) and exit")
    args = parser.parse_args(argv)
    if not args.compare:
        check_peer_args(parser, args, bench_flags, PROG)
    return args, bench_flags


def main(argv):
    args, bench_flags = parse_args(argv)
    if args.compare:
        try:
            print(comparison_table(*args.compare))
        except (OSError, ValueError, KeyError) as error:
            sys.exit(f"{PROG}: --compare: {error}")
        return
    lines = list_case_lines(args, bench_flags, PROG)
    cases, left_out = select_cases(lines, args.filter)
    for (what, why), count in left_out.items():
        print(f"{PROG}: {count} {what} left out: {why}", file=sys.stderr)
    if not cases:
        sys.exit(f"{PROG}: no FP8Block prequant Fprop or Dgrad expert case matched")
    if args.expert_rows is None:
        sys.exit(f"{PROG}: {len(cases)} expert case(s) need gemm_bench's rows per expert, which "
                 "--benchmark_list_tests does not print: pass --context_from=FILE (a gemm_bench "
                 "JSON of the same model flags; its context's expert_rows) or --expert_rows=LIST")
    try:
        cases = [with_padding(case) for case in attach_group_rows(cases, args.expert_rows)]
    except ValueError as error:
        sys.exit(f"{PROG}: {error}")
    if args.dry_run:
        dry_run(cases, args)
        return
    run(cases, args, DeepGemmPeer(args.launch).peer())
