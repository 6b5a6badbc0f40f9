#!/usr/bin/env python3
"""A peer on the same data: times gemm_bench's BF16 `native` and FP8Current `prequant` GEMM cases
with PyTorch (torch.matmul, torch._scaled_mm) under gemm_bench's timing rules, and writes Google
Benchmark JSON with gemm_bench's case names, so that Google Benchmark's compare.py puts the two
side by side:

    tools/torch_peer.py --out=torch.json -- --model=llama3-8b
    compare.py benchmarks torch.json gemmscope.json

Usage: torch_peer.py [--gemm_bench=PATH | --cases=FILE] [--filter=REGEX] [--out=FILE]
                     [--repetitions=R] [--gpu_warmup=S] [--max_warmup=S] [timing options]
                     [--list_kernels] [--dry-run] [-- GEMM_BENCH_FLAGS...]

Cases come from `gemm_bench --benchmark_list_tests GEMM_BENCH_FLAGS...` (or one name a line in
FILE); only BF16/{pass}/{op}/native/M:/K:/N: and FP8Current/{pass}/{op}/prequant/M:/K:/N: cases
are kept. --dry-run prints the groups and each case's operands and call without importing
torch.

How cases are timed, as gemm_bench times them (bench/timing/steady_state_run.h): first the GPU is warmed
up as gemm_bench warms it up (bench/timing/gpu_warmup.h); then the cases of one
precision form a group, prepared together and run round-robin (one sample of each in turn), so
that every member is timed at the clock the group's mix of work holds, as in a training step.
The group first runs untimed until NVML shows the SM clock and board power settled (or
--max_settle); then it is sampled round-robin until every member's mean is known to
--max_noise with --min_samples, after --min_time (--min_time_capped at the power cap), or until
--max_time. A sample: the L2 is flushed (a buffer of twice its size zeroed) outside the events;
start event, the GEMM, stop event. Samples are enqueued in batches, the next while one runs, so
the GPU runs them back to back and host launch latency is not timed. The time reported is the
mean (less outliers; bench/timing/sample_statistics.h); each repetition is one whole run of the group.

One difference remains: gemm_bench's FP8Current group also holds its `autocast` cases, which a
peer cannot run, so the peer's FP8 group is a different mix and may hold a different clock.
"""

import argparse
import collections
import datetime
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
    r"^(?P<precision>BF16|FP8Current)/(?P<pass_>Fprop|Dgrad|Wgrad)/(?P<op>[^/]+)/(?P<mode>[^/]+)"
    r"/M:(?P<m>\d+)/K:(?P<k>\d+)/N:(?P<n>\d+)(?:/manual_time)?$")
# BF16 is registered once as `native`; FP8Current's `prequant` mode times the GEMM alone, which is
# what a peer can reproduce (its `autocast` quantization kernels are gemmscope's own).
PEER_MODES = {"BF16": "native", "FP8Current": "prequant"}

# FP8 formats: torch dtype name and largest finite value. Scales map amax onto that value.
FP8 = {"e4m3": ("float8_e4m3fn", 448.0), "e5m2": ("float8_e5m2", 57344.0)}
# One fixed seed per training tensor (as gemm_bench seeds per role): every precision of a case
# multiplies the same data.
SEEDS = {"x": 0x5eed0001, "w": 0x5eed0002, "dy": 0x5eed0003}
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


@dataclass(frozen=True)
class Case:
    name: str  # as gemm_bench reports it, ending in /manual_time
    precision: str
    gemm_pass: str
    m: int
    k: int
    n: int

    @property
    def flops(self):
        return 2 * self.m * self.k * self.n

    def role_shape(self, role):
        """The row-major shape a training framework stores a tensor in, from the case's M, K, N
        (TransformerEngine's conventions: Fprop M=tokens K=in N=out; Dgrad M=tokens K=out N=in;
        Wgrad M=in K=tokens N=out)."""
        tokens, in_features, out_features = {
            "Fprop": (self.m, self.k, self.n),
            "Dgrad": (self.m, self.n, self.k),
            "Wgrad": (self.k, self.m, self.n),
        }[self.gemm_pass]
        return {"x": (tokens, in_features), "w": (out_features, in_features),
                "dy": (tokens, out_features)}[role]


def parse_case(line):
    """A Case for a gemm_bench name the peer can time, else None."""
    match = CASE_RE.match(line.strip())
    if match is None or PEER_MODES[match["precision"]] != match["mode"]:
        return None
    name = match[0] if match[0].endswith("/manual_time") else match[0] + "/manual_time"
    return Case(name, match["precision"], match["pass_"], int(match["m"]), int(match["k"]),
                int(match["n"]))


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


@dataclass(frozen=True)
class Operand:
    role: str  # x, w or dy: the training tensor it is made from
    transposed_copy: bool  # a contiguous transposed ("columnwise") copy, made outside timing
    fmt: str  # bf16, e4m3 or e5m2
    read_transposed: bool  # the GEMM reads it through .t(), a free column-major view

    def stored_shape(self, case):
        rows, cols = case.role_shape(self.role)
        return (cols, rows) if self.transposed_copy else (rows, cols)

    def view_shape(self, case):
        rows, cols = self.stored_shape(case)
        return (cols, rows) if self.read_transposed else (rows, cols)

    def describe(self, case):
        name = self.role + ("ᵀ copy" if self.transposed_copy else "")
        layout = "column-major (.t() of row-major)" if self.read_transposed else "row-major"
        rows, cols = self.view_shape(case)
        return f"{name} {self.fmt.upper()} [{rows}, {cols}] {layout}"


@dataclass(frozen=True)
class Plan:
    """out = a @ b. The orientation is gemm_bench's: PyTorch, like gemm_bench's GemmPlan, hands
    cuBLAS(Lt) a row-major product as its column-major transpose (b as cuBLAS's A, a as its B),
    so each pass below reaches cuBLAS with the same m, n, k and transposes as gemm_bench's."""
    a: Operand
    b: Operand
    fast_accum: bool  # FP8 only: cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM

    @property
    def fp8(self):
        return self.a.fmt != "bf16"

    def out_shape(self, case):
        return (self.a.view_shape(case)[0], self.b.view_shape(case)[1])

    def call(self):
        if self.fp8:
            return (f"torch._scaled_mm(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, "
                    f"use_fast_accum={self.fast_accum})")
        return "torch.matmul(a, b)"


def plan_for(case):
    """Which tensors each pass multiplies, in which layout and format."""
    def op(role, fmt, copy=False, t=False):
        return Operand(role, copy, fmt, t)

    if case.precision == "BF16":
        # The layouts a training framework launches: Fprop TN, Dgrad NN, Wgrad NT.
        return {
            "Fprop": Plan(op("x", "bf16"), op("w", "bf16", t=True), False),  # X·Wᵀ
            "Dgrad": Plan(op("dy", "bf16"), op("w", "bf16"), False),  # dY·W, W [out=K, in=N]
            # dW = dYᵀ·X, both read transposed from their [tokens, ...] storage; the output is
            # dW [out, in] = [N, M], laid out like W, as gemm_bench's Wgrad writes it. (x.t() @ dy
            # costs the same 2·M·K·N but writes dWᵀ and reaches cuBLAS with m and n swapped.)
            "Wgrad": Plan(op("dy", "bf16", t=True), op("x", "bf16"), False),
        }[case.gemm_pass]
    # FP8 on Hopper is TN only: a row-major [rows, K], b column-major [K, cols] (.t() of a
    # row-major [cols, K] tensor), so Dgrad and Wgrad read transposed copies. Gradients are E5M2.
    # Fast accumulation in Fprop only, as TransformerEngine does.
    return {
        "Fprop": Plan(op("x", "e4m3"), op("w", "e4m3", t=True), True),
        "Dgrad": Plan(op("dy", "e5m2"), op("w", "e4m3", copy=True, t=True), False),
        # dW [out, in] = dYᵀ copy [out, tokens] · (Xᵀ copy [in, tokens]).t(): gemm_bench's Wgrad
        # (its left operand is dY's columnwise copy, its right X's), so cuBLASLt's A is Xᵀ E4M3
        # and its B dYᵀ E5M2, with m = in, n = out.
        "Wgrad": Plan(op("dy", "e5m2", copy=True), op("x", "e4m3", copy=True, t=True), False),
    }[case.gemm_pass]


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


def build_gemm(torch, case, plan):
    """Makes the case's operands (random N(0, 1) BF16, fixed seed per tensor; FP8 copies
    quantized once, outside timing) and returns the GEMM as a closure."""
    sources = {}
    for role in (plan.a.role, plan.b.role):
        generator = torch.Generator(device="cuda").manual_seed(SEEDS[role])
        sources[role] = torch.randn(*case.role_shape(role), generator=generator,
                                    dtype=torch.bfloat16, device="cuda")

    def operand(spec):
        """The tensor the GEMM reads and its dequantization scale (None for BF16)."""
        source = sources[spec.role]
        data = source.t().contiguous() if spec.transposed_copy else source
        scale = None
        if spec.fmt != "bf16":
            dtype_name, fmt_max = FP8[spec.fmt]
            # Current scaling: this tensor's amax maps onto the format's largest value; the cast
            # saturates, as TransformerEngine's does (torch's own cast would overflow to NaN).
            quant_scale = fmt_max / source.abs().amax().float()
            scaled = data.float().mul_(quant_scale).clamp_(-fmt_max, fmt_max)
            data = scaled.to(getattr(torch, dtype_name))
            del scaled
            scale = quant_scale.reciprocal()  # _scaled_mm's scales dequantize
        return (data.t() if spec.read_transposed else data), scale

    a, scale_a = operand(plan.a)
    b, scale_b = operand(plan.b)
    del sources
    if plan.fp8:
        def gemm():
            return torch._scaled_mm(a, b, scale_a, scale_b, out_dtype=torch.bfloat16,
                                    use_fast_accum=plan.fast_accum)
    else:
        def gemm():
            return torch.matmul(a, b)
    # One untimed call: an unsupported combination raises here, and a wrong plan shows.
    out = gemm()
    if tuple(out.shape) != plan.out_shape(case) or out.dtype != torch.bfloat16:
        raise ValueError(f"output {tuple(out.shape)} {out.dtype}, expected "
                         f"{plan.out_shape(case)} bfloat16")
    if not bool(torch.isfinite(out).all()):
        raise ValueError("non-finite values in the output")
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
    """gemm_bench's groups among the peer's cases: all cases of one precision, in the order of
    their first case; each member with its family index (its place among all cases)."""
    groups = {}
    for family_index, case in enumerate(cases):
        groups.setdefault(case.precision, []).append((family_index, case))
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
        print(f"group {number}: {members[0][1].precision}, {len(members)} case(s), prepared "
              "together and timed round-robin (split if they do not fit in GPU memory)")
        for _, case in members:
            plan = plan_for(case)
            rows, cols = plan.out_shape(case)
            print(f"  {case.name}")
            print(f"    a: {plan.a.describe(case)}")
            print(f"    b: {plan.b.describe(case)}")
            if plan.fp8:
                print("    scale_a, scale_b: FP32 scalars on the GPU, amax/max of each format "
                      "(dequantization)")
            print(f"    {plan.call()} -> [{rows}, {cols}] BF16, {case.flops / 1e9:.1f} GFLOP")
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
    return args, bench_flags


def main(argv):
    args, bench_flags = parse_args(argv)
    cases = select_cases(list_case_lines(args, bench_flags), args.filter)
    if not cases:
        sys.exit("torch_peer: no BF16 native or FP8Current prequant GEMM case matched")
    if args.dry_run:
        dry_run(cases, args)
    else:
        run(cases, args)


if __name__ == "__main__":
    main(sys.argv[1:])
