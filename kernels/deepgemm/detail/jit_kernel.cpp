// kernels/deepgemm/detail/jit_kernel.h: DeepGEMM's kernels compiled at run time with nvcc, cached
// on disk, loaded as CUDA libraries. kernels/deepgemm/CMakeLists.txt defines where nvcc, its host
// compiler (empty: nvcc's default) and the headers are (GEMMSCOPE_JIT_NVCC,
// GEMMSCOPE_JIT_HOST_COMPILER, GEMMSCOPE_JIT_DEEPGEMM_INCLUDE, GEMMSCOPE_JIT_CUTLASS_INCLUDE).

#include "kernels/deepgemm/detail/jit_kernel.h"

#include <cuda_runtime.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"

#if !defined(GEMMSCOPE_JIT_NVCC) || !defined(GEMMSCOPE_JIT_DEEPGEMM_INCLUDE) || \
    !defined(GEMMSCOPE_JIT_CUTLASS_INCLUDE) || !defined(GEMMSCOPE_JIT_HOST_COMPILER)
#error "kernels/deepgemm/CMakeLists.txt defines the JIT's compiler and include folders"
#endif

namespace gemmscope::deepgemm {
namespace {

namespace fs = std::filesystem;

constexpr const char* kWho = "DeepGEMM run-time compile";

// As the build compiles kernels/deepgemm/*.cu (Release, sm_90a, CUTLASS's
// --expt-relaxed-constexpr), so that a JIT kernel differs from the build's only in its template
// arguments; -w: DeepGEMM's headers are not ours to warn about.
const std::vector<std::string>& nvcc_flags() {
  static const std::vector<std::string> flags = {
      "-cubin", "-arch=sm_90a", "-std=c++17", "-O3", "-DNDEBUG", "--expt-relaxed-constexpr", "-w",
  };
  return flags;
}

// FNV-1a, 64 bits: a cache key, not a checksum against tampering.
uint64_t fnv1a(const std::string& text, uint64_t hash = 1469598103934665603ull) {
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

// What a file is for the key: its path, size and modification time (a new DeepGEMM, CUTLASS or
// nvcc in the same place changes them).
std::string file_stamp(const fs::path& path) {
  std::error_code error;
  const auto size = fs::file_size(path, error);
  const auto time = fs::last_write_time(path, error);
  return path.string() + ":" + std::to_string(error ? 0 : size) + ":" +
         std::to_string(error ? 0 : time.time_since_epoch().count());
}

std::string quoted(const std::string& path) {
  if (path.find('\'') != std::string::npos)
    throw Unsupported(std::string(kWho) + ": a path with a quote in it: " + path);
  return "'" + path + "'";
}

fs::path cache_folder() {
  if (const char* chosen = std::getenv("GEMMSCOPE_JIT_CACHE"); chosen != nullptr && *chosen)
    return chosen;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg)
    return fs::path(xdg) / "gemmscope" / "jit";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home)
    return fs::path(home) / ".cache" / "gemmscope" / "jit";
  throw Unsupported(std::string(kWho) +
                    ": no cache folder (set GEMMSCOPE_JIT_CACHE, XDG_CACHE_HOME or HOME)");
}

// The line of nvcc's output that says what failed: its first error, else its last line.
std::string first_error(const fs::path& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find("error") != std::string::npos)
      return line;
    if (!line.empty())
      last = line;
  }
  return last.empty() ? "no output" : last;
}

// A name no other thread or process writes at the same time.
std::string unique_suffix() {
  static std::atomic<unsigned> count{0};
  return std::to_string(getpid()) + "-" + std::to_string(count++);
}

// Compiles `source` into `cubin` (through a temporary name, renamed when whole, so that another
// process never reads half a cubin).
void compile(const std::string& source, const fs::path& cubin) {
  const fs::path folder = cubin.parent_path();
  const std::string stem = cubin.stem().string() + "." + unique_suffix();
  const fs::path source_file = folder / (stem + ".cu");
  const fs::path partial = folder / (stem + ".cubin");
  const fs::path log = folder / (cubin.stem().string() + ".log");
  {
    std::ofstream out(source_file);
    out << source;
    if (!out)
      throw Unsupported(std::string(kWho) + ": cannot write " + source_file.string());
  }
  std::string command = quoted(GEMMSCOPE_JIT_NVCC);
  if (const std::string host = GEMMSCOPE_JIT_HOST_COMPILER; !host.empty())
    command += " -ccbin " + quoted(host);
  for (const std::string& flag : nvcc_flags())
    command += " " + flag;
  command += " -I" + quoted(GEMMSCOPE_JIT_DEEPGEMM_INCLUDE) + " -I" +
             quoted(GEMMSCOPE_JIT_CUTLASS_INCLUDE) + " -o " + quoted(partial.string()) + " " +
             quoted(source_file.string()) + " > " + quoted(log.string()) + " 2>&1";
  const int status = std::system(command.c_str());
  std::error_code ignored;
  fs::remove(source_file, ignored);
  if (status != 0 || !fs::exists(partial)) {
    fs::remove(partial, ignored);
    throw Unsupported(std::string(kWho) + ": nvcc failed (" + first_error(log) +
                      "; all of its output: " + log.string() + ")");
  }
  std::error_code renamed;
  fs::rename(partial, cubin, renamed);
  if (renamed) {
    fs::remove(partial, ignored);
    throw Unsupported(std::string(kWho) + ": cannot keep " + cubin.string() + ": " +
                      renamed.message());
  }
  fs::remove(log, ignored);
}

}  // namespace

bool jit_enabled() {
  const char* setting = std::getenv("GEMMSCOPE_JIT");
  return setting == nullptr || std::string(setting) != "off";
}

std::vector<std::string> compile_cubins(const std::string& header,
                                        const std::vector<std::string>& instantiations) {
  if (!jit_enabled())
    throw Unsupported(std::string(kWho) + ": off (GEMMSCOPE_JIT=off)");
  if (!fs::exists(GEMMSCOPE_JIT_NVCC)) {
    throw Unsupported(std::string(kWho) + ": no nvcc at " + GEMMSCOPE_JIT_NVCC +
                      ", the compiler that built gemmscope");
  }
  const fs::path folder = cache_folder();
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) {
    throw Unsupported(std::string(kWho) + ": cannot make the cache folder " + folder.string() +
                      ": " + error.message());
  }
  std::string context = file_stamp(GEMMSCOPE_JIT_NVCC) + "\n" + GEMMSCOPE_JIT_HOST_COMPILER + "\n" +
                        file_stamp(fs::path(GEMMSCOPE_JIT_DEEPGEMM_INCLUDE) / header) + "\n" +
                        file_stamp(GEMMSCOPE_JIT_CUTLASS_INCLUDE) + "\n";
  for (const std::string& flag : nvcc_flags())
    context += flag + " ";
  std::vector<std::string> cubins;
  std::vector<std::future<void>> compiles;
  for (const std::string& instantiation : instantiations) {
    // The kernel's address in host code instantiates it; -cubin keeps its device code alone.
    const std::string source =
        "// gemmscope (kernels/deepgemm/detail/jit_kernel.cpp): one kernel, for its cubin.\n"
        "#include <" +
        header + ">\nstatic void* const gemmscope_jit_kernel = reinterpret_cast<void*>(&" +
        instantiation + ");\n";
    char key[17];
    std::snprintf(key, sizeof key, "%016llx",
                  static_cast<unsigned long long>(fnv1a(source, fnv1a(context))));
    const fs::path cubin = folder / ("deepgemm-" + std::string(key) + ".cubin");
    cubins.push_back(cubin.string());
    if (!fs::exists(cubin))
      compiles.push_back(std::async(std::launch::async, compile, source, cubin));
  }
  for (std::future<void>& done : compiles)
    done.get();  // rethrows the first failure
  return cubins;
}

const void* load_kernel(const std::string& cubin) {
  static std::mutex mutex;
  static std::map<std::string, cudaKernel_t> loaded;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = loaded.find(cubin); found != loaded.end())
    return reinterpret_cast<const void*>(found->second);
  cudaLibrary_t library = nullptr;
  CUDA_CHECK(
      cudaLibraryLoadFromFile(&library, cubin.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  unsigned count = 0;
  CUDA_CHECK(cudaLibraryGetKernelCount(&count, library));
  if (count != 1) {
    throw std::runtime_error(std::string(kWho) + ": " + cubin + " holds " + std::to_string(count) +
                             " kernels, not the one it was compiled for");
  }
  cudaKernel_t kernel = nullptr;
  CUDA_CHECK(cudaLibraryEnumerateKernels(&kernel, 1, library));
  loaded.emplace(cubin, kernel);
  return reinterpret_cast<const void*>(kernel);
}

}  // namespace gemmscope::deepgemm
