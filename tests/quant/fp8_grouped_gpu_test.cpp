// GPU tests of grouped FP8 quantization (quant/fp8/grouped.h): every group's copies, data and
// scales, bit for bit what the single-tensor quantizer (quant/fp8/tensorwise.h,
// quant/fp8/delayed.h, quant/fp8/block.h) gives on that group's rows alone, read through
// copy(columnwise, g). The grouped outputs are poisoned with 0xFF first, so a byte the kernels
// forget fails, and guarded at the end. Ragged groups (empty ones, rows not multiples of 4, 16 or
// 128: the scalar path) next to aligned ones (the vector path). The launch counts and argument
// checks need no GPU.

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/fp8/block.h"
#include "quant/fp8/delayed.h"
#include "quant/fp8/grouped.h"
#include "quant/fp8/operand.h"
#include "quant/fp8/rowwise.h"
#include "quant/fp8/tensorwise.h"
#include "quant/fp8/tensorwise_outer_vec.h"
#include "quant/operand_copies.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::PoisonedBuffer;

struct GroupedShape {
  std::vector<int64_t> group_rows;
  int64_t cols;
};

// Ragged groups: empty ones, and rows of no alignment (1, 17, 250), which take the scalar path
// while the groups of 128 and 384 rows take the vector path in the same launch; cols that are not
// a multiple of 16 (100) put every group on the scalar path, cols that are not a multiple of 128
// (272) leave partial tiles. {kAligned, 272} and {kAligned, 2048}, every size a multiple of 16,
// are all vector. The two widest give the rowwise amax pass's blocks several column tiles each
// (line_amax_tiles_per_block: 2 of 35, 4 of 66), the last block of a row fewer.
const std::vector<int64_t> kRagged = {0, 1, 17, 128, 250, 0, 384};
const std::vector<int64_t> kAligned = {32, 128, 0, 256, 16, 384};
const GroupedShape kShapes[] = {{kRagged, 272},   {kRagged, 2048}, {kRagged, 100},  {kAligned, 272},
                                {kAligned, 2048}, {kRagged, 4360}, {kAligned, 8448}};
const OperandCopies kAllCopies[] = {OperandCopies::kRowwise, OperandCopies::kColumnwise,
                                    OperandCopies::kBoth};

std::string describe(const GroupedShape& shape, OperandCopies copies) {
  std::string rows;
  for (const int64_t r : shape.group_rows)
    rows += (rows.empty() ? "" : ",") + std::to_string(r);
  const char* which = copies == OperandCopies::kRowwise      ? "rowwise"
                      : copies == OperandCopies::kColumnwise ? "columnwise"
                                                             : "both copies";
  return "groups {" + rows + "} x " + std::to_string(shape.cols) + " cols, " + which;
}

// Whether every byte of the buffer still holds the poison.
template <typename T>
bool untouched(const PoisonedBuffer<T>& buffer) {
  const std::vector<T> values = buffer.contents();
  const auto* bytes = reinterpret_cast<const uint8_t*>(values.data());
  for (size_t i = 0; i < values.size() * sizeof(T); ++i) {
    if (bytes[i] != 0xFF)
      return false;
  }
  return true;
}

// A grouped operand on the GPU: random input (block scales differ from block to block) and the
// poisoned buffers of its grouped copies.
class GroupedOperand {
 public:
  GroupedOperand(const GroupedShape& shape, OperandCopies copies, uint32_t seed)
      : layout(shape.group_rows, shape.cols),
        copies(copies),
        input(testing::upload(testing::random_bf16(layout.rows(), layout.cols(), seed))),
        rowwise(static_cast<size_t>(layout.rows() * layout.cols())),
        columnwise(static_cast<size_t>(layout.rows() * layout.cols())) {}

  Fp8GroupedTargets data_targets() const {
    Fp8GroupedTargets targets;
    targets.rowwise = has_rowwise(copies) ? rowwise.get() : nullptr;
    targets.columnwise = has_columnwise(copies) ? columnwise.get() : nullptr;
    return targets;
  }
  const __nv_bfloat16* group_input(int64_t g) const {
    return input.get() + layout.element_offset(g);
  }
  void write_input(const std::vector<__nv_bfloat16>& values) {
    ASSERT_EQ(values.size(), static_cast<size_t>(layout.rows() * layout.cols()));
    CUDA_CHECK(cudaMemcpy(input.get(), values.data(), values.size() * sizeof(values[0]),
                          cudaMemcpyHostToDevice));
  }
  // A copy not requested is left as it was; nothing is written past either buffer.
  void expect_untouched_beyond_requests() const {
    if (!has_rowwise(copies)) {
      EXPECT_TRUE(untouched(rowwise)) << "rowwise written but not requested";
    }
    if (!has_columnwise(copies)) {
      EXPECT_TRUE(untouched(columnwise)) << "columnwise written but not requested";
    }
    EXPECT_TRUE(rowwise.guard_intact()) << "written past the rowwise buffer";
    EXPECT_TRUE(columnwise.guard_intact()) << "written past the columnwise buffer";
  }

  GroupedLayout layout;
  OperandCopies copies;
  DeviceBuffer<__nv_bfloat16> input;
  PoisonedBuffer<uint8_t> rowwise;
  PoisonedBuffer<uint8_t> columnwise;
};

// The tables uploaded, as a quantizer does once.
DeviceBuffer<uint8_t> upload_tables(Fp8GroupedQuantization& quantization) {
  DeviceBuffer<uint8_t> workspace(quantization.workspace_bytes());
  quantization.upload(workspace.get(), nullptr);
  return workspace;
}

// One group quantized alone, by the single-tensor functions, into buffers of its own.
class SingleTensor {
 public:
  SingleTensor(int64_t rows, int64_t cols, ElementFormat format, ScaleLayout scale_layout,
               OperandCopies copies)
      : layout(rows, cols, format, scale_layout),
        copies(copies),
        rowwise(static_cast<size_t>(layout.data_bytes())),
        columnwise(static_cast<size_t>(layout.data_bytes())),
        rowwise_scales(static_cast<size_t>(layout.rowwise_scale_count())),
        columnwise_scales(static_cast<size_t>(layout.columnwise_scale_count())) {}

  Fp8CastTargets cast_targets() const {
    return {has_rowwise(copies) ? rowwise.get() : nullptr,
            has_columnwise(copies) ? columnwise.get() : nullptr};
  }
  Fp8BlockTargets block_targets() const {
    Fp8BlockTargets targets;
    if (has_rowwise(copies)) {
      targets.rowwise = rowwise.get();
      targets.rowwise_scale_inv = rowwise_scales.get();
    }
    if (has_columnwise(copies)) {
      targets.columnwise = columnwise.get();
      targets.columnwise_scale_inv = columnwise_scales.get();
    }
    return targets;
  }
  // The copy's view, as the single-tensor quantizer's recipe builds it.
  QuantizedTensor copy(bool columnwise_copy) const {
    const bool wanted = columnwise_copy ? has_columnwise(copies) : has_rowwise(copies);
    const void* data = !wanted ? nullptr : columnwise_copy ? columnwise.get() : rowwise.get();
    const float* scale = tensor_scale_inv != nullptr ? tensor_scale_inv
                         : !wanted                   ? nullptr
                         : columnwise_copy           ? columnwise_scales.get()
                                                     : rowwise_scales.get();
    return columnwise_copy ? layout.columnwise(data, scale) : layout.rowwise(data, scale);
  }
  int64_t scale_count(bool columnwise_copy) const {
    return columnwise_copy ? layout.columnwise_scale_count() : layout.rowwise_scale_count();
  }

  Fp8OperandLayout layout;
  OperandCopies copies;
  PoisonedBuffer<uint8_t> rowwise;
  PoisonedBuffer<uint8_t> columnwise;
  PoisonedBuffer<float> rowwise_scales;
  PoisonedBuffer<float> columnwise_scales;
  // Tensorwise scaling: the single tensor's state's scale_inv, both copies' scale.
  const float* tensor_scale_inv = nullptr;
};

// "" when the `count` floats at two device addresses are equal bit for bit, else where not.
std::string device_mismatches(const float* actual, const float* expected, int64_t count = 1) {
  return testing::mismatches(testing::download(actual, static_cast<size_t>(count)),
                             testing::download(expected, static_cast<size_t>(count)));
}

// Group g's grouped copy against the same copy of the group quantized alone: the view's shape,
// format and layout, every data byte and every scale slot (padding included).
void expect_same_copy(const QuantizedTensor& grouped, const SingleTensor& single, bool columnwise) {
  const QuantizedTensor expected = single.copy(columnwise);
  SCOPED_TRACE(columnwise ? "columnwise copy" : "rowwise copy");
  EXPECT_EQ(grouped.rows, expected.rows);
  EXPECT_EQ(grouped.cols, expected.cols);
  EXPECT_EQ(grouped.format, expected.format);
  EXPECT_EQ(grouped.scale_layout, expected.scale_layout);
  if (expected.data == nullptr) {
    EXPECT_EQ(grouped.data, nullptr) << "a copy not requested has no data";
    return;
  }
  ASSERT_NE(grouped.data, nullptr);
  ASSERT_NE(grouped.scale, nullptr);
  const auto count = static_cast<size_t>(expected.rows * expected.cols);
  EXPECT_EQ(
      testing::mismatches(testing::download(static_cast<const uint8_t*>(grouped.data), count),
                          testing::download(static_cast<const uint8_t*>(expected.data), count)),
      "")
      << "data";
  EXPECT_EQ(
      device_mismatches(static_cast<const float*>(grouped.scale),
                        static_cast<const float*>(expected.scale), single.scale_count(columnwise)),
      "")
      << "scales";
}

// Both tensorwise copies of group g against the group quantized alone; both are scaled by the
// group's own scale_inv.
void expect_tensorwise_copies(const Fp8GroupedQuantization& quantization, int64_t g,
                              const float* group_scale_inv, const SingleTensor& single) {
  for (const bool columnwise : {false, true}) {
    const QuantizedTensor grouped = quantization.copy(columnwise, g);
    EXPECT_EQ(grouped.scale, group_scale_inv) << "a copy's scale is its group's scale_inv";
    expect_same_copy(grouped, single, columnwise);
  }
}

void expect_empty_group(const Fp8GroupedQuantization& quantization, int64_t g) {
  for (const bool columnwise : {false, true}) {
    const QuantizedTensor copy = quantization.copy(columnwise, g);
    EXPECT_EQ(copy.rows, 0) << "group " << g << " has no rows, so an empty copy";
    EXPECT_EQ(copy.cols, 0);
    EXPECT_EQ(copy.data, nullptr);
  }
}

// `input`, when given, replaces the random input.
void expect_current_matches(const GroupedShape& shape, ElementFormat format, OperandCopies copies,
                            uint32_t seed, const std::vector<__nv_bfloat16>& input = {}) {
  SCOPED_TRACE("FP8Current " + std::string(format == ElementFormat::kE4M3 ? "E4M3 " : "E5M2 ") +
               describe(shape, copies));
  GroupedOperand operand(shape, copies, seed);
  if (!input.empty())
    operand.write_input(input);
  PoisonedBuffer<float> states(
      static_cast<size_t>(Fp8GroupedQuantization::current_state_floats(operand.layout)));
  auto quantization = Fp8GroupedQuantization::current(operand.input.get(), operand.layout, format,
                                                      states.get(), operand.data_targets());
  const DeviceBuffer<uint8_t> workspace = upload_tables(quantization);
  // Twice: each step's amax starts from zero, not from the last step's.
  quantization.quantize(nullptr);
  quantization.quantize(nullptr);

  for (int64_t g = 0; g < operand.layout.group_count(); ++g) {
    SCOPED_TRACE("group " + std::to_string(g));
    const int64_t rows = operand.layout.group_rows(g);
    if (rows == 0) {
      expect_empty_group(quantization, g);
      continue;
    }
    SingleTensor single(rows, shape.cols, format, ScaleLayout::kTensor, copies);
    PoisonedBuffer<float> single_state_buffer(Fp8CurrentScalingState::kBufferFloats);
    const auto single_state = Fp8CurrentScalingState::in_buffer(single_state_buffer.get());
    quantize_fp8_current(operand.group_input(g), rows, shape.cols, format, single_state,
                         single.cast_targets(), nullptr);
    const auto state =
        Fp8CurrentScalingState::in_buffer(states.get() + g * Fp8CurrentScalingState::kBufferFloats);
    EXPECT_EQ(device_mismatches(state.amax, single_state.amax), "") << "amax";
    EXPECT_EQ(device_mismatches(state.scale, single_state.scale), "") << "scale";
    single.tensor_scale_inv = single_state.scale_inv;
    expect_tensorwise_copies(quantization, g, state.scale_inv, single);
  }
  operand.expect_untouched_beyond_requests();
  EXPECT_TRUE(states.guard_intact()) << "written past the states";
}

TEST(Fp8GroupedGpu, CurrentScalingEqualsEachGroupQuantizedAlone) {
  GEMMSCOPE_REQUIRE_GPU();
  uint32_t seed = 4000;
  for (const GroupedShape& shape : kShapes) {
    for (const OperandCopies copies : kAllCopies) {
      expect_current_matches(shape, ElementFormat::kE4M3, copies, seed++);
      expect_current_matches(shape, ElementFormat::kE5M2, copies, seed++);
    }
  }
}

// Each group's amax is its own: an infinity or a NaN in one group, or a group of zeros, changes
// no other group's scale (a group of zeros and one holding an infinity get scale 1).
TEST(Fp8GroupedGpu, CurrentScalingKeepsEachAmaxToItsGroup) {
  GEMMSCOPE_REQUIRE_GPU();
  const GroupedShape shape{kAligned, 272};
  const GroupedLayout layout(shape.group_rows, shape.cols);
  auto input = testing::random_bf16(layout.rows(), layout.cols(), 4500);
  const auto element = [&](int64_t g, int64_t row, int64_t col) -> __nv_bfloat16& {
    return input[static_cast<size_t>(layout.element_offset(g) + row * shape.cols + col)];
  };
  for (int64_t r = 0; r < layout.group_rows(1); ++r) {
    for (int64_t c = 0; c < shape.cols; ++c)
      element(1, r, c) = __float2bfloat16(0.0f);
  }
  element(3, 200, 17) = __float2bfloat16(std::numeric_limits<float>::infinity());
  element(4, 3, 271) = __float2bfloat16(std::numeric_limits<float>::quiet_NaN());
  element(5, 0, 0) = __float2bfloat16(1e4f);
  for (const ElementFormat format : {ElementFormat::kE4M3, ElementFormat::kE5M2})
    expect_current_matches(shape, format, OperandCopies::kBoth, 4501, input);
}

// This step's input: fresh random data whose magnitude changes from step to step (so the
// delayed scales change), written into the operand's input buffer.
void write_step_input(GroupedOperand& operand, int step, uint32_t seed) {
  auto values = testing::random_bf16(operand.layout.rows(), operand.layout.cols(), seed + step);
  const float magnitude = std::ldexp(1.0f, 4 * step - 4);
  for (auto& value : values)
    value = __float2bfloat16(__bfloat162float(value) * magnitude);
  operand.write_input(values);
}

void expect_delayed_matches(const GroupedShape& shape, ElementFormat format, OperandCopies copies,
                            int64_t history_length, int steps, uint32_t seed) {
  SCOPED_TRACE("FP8Delayed history " + std::to_string(history_length) + " " +
               describe(shape, copies));
  GroupedOperand operand(shape, copies, seed);
  const int64_t groups = operand.layout.group_count();
  const int64_t stride = Fp8DelayedScalingState::buffer_floats(history_length);
  PoisonedBuffer<float> states(static_cast<size_t>(
      Fp8GroupedQuantization::delayed_state_floats(operand.layout, history_length)));
  reset_delayed_scaling_states(states.get(), groups, history_length, nullptr);
  auto quantization =
      Fp8GroupedQuantization::delayed(operand.input.get(), operand.layout, format, states.get(),
                                      history_length, operand.data_targets());
  const DeviceBuffer<uint8_t> workspace = upload_tables(quantization);

  // Each group with rows, quantized alone step after step from a state of its own.
  std::vector<std::unique_ptr<SingleTensor>> singles(static_cast<size_t>(groups));
  std::vector<std::unique_ptr<DeviceBuffer<float>>> single_buffers(static_cast<size_t>(groups));
  std::vector<Fp8DelayedScalingState> single_states(static_cast<size_t>(groups));
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t rows = operand.layout.group_rows(g);
    if (rows == 0)
      continue;
    singles[g] =
        std::make_unique<SingleTensor>(rows, shape.cols, format, ScaleLayout::kTensor, copies);
    single_buffers[g] = std::make_unique<DeviceBuffer<float>>(static_cast<size_t>(stride));
    single_states[g] = Fp8DelayedScalingState::in_buffer(single_buffers[g]->get(), history_length);
    reset_delayed_scaling(single_states[g], nullptr);
    singles[g]->tensor_scale_inv = single_states[g].scale_inv;
  }

  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    write_step_input(operand, step, seed);
    quantization.quantize(nullptr);
    for (int64_t g = 0; g < groups; ++g) {
      SCOPED_TRACE("group " + std::to_string(g));
      const int64_t rows = operand.layout.group_rows(g);
      if (rows == 0) {
        expect_empty_group(quantization, g);
        continue;
      }
      update_delayed_scaling(single_states[g], format, nullptr);
      cast_fp8_delayed(operand.group_input(g), rows, shape.cols, format, single_states[g],
                       singles[g]->cast_targets(), nullptr);
      const auto state =
          Fp8DelayedScalingState::in_buffer(states.get() + g * stride, history_length);
      EXPECT_EQ(device_mismatches(state.scale, single_states[g].scale), "") << "scale";
      EXPECT_EQ(
          device_mismatches(state.amax_history, single_states[g].amax_history, history_length), "")
          << "amax history";
      expect_tensorwise_copies(quantization, g, state.scale_inv, *singles[g]);
    }
  }
  operand.expect_untouched_beyond_requests();
  EXPECT_TRUE(states.guard_intact()) << "written past the states";
}

TEST(Fp8GroupedGpu, DelayedScalingEqualsEachGroupQuantizedAlone) {
  GEMMSCOPE_REQUIRE_GPU();
  uint32_t seed = 5000;
  for (const GroupedShape& shape : kShapes) {
    for (const OperandCopies copies : kAllCopies) {
      expect_delayed_matches(shape, ElementFormat::kE4M3, copies,
                             Fp8DelayedScalingState::kDefaultHistoryLength, 2, seed);
      seed += 10;
    }
  }
  // A history shorter than the steps wraps around; gradients are E5M2.
  expect_delayed_matches(kShapes[0], ElementFormat::kE5M2, OperandCopies::kBoth, 2, 4, seed);
  expect_delayed_matches(kShapes[4], ElementFormat::kE5M2, OperandCopies::kBoth, 3, 4, seed);
}

// FP8Block (scale_layout kVec128 or kBlock128x128) or FP8Rowwise (kOuterVec): the recipes whose
// scales are buffers of their own, a slice a group. `columnwise_per_tensor` (FP8Rowwise only):
// each group's columnwise copy as quant/fp8/tensorwise_outer_vec.h casts that group alone.
void expect_scaled_matches(const GroupedShape& shape, ScaleLayout scale_layout,
                           OperandCopies copies, uint32_t seed,
                           bool columnwise_per_tensor = false) {
  const bool rowwise_scaling = scale_layout == ScaleLayout::kOuterVec;
  SCOPED_TRACE(std::string(columnwise_per_tensor ? "FP8Rowwise, columnwise per tensor "
                           : rowwise_scaling     ? "FP8Rowwise "
                           : scale_layout == ScaleLayout::kVec128 ? "FP8Block 1x128 "
                                                                  : "FP8Block 128x128 ") +
               describe(shape, copies));
  GroupedOperand operand(shape, copies, seed);
  const GroupedScaleLayout rowwise_layout =
      fp8_grouped_scales(operand.layout, scale_layout, /*columnwise=*/false);
  const GroupedScaleLayout columnwise_layout =
      fp8_grouped_scales(operand.layout, scale_layout, /*columnwise=*/true);
  PoisonedBuffer<float> rowwise_scales(static_cast<size_t>(rowwise_layout.total_bytes()) /
                                       sizeof(float));
  PoisonedBuffer<float> columnwise_scales(static_cast<size_t>(columnwise_layout.total_bytes()) /
                                          sizeof(float));
  Fp8GroupedTargets targets = operand.data_targets();
  if (has_rowwise(copies))
    targets.rowwise_scale_inv = rowwise_scales.get();
  if (has_columnwise(copies))
    targets.columnwise_scale_inv = columnwise_scales.get();
  DeviceBuffer<float> states(
      static_cast<size_t>(Fp8GroupedQuantization::rowwise_state_floats(operand.layout)));
  auto quantization = rowwise_scaling
                          ? Fp8GroupedQuantization::rowwise(operand.input.get(), operand.layout,
                                                            states.get(), targets)
                          : Fp8GroupedQuantization::block(operand.input.get(), operand.layout,
                                                          scale_layout, targets);
  const DeviceBuffer<uint8_t> workspace = upload_tables(quantization);
  // Twice: the amaxes of the first call must not leak into the second.
  quantization.quantize(nullptr);
  quantization.quantize(nullptr);

  for (int64_t g = 0; g < operand.layout.group_count(); ++g) {
    SCOPED_TRACE("group " + std::to_string(g));
    const int64_t rows = operand.layout.group_rows(g);
    if (rows == 0) {
      expect_empty_group(quantization, g);
      continue;
    }
    SingleTensor single(rows, shape.cols, ElementFormat::kE4M3, scale_layout, copies);
    if (rowwise_scaling) {
      const Fp8BlockTargets block = single.block_targets();
      DeviceBuffer<uint8_t> workspace(fp8_rowwise_workspace_bytes(rows, shape.cols));
      quantize_fp8_rowwise(
          operand.group_input(g), rows, shape.cols,
          {block.rowwise, block.rowwise_scale_inv, block.columnwise, block.columnwise_scale_inv},
          workspace.get(), nullptr);
    } else if (scale_layout == ScaleLayout::kVec128) {
      quantize_fp8_1x128(operand.group_input(g), rows, shape.cols, single.block_targets(), nullptr);
    } else {
      quantize_fp8_128x128(operand.group_input(g), rows, shape.cols, single.block_targets(),
                           nullptr);
    }
    for (const bool columnwise : {false, true}) {
      const QuantizedTensor grouped = quantization.copy(columnwise, g);
      if (grouped.data != nullptr) {
        const GroupedScaleLayout& scales = columnwise ? columnwise_layout : rowwise_layout;
        const float* buffer = columnwise ? columnwise_scales.get() : rowwise_scales.get();
        EXPECT_EQ(grouped.scale, buffer + scales.offset(g) / sizeof(float))
            << "the group's scales start at its offset in the copy's scale buffer";
        EXPECT_EQ(scales.bytes(g),
                  single.scale_count(columnwise) * static_cast<int64_t>(sizeof(float)));
      }
      expect_same_copy(grouped, single, columnwise);
    }
  }
  operand.expect_untouched_beyond_requests();
  EXPECT_TRUE(rowwise_scales.guard_intact() && columnwise_scales.guard_intact())
      << "written past a scale buffer";
  if (!has_rowwise(copies)) {
    EXPECT_TRUE(untouched(rowwise_scales)) << "rowwise scales written but not requested";
  }
  if (!has_columnwise(copies)) {
    EXPECT_TRUE(untouched(columnwise_scales)) << "columnwise scales written but not requested";
  }
}

TEST(Fp8GroupedGpu, BlockScalingEqualsEachGroupQuantizedAlone) {
  GEMMSCOPE_REQUIRE_GPU();
  uint32_t seed = 6000;
  for (const GroupedShape& shape : kShapes) {
    for (const OperandCopies copies : kAllCopies) {
      expect_scaled_matches(shape, ScaleLayout::kVec128, copies, seed++);
      expect_scaled_matches(shape, ScaleLayout::kBlock128x128, copies, seed++);
    }
  }
}

// Each group's rows and columns their own power-of-2 scales: its column amaxes over its rows only.
TEST(Fp8GroupedGpu, RowwiseScalingEqualsEachGroupQuantizedAlone) {
  GEMMSCOPE_REQUIRE_GPU();
  uint32_t seed = 6500;
  for (const GroupedShape& shape : kShapes) {
    for (const OperandCopies copies : kAllCopies) {
      expect_scaled_matches(shape, ScaleLayout::kOuterVec, copies, seed++);
      expect_scaled_matches(shape, ScaleLayout::kOuterVec, copies, seed++,
                            /*columnwise_per_tensor=*/true);
    }
  }
}

// 1x128 scales stacked as well (what DeepGEMM's m-grouped kernel reads): each group's slice of
// the stacked tensor holds, bit for bit, its per-group scales, K block by K block, and nothing is
// written past the stacked buffer. kAligned's rows are multiples of 4, as stacking needs.
TEST(Fp8GroupedGpu, StackedRowwiseScalesAreEachGroupsScales) {
  GEMMSCOPE_REQUIRE_GPU();
  for (const int64_t cols : {int64_t{272}, int64_t{2048}}) {
    SCOPED_TRACE(std::to_string(cols) + " cols");
    GroupedOperand operand({kAligned, cols}, OperandCopies::kBoth, 7000);
    const GroupedScaleLayout rowwise_layout =
        fp8_grouped_scales(operand.layout, ScaleLayout::kVec128, /*columnwise=*/false);
    const GroupedScaleLayout columnwise_layout =
        fp8_grouped_scales(operand.layout, ScaleLayout::kVec128, /*columnwise=*/true);
    DeviceBuffer<float> rowwise_scales(static_cast<size_t>(rowwise_layout.total_bytes()) / 4);
    DeviceBuffer<float> columnwise_scales(static_cast<size_t>(columnwise_layout.total_bytes()) / 4);
    PoisonedBuffer<float> stacked(static_cast<size_t>(fp8_stacked_scale_floats(operand.layout)));
    Fp8GroupedTargets targets = operand.data_targets();
    targets.rowwise_scale_inv = rowwise_scales.get();
    targets.columnwise_scale_inv = columnwise_scales.get();
    targets.stacked_rowwise_scale_inv = stacked.get();
    auto quantization = Fp8GroupedQuantization::block(operand.input.get(), operand.layout,
                                                      ScaleLayout::kVec128, targets);
    const DeviceBuffer<uint8_t> workspace = upload_tables(quantization);
    quantization.quantize(nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> all = stacked.contents();
    const int64_t k_blocks = (cols + 127) / 128, rows = operand.layout.rows();
    for (int64_t g = 0; g < operand.layout.group_count(); ++g) {
      const QuantizedTensor copy = quantization.copy(false, g);
      if (copy.data == nullptr)
        continue;
      SCOPED_TRACE("group " + std::to_string(g));
      const int64_t first = operand.layout.row_offset(g), group_rows = copy.rows;
      EXPECT_EQ(copy.stacked_scale, stacked.get() + first);
      EXPECT_EQ(copy.stacked_scale_stride, rows);
      const std::vector<float> own = testing::download(static_cast<const float*>(copy.scale),
                                                       static_cast<size_t>(k_blocks * group_rows));
      std::vector<float> slice;
      for (int64_t b = 0; b < k_blocks; ++b) {
        for (int64_t r = 0; r < group_rows; ++r)
          slice.push_back(all[static_cast<size_t>(b * rows + first + r)]);
      }
      EXPECT_EQ(testing::mismatches(slice, own), "");
    }
    EXPECT_TRUE(stacked.guard_intact()) << "written past the stacked scales";
    EXPECT_EQ(quantization.copy(true, 1).stacked_scale, nullptr) << "columnwise copies have none";
  }
}

TEST(Fp8GroupedArguments, StackedScalesNeed1x128RowwiseAndRowsOfFour) {
  const auto* input = reinterpret_cast<const __nv_bfloat16*>(0x1000);
  Fp8GroupedTargets targets{reinterpret_cast<uint8_t*>(0x10000), nullptr,
                            reinterpret_cast<float*>(0x30000), nullptr,
                            reinterpret_cast<float*>(0x50000)};
  EXPECT_THROW(Fp8GroupedQuantization::block(input, GroupedLayout({32, 17}, 256),
                                             ScaleLayout::kVec128, targets),
               std::invalid_argument);
  EXPECT_THROW(Fp8GroupedQuantization::block(input, GroupedLayout({32, 16}, 256),
                                             ScaleLayout::kBlock128x128, targets),
               std::invalid_argument);
  EXPECT_NO_THROW(Fp8GroupedQuantization::block(input, GroupedLayout({32, 0, 16}, 256),
                                                ScaleLayout::kVec128, targets));
}

// Stand-ins for device pointers: building a quantization touches no device memory.
template <typename T>
T* stand_in(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

Fp8GroupedTargets stand_in_targets() {
  return {stand_in<uint8_t>(0x10000), stand_in<uint8_t>(0x20000), stand_in<float>(0x30000),
          stand_in<float>(0x40000)};
}

TEST(Fp8GroupedLaunches, FixedWhateverTheNumberOfGroups) {
  const auto* input = stand_in<const __nv_bfloat16>(0x1000);
  float* states = stand_in<float>(0x50000);
  for (const int64_t groups : {1, 7, 128, 1000}) {
    SCOPED_TRACE(std::to_string(groups) + " groups");
    std::vector<int64_t> rows(static_cast<size_t>(groups), 48);
    rows[0] = 0;  // an empty group changes nothing
    rows.back() = 300;
    const GroupedLayout layout(rows, 256);
    EXPECT_EQ(Fp8GroupedQuantization::current(input, layout, ElementFormat::kE4M3, states,
                                              stand_in_targets())
                  .launches(),
              4u)
        << "a memset, the amax, the scale and the cast kernels";
    EXPECT_EQ(Fp8GroupedQuantization::delayed(input, layout, ElementFormat::kE5M2, states, 1024,
                                              stand_in_targets())
                  .launches(),
              2u)
        << "the cast and the history update";
    for (const ScaleLayout scale_layout : {ScaleLayout::kVec128, ScaleLayout::kBlock128x128}) {
      EXPECT_EQ(
          Fp8GroupedQuantization::block(input, layout, scale_layout, stand_in_targets()).launches(),
          1u)
          << "the cast";
    }
    EXPECT_EQ(Fp8GroupedQuantization::rowwise(input, layout, states, stand_in_targets()).launches(),
              3u)
        << "the zeroing, the line amax and the cast kernels";
    EXPECT_EQ(
        Fp8GroupedQuantization::rowwise(input, layout, states, stand_in_targets(), true).launches(),
        4u)
        << "and the fold of each group's column amaxes";
  }
  // Without a row to quantize the casts (and current scaling's amax) are not launched.
  const GroupedLayout empty({0, 0, 0}, 64);
  EXPECT_EQ(Fp8GroupedQuantization::current(input, empty, ElementFormat::kE4M3, states,
                                            stand_in_targets())
                .launches(),
            2u);
  EXPECT_EQ(Fp8GroupedQuantization::block(input, empty, ScaleLayout::kVec128, stand_in_targets())
                .launches(),
            0u);
}

TEST(Fp8GroupedArguments, RefusedWithTheOffendingValue) {
  const auto* input = stand_in<const __nv_bfloat16>(0x1000);
  float* states = stand_in<float>(0x50000);
  const GroupedLayout layout({16, 0, 32}, 64);
  std::string message = testing::thrown_message<std::invalid_argument>([&] {
    Fp8GroupedQuantization::current(input, layout, ElementFormat::kE4M3, nullptr,
                                    stand_in_targets());
  });
  EXPECT_TRUE(testing::contains(message, "states")) << message;
  message = testing::thrown_message<std::invalid_argument>([&] {
    Fp8GroupedQuantization::current(input, layout, ElementFormat::kBF16, states,
                                    stand_in_targets());
  });
  EXPECT_TRUE(testing::contains(message, "BF16")) << message;
  message = testing::thrown_message<std::invalid_argument>([&] {
    Fp8GroupedQuantization::delayed(input, layout, ElementFormat::kE4M3, states, 0,
                                    stand_in_targets());
  });
  EXPECT_TRUE(testing::contains(message, "history_length")) << message;
  message = testing::thrown_message<std::invalid_argument>([&] {
    Fp8GroupedQuantization::current(nullptr, layout, ElementFormat::kE4M3, states,
                                    stand_in_targets());
  });
  EXPECT_TRUE(testing::contains(message, "input")) << message;
  message = testing::thrown_message<std::invalid_argument>([&] {
    Fp8GroupedQuantization::current(input, layout, ElementFormat::kE4M3, states,
                                    Fp8GroupedTargets{});
  });
  EXPECT_TRUE(testing::contains(message, "at least one copy")) << message;
  Fp8GroupedTargets no_scales = stand_in_targets();
  no_scales.columnwise_scale_inv = nullptr;
  message = testing::thrown_message<std::invalid_argument>(
      [&] { Fp8GroupedQuantization::block(input, layout, ScaleLayout::kVec128, no_scales); });
  EXPECT_TRUE(testing::contains(message, "columnwise_scale_inv")) << message;
  message = testing::thrown_message<std::invalid_argument>(
      [&] { fp8_grouped_scales(layout, ScaleLayout::kTensor, false); });
  EXPECT_TRUE(testing::contains(message, "not an FP8 block or rowwise layout")) << message;
  message = testing::thrown_message<std::invalid_argument>([&] {
    Fp8GroupedQuantization::block(input, layout, ScaleLayout::kTensor, stand_in_targets());
  });
  EXPECT_TRUE(testing::contains(message, "not an FP8 block or rowwise layout")) << message;
  const auto quantization =
      Fp8GroupedQuantization::block(input, layout, ScaleLayout::kVec128, stand_in_targets());
  message = testing::thrown_message<std::invalid_argument>([&] { quantization.copy(false, 3); });
  EXPECT_TRUE(testing::contains(message, "no group 3")) << message;
}

}  // namespace
}  // namespace gemmscope
