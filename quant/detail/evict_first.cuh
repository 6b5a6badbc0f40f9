#pragma once
// 16-byte global loads and stores whose lines the L2 evicts first (an L2 cache-policy hint,
// sm_80 and newer): for a kernel that reads its input once and writes its output once, so that
// its own traffic does not push out the lines it has yet to read that an earlier kernel left in
// the L2 (the FP8 rowwise cast after its amax pass, quant/fp8/detail/tile_cast.cu).

#include <cuda_runtime.h>

#include <cstdint>

namespace gemmscope::detail {

// An L2 policy that gives every line an access touches the evict-first priority.
__device__ __forceinline__ uint64_t evict_first_policy() {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// A read-only (non-coherent) 16-byte load; `source` is 16-byte aligned.
__device__ __forceinline__ uint4 load_evict_first(const void* source) {
  uint4 value;
  asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
               : "=r"(value.x), "=r"(value.y), "=r"(value.z), "=r"(value.w)
               : "l"(source), "l"(evict_first_policy()));
  return value;
}

// A 16-byte store; `destination` is 16-byte aligned.
__device__ __forceinline__ void store_evict_first(void* destination, uint4 value) {
  asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(destination),
               "r"(value.x), "r"(value.y), "r"(value.z), "r"(value.w), "l"(evict_first_policy())
               : "memory");
}

}  // namespace gemmscope::detail
