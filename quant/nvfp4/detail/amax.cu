#include "quant/nvfp4/detail/amax.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "quant/base/cuda_check.h"
#include "quant/detail/block_codecs.h"
#include "quant/detail/grouped_tiles.cuh"
#include "quant/detail/launch_checks.h"
#include "quant/detail/quantize_tile.cuh"
#include "quant/nvfp4/detail/resident_ctas.h"
#include "quant/nvfp4/detail/scaling.h"
#include "quant/nvfp4/hadamard.h"

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

// Where this thread's strip of stripe `stripe` of a tensor starts: its first row and column.
__device__ inline void strip_of(int64_t stripe, int64_t col_ctas, int64_t& row0, int64_t& col) {
  row0 = stripe / col_ctas * kStripeRows;
  col = stripe % col_ctas * kColsPerCta + static_cast<int64_t>(threadIdx.x) * kColsPerThread;
}

// Folds the CTA's maxima into `scalars`' amaxes; every thread calls it. Its shared memory is
// free again only after a __syncthreads.
template <bool kHadamard>
__device__ inline void fold_cta_maxima(uint32_t plain, uint32_t transformed,
                                       Nvfp4TensorScalars* scalars) {
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

template <bool kHadamard>
__global__ void __launch_bounds__(kThreads)
    nvfp4_amax_kernel(const __nv_bfloat16* input, int64_t rows, int64_t cols, int64_t col_ctas,
                      int64_t stripes, const HadamardSignWords signs, Nvfp4TensorScalars* scalars) {
  // Magnitudes compared as unsigned bit patterns: NaN > inf > finite (see bf16_abs_max_bits).
  uint32_t plain = 0;        // FP32 bits
  uint32_t transformed = 0;  // FP32 bits
  for (int64_t stripe = blockIdx.x; stripe < stripes; stripe += gridDim.x) {
    int64_t row0 = 0;
    int64_t col = 0;
    strip_of(stripe, col_ctas, row0, col);
    strip_maxima<kHadamard>(input, rows, cols, row0, col, signs, plain, transformed);
  }
  fold_cta_maxima<kHadamard>(plain, transformed, scalars);
}

// One group of a grouped input, as the grouped kernel reads it.
struct AmaxGroup {
  const __nv_bfloat16* input;
  int64_t rows;
  Nvfp4TensorScalars* scalars;
};

// The kernel above over every group's stripes, numbered group after group. A CTA's stripes
// reach the groups in order, the same for all its threads, so the CTA folds its maxima into a
// group's amaxes when it leaves the group (a reduction per group a CTA visits).
template <bool kHadamard>
__global__ void __launch_bounds__(kThreads)
    nvfp4_grouped_amax_kernel(const AmaxGroup* groups, const int64_t* first_stripes,
                              int group_count, int64_t cols, int64_t col_ctas, int64_t stripes,
                              const HadamardSignWords signs) {
  uint32_t plain = 0;
  uint32_t transformed = 0;
  int group = -1;
  for (int64_t stripe = blockIdx.x; stripe < stripes; stripe += gridDim.x) {
    const int g = group >= 0 && stripe < __ldg(first_stripes + group + 1)
                      ? group
                      : detail::group_of(first_stripes, group_count, stripe);
    if (g != group) {
      if (group >= 0) {
        fold_cta_maxima<kHadamard>(plain, transformed, groups[group].scalars);
        __syncthreads();
        plain = 0;
        transformed = 0;
      }
      group = g;
    }
    int64_t row0 = 0;
    int64_t col = 0;
    strip_of(stripe - __ldg(first_stripes + g), col_ctas, row0, col);
    strip_maxima<kHadamard>(groups[g].input, groups[g].rows, cols, row0, col, signs, plain,
                            transformed);
  }
  if (group >= 0)
    fold_cta_maxima<kHadamard>(plain, transformed, groups[group].scalars);
}

int64_t col_ctas_of(int64_t cols) {
  return (cols + kColsPerCta - 1) / kColsPerCta;
}

int64_t stripes_of(int64_t rows, int64_t cols) {
  return (rows + kStripeRows - 1) / kStripeRows * col_ctas_of(cols);
}

// Throws std::invalid_argument for a shape compute_nvfp4_amax cannot take.
void require_amax_shape(int64_t rows, int64_t cols, bool columnwise_hadamard) {
  if (rows <= 0 || cols <= 0 || cols % kNvfp4BlockSize != 0) {
    throw std::invalid_argument("NVFP4 amax: needs positive rows and cols a multiple of 16, got " +
                                std::to_string(rows) + "x" + std::to_string(cols));
  }
  if (columnwise_hadamard && rows % kHadamardSize != 0) {
    throw std::invalid_argument(
        "NVFP4 amax: the Hadamard transform needs rows a multiple of 16, got " +
        std::to_string(rows));
  }
}

// Both amaxes are adjacent, and so are the scalars of consecutive groups: one memset resets
// them in stream order.
static_assert(offsetof(Nvfp4TensorScalars, amax_columnwise) ==
              offsetof(Nvfp4TensorScalars, amax_rowwise) + sizeof(float));

// Launches `kernel` (a kHadamard variant picked by the caller) with `args`, one wave of CTAs at
// most.
template <typename Kernel, typename... Args>
void launch_amax(Kernel kernel, int64_t stripes, int64_t rows, int64_t cols, cudaStream_t stream,
                 const std::string& context, Args... args) {
  const int64_t ctas = std::min(stripes, detail::resident_ctas(kernel, kThreads));
  const unsigned grid = detail::checked_grid(ctas, rows, cols, context);
  kernel<<<grid, kThreads, 0, stream>>>(args...);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void compute_nvfp4_amax(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                        bool columnwise_hadamard, uint16_t hadamard_sign_mask,
                        Nvfp4TensorScalars* scalars, cudaStream_t stream) {
  require_amax_shape(rows, cols, columnwise_hadamard);
  detail::require_device_pointer(input, 16, "NVFP4 amax: input");
  detail::require_device_pointer(scalars, alignof(Nvfp4TensorScalars), "NVFP4 amax: scalars");
  const int64_t col_ctas = col_ctas_of(cols);
  const int64_t stripes = stripes_of(rows, cols);
  CUDA_CHECK(cudaMemsetAsync(&scalars->amax_rowwise, 0, 2 * sizeof(float), stream));
  const HadamardSignWords signs = hadamard_sign_words(hadamard_sign_mask);
  detail::with_flag(columnwise_hadamard, [&](auto hadamard) {
    launch_amax(nvfp4_amax_kernel<decltype(hadamard)::value>, stripes, rows, cols, stream,
                "NVFP4 amax", input, rows, cols, col_ctas, stripes, signs, scalars);
  });
}

Nvfp4GroupedAmax::Nvfp4GroupedAmax(const __nv_bfloat16* input,
                                   const std::vector<int64_t>& group_rows, int64_t cols,
                                   bool columnwise_hadamard, uint16_t hadamard_sign_mask,
                                   Nvfp4TensorScalars* scalars)
    : rows_(0),
      cols_(cols),
      columnwise_hadamard_(columnwise_hadamard),
      signs_(hadamard_sign_words(hadamard_sign_mask)),
      scalars_(scalars),
      scalar_count_(group_rows.size()) {
  detail::require_device_pointer(input, 16, "NVFP4 grouped amax: input");
  detail::require_device_pointer(scalars, alignof(Nvfp4TensorScalars),
                                 "NVFP4 grouped amax: scalars");
  std::vector<AmaxGroup> groups;
  std::vector<int64_t> stripes;
  for (size_t g = 0; g < group_rows.size(); ++g) {
    const int64_t rows = group_rows[g];
    if (rows < 0) {
      throw std::invalid_argument("NVFP4 grouped amax: group " + std::to_string(g) +
                                  " has negative rows (" + std::to_string(rows) + ")");
    }
    if (rows > 0) {
      require_amax_shape(rows, cols, columnwise_hadamard);
      groups.push_back(AmaxGroup{input + rows_ * cols, rows, scalars + g});
      stripes.push_back(stripes_of(rows, cols));
    }
    rows_ += rows;
  }
  if (groups.size() > static_cast<size_t>(INT_MAX))
    throw std::invalid_argument("NVFP4 grouped amax: too many groups");
  const std::vector<int64_t> first_stripes = detail::first_items(stripes);
  groups_ = tables_.add(groups);
  first_stripes_ = tables_.add(first_stripes);
  group_count_ = static_cast<int>(groups.size());
  stripes_ = first_stripes.back();
}

void Nvfp4GroupedAmax::upload(void* workspace, cudaStream_t stream) {
  tables_.upload(workspace, stream, "NVFP4 grouped amax");
}

void Nvfp4GroupedAmax::compute(cudaStream_t stream) const {
  if (group_count_ == 0)
    return;
  const std::string context = "NVFP4 grouped amax";
  const AmaxGroup* groups = tables_.device_table<AmaxGroup>(groups_, context);
  const int64_t* first_stripes = tables_.device_table<int64_t>(first_stripes_, context);
  CUDA_CHECK(cudaMemsetAsync(scalars_, 0, scalar_count_ * sizeof(Nvfp4TensorScalars), stream));
  detail::with_flag(columnwise_hadamard_, [&](auto hadamard) {
    launch_amax(nvfp4_grouped_amax_kernel<decltype(hadamard)::value>, stripes_, rows_, cols_,
                stream, context, groups, first_stripes, group_count_, cols_, col_ctas_of(cols_),
                stripes_, signs_);
  });
}

size_t Nvfp4GroupedAmax::launches() const {
  return group_count_ == 0 ? 0 : 2;
}

}  // namespace gemmscope
