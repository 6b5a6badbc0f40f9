#include "bench/recipes/grouped_fp8_quantizer.h"

#include <cuda_bf16.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "quant/fp8/delayed.h"

namespace gemmscope {
namespace {

// Bytes of every group's scale tensors of one copy (what the cast writes; the alignment gaps
// between them it does not).
double scale_bytes(const GroupedScaleLayout& scales, int64_t groups) {
  double bytes = 0;
  for (int64_t g = 0; g < groups; ++g)
    bytes += static_cast<double>(scales.bytes(g));
  return bytes;
}

}  // namespace

GroupedFp8Quantizer::GroupedFp8Quantizer(const OperandSource& source)
    : source_(source),
      layout_(source.group_rows, source.cols),
      rowwise_(has_rowwise(source.copies) ? static_cast<size_t>(source.rows * source.cols) : 0),
      columnwise_(has_columnwise(source.copies) ? static_cast<size_t>(source.rows * source.cols)
                                                : 0) {
  if (layout_.rows() != source.rows) {
    throw std::invalid_argument("GroupedFp8Quantizer: the groups' rows sum to " +
                                std::to_string(layout_.rows()) + ", the tensor has " +
                                std::to_string(source.rows));
  }
}

Fp8GroupedTargets GroupedFp8Quantizer::targets() const {
  return {rowwise_.get(), columnwise_.get(), rowwise_scales_.get(), columnwise_scales_.get(),
          stacked_rowwise_scales_.get()};
}

void GroupedFp8Quantizer::finish(Fp8GroupedQuantization quantization, int input_reads,
                                 double scale_bytes_moved, cudaStream_t stream) {
  quantization_ = std::make_unique<Fp8GroupedQuantization>(std::move(quantization));
  // The tables are copied from the object's own image, which lives as long as this quantizer.
  workspace_ = DeviceBuffer<uint8_t>(quantization_->workspace_bytes());
  quantization_->upload(workspace_.get(), stream);
  bytes_moved_ = static_cast<double>(source_.rows) * static_cast<double>(source_.cols) *
                     (input_reads * sizeof(__nv_bfloat16)) +
                 static_cast<double>(rowwise_.bytes() + columnwise_.bytes()) + scale_bytes_moved;
}

// The amax pass and the cast each read the input; each copy is one byte an element.
std::unique_ptr<OperandQuantizer> GroupedFp8Quantizer::current(const OperandSource& source,
                                                               ElementFormat format,
                                                               cudaStream_t stream) {
  std::unique_ptr<GroupedFp8Quantizer> quantizer(new GroupedFp8Quantizer(source));
  GroupedFp8Quantizer& q = *quantizer;
  q.states_ = DeviceBuffer<float>(Fp8GroupedQuantization::current_state_floats(q.layout_));
  q.finish(
      Fp8GroupedQuantization::current(source.data, q.layout_, format, q.states_.get(), q.targets()),
      2, 0.0, stream);
  return quantizer;
}

// One read of the input, one byte an element per copy, and every group's history read and
// rewritten.
std::unique_ptr<OperandQuantizer> GroupedFp8Quantizer::delayed(const OperandSource& source,
                                                               ElementFormat format,
                                                               cudaStream_t stream) {
  constexpr int64_t kHistory = Fp8DelayedScalingState::kDefaultHistoryLength;
  std::unique_ptr<GroupedFp8Quantizer> quantizer(new GroupedFp8Quantizer(source));
  GroupedFp8Quantizer& q = *quantizer;
  const int64_t groups = q.layout_.group_count();
  q.states_ =
      DeviceBuffer<float>(Fp8GroupedQuantization::delayed_state_floats(q.layout_, kHistory));
  reset_delayed_scaling_states(q.states_.get(), groups, kHistory, stream);
  q.finish(Fp8GroupedQuantization::delayed(source.data, q.layout_, format, q.states_.get(),
                                           kHistory, q.targets()),
           1, 2.0 * sizeof(float) * static_cast<double>(groups * kHistory), stream);
  return quantizer;
}

double GroupedFp8Quantizer::allocate_scales(ScaleLayout scale_layout, bool stack_row_scales) {
  const GroupedScaleLayout rowwise = fp8_grouped_scales(layout_, scale_layout, false);
  const GroupedScaleLayout columnwise = fp8_grouped_scales(layout_, scale_layout, true);
  double scales_written = 0;
  if (has_rowwise(source_.copies)) {
    rowwise_scales_ =
        DeviceBuffer<float>(static_cast<size_t>(rowwise.total_bytes()) / sizeof(float));
    scales_written += scale_bytes(rowwise, layout_.group_count());
    if (stack_row_scales) {
      const int64_t stacked = fp8_stacked_scale_floats(layout_);
      stacked_rowwise_scales_ = DeviceBuffer<float>(static_cast<size_t>(stacked));
      scales_written += static_cast<double>(stacked) * sizeof(float);
    }
  }
  if (has_columnwise(source_.copies)) {
    columnwise_scales_ =
        DeviceBuffer<float>(static_cast<size_t>(columnwise.total_bytes()) / sizeof(float));
    scales_written += scale_bytes(columnwise, layout_.group_count());
  }
  return scales_written;
}

// One read of the input; each copy is one byte an element plus its groups' FP32 scales.
std::unique_ptr<OperandQuantizer> GroupedFp8Quantizer::block(const OperandSource& source,
                                                             ScaleLayout scale_layout,
                                                             cudaStream_t stream) {
  std::unique_ptr<GroupedFp8Quantizer> quantizer(new GroupedFp8Quantizer(source));
  GroupedFp8Quantizer& q = *quantizer;
  const double scales_written = q.allocate_scales(
      scale_layout, source.stacked_row_scales && scale_layout == ScaleLayout::kVec128 &&
                        fp8_can_stack_scales(q.layout_));
  q.finish(Fp8GroupedQuantization::block(source.data, q.layout_, scale_layout, q.targets()), 1,
           scales_written, stream);
  return quantizer;
}

// The line amax pass and the cast each read the input; each copy is one byte an element plus
// an FP32 scale a line of each group.
std::unique_ptr<OperandQuantizer> GroupedFp8Quantizer::rowwise(const OperandSource& source,
                                                               cudaStream_t stream,
                                                               bool columnwise_per_tensor) {
  std::unique_ptr<GroupedFp8Quantizer> quantizer(new GroupedFp8Quantizer(source));
  GroupedFp8Quantizer& q = *quantizer;
  const double scales_written = q.allocate_scales(ScaleLayout::kOuterVec, false);
  q.states_ = DeviceBuffer<float>(Fp8GroupedQuantization::rowwise_state_floats(q.layout_));
  q.finish(Fp8GroupedQuantization::rowwise(source.data, q.layout_, q.states_.get(), q.targets(),
                                           columnwise_per_tensor),
           2, scales_written, stream);
  return quantizer;
}

}  // namespace gemmscope
