// A configuration of CUTLASS's dense FP8Block GEMM in a file of its own, so that the
// instantiations compile in parallel (kernels/cutlass/dense_gemm.cpp lists them all).

#include "kernels/cutlass/detail/dense_gemm_kernel.cuh"

GEMMSCOPE_CUTLASS_DENSE_CONFIG(1d2d_stream_k_1x2, BlockScaling::k1d2d, Schedule::kCooperative,
                               TileScheduler::kStreamK, 128, 1, 2)
