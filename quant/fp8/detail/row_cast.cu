#include "quant/fp8/detail/row_cast.h"

#include <cuda_fp8.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "quant/base/cuda_check.h"
#include "quant/detail/fp8_device.cuh"

namespace gemmscope::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kChunkElements = 8;    // BF16 per 16-byte chunk
constexpr int kChunksPerThread = 8;  // 128 bytes of a row in registers a thread
constexpr int64_t kMaxChunks = static_cast<int64_t>(kThreads) * kChunksPerThread;
constexpr unsigned int kFullWarp = 0xffffffffu;

// kWarpsPerRow warps a row, kWarps / kWarpsPerRow rows a block. All loads of a thread are issued
// before the first is used: 128 bytes in flight a thread.
template <int kWarpsPerRow>
__global__ void __launch_bounds__(kThreads)
    row_cast_kernel(const uint4* __restrict__ input, int64_t rows, int64_t chunks,
                    uint2* __restrict__ output, float* __restrict__ scale_inv) {
  constexpr int kRowThreads = 32 * kWarpsPerRow;
  constexpr int kRowsPerBlock = kWarps / kWarpsPerRow;
  __shared__ uint32_t warp_amax_bits[kWarps];
  const int warp = threadIdx.x / 32;
  const int thread_in_row = threadIdx.x % kRowThreads;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kRowThreads;
  const bool live = row < rows;
  const uint4* line = input + row * chunks;

  uint4 held[kChunksPerThread];
  uint32_t lanes = 0;
#pragma unroll
  for (int i = 0; i < kChunksPerThread; ++i) {
    const int64_t chunk = thread_in_row + i * kRowThreads;
    // Zeros stand for chunks past the row: they never reach the output nor raise the amax.
    held[i] = live && chunk < chunks ? __ldg(line + chunk) : make_uint4(0, 0, 0, 0);
  }
#pragma unroll
  for (int i = 0; i < kChunksPerThread; ++i)
    lanes = max_magnitudes(lanes, max_magnitudes(held[i]));
  uint32_t amax_bits = __reduce_max_sync(kFullWarp, lanes_to_amax_bits(finish_magnitudes(lanes)));
  if constexpr (kWarpsPerRow > 1) {
    if (threadIdx.x % 32 == 0)
      warp_amax_bits[warp] = amax_bits;
    __syncthreads();
    const int first_warp = warp / kWarpsPerRow * kWarpsPerRow;
#pragma unroll
    for (int w = 0; w < kWarpsPerRow; ++w)
      amax_bits = max(amax_bits, warp_amax_bits[first_warp + w]);
  }
  if (!live)
    return;

  const uint32_t scale_bits = e4m3_power_of_2_scale_bits(amax_bits);
  const float scale = __uint_as_float(scale_bits);
  if (thread_in_row == 0)
    scale_inv[row] = __uint_as_float(power_of_2_inverse_bits(scale_bits));
  uint2* out = output + row * chunks;
#pragma unroll
  for (int i = 0; i < kChunksPerThread; ++i) {
    const int64_t chunk = thread_in_row + i * kRowThreads;
    if (chunk < chunks) {
      out[chunk] = make_uint2(quantize_bf16_quad<__NV_E4M3>(held[i].x, held[i].y, scale),
                              quantize_bf16_quad<__NV_E4M3>(held[i].z, held[i].w, scale));
    }
  }
}

template <int kWarpsPerRow>
void launch(const uint4* input, int64_t rows, int64_t chunks, uint2* output, float* scale_inv,
            cudaStream_t stream) {
  constexpr int kRowsPerBlock = kWarps / kWarpsPerRow;
  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  if (blocks > INT_MAX) {
    throw std::invalid_argument("FP8 rowwise cast: " + std::to_string(rows) +
                                " rows need more blocks than one launch takes");
  }
  row_cast_kernel<kWarpsPerRow><<<static_cast<unsigned int>(blocks), kThreads, 0, stream>>>(
      input, rows, chunks, output, scale_inv);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

bool row_cast_fits(int64_t cols) {
  return cols > 0 && cols % kChunkElements == 0 && cols / kChunkElements <= kMaxChunks;
}

void launch_row_cast(const __nv_bfloat16* input, int64_t rows, int64_t cols, uint8_t* output,
                     float* scale_inv, cudaStream_t stream) {
  const int64_t chunks = cols / kChunkElements;
  const auto* vectors = reinterpret_cast<const uint4*>(input);
  auto* pairs = reinterpret_cast<uint2*>(output);
  // The fewest warps a row that hold it: every thread then has close to kChunksPerThread chunks.
  if (chunks <= 32 * kChunksPerThread)
    launch<1>(vectors, rows, chunks, pairs, scale_inv, stream);
  else if (chunks <= 64 * kChunksPerThread)
    launch<2>(vectors, rows, chunks, pairs, scale_inv, stream);
  else if (chunks <= 128 * kChunksPerThread)
    launch<4>(vectors, rows, chunks, pairs, scale_inv, stream);
  else
    launch<8>(vectors, rows, chunks, pairs, scale_inv, stream);
}

}  // namespace gemmscope::detail
