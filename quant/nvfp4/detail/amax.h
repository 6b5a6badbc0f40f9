#pragma once
// The per-tensor amax NVFP4's encode scale needs, computed on the GPU before the quantize
// kernel (which cannot start its blocks before it knows the whole tensor's amax). Runs inside
// timed regions: a memset resets the two amaxes in the stream, then one kernel reads the input
// once and folds its maxima in with atomicMax. No host synchronisation.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "quant/detail/device_tables.h"
#include "quant/nvfp4/hadamard.h"
#include "quant/nvfp4/tensor_scalars.h"

namespace gemmscope {

// scalars->amax_rowwise = max |x| over the BF16 row-major [rows, cols] `input` (16-byte
// aligned; cols a multiple of 16). scalars->amax_columnwise = the same, or, with
// `columnwise_hadamard` (rows a multiple of 16), max |y| over the columnwise copy's values
// after the random Hadamard transform with `hadamard_sign_mask` (quant/nvfp4/hadamard.h). NaN
// anywhere makes the amax NaN. Throws std::invalid_argument for a bad shape or pointer.
void compute_nvfp4_amax(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                        bool columnwise_hadamard, uint16_t hadamard_sign_mask,
                        Nvfp4TensorScalars* scalars, cudaStream_t stream);

// compute_nvfp4_amax for every group of a grouped input (G groups of rows, group after group) at
// once: group g's amaxes go to scalars[g], exactly what compute_nvfp4_amax gives for its rows
// alone. A memset (every group's scalars, whole: the quantize kernel rewrites the tensor scales)
// and one kernel, whatever G; a group without rows gets zeros. Where no group has rows nothing
// runs, and the scalars are left as they were.
class Nvfp4GroupedAmax {
 public:
  // `input`: BF16 row-major [sum of group_rows, cols], 16-byte aligned; `scalars`: G in device
  // memory. Throws std::invalid_argument as compute_nvfp4_amax does for any group's shape, and
  // for a group with negative rows.
  Nvfp4GroupedAmax(const __nv_bfloat16* input, const std::vector<int64_t>& group_rows, int64_t cols,
                   bool columnwise_hadamard, uint16_t hadamard_sign_mask,
                   Nvfp4TensorScalars* scalars);

  // The groups' parameters go to device memory the caller owns, once (detail/device_tables.h):
  // `workspace` holds workspace_bytes(), 16-byte aligned, and lives as long as compute() is
  // called.
  size_t workspace_bytes() const { return tables_.bytes(); }
  void upload(void* workspace, cudaStream_t stream);
  // Enqueues the memset and the kernel (nothing when no group has rows). Throws
  // std::logic_error before upload().
  void compute(cudaStream_t stream) const;
  size_t launches() const;

 private:
  int64_t rows_;
  int64_t cols_;
  bool columnwise_hadamard_;
  HadamardSignWords signs_;
  Nvfp4TensorScalars* scalars_;
  size_t scalar_count_;
  detail::DeviceTables tables_;
  size_t groups_ = 0;  // table offsets
  size_t first_stripes_ = 0;
  int group_count_ = 0;  // with rows
  int64_t stripes_ = 0;
};

}  // namespace gemmscope
