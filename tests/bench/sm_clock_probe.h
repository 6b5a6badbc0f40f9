#pragma once
// Test support: the SM clock as the SMs themselves count it, a timer independent of NVML and
// of the performance monitors. One single-warp block per SM spins for a while of GPU time
// (%globaltimer), counting its cycles (clock64()); cycles over nanoseconds is the clock it ran at.

#include <cuda_runtime.h>

namespace gemmscope::testing {

// Spins every SM for `seconds` on `stream` and waits; returns the blocks' mean clock in MHz.
double spin_and_measure_sm_clock_mhz(double seconds, cudaStream_t stream);

}  // namespace gemmscope::testing
