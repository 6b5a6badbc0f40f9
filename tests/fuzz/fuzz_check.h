#pragma once

// What a fuzz target does when the code under test breaks a promise without crashing: print it
// and abort, which libFuzzer reports as a crash with the input that caused it.

#include <cstdio>
#include <cstdlib>
#include <string>

namespace gemmscope::fuzz {

inline void check(bool holds, const std::string& promise) {
  if (!holds) {
    std::fprintf(stderr, "broken promise: %s\n", promise.c_str());
    std::abort();
  }
}

}  // namespace gemmscope::fuzz
