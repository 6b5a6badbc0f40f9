#pragma once
// Host references of the FP8 block quantizers (quant/fp8/block.h), written block by block from the
// definition: amax of the block's existing elements, scale_from_amax(amax, 448, power_of_2),
// fp8(x * scale), scale_inv = 1 / scale into the cuBLASLt layout, padding slots set to
// kScalePadding. Host pointers; any output pair may be null (data and its scales together).

#include <cuda_bf16.h>

#include <cstdint>

namespace gemmscope {

// rowwise [rows, cols] with VEC128 scales [ceil(cols/128)][roundup(rows,4)];
// columnwise [cols, rows] with VEC128 scales [ceil(rows/128)][roundup(cols,4)].
void reference_quantize_fp8_1x128(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                                  uint8_t* rowwise, float* rowwise_scale_inv, uint8_t* columnwise,
                                  float* columnwise_scale_inv);

// rowwise [rows, cols] with BLK128x128 scales [ceil(rows/128)][roundup(ceil(cols/128),4)];
// columnwise [cols, rows] with BLK128x128 scales [ceil(cols/128)][roundup(ceil(rows/128),4)].
void reference_quantize_fp8_128x128(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                                    uint8_t* rowwise, float* rowwise_scale_inv, uint8_t* columnwise,
                                    float* columnwise_scale_inv);

}  // namespace gemmscope
