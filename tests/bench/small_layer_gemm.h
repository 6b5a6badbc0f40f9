#pragma once
// The small layer GEMM the bench tests prepare cases of: 384 tokens, 512 in, 256 out, each a
// multiple of every recipe's block, so that every recipe takes it.

#include "shapes/gemm_shape.h"
#include "shapes/layer_gemms.h"

namespace gemmscope::testing {

inline LayerGemm small_layer_gemm(Pass pass) {
  LayerGemm gemm;
  gemm.pass = pass;
  gemm.op = "test";
  gemm.dims = LinearDims{384, 512, 256};
  gemm.shape = gemm_shape(pass, gemm.dims);
  return gemm;
}

}  // namespace gemmscope::testing
