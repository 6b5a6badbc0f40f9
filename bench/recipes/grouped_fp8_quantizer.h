#pragma once
// The FP8 recipes' quantizer of a grouped operand (operand_source.h): every group quantized as
// a tensor of its own, with its own scales, in a fixed number of launches whatever the number
// of groups (quant/fp8/grouped.h), where PerGroupQuantizer's launches grow with the groups.
// The rowwise copies of all groups share one buffer, the columnwise copies another, and so do
// the tensorwise states or each copy's block scales. Where the source asks
// (OperandSource::stacked_row_scales: a grouped GEMM of the run may read them), a 1x128 rowwise
// copy's scales are written twice: per group as cuBLASLt and CUTLASS read them, and stacked as
// DeepGEMM's m-grouped kernel reads them (QuantizedTensor::stacked_scale), 4 bytes a 128
// elements more, about 1% of the cast's bytes, so that each provider reads its own layout and
// none pays a relayout.

#include <cuda_runtime.h>

#include <memory>

#include "bench/operand_quantizer.h"
#include "bench/operand_source.h"
#include "kernels/device_buffer.h"
#include "quant/fp8/grouped.h"

namespace gemmscope {

class GroupedFp8Quantizer : public OperandQuantizer {
 public:
  // FP8Current and FP8Delayed in `format`, one scale (and amax history) per group; FP8Block in
  // `scale_layout`; FP8Rowwise. Set-up (delayed scaling's reset, the upload of the kernels' tables)
  // is enqueued on `stream`.
  static std::unique_ptr<OperandQuantizer> current(const OperandSource& source,
                                                   ElementFormat format, cudaStream_t stream);
  static std::unique_ptr<OperandQuantizer> delayed(const OperandSource& source,
                                                   ElementFormat format, cudaStream_t stream);
  static std::unique_ptr<OperandQuantizer> block(const OperandSource& source,
                                                 ScaleLayout scale_layout, cudaStream_t stream);
  // FP8Rowwise: each group's lines their own power-of-2 scales; with `columnwise_per_tensor`,
  // each group's columnwise copy one (FP8RowwiseBF16Wgrad's weight, quant/fp8/grouped.h).
  static std::unique_ptr<OperandQuantizer> rowwise(const OperandSource& source, cudaStream_t stream,
                                                   bool columnwise_per_tensor = false);

  void quantize(cudaStream_t stream) override { quantization_->quantize(stream); }
  QuantizedTensor copy(bool columnwise, int64_t group) const override {
    return quantization_->copy(columnwise, group);
  }
  double bytes_moved() const override { return bytes_moved_; }
  size_t launches() const override { return quantization_->launches(); }

 private:
  // The layout and the data buffers; the factories add the scales and the quantization.
  explicit GroupedFp8Quantizer(const OperandSource& source);
  Fp8GroupedTargets targets() const;
  // The block or rowwise scale buffers of the copies the source asks for, and the stacked 1x128
  // rowwise scales where `stack_row_scales`; returns the bytes of scales one cast writes.
  double allocate_scales(ScaleLayout scale_layout, bool stack_row_scales);
  // Takes `quantization` and uploads its tables. bytes_moved(): the input read `input_reads`
  // times, the copies' data written, and `scale_bytes_moved` of scales or states.
  void finish(Fp8GroupedQuantization quantization, int input_reads, double scale_bytes_moved,
              cudaStream_t stream);

  OperandSource source_;
  GroupedLayout layout_;
  DeviceBuffer<uint8_t> rowwise_;
  DeviceBuffer<uint8_t> columnwise_;
  DeviceBuffer<float> states_;  // tensorwise scaling; rowwise scaling's line amaxes
  DeviceBuffer<float> rowwise_scales_;
  DeviceBuffer<float> columnwise_scales_;
  DeviceBuffer<float> stacked_rowwise_scales_;  // 1x128 block scaling
  std::unique_ptr<Fp8GroupedQuantization> quantization_;
  DeviceBuffer<uint8_t> workspace_;
  double bytes_moved_ = 0;
};

}  // namespace gemmscope
