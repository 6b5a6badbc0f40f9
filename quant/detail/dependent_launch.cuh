#pragma once
// Programmatic dependent launch (compute capability 9.0 and newer): a kernel launched with
// launch_dependent() may start while the kernel before it in the stream still runs, once every
// block of that one has called allow_dependent_launch() (or exited), and waits for it with
// wait_for_prior_kernel() only where it first reads what that kernel writes. Work the two do not
// share (a cast's loads of its input tile, an amax pass's loads) overlaps the earlier kernel's
// last wave and the launch between them, which a plain stream serializes.
//
// Correctness rests on every block of a dependent kernel calling wait_for_prior_kernel() before
// it reads or writes anything the kernel before wrote or reads: that kernel then ended, with its
// memory visible, and so, through its own wait, did every kernel before it. On a GPU without
// the feature the launch attribute is a plain stream dependency and both calls do nothing.

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

// kernel<<<blocks, threads, 0, stream>>>(arguments...), allowed to start before the kernel
// before it in `stream` ends (see above). Checks the launch.
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
  config.numAttrs = 1;
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Arguments>(arguments)...));
}

}  // namespace gemmscope::detail
