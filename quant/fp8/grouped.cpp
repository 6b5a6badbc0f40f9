#include "quant/fp8/grouped.h"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "quant/base/cuda_check.h"
#include "quant/format_names.h"
#include "quant/fp8/delayed.h"
#include "quant/fp8/detail/argument_checks.h"
#include "quant/fp8/detail/line_amax.h"
#include "quant/fp8/format.h"
#include "quant/fp8/operand.h"
#include "quant/fp8/scale_layout.h"
#include "quant/fp8/tensorwise.h"

namespace gemmscope {
namespace {

// The scales of a block-scaled or rowwise-scaled copy, as quant/fp8/block.h's and
// quant/fp8/rowwise.h's quantizers size them.
GroupScaleBytes block_scale_bytes(ScaleLayout scale_layout) {
  return [scale_layout](int64_t rows, int64_t cols) {
    return Fp8OperandLayout(rows, cols, ElementFormat::kE4M3, scale_layout).rowwise_scale_count() *
           static_cast<int64_t>(sizeof(float));
  };
}

// `buffer` advanced by `bytes`, or null when there is no buffer (a copy not requested).
template <typename T>
T* at_byte_offset(T* buffer, int64_t bytes) {
  return buffer == nullptr ? nullptr
                           : reinterpret_cast<T*>(reinterpret_cast<uintptr_t>(buffer) +
                                                  static_cast<size_t>(bytes));
}

}  // namespace

GroupedScaleLayout fp8_grouped_scales(const GroupedLayout& layout, ScaleLayout scale_layout,
                                      bool columnwise) {
  if (scale_layout != ScaleLayout::kVec128 && scale_layout != ScaleLayout::kBlock128x128 &&
      scale_layout != ScaleLayout::kOuterVec) {
    throw std::invalid_argument(
        std::string("fp8_grouped_scales: not an FP8 block or rowwise layout: ") +
        to_string(scale_layout));
  }
  return layout.scales(columnwise, block_scale_bytes(scale_layout));
}

Fp8GroupedQuantization Fp8GroupedQuantization::current(const __nv_bfloat16* input,
                                                       const GroupedLayout& layout,
                                                       ElementFormat format, float* states,
                                                       const Fp8GroupedTargets& targets) {
  return Fp8GroupedQuantization(Recipe::kCurrent, input, layout, format, ScaleLayout::kTensor,
                                targets, states, 0);
}

Fp8GroupedQuantization Fp8GroupedQuantization::delayed(const __nv_bfloat16* input,
                                                       const GroupedLayout& layout,
                                                       ElementFormat format, float* states,
                                                       int64_t history_length,
                                                       const Fp8GroupedTargets& targets) {
  detail::require_positive("Fp8GroupedQuantization::delayed", "history_length", history_length);
  return Fp8GroupedQuantization(Recipe::kDelayed, input, layout, format, ScaleLayout::kTensor,
                                targets, states, history_length);
}

Fp8GroupedQuantization Fp8GroupedQuantization::block(const __nv_bfloat16* input,
                                                     const GroupedLayout& layout,
                                                     ScaleLayout scale_layout,
                                                     const Fp8GroupedTargets& targets) {
  return Fp8GroupedQuantization(Recipe::kBlock, input, layout, ElementFormat::kE4M3, scale_layout,
                                targets, nullptr, 0);
}

Fp8GroupedQuantization Fp8GroupedQuantization::rowwise(const __nv_bfloat16* input,
                                                       const GroupedLayout& layout, float* states,
                                                       const Fp8GroupedTargets& targets,
                                                       bool columnwise_per_tensor) {
  Fp8GroupedQuantization quantization(Recipe::kRowwise, input, layout, ElementFormat::kE4M3,
                                      ScaleLayout::kOuterVec, targets, states, 0);
  quantization.columnwise_per_tensor_ = columnwise_per_tensor && targets.columnwise != nullptr;
  return quantization;
}

int64_t Fp8GroupedQuantization::rowwise_state_floats(const GroupedLayout& layout) {
  return layout.rows() + layout.group_count() * layout.cols();
}

int64_t Fp8GroupedQuantization::current_state_floats(const GroupedLayout& layout) {
  return layout.group_count() * Fp8CurrentScalingState::kBufferFloats;
}

int64_t Fp8GroupedQuantization::delayed_state_floats(const GroupedLayout& layout,
                                                     int64_t history_length) {
  return layout.group_count() * Fp8DelayedScalingState::buffer_floats(history_length);
}

int64_t fp8_stacked_scale_floats(const GroupedLayout& layout) {
  return ceil_div(layout.cols(), kFp8ScaleBlock) * layout.rows();
}

bool fp8_can_stack_scales(const GroupedLayout& layout) {
  for (int64_t g = 0; g < layout.group_count(); ++g) {
    if (layout.group_rows(g) % kScaleRowAlignment != 0)
      return false;
  }
  return true;
}

Fp8GroupedQuantization::Fp8GroupedQuantization(Recipe recipe, const __nv_bfloat16* input,
                                               const GroupedLayout& layout, ElementFormat format,
                                               ScaleLayout scale_layout,
                                               const Fp8GroupedTargets& targets, float* states,
                                               int64_t history_length)
    : recipe_(recipe),
      layout_(layout),
      format_(format),
      scale_layout_(scale_layout),
      targets_(targets),
      states_(states),
      history_length_(history_length),
      rowwise_scales_(has_scale_buffers(recipe) ? fp8_grouped_scales(layout, scale_layout, false)
                                                : GroupedScaleLayout{}),
      columnwise_scales_(has_scale_buffers(recipe) ? fp8_grouped_scales(layout, scale_layout, true)
                                                   : GroupedScaleLayout{}),
      cast_({}, {}) {
  const char* function = "Fp8GroupedQuantization";
  require_fp8_format(format, function);
  if (any_rows()) {  // without rows nothing is read or written
    detail::require_not_null(function, "input", input);
    detail::require_some_copy(function, targets.rowwise, targets.columnwise);
  }
  if (has_scale_buffers(recipe)) {
    if (targets.rowwise != nullptr)
      detail::require_not_null(function, "rowwise_scale_inv", targets.rowwise_scale_inv);
    if (targets.columnwise != nullptr)
      detail::require_not_null(function, "columnwise_scale_inv", targets.columnwise_scale_inv);
    if (targets.stacked_rowwise_scale_inv != nullptr &&
        (scale_layout != ScaleLayout::kVec128 || targets.rowwise == nullptr ||
         !fp8_can_stack_scales(layout))) {
      throw std::invalid_argument(
          std::string(function) +
          ": stacked rowwise scales need 1x128 scaling, a rowwise copy and every group's rows a "
          "multiple of 4");
    }
  }
  if (recipe != Recipe::kBlock) {
    detail::require_not_null(function, "states", states);
  }

  // One tensor of the cast per group with rows, each exactly as the single-tensor quantizer
  // would cast that group alone.
  std::vector<detail::TileCastArgs> tensors;
  std::vector<float*> amaxes;
  for (int64_t g = 0; g < layout.group_count(); ++g) {
    const int64_t rows = layout.group_rows(g);
    if (rows == 0)
      continue;
    const int64_t offset = layout.element_offset(g);
    detail::TileCastArgs args;
    args.input = input + offset;
    args.rows = rows;
    args.cols = layout.cols();
    args.format = format;
    args.rowwise = at_byte_offset(targets.rowwise, offset);
    args.columnwise = at_byte_offset(targets.columnwise, offset);
    switch (recipe) {
      case Recipe::kCurrent: {
        const auto current = Fp8CurrentScalingState::in_buffer(state(g));
        args.scaling = detail::TileScaling::kTensorwise;
        args.scale = current.scale;
        amaxes.push_back(current.amax);
        break;
      }
      case Recipe::kDelayed: {
        const auto delayed = Fp8DelayedScalingState::in_buffer(state(g), history_length);
        args.scaling = detail::TileScaling::kTensorwise;
        args.scale = delayed.scale;
        args.amax_record = delayed.amax_history;
        break;
      }
      case Recipe::kRowwise:
      case Recipe::kBlock:
        if (recipe == Recipe::kRowwise) {
          // Each group's own row amaxes (its rows of the every-row array) and column amaxes, for
          // the copies wanted: the amax pass takes no line the cast will not read.
          auto* amax_bits = reinterpret_cast<uint32_t*>(states);
          args.scaling = detail::TileScaling::kRowwise;
          if (args.rowwise != nullptr)
            args.row_amax_bits = amax_bits + layout.row_offset(g);
          if (args.columnwise != nullptr)
            args.col_amax_bits = amax_bits + layout.rows() + g * layout.cols();
        } else {
          args.scaling = scale_layout == ScaleLayout::kBlock128x128
                             ? detail::TileScaling::kBlock128x128
                             : detail::TileScaling::kVec128;
        }
        if (args.rowwise != nullptr) {
          args.rowwise_scale_inv =
              at_byte_offset(targets.rowwise_scale_inv, rowwise_scales_.offset(g));
          if (targets.stacked_rowwise_scale_inv != nullptr) {
            args.stacked_rowwise_scale_inv =
                targets.stacked_rowwise_scale_inv + layout.row_offset(g);
            args.stacked_scale_stride = layout.rows();
          }
        }
        if (args.columnwise != nullptr) {
          args.columnwise_scale_inv =
              at_byte_offset(targets.columnwise_scale_inv, columnwise_scales_.offset(g));
        }
        break;
    }
    tensors.push_back(args);
  }
  cast_ = detail::GroupedTileCast(tensors, amaxes);
}

float* Fp8GroupedQuantization::state(int64_t group) const {
  switch (recipe_) {
    case Recipe::kCurrent:
      return states_ + group * Fp8CurrentScalingState::kBufferFloats;
    case Recipe::kDelayed:
      return states_ + group * Fp8DelayedScalingState::buffer_floats(history_length_);
    case Recipe::kBlock:
    case Recipe::kRowwise:
      break;
  }
  return nullptr;
}

void Fp8GroupedQuantization::quantize(cudaStream_t stream) const {
  const int64_t groups = layout_.group_count();
  switch (recipe_) {
    case Recipe::kCurrent:
      // One memset for every group's state: the amax slots the amax kernel maxes into, and the
      // scales, which the scale kernel rewrites before the cast reads them.
      CUDA_CHECK(cudaMemsetAsync(
          states_, 0, static_cast<size_t>(current_state_floats(layout_)) * sizeof(float), stream));
      cast_.launch_amax(stream);
      compute_current_scales(states_, groups, format_, stream);
      cast_.launch_cast(stream);
      return;
    case Recipe::kDelayed:
      // Update first: the cast's scale_inv stays the copies' until the next quantize()
      // (quant/fp8/delayed.h).
      update_delayed_scaling_states(states_, groups, history_length_, format_, stream);
      cast_.launch_cast(stream);
      return;
    case Recipe::kBlock:
      cast_.launch_cast(stream);
      return;
    case Recipe::kRowwise:
      // One zeroing for every line's amax, which the amax pass maxes into; the pass and the cast
      // each start while the kernel before them ends (quant/fp8/detail/line_amax.h).
      detail::launch_zero_line_amax(reinterpret_cast<uint32_t*>(states_),
                                    rowwise_state_floats(layout_), stream);
      cast_.launch_line_amax(stream);
      if (columnwise_per_tensor_ && any_rows()) {
        detail::launch_fold_column_amax(reinterpret_cast<uint32_t*>(states_) + layout_.rows(),
                                        layout_.group_count(), layout_.cols(), stream);
      }
      cast_.launch_cast(stream);
      return;
  }
}

size_t Fp8GroupedQuantization::launches() const {
  const size_t casts = any_rows() ? 1 : 0;  // the cast, and current scaling's amax
  switch (recipe_) {
    case Recipe::kCurrent:
      return 2 + 2 * casts;
    case Recipe::kDelayed:
      return 1 + casts;
    case Recipe::kBlock:
      return casts;
    case Recipe::kRowwise:
      return 1 + (2 + (columnwise_per_tensor_ ? 1 : 0)) * casts;
  }
  return 0;
}

QuantizedTensor Fp8GroupedQuantization::copy(bool columnwise, int64_t group) const {
  const int64_t rows = layout_.group_rows(group);
  if (rows == 0)
    return {};
  const Fp8OperandLayout tensor(rows, layout_.cols(), format_, scale_layout_);
  const int64_t offset = layout_.element_offset(group);
  const float* scale = nullptr;
  switch (recipe_) {
    case Recipe::kCurrent:
      scale = Fp8CurrentScalingState::in_buffer(state(group)).scale_inv;
      break;
    case Recipe::kDelayed:
      scale = Fp8DelayedScalingState::in_buffer(state(group), history_length_).scale_inv;
      break;
    case Recipe::kBlock:
    case Recipe::kRowwise:
      scale = columnwise
                  ? at_byte_offset(targets_.columnwise_scale_inv, columnwise_scales_.offset(group))
                  : at_byte_offset(targets_.rowwise_scale_inv, rowwise_scales_.offset(group));
      break;
  }
  if (columnwise)
    return tensor.columnwise(at_byte_offset(targets_.columnwise, offset), scale);
  QuantizedTensor copy = tensor.rowwise(at_byte_offset(targets_.rowwise, offset), scale);
  if (targets_.stacked_rowwise_scale_inv != nullptr) {
    copy.stacked_scale = targets_.stacked_rowwise_scale_inv + layout_.row_offset(group);
    copy.stacked_scale_stride = layout_.rows();
  }
  return copy;
}

}  // namespace gemmscope
