#include "quant/nvfp4_amax.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "quant/cuda_check.h"
#include "quant/detail/block_codecs.h"
#include "quant/detail/launch_checks.h"
#include "quant/detail/quantize_tile.cuh"
#include "quant/detail/resident_ctas.h"
#include "quant/hadamard.h"
#include "quant/nvfp4_scaling.h"

namespace gemmscope {
namespace {

// The tensor is cut into stripes of 16 rows (one Hadamard group) and 1024 columns; each thread
// takes one 16x4 strip of a stripe, read as 16 loads of 8 bytes so many are in flight at once (a
// warp's load covers 256 contiguous bytes of one row). A CTA walks several stripes (as many CTAs
// as fit on the GPU at once), so that only a few hundred CTAs end in the two atomics on the
// same addresses.
constexpr int kThreads = 256;
constexpr int kStripeRows = kHadamardSize;
constexpr int kColsPerThread = 4;
constexpr int kColsPerCta = kThreads * kColsPerThread;
constexpr int kWarps = kThreads / 32;
constexpr uint32_t kFullWarp = 0xFFFFFFFFu;

__device__ inline uint32_t bf16_pair_magnitudes(uint32_t word) {
  return word & 0x7FFF7FFFu;
}

// Folds one stripe's strip into the running maxima `plain` and `transformed` (FP32 bits).
template <bool kHadamard>
__device__ inline void strip_maxima(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                                    int64_t row0, int64_t col, const HadamardSignWords& signs,
                                    uint32_t& plain, uint32_t& transformed) {
  if (col >= cols)
    return;
  uint2 words[kStripeRows];
#pragma unroll
  for (int k = 0; k < kStripeRows; ++k) {
    words[k] = make_uint2(0, 0);
    if (row0 + k < rows)
      words[k] = __ldg(reinterpret_cast<const uint2*>(input + (row0 + k) * cols + col));
  }
  uint32_t pair = 0;
#pragma unroll
  for (int k = 0; k < kStripeRows; ++k) {
    pair = __vmaxu2(pair,
                    __vmaxu2(bf16_pair_magnitudes(words[k].x), bf16_pair_magnitudes(words[k].y)));
  }
  plain = max(plain, max(pair & 0xFFFFu, pair >> 16) << 16);
  if constexpr (kHadamard) {
    // max |H · S · x| over the strip's columns; the 1/4 of the transform is applied to the
    // strip's maximum alone, which gives the same bits as scaling every element first (rounding
    // is monotonic, and NaN stays NaN).
#pragma unroll
    for (int k = 0; k < kStripeRows; ++k) {
      words[k].x ^= signs.word[k];
      words[k].y ^= signs.word[k];
    }
    uint32_t strip = 0;
#pragma unroll
    for (int j = 0; j < kColsPerThread; ++j) {
      float values[kStripeRows];
#pragma unroll
      for (int k = 0; k < kStripeRows; ++k) {
        const uint32_t word = j < 2 ? words[k].x : words[k].y;
        values[k] = detail::bf16_bits_to_float((j & 1) != 0 ? word >> 16 : word & 0xFFFFu);
      }
      walsh_hadamard16(values);
#pragma unroll
      for (int k = 0; k < kStripeRows; ++k)
        strip = max(strip, fp32_bits(values[k]) & 0x7FFFFFFFu);
    }
    transformed = max(transformed, fp32_bits(fp32_from_bits(strip) * 0.25f) & 0x7FFFFFFFu);
  }
}

template <bool kHadamard>
__global__ void __launch_bounds__(kThreads)
    nvfp4_amax_kernel(const __nv_bfloat16* input, int64_t rows, int64_t cols, int64_t col_ctas,
                      int64_t stripes, const HadamardSignWords signs, Nvfp4TensorScalars* scalars) {
  // Magnitudes compared as unsigned bit patterns: NaN > inf > finite (see bf16_abs_max_bits).
  uint32_t plain = 0;        // FP32 bits
  uint32_t transformed = 0;  // FP32 bits
  for (int64_t stripe = blockIdx.x; stripe < stripes; stripe += gridDim.x) {
    const int64_t row0 = stripe / col_ctas * kStripeRows;
    const int64_t col =
        stripe % col_ctas * kColsPerCta + static_cast<int64_t>(threadIdx.x) * kColsPerThread;
    strip_maxima<kHadamard>(input, rows, cols, row0, col, signs, plain, transformed);
  }
  plain = __reduce_max_sync(kFullWarp, plain);
  transformed = __reduce_max_sync(kFullWarp, transformed);
  __shared__ uint32_t warp_maxima[2][kWarps];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0) {
    warp_maxima[0][warp] = plain;
    warp_maxima[1][warp] = transformed;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kWarps; ++w) {
      plain = max(plain, warp_maxima[0][w]);
      transformed = max(transformed, warp_maxima[1][w]);
    }
    // Non-negative floats (and positive NaNs) order like their bit patterns.
    atomicMax(reinterpret_cast<unsigned int*>(&scalars->amax_rowwise), plain);
    atomicMax(reinterpret_cast<unsigned int*>(&scalars->amax_columnwise),
              kHadamard ? transformed : plain);
  }
}

}  // namespace

void compute_nvfp4_amax(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                        bool columnwise_hadamard, uint16_t hadamard_sign_mask,
                        Nvfp4TensorScalars* scalars, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0 || cols % kNvfp4BlockSize != 0) {
    throw std::invalid_argument("NVFP4 amax: needs positive rows and cols a multiple of 16, got " +
                                std::to_string(rows) + "x" + std::to_string(cols));
  }
  if (columnwise_hadamard && rows % kHadamardSize != 0) {
    throw std::invalid_argument(
        "NVFP4 amax: the Hadamard transform needs rows a multiple of 16, got " +
        std::to_string(rows));
  }
  detail::require_device_pointer(input, 16, "NVFP4 amax: input");
  detail::require_device_pointer(scalars, alignof(Nvfp4TensorScalars), "NVFP4 amax: scalars");
  const int64_t col_ctas = (cols + kColsPerCta - 1) / kColsPerCta;
  const int64_t stripes = (rows + kStripeRows - 1) / kStripeRows * col_ctas;
  // Both amaxes are adjacent: one memset resets them in stream order.
  static_assert(offsetof(Nvfp4TensorScalars, amax_columnwise) ==
                offsetof(Nvfp4TensorScalars, amax_rowwise) + sizeof(float));
  CUDA_CHECK(cudaMemsetAsync(&scalars->amax_rowwise, 0, 2 * sizeof(float), stream));
  const HadamardSignWords signs = hadamard_sign_words(hadamard_sign_mask);
  const auto launch = [&](auto kernel) {
    const int64_t ctas = std::min(stripes, detail::resident_ctas(kernel, kThreads));
    const unsigned grid = detail::checked_grid(ctas, rows, cols, "NVFP4 amax");
    kernel<<<grid, kThreads, 0, stream>>>(input, rows, cols, col_ctas, stripes, signs, scalars);
  };
  if (columnwise_hadamard) {
    launch(nvfp4_amax_kernel<true>);
  } else {
    launch(nvfp4_amax_kernel<false>);
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemmscope
