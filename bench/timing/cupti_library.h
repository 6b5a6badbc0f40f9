#pragma once
// CUPTI, loaded at run time (dlopen) like NVML, for the kernel timer (kernel_timer.h) and the
// GPC clock sampler (gpc_clock_sampler.h): a machine without it still runs gemm_bench, and
// the run's context says why those measurements are missing. Only built with CUPTI's headers
// (GEMMSCOPE_HAVE_CUPTI).

namespace gemmscope::cupti {

// The loaded library, the same one for every caller; never unloaded (CUPTI keeps threads of
// its own). Throws std::runtime_error saying why it cannot be loaded.
void* library();

// The address of CUPTI function `name`, as a pointer of type F. Throws std::runtime_error
// naming it when the loaded library lacks it (an older CUPTI).
void* symbol_address(const char* name);
template <typename F>
F symbol(const char* name) {
  return reinterpret_cast<F>(symbol_address(name));
}

// Throws std::runtime_error "`call`: CUPTI's message" unless `result` is CUPTI_SUCCESS.
void check(int result, const char* call);

}  // namespace gemmscope::cupti
