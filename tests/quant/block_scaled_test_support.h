#pragma once
// Helpers of the MXFP8 and NVFP4 tests, on top of fp8_test_support.h: shapes as test
// parameters, operands quantized on the GPU into buffers they own, and stand-in operands for
// argument checks that throw before anything touches the GPU.

#include <cuda_bf16.h>

#include <cstdint>
#include <ostream>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/base/cuda_check.h"
#include "quant/mxfp8/operand.h"
#include "quant/mxfp8/quantize.h"
#include "quant/nvfp4/operand.h"
#include "quant/nvfp4/quantize.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope::testing {

struct CopyShape {
  int64_t rows;
  int64_t cols;
  OperandCopies copies;
};

inline std::ostream& operator<<(std::ostream& out, const CopyShape& shape) {
  const char* copies = shape.copies == OperandCopies::kRowwise      ? "rowwise"
                       : shape.copies == OperandCopies::kColumnwise ? "columnwise"
                                                                    : "both";
  return out << shape.rows << "x" << shape.cols << " " << copies;
}

// An MXFP8 operand quantized on the GPU (synchronously) into buffers it owns.
class GpuMxfp8Operand {
 public:
  GpuMxfp8Operand(const std::vector<__nv_bfloat16>& input, const CopyShape& shape)
      : layout_(shape.rows, shape.cols, shape.copies),
        input_(upload(input)),
        row_data_(has_rowwise(shape.copies) ? layout_.data_bytes() : 0),
        row_scale_(layout_.rowwise_scale_bytes()),
        col_data_(has_columnwise(shape.copies) ? layout_.data_bytes() : 0),
        col_scale_(layout_.columnwise_scale_bytes()) {
    quantize_mxfp8(input_.get(), shape.rows, shape.cols, shape.copies,
                   {row_data_.get(), row_scale_.get()}, {col_data_.get(), col_scale_.get()},
                   nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  QuantizedTensor rowwise() const { return layout_.rowwise(row_data_.get(), row_scale_.get()); }
  QuantizedTensor columnwise() const {
    return layout_.columnwise(col_data_.get(), col_scale_.get());
  }

 private:
  Mxfp8OperandLayout layout_;
  DeviceBuffer<__nv_bfloat16> input_;
  DeviceBuffer<uint8_t> row_data_, row_scale_, col_data_, col_scale_;
};

// An NVFP4 operand quantized on the GPU (synchronously) into buffers it owns.
class GpuNvfp4Operand {
 public:
  GpuNvfp4Operand(const std::vector<__nv_bfloat16>& input, const CopyShape& shape,
                  const Nvfp4Options& options)
      : layout_(shape.rows, shape.cols, shape.copies, options),
        input_(upload(input)),
        row_data_(has_rowwise(shape.copies) ? layout_.data_bytes() : 0),
        row_scale_(layout_.rowwise_scale_bytes()),
        col_data_(has_columnwise(shape.copies) ? layout_.data_bytes() : 0),
        col_scale_(layout_.columnwise_scale_bytes()),
        scalars_(1) {
    quantize_nvfp4(input_.get(), shape.rows, shape.cols, shape.copies, options,
                   {row_data_.get(), row_scale_.get()}, {col_data_.get(), col_scale_.get()},
                   scalars_.get(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  QuantizedTensor rowwise() const {
    return layout_.rowwise(row_data_.get(), row_scale_.get(), scalars_.get());
  }
  QuantizedTensor columnwise() const {
    return layout_.columnwise(col_data_.get(), col_scale_.get(), scalars_.get());
  }
  QuantizedTensor copy(bool columnwise) const {
    return columnwise ? this->columnwise() : rowwise();
  }

 private:
  Nvfp4OperandLayout layout_;
  DeviceBuffer<__nv_bfloat16> input_;
  DeviceBuffer<uint8_t> row_data_, row_scale_, col_data_, col_scale_;
  DeviceBuffer<Nvfp4TensorScalars> scalars_;
};

// `dequantize(q, out, stream)` run on the GPU, its FP32 result downloaded.
template <typename Dequantize>
std::vector<float> dequantized(const QuantizedTensor& q, Dequantize&& dequantize) {
  DeviceBuffer<float> out(static_cast<size_t>(q.rows * q.cols));
  dequantize(q, out.get(), nullptr);
  return download(out.get(), out.size());
}

// An operand with plausible (never dereferenced) pointers, for argument checks.
inline QuantizedTensor stand_in_operand(ElementFormat format, ScaleLayout layout) {
  QuantizedTensor operand;
  operand.data = reinterpret_cast<const void*>(0x1000);
  operand.scale = reinterpret_cast<const void*>(0x2000);
  operand.rows = 32;
  operand.cols = 64;
  operand.format = format;
  operand.scale_layout = layout;
  return operand;
}

}  // namespace gemmscope::testing
