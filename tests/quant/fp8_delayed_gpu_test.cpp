// GPU tests of FP8 delayed scaling: several training steps of cast (recording amax) and history
// update, compared after every kernel with the host references, bit for bit; zero, inf and NaN
// amaxes included.

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/fp8/delayed.h"
#include "quant/fp8/reference.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

// The host mirror of one Fp8DelayedScalingState.
struct HostState {
  float scale = 1.0f;
  float scale_inv = 1.0f;
  std::vector<float> history;
};

void expect_state_matches(const Fp8DelayedScalingState& state, const HostState& expected) {
  EXPECT_EQ(testing::mismatches(testing::download(state.scale, 1), {expected.scale}), "")
      << "scale";
  EXPECT_EQ(testing::mismatches(testing::download(state.scale_inv, 1), {expected.scale_inv}), "")
      << "scale_inv";
  EXPECT_EQ(testing::mismatches(testing::download(state.amax_history, state.history_length),
                                expected.history,
                                /*nan_equal=*/true),
            "")
      << "amax history";
}

// This step's input: random data whose magnitude changes from step to step, an all-zero step
// (amax 0) and a step holding an infinity (amax inf).
std::vector<__nv_bfloat16> step_input(int step, int64_t rows, int64_t cols) {
  auto input = testing::random_bf16(rows, cols, 1000 + step);
  const float magnitude = std::ldexp(1.0f, 3 * (step % 5) - 6);
  for (auto& value : input)
    value = __float2bfloat16(__bfloat162float(value) * magnitude);
  if (step == 3)
    std::fill(input.begin(), input.end(), __float2bfloat16(0.0f));
  if (step == 6)
    input[input.size() / 2] = __float2bfloat16(std::numeric_limits<float>::infinity());
  return input;
}

void run_steps(int64_t history_length, ElementFormat format, int64_t rows, int64_t cols,
               int steps) {
  testing::PoisonedBuffer<float> buffer(Fp8DelayedScalingState::buffer_floats(history_length));
  const auto state = Fp8DelayedScalingState::in_buffer(buffer.get(), history_length);
  reset_delayed_scaling(state, nullptr);
  HostState host;
  host.history.assign(history_length, 0.0f);
  expect_state_matches(state, host);

  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const auto input = step_input(step, rows, cols);
    const auto device_input = testing::upload(input);
    testing::PoisonedBuffer<uint8_t> rowwise(input.size()), columnwise(input.size());
    cast_fp8_delayed(device_input.get(), rows, cols, format, state,
                     {rowwise.get(), columnwise.get()}, nullptr);

    std::vector<uint8_t> expected_rowwise(input.size()), expected_columnwise(input.size());
    reference_cast_fp8(input.data(), rows, cols, format, host.scale, expected_rowwise.data(),
                       expected_columnwise.data());
    host.history[0] = std::max(host.history[0], reference_amax(input.data(), input.size()));
    EXPECT_EQ(testing::mismatches(rowwise.contents(), expected_rowwise), "") << "rowwise";
    EXPECT_EQ(testing::mismatches(columnwise.contents(), expected_columnwise), "") << "columnwise";
    expect_state_matches(state, host);

    update_delayed_scaling(state, format, nullptr);
    reference_update_delayed_scaling(host.history.data(), history_length, format, &host.scale,
                                     &host.scale_inv);
    expect_state_matches(state, host);
  }
  EXPECT_TRUE(buffer.guard_intact());
}

TEST(Fp8DelayedGpu, ShortHistoryWrapsAround) {
  GEMMSCOPE_REQUIRE_GPU();
  run_steps(5, ElementFormat::kE5M2, 257, 391, 12);
}

TEST(Fp8DelayedGpu, DefaultHistoryOf1024) {
  GEMMSCOPE_REQUIRE_GPU();
  run_steps(Fp8DelayedScalingState::kDefaultHistoryLength, ElementFormat::kE4M3, 256, 512, 8);
}

TEST(Fp8DelayedGpu, HistoryLongerThanOneRoundOfThreads) {
  GEMMSCOPE_REQUIRE_GPU();
  run_steps(700, ElementFormat::kE4M3, 48, 80, 4);
}

TEST(Fp8DelayedGpu, UpdateWithNanAndZeroEntries) {
  GEMMSCOPE_REQUIRE_GPU();
  constexpr int64_t kLength = 1024;
  DeviceBuffer<float> buffer(Fp8DelayedScalingState::buffer_floats(kLength));
  const auto state = Fp8DelayedScalingState::in_buffer(buffer.get(), kLength);
  const float nan = std::numeric_limits<float>::quiet_NaN();

  HostState host;
  host.scale = 3.0f;
  host.scale_inv = 1.0f / 3.0f;
  for (const std::vector<float>& entries :
       {std::vector<float>{nan}, std::vector<float>{0.0f}, std::vector<float>{nan, 0.0f, 6.0f},
        std::vector<float>{1e-39f}}) {
    host.history.assign(kLength, 0.0f);
    std::copy(entries.begin(), entries.end(), host.history.begin() + 300);
    CUDA_CHECK(cudaMemcpy(state.amax_history, host.history.data(), kLength * sizeof(float),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(state.scale, &host.scale, sizeof(float), cudaMemcpyHostToDevice));
    update_delayed_scaling(state, ElementFormat::kE4M3, nullptr);
    reference_update_delayed_scaling(host.history.data(), kLength, ElementFormat::kE4M3,
                                     &host.scale, &host.scale_inv);
    expect_state_matches(state, host);
  }
  // nan and 0 kept 3; 6 gave 448 / 6; 1e-39 overflowed to FLT_MAX.
  EXPECT_EQ(host.scale, std::numeric_limits<float>::max());
}

TEST(Fp8DelayedArguments, RefusedWithTheOffendingValue) {
  std::string message = testing::thrown_message<std::invalid_argument>(
      [] { Fp8DelayedScalingState::buffer_floats(0); });
  EXPECT_TRUE(testing::contains(message, "history_length") && testing::contains(message, "0"))
      << message;
  message = testing::thrown_message<std::invalid_argument>(
      [] { Fp8DelayedScalingState::in_buffer(nullptr); });
  EXPECT_TRUE(testing::contains(message, "buffer")) << message;
  Fp8DelayedScalingState incomplete;
  message = testing::thrown_message<std::invalid_argument>(
      [&] { update_delayed_scaling(incomplete, ElementFormat::kE4M3, nullptr); });
  EXPECT_TRUE(testing::contains(message, "state.scale")) << message;
}

}  // namespace
}  // namespace gemmscope
