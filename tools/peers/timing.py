"""gemm_bench's timing rules (bench/timing/), restated for the peers: their one copy in Python.
tests/tools/fixtures/timing_rules.json holds inputs and what bench/timing/ makes of them; this
module (tests/tools/timing_rules_test.py) and the C++ (tests/bench/timing_rules_fixture_test.cpp)
are both held to it, so that the two copies cannot drift apart unseen.

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
"""

import collections
import math
import statistics
import time
from dataclasses import dataclass

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
    # gemm_bench's test, rounding included: an outlier is above median * factor or has
    # x * factor below the median (a quotient median / factor rounds differently at the bound).
    kept = [x for x in samples if not (x > median * OUTLIER_FACTOR or x * OUTLIER_FACTOR < median)]
    if not kept:  # every sample an outlier (two modes far apart): no mean, as gemm_bench
        return 0.0, math.inf
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


def add_timing_arguments(parser):
    """The timing flags every peer takes, gemm_bench's own with its defaults."""
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


def check_timing_arguments(parser, args):
    """parser.error() for timing flags gemm_bench would refuse."""
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
