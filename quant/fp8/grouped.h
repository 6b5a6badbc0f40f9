#pragma once
// Grouped FP8 quantization (FP8Current, FP8Delayed, FP8Block, FP8Rowwise) of a grouped operand
// (grouped_layout.h): every group quantized as a tensor of its own, bit for bit what
// quant/fp8/tensorwise.h, quant/fp8/delayed.h, quant/fp8/block.h and quant/fp8/rowwise.h give on
// that group's rows alone
// (its own scales, its own transposed columnwise copy), in a number of launches that does not grow
// with the number of groups:
//   current  a memset of every group's state, every group's amax, every group's scale, the cast
//   delayed  every group's history roll and scale, then the cast, recording each group's amax
//   block    the cast, 1x128 (activations and gradients) or 128x128 (weights)
//   rowwise  a zeroing of every line's amax, every group's row and column amaxes, (with
//            columnwise_per_tensor: each group's column amaxes folded into one,) the cast
// A group without rows is not quantized; its copies are empty.
//
// Tensorwise state: one per group, group g's at states + g * Fp8CurrentScalingState::
// kBufferFloats or g * Fp8DelayedScalingState::buffer_floats(history_length), laid out as their
// in_buffer() lays one out, so every slot is 16-byte aligned. (An empty group's state is
// updated with the others, from nothing, and never read.) Delayed states start as
// reset_delayed_scaling_states() leaves them.
//
// The kernels read each group's pointers and sizes, and which group each 128-row tile row
// belongs to, from device memory: tables built on the host once, which upload() copies, once,
// into device memory the caller owns, before the first quantize(). The pointers they were built
// from must stay valid.
//
// Everything is enqueued on the stream: no host synchronisation. Throws std::invalid_argument
// naming the offending value.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "quant/fp8/detail/tile_cast.h"
#include "quant/grouped_layout.h"
#include "quant/quantized_tensor.h"

namespace gemmscope {

// Where a grouped quantization writes: one buffer per copy for every group (grouped_layout.h),
// layout.rows() * layout.cols() bytes each. Either copy may be null, not both.
struct Fp8GroupedTargets {
  uint8_t* rowwise = nullptr;
  uint8_t* columnwise = nullptr;
  // Block and rowwise scaling: each requested copy's scales, fp8_grouped_scales(...).total_bytes()
  // each.
  float* rowwise_scale_inv = nullptr;
  float* columnwise_scale_inv = nullptr;
  // 1x128 block scaling, optional: the rowwise copy's scales again, stacked
  // (QuantizedTensor::stacked_scale), fp8_stacked_scale_floats(layout) floats; every group's
  // rows must be a multiple of 4 (fp8_can_stack_scales), so that the stride between K blocks
  // (all rows) is whole 16 bytes, as a TMA descriptor over them needs, and so is each group's
  // first row.
  float* stacked_rowwise_scale_inv = nullptr;
};

// Where each group's VEC128_32F, BLK128x128_32F or OUTER_VEC_32F scale tensor lives in a copy's
// scale buffer: the group's own cuBLASLt layout for its [rows_g, cols] (or, columnwise,
// [cols, rows_g]) copy.
GroupedScaleLayout fp8_grouped_scales(const GroupedLayout& layout, ScaleLayout scale_layout,
                                      bool columnwise);

// Floats of the stacked 1x128 rowwise scales of `layout`'s groups: [ceil(cols/128)][rows].
int64_t fp8_stacked_scale_floats(const GroupedLayout& layout);
// Whether every group's rows are a multiple of 4, as the stacked scales need.
bool fp8_can_stack_scales(const GroupedLayout& layout);

class Fp8GroupedQuantization {
 public:
  // FP8Current in `format` (E4M3, or E5M2 for gradients); `states` holds current_state_floats().
  static Fp8GroupedQuantization current(const __nv_bfloat16* input, const GroupedLayout& layout,
                                        ElementFormat format, float* states,
                                        const Fp8GroupedTargets& targets);
  // FP8Delayed in `format`; `states` holds delayed_state_floats(), histories of history_length.
  static Fp8GroupedQuantization delayed(const __nv_bfloat16* input, const GroupedLayout& layout,
                                        ElementFormat format, float* states, int64_t history_length,
                                        const Fp8GroupedTargets& targets);
  // FP8Block (E4M3) with `scale_layout` kVec128 (1x128) or kBlock128x128.
  static Fp8GroupedQuantization block(const __nv_bfloat16* input, const GroupedLayout& layout,
                                      ScaleLayout scale_layout, const Fp8GroupedTargets& targets);

  // FP8Rowwise (E4M3, a power-of-2 FP32 scale per row of each copy, over the group's rows for
  // the columnwise one); `states` holds rowwise_state_floats(): every row's amax, then each
  // group's column amaxes, as FP32 bit patterns. With `columnwise_per_tensor`, each group's
  // columnwise copy takes one power-of-2 scale from the group's amax instead, written once per
  // column (FP8RowwiseBF16Wgrad's weight in Dgrad): the columns' amaxes folded into their max
  // before the cast, one launch more.
  static Fp8GroupedQuantization rowwise(const __nv_bfloat16* input, const GroupedLayout& layout,
                                        float* states, const Fp8GroupedTargets& targets,
                                        bool columnwise_per_tensor = false);

  static int64_t current_state_floats(const GroupedLayout& layout);
  static int64_t rowwise_state_floats(const GroupedLayout& layout);
  static int64_t delayed_state_floats(const GroupedLayout& layout, int64_t history_length);

  // Bytes of device memory the tables take, and their copy into `workspace` (that many bytes,
  // 16-byte aligned, as cudaMalloc gives) enqueued on `stream`.
  size_t workspace_bytes() const { return cast_.workspace_bytes(); }
  void upload(void* workspace, cudaStream_t stream) { cast_.upload(workspace, stream); }
  // One step's quantization of every group, with delayed scaling's history update.
  void quantize(cudaStream_t stream) const;
  // Kernels and memsets one quantize() launches: 4 (current), 2 (delayed), 1 (block), 3
  // (rowwise; 4 with columnwise_per_tensor), whatever the number of groups (fewer when no group has
  // rows).
  size_t launches() const;
  // Group g's copy as quantize() writes it: rowwise [rows_g, cols] or columnwise [cols, rows_g]
  // with its scales; QuantizedTensor{} for a group without rows, no data for a copy not
  // requested.
  QuantizedTensor copy(bool columnwise, int64_t group) const;

 private:
  enum class Recipe { kCurrent, kDelayed, kBlock, kRowwise };
  // Block and rowwise scaling write scale_inv buffers; tensorwise keeps its scales in states.
  static bool has_scale_buffers(Recipe recipe) {
    return recipe == Recipe::kBlock || recipe == Recipe::kRowwise;
  }

  Fp8GroupedQuantization(Recipe recipe, const __nv_bfloat16* input, const GroupedLayout& layout,
                         ElementFormat format, ScaleLayout scale_layout,
                         const Fp8GroupedTargets& targets, float* states, int64_t history_length);
  // Group g's state, or null for block and rowwise scaling.
  float* state(int64_t group) const;
  bool any_rows() const { return layout_.rows() > 0; }

  Recipe recipe_;
  GroupedLayout layout_;
  ElementFormat format_;
  ScaleLayout scale_layout_;
  Fp8GroupedTargets targets_;
  float* states_;
  int64_t history_length_;
  bool columnwise_per_tensor_ = false;  // rowwise scaling
  GroupedScaleLayout rowwise_scales_;
  GroupedScaleLayout columnwise_scales_;
  detail::GroupedTileCast cast_;
};

}  // namespace gemmscope
