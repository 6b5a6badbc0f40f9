#pragma once
// Host reference of the FP8 rowwise quantizer (quant/fp8/rowwise.h), written line by line from
// the definition: amax of the line (NaN ignored), scale_from_amax(amax, 448, power_of_2),
// fp8(x * scale), scale_inv = 1 / scale. Host pointers; either output pair may be null (data and
// its scales together).

#include <cuda_bf16.h>

#include <cstdint>

namespace gemmscope {

// rowwise [rows, cols] with scale_inv [rows]; columnwise [cols, rows] with scale_inv [cols].
void reference_quantize_fp8_rowwise(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                                    uint8_t* rowwise, float* rowwise_scale_inv, uint8_t* columnwise,
                                    float* columnwise_scale_inv);

}  // namespace gemmscope
