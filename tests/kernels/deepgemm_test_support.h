#pragma once
// What the DeepGEMM provider's tests share: whether this build has DeepGEMM
// (tests/kernels/CMakeLists.txt defines GEMMSCOPE_WITH_DEEPGEMM), the skip of a test that
// needs DeepGEMM built but not a GPU (what its providers refuse, and why), and a test's own
// setting of the run-time compile's environment (GEMMSCOPE_JIT, GEMMSCOPE_JIT_CACHE) and cache.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#ifndef GEMMSCOPE_WITH_DEEPGEMM
#error "tests/kernels/CMakeLists.txt defines GEMMSCOPE_WITH_DEEPGEMM (0 or 1)"
#endif

#define GEMMSCOPE_REQUIRE_DEEPGEMM_BUILD()                             \
  do {                                                                 \
    if (!GEMMSCOPE_WITH_DEEPGEMM)                                      \
      GTEST_SKIP() << "built without DeepGEMM (cmake/deepgemm.cmake)"; \
  } while (0)

namespace gemmscope::testing {

// Sets an environment variable for one test, and puts back what was there.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name))
      old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The run-time compile on, into a cache folder of the test's own (`tag` and the process id under
// the temporary folder), removed after it.
class ScopedJitCache {
 public:
  explicit ScopedJitCache(const std::string& tag)
      : folder_(std::filesystem::temp_directory_path() / (tag + "_" + std::to_string(::getpid()))) {
  }
  ~ScopedJitCache() {
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
  }
  ScopedJitCache(const ScopedJitCache&) = delete;
  ScopedJitCache& operator=(const ScopedJitCache&) = delete;

  const std::filesystem::path& folder() const { return folder_; }

 private:
  const std::filesystem::path folder_;
  const ScopedEnvironment cache_{"GEMMSCOPE_JIT_CACHE", folder_.string()};
  const ScopedEnvironment on_{"GEMMSCOPE_JIT", "on"};
};

}  // namespace gemmscope::testing
