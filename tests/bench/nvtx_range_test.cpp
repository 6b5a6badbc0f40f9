// The NVTX range names of a case: one per '/'-separated component of its name, so that
// `ncu --nvtx-include "<case name>/"` matches the nested ranges.

#include "bench/timing/nvtx_range.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gemmscope {
namespace {

TEST(NvtxComponents, SplitsACaseNameAtEverySlash) {
  EXPECT_EQ(
      nvtx_components("BF16/Fprop/qkv/native/M:15872/K:4096/N:12288"),
      (std::vector<std::string>{"BF16", "Fprop", "qkv", "native", "M:15872", "K:4096", "N:12288"}));
  EXPECT_EQ(nvtx_components("single"), std::vector<std::string>{"single"});
  EXPECT_EQ(nvtx_components("a//b"), (std::vector<std::string>{"a", "", "b"}));
}

}  // namespace
}  // namespace gemmscope
