#pragma once
// Marks small inline functions that CUDA kernels and host code share (scale rules, scale-layout
// indexing), so a kernel and its host reference read one definition. Plain C++ compilers see
// ordinary inline functions.

#if defined(__CUDACC__)
#define GEMMSCOPE_HOST_DEVICE __host__ __device__
#else
#define GEMMSCOPE_HOST_DEVICE
#endif
