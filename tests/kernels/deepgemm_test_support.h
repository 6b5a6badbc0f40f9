#pragma once
// What the DeepGEMM provider's tests share: whether this build has DeepGEMM
// (tests/kernels/CMakeLists.txt defines GEMMSCOPE_WITH_DEEPGEMM), and the skip of a test that
// needs DeepGEMM built but not a GPU (what its providers refuse, and why).

#include <gtest/gtest.h>

#ifndef GEMMSCOPE_WITH_DEEPGEMM
#error "tests/kernels/CMakeLists.txt defines GEMMSCOPE_WITH_DEEPGEMM (0 or 1)"
#endif

#define GEMMSCOPE_REQUIRE_DEEPGEMM_BUILD()                             \
  do {                                                                 \
    if (!GEMMSCOPE_WITH_DEEPGEMM)                                      \
      GTEST_SKIP() << "built without DeepGEMM (cmake/deepgemm.cmake)"; \
  } while (0)
