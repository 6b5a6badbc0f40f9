"""A peer's run on the GPU, as gemm_bench runs its own: the warm-up, then each group of cases
prepared together (split where GPU memory runs out) and timed by timing.py's rules, the JSON
rewritten after every group. torch is imported here, when the run starts. Which library makes
and runs each case's GEMM is a Peer: torch's (TORCH, torch_gemm.py) unless the command gives
another (deepgemm_grouped.py's)."""

import collections
import datetime
import math
import os
import socket
import statistics
import sys
from dataclasses import dataclass

from .benchmark_json import (TABLE_HEADER, cpu_mhz, error_entry, iteration_entry, report_entries,
                             table_row, write_json)
from .cases import group_cases
from .nvml_monitor import open_nvml_monitor
from .timing import (BLIND_SETTLE_S, SETTLE_CLOCK_BAND_PCT, SETTLE_POWER_TOLERANCE_PCT,
                     SETTLE_WINDOW_S, SETTLE_WINDOWS, RoundRobinBatch, Settings, run_group,
                     warm_up_gpu, warmup_context)
from .torch_gemm import build_gemm, plan_for


@dataclass(frozen=True)
class Peer:
    """The library a run times. build(torch, case) makes the case's operands and returns its GEMM
    as a closure, checked once (ValueError, RuntimeError or TypeError, with the reason, where the
    library cannot take the case; torch.cuda.OutOfMemoryError where it does not fit); a closure
    with a `label` attribute names what it runs, at the head of the case's label, as gemm_bench's
    label names its algorithm. start(torch, cases), where given, runs once before the warm-up
    and returns the context's keys about the library (SystemExit where it cannot run at all)."""
    name: str  # the context's peer; messages start with "{name}_peer:"
    executable: str  # the context's executable
    build: object
    start: object = None


def torch_context(torch, cases):
    return {"blas_library": str(torch.backends.cuda.preferred_blas_library())}


TORCH = Peer("torch", "torch_peer.py", lambda torch, case: build_gemm(torch, case, plan_for(case)),
             torch_context)


def first_line(error):
    text = str(error).strip()
    return text.splitlines()[0] if text else repr(error)


def prepare_group(torch, members, peer=TORCH):
    """Builds the GEMMs of a group's members, in order: (prepared [(family_index, case, gemm)],
    failed [(family_index, case, message)], rest). When memory runs out after the first member,
    the group is what fits and `rest` are left for further groups, as gemm_bench does; a member
    that fails otherwise (unsupported by the library on this GPU: RuntimeError or ValueError; out
    of memory alone) is reported failed and the group goes on without it."""
    prepared, failed = [], []
    for position, (family_index, case) in enumerate(members):
        try:
            prepared.append((family_index, case, peer.build(torch, case)))
        except torch.cuda.OutOfMemoryError as error:
            if prepared:
                return prepared, failed, members[position:]
            failed.append((family_index, case, f"does not fit in GPU memory: {first_line(error)}"))
        except (RuntimeError, ValueError, TypeError) as error:
            failed.append((family_index, case, first_line(error)))
    return prepared, failed, []


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
        for (family_index, case, gemm), samples_us in zip(prepared, run.samples_us):
            entries[family_index].append(iteration_entry(
                case, family_index, args.repetitions, repetition, samples_us, run, settings,
                getattr(gemm, "label", "")))
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


def measure_group(torch, members, flush_buffer, monitor, settings, args, peer=TORCH):
    """Prepares as many of `members` as fit and times them as one group: (entries by family
    index, the members left for a further group). The group's tensors die with this frame."""
    prepared, failed, rest = prepare_group(torch, members, peer)
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


def run(cases, args, peer=TORCH):
    import torch  # here, so that --dry-run and the pure-Python parts need no torch

    prog = f"{peer.name}_peer"
    if not torch.cuda.is_available():
        sys.exit(f"{prog}: no CUDA device visible to torch")
    properties = torch.cuda.get_device_properties(0)
    # Before the warm-up: whatever the library does first (DeepGEMM compiles its kernels) must
    # not leave the GPU idle between the warm-up and the first group.
    peer_context = peer.start(torch, cases) if peer.start is not None else {}
    monitor, nvml_status = open_nvml_monitor(torch)
    if monitor is None:
        print(f"{prog}: {nvml_status}: settling for a fixed {BLIND_SETTLE_S:g} s, "
              "no clock counters", file=sys.stderr)
    settings = Settings(args.max_settle, args.max_noise, args.min_samples, args.min_time,
                        args.min_time_capped, args.max_time)
    flush_buffer = torch.empty(2 * properties.L2_cache_size, dtype=torch.uint8, device="cuda")
    warmup_s, warmup_temperature, warmup_settled = warm_up_gpu(torch, monitor, args.gpu_warmup,
                                                               args.max_warmup)
    torch.cuda.empty_cache()
    print(f"{prog}: warmed the GPU up for {warmup_s:.1f} s "
          f"({warmup_context(warmup_temperature, warmup_settled)})", file=sys.stderr, flush=True)
    context = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host_name": socket.gethostname(),
        "executable": peer.executable,
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
        **peer_context,
        "peer": peer.name,
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
                                             args, peer)
            # The group's tensors died with measure_group's frame; give their memory back for
            # the next group.
            torch.cuda.empty_cache()
            results.update(entries)
            write_json(args.out, context, report_entries(cases, results))
    if monitor is not None:
        monitor.close()
    print(f"{prog}: wrote {args.out}")
