#pragma once
// DeepGEMM's kernels compiled at run time for one case's N and K, as DeepGEMM's own JIT compiles
// every kernel it launches. With N and K compile-time constants nvcc unrolls the k-loop and folds
// the tile bounds, which the build's instantiations (N and K runtime values, one kernel for every
// model) cannot. Timed on an H200, each in a process of its own at steady state, the m-grouped
// kernel with the shape (or K alone) compiled in against the same configuration without
// (docs/moe.md): Qwen3-30B-A3B's Fprop expert_down (K = 768) 5-10% faster, its Dgrad expert_up
// (K = 1536) 3-4%, DeepSeek-V3's Fprop expert_down 3%, the other expert cases -2..+1%.
//
// How: nvcc (the compiler that built gemmscope, with its host compiler) writes the cubin of one
// instantiation of a DeepGEMM kernel template, with a Release build's flags for DeepGEMM's kernels;
// the cubin is kept in a cache folder under a hash of its source, the flags, the compilers and the
// headers (every DeepGEMM header, CUTLASS's version), so that a shape compiles once per machine
// (about 9 s of one core; the instantiations of one case compile in parallel); the CUDA runtime
// loads it as a library. Where it cannot (no nvcc, no cache folder, a failed compile, a cubin
// that does not load), the caller goes on with the build's instantiations and says why; a failed
// compile is not tried again in the same process.
//
// Environment: GEMMSCOPE_JIT=off turns it off; GEMMSCOPE_JIT_CACHE names the cache folder
// (default $XDG_CACHE_HOME/gemmscope/jit, else $HOME/.cache/gemmscope/jit).

#include <string>
#include <vector>

namespace gemmscope::deepgemm {

// Whether GEMMSCOPE_JIT allows compiling at run time ("off" does not; unset or anything else
// does).
bool jit_enabled();

// The cubin paths of `instantiations` (each a C++ expression naming one instance of a
// __global__ function template that `header`, a DeepGEMM header, declares), compiled where the
// cache has none, in parallel. Needs no GPU. Throws Unsupported with the reason: GEMMSCOPE_JIT is
// off, the nvcc that built gemmscope is gone, the cache folder cannot be made, or nvcc failed (its
// first error, and where its whole output is).
std::vector<std::string> compile_cubins(const std::string& header,
                                        const std::vector<std::string>& instantiations);

// The one kernel of a cubin from compile_cubins, loaded once per process (kept loaded), as a handle
// cudaFuncSetAttribute and cudaLaunchKernelExC take. Throws Unsupported where it does not load
// (and removes a damaged cubin from the cache).
const void* load_kernel(const std::string& cubin);

}  // namespace gemmscope::deepgemm
