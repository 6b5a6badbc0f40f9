#pragma once
// Test support: the SM clock as the SMs themselves count it, a timer independent of NVML and
// of the performance monitors. Every SM runs a full block of FMA chains for a while of GPU time
// (%globaltimer); one thread of each block counts its cycles (clock64()); cycles over
// nanoseconds is the clock that SM ran at. The SMs must be busy: with one warp per SM polling
// the timer, the performance monitors' cycle counters read 140-1260 MHz on an H200 whose SMs
// counted 1980 (the counters stop while the clock is gated; clock64() does not).

#include <cuda_runtime.h>

namespace gemmscope::testing {

// Keeps every SM busy for `seconds` on `stream` and waits; returns the blocks' mean clock in MHz.
double busy_sms_clock_mhz(double seconds, cudaStream_t stream);

}  // namespace gemmscope::testing
