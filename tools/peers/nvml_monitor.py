"""The NVML readings the timing rules decide from (SM clock, instant and averaged board power,
clock-event reasons, temperature), taken on a host thread. pynvml is imported when a run opens
the monitor, not before."""

import threading
import time

from .timing import Reading, SettleDetector, summarize

# NVML. Field values in mW: the instant board power, and the one-second average the power
# limiter regulates (nvmlDeviceGetPowerUsage is that average on Ampere and later).
NVML_FI_DEV_POWER_AVERAGE = 185
NVML_FI_DEV_POWER_INSTANT = 186
NVML_PERIOD_S = 0.005


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
