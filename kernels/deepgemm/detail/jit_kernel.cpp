// kernels/deepgemm/detail/jit_kernel.h: DeepGEMM's kernels compiled at run time with nvcc, cached
// on disk, loaded as CUDA libraries. kernels/deepgemm/CMakeLists.txt defines where nvcc, its host
// compiler (empty: nvcc's default) and the headers are (GEMMSCOPE_JIT_NVCC,
// GEMMSCOPE_JIT_HOST_COMPILER, GEMMSCOPE_JIT_DEEPGEMM_INCLUDE, GEMMSCOPE_JIT_CUTLASS_INCLUDE).

#include "kernels/deepgemm/detail/jit_kernel.h"

#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <system_error>

#include "quant/base/unsupported.h"

#if !defined(GEMMSCOPE_JIT_NVCC) || !defined(GEMMSCOPE_JIT_DEEPGEMM_INCLUDE) || \
    !defined(GEMMSCOPE_JIT_CUTLASS_INCLUDE) || !defined(GEMMSCOPE_JIT_HOST_COMPILER)
#error "kernels/deepgemm/CMakeLists.txt defines the JIT's compiler and include folders"
#endif

namespace gemmscope::deepgemm {
namespace {

namespace fs = std::filesystem;

constexpr const char* kWho = "DeepGEMM run-time compile";

// The flags a Release build compiles kernels/deepgemm/*.cu with (sm_90a, C++17, -O3 -DNDEBUG,
// CUTLASS's --expt-relaxed-constexpr), so that a compiled kernel differs from the build's only in
// its template arguments (a build's own CMAKE_CUDA_FLAGS are not repeated here); -w: DeepGEMM's
// headers are not ours to warn about.
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

// What a file is for the key: its path, size and modification time (a new nvcc, DeepGEMM or
// CUTLASS in the same place changes them).
std::string file_stamp(const fs::path& path) {
  std::error_code size_error, time_error;
  const auto size = fs::file_size(path, size_error);
  const auto time = fs::last_write_time(path, time_error);
  return path.string() + ":" + std::to_string(size_error ? 0 : size) + ":" +
         std::to_string(time_error ? 0 : time.time_since_epoch().count());
}

// The stamps of every file under `folder` (DeepGEMM's headers: a hundred or so), so that an edited
// header that the kernel includes compiles afresh.
std::string tree_stamp(const fs::path& folder) {
  std::string stamps;
  std::error_code error;
  for (fs::recursive_directory_iterator it(folder, error), end; !error && it != end;
       it.increment(error)) {
    std::error_code ignored;
    if (it->is_regular_file(ignored))
      stamps += file_stamp(it->path()) + "\n";
  }
  return stamps;
}

bool present(const fs::path& path) {
  std::error_code ignored;
  return fs::exists(path, ignored);
}

// Ctrl-C while nvcc runs reaches nvcc (std::system ignores it in this process meanwhile): pass it
// on rather than report a failed compile and go on.
void pass_on_interrupt(int status) {
  const int signal_number = WIFSIGNALED(status) ? WTERMSIG(status)
                            : WIFEXITED(status) && WEXITSTATUS(status) > 128
                                ? WEXITSTATUS(status) - 128
                                : 0;
  if (signal_number == SIGINT || signal_number == SIGQUIT)
    std::raise(signal_number);
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
  const fs::path log = folder / (stem + ".log");
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
  if (status != 0 || !present(partial)) {
    fs::remove(partial, ignored);
    pass_on_interrupt(status);
    throw Unsupported(std::string(kWho) + ": nvcc failed (" + first_error(log) +
                      "; all of its output: " + log.string() + ")");
  }
  std::error_code renamed;
  fs::rename(partial, cubin, renamed);
  fs::remove(log, ignored);
  if (renamed) {
    fs::remove(partial, ignored);
    throw Unsupported(std::string(kWho) + ": cannot keep " + cubin.string() + ": " +
                      renamed.message());
  }
}

// What failed to compile in this process (cubin -> why): not tried again for the next case of
// the same shape (a process plans a shape once a mode).
struct Failures {
  std::mutex mutex;
  std::map<std::string, std::string> why;
};

Failures& failures() {
  static Failures failed;
  return failed;
}

void compile_once(const std::string& source, const fs::path& cubin) {
  Failures& failed = failures();
  {
    const std::lock_guard<std::mutex> lock(failed.mutex);
    if (const auto found = failed.why.find(cubin.string()); found != failed.why.end())
      throw Unsupported(found->second);
  }
  try {
    compile(source, cubin);
  } catch (const Unsupported& e) {
    const std::lock_guard<std::mutex> lock(failed.mutex);
    failed.why.emplace(cubin.string(), e.what());
    throw;
  }
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
  if (!present(GEMMSCOPE_JIT_NVCC)) {
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
  // The key's context: the compiler, its host compiler, every DeepGEMM header and CUTLASS's
  // version header (an edited CUTLASS in the same place, at the same version, is not noticed).
  std::string context =
      file_stamp(GEMMSCOPE_JIT_NVCC) + "\n" + GEMMSCOPE_JIT_HOST_COMPILER + "\n" +
      tree_stamp(GEMMSCOPE_JIT_DEEPGEMM_INCLUDE) +
      file_stamp(fs::path(GEMMSCOPE_JIT_CUTLASS_INCLUDE) / "cutlass" / "version.h") + "\n";
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
    if (present(cubin))
      continue;
    try {
      compiles.push_back(std::async(std::launch::async, compile_once, source, cubin));
    } catch (const std::system_error&) {
      compile_once(source, cubin);  // no thread to be had: here, one after another
    }
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
  // A cubin that does not load is refused, so that the caller goes on with the build's kernels;
  // one that is damaged (in the cache) is removed too, so that the next run compiles it afresh.
  const auto refuse = [&](const std::string& why, bool damaged) {
    std::error_code ignored;
    if (damaged)
      fs::remove(cubin, ignored);
    return Unsupported(std::string(kWho) + ": " + cubin + " " + why +
                       (damaged ? "; removed from the cache" : ""));
  };
  cudaLibrary_t library = nullptr;
  if (const cudaError_t error = cudaLibraryLoadFromFile(&library, cubin.c_str(), nullptr, nullptr,
                                                        0, nullptr, nullptr, 0);
      error != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it for the next call
    const bool damaged = error == cudaErrorInvalidKernelImage || error == cudaErrorInvalidSource ||
                         error == cudaErrorInvalidPtx || error == cudaErrorNoKernelImageForDevice;
    throw refuse(std::string("does not load: ") + cudaGetErrorString(error), damaged);
  }
  unsigned count = 0;
  cudaKernel_t kernel = nullptr;
  if (cudaLibraryGetKernelCount(&count, library) != cudaSuccess || count != 1 ||
      cudaLibraryEnumerateKernels(&kernel, 1, library) != cudaSuccess) {
    cudaGetLastError();
    cudaLibraryUnload(library);
    throw refuse("holds " + std::to_string(count) + " kernels, not the one it was compiled for",
                 true);
  }
  loaded.emplace(cubin, kernel);
  return reinterpret_cast<const void*>(kernel);
}

}  // namespace gemmscope::deepgemm
