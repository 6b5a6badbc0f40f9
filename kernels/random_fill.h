#pragma once
// Random, non-zero test data on the GPU: zeros and repeated values make tensor cores draw less
// power and run faster than real data, so every benchmarked operand is filled with this.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gemmscope {

// Fills `out` with normally distributed values N(mean, stddev). The value of element i depends
// only on (seed, i), so a fill is reproducible and independent of the launch configuration.
// An exact zero (after rounding to the element type) is replaced by `stddev`.
void fill_normal(__nv_bfloat16* out, size_t count, uint64_t seed, float mean, float stddev,
                 cudaStream_t stream);
void fill_normal(float* out, size_t count, uint64_t seed, float mean, float stddev,
                 cudaStream_t stream);

}  // namespace gemmscope
