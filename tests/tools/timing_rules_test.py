#!/usr/bin/env python3
"""tools/peers/timing.py, the peers' copy of gemm_bench's timing rules, over
fixtures/timing_rules.json: inputs with the outputs bench/timing/'s C++ gives
(tests/bench/timing_rules_fixture_test.cpp holds the C++ to the same file). An answer of the
Python's that is not the file's is a place where the two copies of a rule have drifted apart."""
import json
import math
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from peers import timing  # noqa: E402

with open(os.path.join(HERE, "fixtures", "timing_rules.json"), encoding="utf-8") as f:
    FIXTURE = json.load(f)

# Inputs on which the Python does not give the C++'s answer, by (section, name), with why.
# test_known_differences_remain checks that each still differs: once the Python agrees, its entry
# goes from here.
KNOWN_DIFFERENCES = {}

# A relative difference the two may have in a mean or an interval: the C++ sums in order,
# Python's statistics module exactly, so they part in the last bits.
CLOSE = 1e-9


def sampling_settings(**given):
    """timing.Settings with gemm_bench's SamplingSettings defaults where the fixture gives none
    (max_settle_s plays no part in the rules tested here)."""
    defaults = {"max_settle_s": 5.0, "max_noise_pct": 0.5, "min_samples": 10, "min_time_s": 1.0,
                "min_time_capped_s": 4.0, "max_time_s": 8.0}
    return timing.Settings(**{**defaults, **given})


def settle_answers(case):
    detector = timing.SettleDetector()
    settled = ""
    for time_s, clock, instant, average, limit in case["readings"]:
        detector.add(timing.Reading(time_s, clock, instant, average, limit, 0, None))
        settled += "1" if detector.settled else "0"
    return settled


def statistics_mismatch(case):
    """None where mean_and_noise gives the fixture's mean and interval, else what it gives."""
    try:
        mean, noise = timing.mean_and_noise(case["samples"])
    except Exception as error:  # a rule that raises where the C++ answers
        return f"raised {error!r}"
    noise_pct = noise * 100
    expected = case["relative_half_width_pct"]
    same_noise = (math.isinf(noise_pct) if expected is None else
                  math.isclose(noise_pct, expected, rel_tol=CLOSE, abs_tol=CLOSE))
    if math.isclose(mean, case["mean"], rel_tol=CLOSE) and same_noise:
        return None
    return f"mean {mean!r}, relative half-width {noise_pct!r}%"


def noise_mismatch(case):
    try:
        met = timing.noise_target_met(case["samples"], sampling_settings(
            max_noise_pct=case["max_noise_pct"], min_samples=case["min_samples"]))
    except Exception as error:
        return f"raised {error!r}"
    return None if met == case["met"] else f"met {met}"


MISMATCH = {"sample_statistics": statistics_mismatch, "noise_target_met": noise_mismatch}


class TimingRules(unittest.TestCase):
    def test_constants_are_gemm_bench_defaults(self):
        constants = FIXTURE["constants"]
        self.assertEqual(timing.SETTLE_WINDOW_S, constants["settle_window_s"])
        self.assertEqual(timing.SETTLE_WINDOWS, constants["settle_windows"])
        self.assertEqual(timing.SETTLE_CLOCK_BAND_PCT, constants["settle_clock_band_pct"])
        self.assertEqual(timing.SETTLE_POWER_TOLERANCE_PCT,
                         constants["settle_power_tolerance_pct"])
        self.assertEqual(timing.SETTLE_CAPPED_SHARE_OF_LIMIT,
                         constants["settle_capped_share_of_limit"])
        self.assertEqual(timing.BATCHES, constants["batches"])
        self.assertEqual(timing.OUTLIER_FACTOR, constants["outlier_factor"])
        self.assertEqual(timing.WARMUP_WINDOW_S, constants["warmup_window_s"])
        self.assertEqual(timing.WARMUP_MAX_RISE_C, constants["warmup_max_rise_c"])
        self.assertEqual(timing.CLOCK_SLOWDOWN_BITS, constants["clock_slowdown_bits"])
        trend = FIXTURE["temperature_trend"]
        self.assertEqual((trend["window_s"], trend["max_rise_c"]),
                         (timing.WARMUP_WINDOW_S, timing.WARMUP_MAX_RISE_C))

    def test_clock_events(self):
        for case in FIXTURE["clock_events"]:
            with self.subTest(case["name"]):
                self.assertEqual(timing.clock_event_text(case["reasons"]), case["text"])
                self.assertEqual(bool(case["reasons"] & timing.CLOCK_SLOWDOWN_BITS),
                                 case["clock_limited"])

    def test_settle_detector(self):
        self.assertGreaterEqual(len(FIXTURE["settle_detector"]), 10)
        for case in FIXTURE["settle_detector"]:
            with self.subTest(case["name"]):
                self.assertEqual(settle_answers(case), case["settled"])

    def check_section(self, section):
        cases = [case for case in FIXTURE[section]
                 if (section, case["name"]) not in KNOWN_DIFFERENCES]
        self.assertGreaterEqual(len(cases), 5)
        for case in cases:
            with self.subTest(case["name"]):
                self.assertIsNone(MISMATCH[section](case))

    def test_sample_statistics(self):
        self.check_section("sample_statistics")

    def test_noise_target_met(self):
        self.check_section("noise_target_met")

    def test_sampling_verdict(self):
        for case in FIXTURE["sampling_verdict"]:
            with self.subTest(**case):
                settings = sampling_settings(min_time_s=case["min_time_s"],
                                             min_time_capped_s=case["min_time_capped_s"],
                                             max_time_s=case["max_time_s"])
                self.assertEqual(timing.sampling_verdict(settings, case["elapsed_s"],
                                                         case["targets_met"],
                                                         case["clock_limited"]),
                                 case["verdict"])

    def test_temperature_trend(self):
        for case in FIXTURE["temperature_trend"]["cases"]:
            with self.subTest(case["name"]):
                trend = timing.TemperatureTrend()
                settled = ""
                for time_s, celsius in case["readings"]:
                    trend.add(time_s, celsius)
                    settled += "1" if trend.settled() else "0"
                self.assertEqual(settled, case["settled"])

    def test_known_differences_remain(self):
        for (section, name), why in KNOWN_DIFFERENCES.items():
            with self.subTest(f"{section}: {name}"):
                cases = [case for case in FIXTURE[section] if case["name"] == name]
                self.assertEqual(len(cases), 1, "no such input in the fixture")
                self.assertIsNotNone(MISMATCH[section](cases[0]),
                                     f"the Python now agrees ({why}): take the entry out")


if __name__ == "__main__":
    unittest.main()
