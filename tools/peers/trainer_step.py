"""A real trainer's step as a peer of gemm_bench's step cases: one forward and backward of a
bias-free Linear on each dense op of a gemm_bench run, timed under gemm_bench's rules
(timing.py), beside that run's per-op step sum (Fprop + Dgrad + Wgrad):

- BF16: torch.nn.Linear, eager (cuBLAS), against gemm_bench's BF16 native cases;
- tensorwise: torchao's Float8Linear (Float8LinearConfig.from_recipe_name("tensorwise")) under
  torch.compile, against FP8Current's step cases;
- blockwise: torchao's Float8BlockwiseLinear (1x128 activations and gradients, 128x128 weights,
  its Triton quantization kernels and torch's block-scaled scaled_mm), against FP8Block's;
- rowwise: torchao's Float8Linear with from_recipe_name("rowwise") (E4M3 everywhere, one
  power-of-2 scale per row along each GEMM's contraction dimension) under torch.compile, as
  tensorwise, against FP8Rowwise's step cases;
- rowwise_with_gw_hp: the same with from_recipe_name("rowwise_with_gw_hp") (Dgrad's weight
  tensorwise, Wgrad in BF16), against FP8RowwiseBF16Wgrad's.
The recipe names are torchao 0.18's Float8LinearRecipeName values (torchao/float8/config.py).
torchao runs a rowwise GEMM only where it accumulates fast (Fprop): its FP8 Dgrad and Wgrad
GEMMs are a tensorwise torch._scaled_mm with unit scales followed by the scaling as an
elementwise product, which torch.compile fuses (float8_ops.py, addmm_float8_unwrapped);
gemm_bench runs every FP8 GEMM of these recipes with outer-vector scales, so the ratio holds
that difference too.

A step: y = layer(x); y.backward(dy), x and the weight gradients set to None before it (no
accumulation kernel), x a leaf that needs its gradient (Dgrad), random normal x, dy and W. Each
recipe's ops are one group, run round-robin with an L2 flush before each step, as gemm_bench runs
a precision's cases. torch.compile's dynamo gives up after its recompile limit and runs the rest
eager without a word, so every layer is compiled after torch._dynamo.reset() and with the limit
raised; the first steps (compiling, Triton's autotuning) run before timing.

What gemm_bench's sums are is read from its JSON, so the peer's ops and shapes are exactly the
run's: M:{tokens}/K:{in}/N:{out} of each op's BF16 Fprop case."""

import json
import re

# The peer's recipes: (name, the gemm_bench precision and mode its steps are compared with).
RECIPES = {
    "bf16": ("BF16", "native"),
    "tensorwise": ("FP8Current", "step"),
    "blockwise": ("FP8Block", "step"),
    "rowwise": ("FP8Rowwise", "step"),
    "rowwise_with_gw_hp": ("FP8RowwiseBF16Wgrad", "step"),
}
# The recipes that are torchao's Float8Linear, compiled, with Float8LinearConfig.from_recipe_name
# of the recipe's own name.
FLOAT8_LINEAR_RECIPES = ("tensorwise", "rowwise", "rowwise_with_gw_hp")
PASSES = ("Fprop", "Dgrad", "Wgrad")
_CASE = re.compile(r"^(?P<precision>[A-Za-z0-9]+)/(?P<pass>Fprop|Dgrad|Wgrad)/(?P<op>[a-z_0-9]+)/"
                   r"(?P<mode>[a-z]+)/M:(?P<m>\d+)/K:(?P<k>\d+)/N:(?P<n>\d+)(/manual_time)?$")
_TIME_UNITS_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


class RunSteps:
    """A gemm_bench run's dense ops (tokens, in, out, from the BF16 Fprop case; ops with the three
    BF16 passes) and, per precision and mode, each op's per-pass times in µs (iterations only,
    the first repetition)."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        self.context = data.get("context", {})
        self.ops = {}  # op -> (tokens, in, out), in the run's order
        self.times_us = {}  # (precision, mode, op, pass) -> µs
        for entry in data.get("benchmarks", []):
            if entry.get("run_type", "iteration") != "iteration" or entry.get("error_occurred"):
                continue
            if entry.get("skipped") or entry.get("repetition_index", 0) != 0:
                continue
            match = _CASE.match(entry.get("run_name", entry.get("name", "")))
            if match is None:
                continue  # quantization cases, grouped (expert) cases
            key = (match["precision"], match["mode"], match["op"], match["pass"])
            scale = _TIME_UNITS_US.get(entry.get("time_unit", "ns"))
            if scale is None or "real_time" not in entry:
                continue
            self.times_us[key] = float(entry["real_time"]) * scale
            if match["precision"] == "BF16" and match["pass"] == "Fprop":
                self.ops[match["op"]] = (int(match["m"]), int(match["k"]), int(match["n"]))
        # A layer's op has all three passes (a --shapes run's GEMMs are Fprops alone).
        self.ops = {op: dims for op, dims in self.ops.items()
                    if self.step_us("BF16", "native", op) is not None}

    def step_us(self, precision, mode, op):
        """The op's Fprop + Dgrad + Wgrad, or None when a pass is missing."""
        times = [self.times_us.get((precision, mode, op, p)) for p in PASSES]
        return None if None in times else sum(times)


def comparison_rows(run, peer_us):
    """Per op and recipe: (op, recipe, gemm_bench's step sum µs, the peer's µs, ours / peer).
    peer_us: {(recipe, op): µs}; a side that is missing is None, and so is the ratio."""
    rows = []
    for op in run.ops:
        for recipe, (precision, mode) in RECIPES.items():
            ours = run.step_us(precision, mode, op)
            peer = peer_us.get((recipe, op))
            ratio = ours / peer if ours is not None and peer else None
            rows.append((op, recipe, ours, peer, ratio))
    return rows


def comparison_text(rows):
    def ms(value):
        return f"{value / 1000:9.3f}" if value is not None else f"{'n/a':>9}"

    width = max(map(len, RECIPES))
    lines = [f"{'op':<10} {'recipe':<{width}} {'ours ms':>9} {'peer ms':>9} {'ours/peer':>9}"]
    for op, recipe, ours, peer, ratio in rows:
        lines.append(f"{op:<10} {recipe:<{width}} {ms(ours)} {ms(peer)} "
                     f"{(f'{ratio:9.3f}' if ratio is not None else f'{chr(45):>9}')}")
    return "\n".join(lines)


def make_layer(torch, recipe, in_features, out_features):
    """The recipe's Linear, on the GPU, BF16 weights drawn from N(0, 1)."""
    linear = torch.nn.Linear(in_features, out_features, bias=False, device="cuda",
                             dtype=torch.bfloat16)
    with torch.no_grad():
        linear.weight.normal_()
    if recipe == "bf16":
        return linear
    if recipe in FLOAT8_LINEAR_RECIPES:
        from torchao.float8 import Float8LinearConfig, convert_to_float8_training

        model = convert_to_float8_training(
            torch.nn.Sequential(linear), config=Float8LinearConfig.from_recipe_name(recipe))
        torch._dynamo.reset()
        return torch.compile(model)
    if recipe == "blockwise":
        from torchao.prototype.blockwise_fp8_training.linear import Float8BlockwiseLinear

        return Float8BlockwiseLinear.from_float(linear)
    raise ValueError(f"unknown recipe {recipe!r}; expected one of {', '.join(RECIPES)}")


def make_step(torch, layer, tokens, in_features, out_features):
    """One training step of `layer` as a callable: forward, then backward from a fixed dy."""
    x = torch.randn(tokens, in_features, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    dy = torch.randn(tokens, out_features, device="cuda", dtype=torch.bfloat16)
    parameters = list(layer.parameters())

    def step():
        x.grad = None
        for parameter in parameters:
            parameter.grad = None
        layer(x).backward(dy)

    return step


def parse_args(argv):
    import argparse

    from .timing import add_timing_arguments, check_timing_arguments

    parser = argparse.ArgumentParser(
        prog="trainer_peer.py", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps_from", metavar="FILE", required=True,
                        help="gemm_bench JSON of a model run with its BF16 native and step cases "
                             "(the README's main job's, say): the ops, shapes and our sums")
    parser.add_argument("--recipes", default=",".join(RECIPES),
                        help="comma-separated, of " + ", ".join(RECIPES) + " (default all)")
    parser.add_argument("--out", default="trainer.json", help="JSON to write (default %(default)s)")
    parser.add_argument("--peer_from", metavar="FILE",
                        help="time nothing: compare --steps_from with the peer's steps of an "
                             "earlier --out (a second gemm_bench run beside one peer run)")
    parser.add_argument("--first_steps", type=int, default=5,
                        help="untimed steps of each layer before its group (compiling, Triton's "
                             "autotuning; default 5)")
    parser.add_argument("--list_kernels", action="store_true",
                        help="after timing, the kernels of 3 steps of each op (torch.profiler; at "
                             "whatever clock the GPU has then) to stderr, as gemm_bench's "
                             "--list_kernels lists its cases' kernels")
    add_timing_arguments(parser)
    args = parser.parse_args(argv)
    args.recipes = [r for r in args.recipes.split(",") if r]
    unknown = [r for r in args.recipes if r not in RECIPES]
    if unknown or not args.recipes:
        parser.error(f"--recipes: unknown {', '.join(unknown) or '(none given)'}; expected a "
                     f"comma-separated list of {', '.join(RECIPES)}")
    if args.first_steps < 1:
        parser.error("--first_steps: expected 1 or more (the first step compiles)")
    check_timing_arguments(parser, args)
    return args


def kernel_list_text(torch, step, steps=3):
    """The kernels one step launches, each with its mean duration (µs), in launch order."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    durations = {}
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            durations.setdefault(event.name, []).append(event.device_time)
    return ", ".join(f"{name} x{len(times) / steps:g} {sum(times) / len(times):.1f} us"
                     for name, times in durations.items())


def time_recipe(torch, recipe, run, flush_buffer, monitor, settings, first_steps,
                list_kernels=False):
    """The recipe's steps of every op of the run, one group: {op: (mean µs, noise, samples)}."""
    import math

    from .timing import RoundRobinBatch, mean_and_noise, run_group

    steps = {}
    for op, (tokens, in_features, out_features) in run.ops.items():
        layer = make_layer(torch, recipe, in_features, out_features)
        steps[op] = make_step(torch, layer, tokens, in_features, out_features)
        for _ in range(first_steps):
            steps[op]()
    torch.cuda.synchronize()
    batch = RoundRobinBatch(torch, list(steps.values()), flush_buffer,
                            max(1, math.ceil(16 / len(steps))))
    group = run_group(batch, monitor, settings)
    results = {}
    for op, samples in zip(steps, group.samples_us):
        mean, noise = mean_and_noise(samples)
        results[op] = (mean, noise, len(samples))
    if list_kernels:
        import sys

        for op, step in steps.items():
            print(f"kernels of {recipe} {op}: {kernel_list_text(torch, step)}", file=sys.stderr,
                  flush=True)
    return results, group


def main(argv):
    import sys

    args = parse_args(argv)
    run = RunSteps(args.steps_from)
    if not run.ops:
        sys.exit(f"trainer_peer: {args.steps_from} has no dense op with a BF16 Fprop case "
                 "(and its Dgrad and Wgrad)")
    if args.peer_from:
        with open(args.peer_from, encoding="utf-8") as file:
            groups = json.load(file).get("groups", [])
        print(comparison_text(comparison_rows(run, {(g["recipe"], g["op"]): g["peer_us"]
                                                    for g in groups})))
        return
    try:
        import torch
    except ImportError as error:
        sys.exit(f"trainer_peer: timing needs torch (and torchao for every recipe but bf16): "
                 f"{error}")

    from .nvml_monitor import open_nvml_monitor
    from .timing import Settings, warm_up_gpu, warmup_context

    if not torch.cuda.is_available():
        sys.exit("trainer_peer: no CUDA device visible to torch")
    # Each layer compiles its own graph; dynamo's default limit would leave later ones eager.
    for limit in ("recompile_limit", "cache_size_limit"):  # its name before torch 2.7
        if hasattr(torch._dynamo.config, limit):
            setattr(torch._dynamo.config, limit, 64)
    monitor, nvml_status = open_nvml_monitor(torch)
    settings = Settings(args.max_settle, args.max_noise, args.min_samples, args.min_time,
                        args.min_time_capped, args.max_time)
    properties = torch.cuda.get_device_properties(0)
    flush_buffer = torch.empty(2 * properties.L2_cache_size, dtype=torch.uint8, device="cuda")
    warmup = warm_up_gpu(torch, monitor, args.gpu_warmup, args.max_warmup)
    peer_us, details, failed = {}, [], {}
    for recipe in args.recipes:
        try:
            results, group = time_recipe(torch, recipe, run, flush_buffer, monitor, settings,
                                         args.first_steps, args.list_kernels)
        except (ImportError, RuntimeError, AssertionError, ValueError) as error:
            failed[recipe] = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
            print(f"trainer_peer: {recipe}: {failed[recipe]}", file=sys.stderr, flush=True)
            torch.cuda.empty_cache()
            continue
        clocks = group.clocks
        for op, (mean, noise, samples) in results.items():
            peer_us[(recipe, op)] = mean
            details.append({"recipe": recipe, "op": op, "peer_us": mean, "noise_pct": noise * 100,
                            "samples": samples, "settled": group.settled,
                            "sm_clock_mhz": clocks.sm_clock_mhz if clocks else None})
        print(f"trainer_peer: {recipe}: {', '.join(f'{op} {mean / 1000:.3f} ms' for op, (mean, _, _) in results.items())}"
              f" ({'settled' if group.settled else 'not settled'} in {group.settle_s:.1f} s, "
              f"sampled {group.sampling_s:.1f} s)", file=sys.stderr, flush=True)
        torch.cuda.empty_cache()
    rows = comparison_rows(run, peer_us)
    print(comparison_text(rows))
    import torchao

    context = {
        "device_name": torch.cuda.get_device_name(0), "torch_version": torch.__version__,
        "torchao_version": getattr(torchao, "__version__", "unknown"), "nvml": nvml_status,
        "gpu_warmup": f"{warmup[0]:.1f} s, {warmup_context(warmup[1], warmup[2])}",
        "steps_from": args.steps_from, "gemm_bench_device": run.context.get("device_name", ""),
        "microbatches": run.context.get("microbatches", "1"),
    }
    with open(args.out, "w", encoding="utf-8") as file:
        json.dump({"context": context, "failed": failed, "groups": details,
                   "rows": [dict(zip(("op", "recipe", "ours_us", "peer_us", "ours_over_peer"), r))
                            for r in rows]}, file, indent=1)
    print(f"trainer_peer: wrote {args.out}", file=sys.stderr)
    if monitor is not None:
        monitor.close()
