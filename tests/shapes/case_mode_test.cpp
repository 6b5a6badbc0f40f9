#include "shapes/case_mode.h"

#include <gtest/gtest.h>

namespace gemmscope {
namespace {

TEST(ModeName, Tokens) {
  EXPECT_STREQ(mode_name(Mode::kNative), "native");
  EXPECT_STREQ(mode_name(Mode::kStep), "step");
  EXPECT_STREQ(mode_name(Mode::kAutocast), "autocast");
  EXPECT_STREQ(mode_name(Mode::kPrequant), "prequant");
}

}  // namespace
}  // namespace gemmscope
