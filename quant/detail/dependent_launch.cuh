#pragma once
// Programmatic dependent launch (compute capability 9.0 and newer): a kernel launched with
// launch_dependent() may start while the kernel before it in the stream still runs, once every
// block of that one has called allow_dependent_launch() (or exited), and waits for it with
// wait_for_prior_kernel() only where it first reads what that kernel writes. Work the two do not
// share (a cast's loads of its input tile, an amax pass's loads) overlaps the earlier kernel's
// last wave and the launch between them, which a plain stream serializes.
//
// Correctness rests on two rules:
// - every block of a dependent kernel calls wait_for_prior_kernel() on every path before it reads
//   or writes anything the kernel before wrote or reads; that kernel has then ended, with its
//   memory visible, and so, through its own wait, has every kernel before it;
// - before its wait, a dependent kernel reads only data that was complete before the last plain
//   launch ahead of it in the stream (the FP8 rowwise cast's input: written before the plain
//   zeroing kernel that starts the chain).
// On a GPU without the feature the launch attribute is a plain stream dependency and both device
// calls do nothing. The device calls exist only in code compiled for sm_90 or newer: a build that
// also targets older GPUs (whose PTX a newer GPU would JIT-compile, without the waits) launches
// plainly (GEMMSCOPE_DEPENDENT_LAUNCH, quant/CMakeLists.txt).

#include <cuda_runtime.h>

#include <utility>

#include "quant/base/cuda_check.h"

namespace gemmscope::detail {

// Lets the kernel launched after this one (with launch_dependent) start once every block of
// this one has called it; a block calls it once, before or after its own work.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Returns once the kernel before this one in the stream has ended and its writes are visible
// (at once in a kernel not launched with launch_dependent); later calls return at once.
__device__ __forceinline__ void wait_for_prior_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Whether launch_dependent() lets kernels start early: only where every architecture built has
// the waits.
#if defined(GEMMSCOPE_DEPENDENT_LAUNCH)
inline constexpr bool kDependentLaunch = true;
#else
inline constexpr bool kDependentLaunch = false;
#endif

// kernel<<<blocks, threads, 0, stream>>>(arguments...), allowed to start before the kernel
// before it in `stream` ends (see above) in a build with kDependentLaunch. Checks the launch.
template <typename... Parameters, typename... Arguments>
void launch_dependent(void (*kernel)(Parameters...), unsigned int blocks, unsigned int threads,
                      cudaStream_t stream, Arguments&&... arguments) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = kDependentLaunch ? 1 : 0;
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Arguments>(arguments)...));
}

}  // namespace gemmscope::detail
