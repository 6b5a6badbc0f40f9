// Grouped MXFP8 and NVFP4 quantization (Mxfp8GroupedQuantize, Nvfp4GroupedQuantize) on the GPU
// against the per-tensor quantizers (quantize_mxfp8, quantize_nvfp4) run on each group's rows
// alone: every group's data, scales (padding included) and NVFP4 tensor scalars byte for byte,
// for ragged and empty groups, every copy and every NVFP4 role (16x16 weight blocks, the
// Hadamard transform, stochastic rounding), fresh random data. The grouped outputs are poisoned
// first (0xFF, then 0x00 for a second quantize()), so a byte the grouped kernels leave unwritten,
// or write outside its group's place, fails; buffers are guarded at their ends. Also: the launch
// count does not grow with the groups, and the argument checks run on the host.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/base/cuda_check.h"
#include "quant/mxfp8/operand.h"
#include "quant/mxfp8/quantize.h"
#include "quant/nvfp4/operand.h"
#include "quant/nvfp4/quantize.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/block_scaled_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;
using testing::mismatches;
using testing::PoisonedBuffer;
using testing::thrown_message;

const char* copies_name(OperandCopies copies) {
  return copies == OperandCopies::kRowwise      ? "rowwise"
         : copies == OperandCopies::kColumnwise ? "columnwise"
                                                : "both";
}

std::string rows_name(const std::vector<int64_t>& group_rows) {
  std::string name = "{";
  for (size_t g = 0; g < group_rows.size(); ++g)
    name += (g == 0 ? "" : ",") + std::to_string(group_rows[g]);
  return name + "}";
}

int64_t total_rows(const std::vector<int64_t>& group_rows) {
  int64_t rows = 0;
  for (const int64_t r : group_rows)
    rows += r;
  return rows;
}

// The grouped buffers of one piece (a copy's data or scales) and, per group, its offset there
// and what the per-tensor quantizer wrote for that group.
struct PieceCheck {
  const char* name;
  const PoisonedBuffer<uint8_t>* grouped;
  std::vector<int64_t> offsets;             // per group
  std::vector<std::vector<uint8_t>> alone;  // per group: the per-tensor bytes (empty: no rows)
};

// Every group's bytes equal the per-tensor ones; every byte outside the groups' places is still
// `poison`; nothing was written past the buffer's end.
void expect_piece_matches(const PieceCheck& piece, uint8_t poison) {
  SCOPED_TRACE(piece.name);
  const std::vector<uint8_t> whole = piece.grouped->contents();
  std::vector<bool> placed(whole.size(), false);
  for (size_t g = 0; g < piece.alone.size(); ++g) {
    const std::vector<uint8_t>& alone = piece.alone[g];
    const auto offset = static_cast<size_t>(piece.offsets[g]);
    ASSERT_LE(offset + alone.size(), whole.size()) << "group " << g << " lies past the buffer";
    const std::vector<uint8_t> slice(
        whole.begin() + static_cast<std::ptrdiff_t>(offset),
        whole.begin() + static_cast<std::ptrdiff_t>(offset + alone.size()));
    EXPECT_EQ(mismatches(slice, alone), "")
        << "group " << g << " (at byte " << offset << ") differs from its tensor quantized alone";
    for (size_t i = 0; i < alone.size(); ++i)
      placed[offset + i] = true;
  }
  size_t stray = 0;
  for (size_t i = 0; i < whole.size(); ++i)
    stray += !placed[i] && whole[i] != poison ? 1 : 0;
  EXPECT_EQ(stray, 0u) << "bytes outside every group's place were written";
  EXPECT_TRUE(piece.grouped->guard_intact()) << "a write past the end of the buffer";
}

void repoison(const PoisonedBuffer<uint8_t>& buffer, uint8_t value) {
  CUDA_CHECK(cudaMemset(buffer.get(), value, buffer.size()));
}

// The grouped buffers of both copies, sized by a grouped layout (of either format).
struct GroupedBuffers {
  template <typename Layout>
  explicit GroupedBuffers(const Layout& layout)
      : row_data(has_rowwise(layout.copies()) ? layout.data_bytes() : 0),
        row_scale(layout.rowwise_scale_bytes()),
        col_data(has_columnwise(layout.copies()) ? layout.data_bytes() : 0),
        col_scale(layout.columnwise_scale_bytes()) {}

  void repoison_all(uint8_t value) const {
    for (const auto* buffer : {&row_data, &row_scale, &col_data, &col_scale})
      repoison(*buffer, value);
  }

  PoisonedBuffer<uint8_t> row_data, row_scale, col_data, col_scale;
};

// The four pieces' checks of a grouped layout, each group's per-tensor bytes to be filled in.
template <typename Layout>
std::vector<PieceCheck> piece_checks(const Layout& layout, const GroupedBuffers& buffers) {
  std::vector<PieceCheck> pieces;
  if (has_rowwise(layout.copies())) {
    pieces.push_back({"rowwise data", &buffers.row_data, {}, {}});
    pieces.push_back({"rowwise scale", &buffers.row_scale, {}, {}});
  }
  if (has_columnwise(layout.copies())) {
    pieces.push_back({"columnwise data", &buffers.col_data, {}, {}});
    pieces.push_back({"columnwise scale", &buffers.col_scale, {}, {}});
  }
  for (int64_t g = 0; g < layout.group_count(); ++g) {
    const GroupPlacement at = layout.placement(g);
    size_t p = 0;
    if (has_rowwise(layout.copies())) {
      pieces[p++].offsets.push_back(at.data);
      pieces[p++].offsets.push_back(at.rowwise_scale);
    }
    if (has_columnwise(layout.copies())) {
      pieces[p++].offsets.push_back(at.data);
      pieces[p++].offsets.push_back(at.columnwise_scale);
    }
    for (PieceCheck& piece : pieces)
      piece.alone.emplace_back();  // filled for a group with rows
  }
  return pieces;
}

// Per-tensor buffers of one group (same piece order as piece_checks), poisoned.
struct TensorBuffers {
  template <typename TensorLayout>
  explicit TensorBuffers(const TensorLayout& layout)
      : copies(layout.copies),
        row_data(has_rowwise(layout.copies) ? layout.data_bytes() : 0),
        row_scale(layout.rowwise_scale_bytes()),
        col_data(has_columnwise(layout.copies) ? layout.data_bytes() : 0),
        col_scale(layout.columnwise_scale_bytes()) {}

  // Moves this group's bytes into the pieces' checks.
  void record(std::vector<PieceCheck>& pieces, int64_t g) const {
    size_t p = 0;
    const auto take = [&](const PoisonedBuffer<uint8_t>& buffer) {
      EXPECT_TRUE(buffer.guard_intact()) << "per-tensor quantizer wrote past a buffer";
      pieces[p++].alone[static_cast<size_t>(g)] = buffer.contents();
    };
    if (has_rowwise(copies)) {
      take(row_data);
      take(row_scale);
    }
    if (has_columnwise(copies)) {
      take(col_data);
      take(col_scale);
    }
  }

  OperandCopies copies;
  PoisonedBuffer<uint8_t> row_data, row_scale, col_data, col_scale;
};

std::vector<__nv_bfloat16> fresh_input(int64_t rows, int64_t cols) {
  static uint32_t seed = 20261125;
  return testing::random_bf16(rows, cols, seed++);
}

// Quantizes each group with rows alone (quantize_alone(g, its tensor layout, its buffers,
// stream)), then every group at once with the grouped quantizer make_grouped(grouped buffers)
// builds, which must launch `launches` kernels and memsets, twice over outputs poisoned with
// 0xFF, then 0x00 (poison_more(poison) poisons the format's own outputs), and checks every
// group's bytes (check_more() checks the format's own outputs).
template <typename Layout, typename QuantizeAlone, typename MakeGrouped>
void expect_groups_match_tensors(const Layout& layout, QuantizeAlone&& quantize_alone,
                                 MakeGrouped&& make_grouped, size_t launches,
                                 const std::function<void(uint8_t)>& poison_more,
                                 const std::function<void()>& check_more) {
  const GroupedBuffers grouped(layout);
  std::vector<PieceCheck> pieces = piece_checks(layout, grouped);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  for (int64_t g = 0; g < layout.group_count(); ++g) {
    if (!layout.group(g))
      continue;
    const TensorBuffers alone(*layout.group(g));
    quantize_alone(g, *layout.group(g), alone, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    alone.record(pieces, g);
  }

  auto quantize = make_grouped(grouped);
  const DeviceBuffer<uint8_t> workspace(quantize.workspace_bytes());
  quantize.upload(workspace.get(), stream);
  EXPECT_EQ(quantize.launches(), launches);
  // The second quantize() is a later step: it must write the same bytes.
  for (const uint8_t poison : {uint8_t{0xFF}, uint8_t{0x00}}) {
    SCOPED_TRACE("outputs poisoned with " + testing::describe(poison));
    grouped.repoison_all(poison);
    poison_more(poison);
    quantize.quantize(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (const PieceCheck& piece : pieces)
      expect_piece_matches(piece, poison);
    check_more();
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

// ---- MXFP8 ----------------------------------------------------------------------------------

void expect_mxfp8_groups_match_tensors(const std::vector<int64_t>& group_rows, int64_t cols,
                                       OperandCopies copies) {
  SCOPED_TRACE("MXFP8 groups " + rows_name(group_rows) + " x " + std::to_string(cols) + " " +
               copies_name(copies));
  const DeviceBuffer<__nv_bfloat16> input =
      testing::upload(fresh_input(total_rows(group_rows), cols));
  const Mxfp8GroupedLayout layout = mxfp8_grouped_layout(group_rows, cols, copies);
  expect_groups_match_tensors(
      layout,
      [&](int64_t g, const Mxfp8OperandLayout& tensor, const TensorBuffers& alone,
          cudaStream_t stream) {
        quantize_mxfp8(input.get() + layout.placement(g).first_row * cols, tensor.rows, cols,
                       copies, {alone.row_data.get(), alone.row_scale.get()},
                       {alone.col_data.get(), alone.col_scale.get()}, stream);
      },
      [&](const GroupedBuffers& grouped) {
        return Mxfp8GroupedQuantize(input.get(), layout,
                                    {grouped.row_data.get(), grouped.row_scale.get()},
                                    {grouped.col_data.get(), grouped.col_scale.get()});
      },
      1, [](uint8_t) {}, [] {});
}

using Mxfp8Case = std::tuple<std::vector<int64_t>, int64_t, OperandCopies>;
class Mxfp8GroupedQuantizeGpu : public ::testing::TestWithParam<Mxfp8Case> {};

TEST_P(Mxfp8GroupedQuantizeGpu, EveryGroupIsItsTensorQuantizedAlone) {
  GEMMSCOPE_REQUIRE_GPU();
  const auto& [group_rows, cols, copies] = GetParam();
  expect_mxfp8_groups_match_tensors(group_rows, cols, copies);
}

// Rows in 32s (the recipe's padding) with empty groups; cols 96 gives partial tiles and padded
// scale columns in every group, 2048 many tiles per group.
INSTANTIATE_TEST_SUITE_P(
    RaggedGroups, Mxfp8GroupedQuantizeGpu,
    ::testing::Combine(::testing::Values(std::vector<int64_t>{0, 32, 96, 0, 128, 256},
                                         std::vector<int64_t>{64}, std::vector<int64_t>{0, 0, 32}),
                       ::testing::Values(int64_t{96}, int64_t{256}, int64_t{2048}),
                       ::testing::Values(OperandCopies::kRowwise, OperandCopies::kColumnwise,
                                         OperandCopies::kBoth)));

// A rowwise copy's groups need no multiple of 32 rows.
TEST(Mxfp8GroupedQuantizeGpu, RowwiseGroupsOfAnyRows) {
  GEMMSCOPE_REQUIRE_GPU();
  expect_mxfp8_groups_match_tensors({33, 0, 1, 130, 257}, 160, OperandCopies::kRowwise);
}

// Many groups, some empty, most of one tile row: CTAs find their group among 64.
TEST(Mxfp8GroupedQuantizeGpu, ManyGroups) {
  GEMMSCOPE_REQUIRE_GPU();
  std::vector<int64_t> group_rows;
  for (int g = 0; g < 64; ++g)
    group_rows.push_back(g % 5 == 0 ? 0 : 32 * (1 + g % 7));
  expect_mxfp8_groups_match_tensors(group_rows, 224, OperandCopies::kBoth);
}

// ---- NVFP4 ----------------------------------------------------------------------------------

std::string role_name(int role) {
  switch (role) {
    case -1:
      return "plain 1x16";
    case static_cast<int>(Nvfp4Role::kActivation):
      return "activation (1x16, Hadamard)";
    case static_cast<int>(Nvfp4Role::kWeight):
      return "weight (16x16)";
    default:
      return "gradient (1x16, Hadamard, stochastic rounding)";
  }
}

Nvfp4Options options_of(int role) {
  return role < 0 ? Nvfp4Options{} : nvfp4_options_for(static_cast<Nvfp4Role>(role));
}

void expect_same_scalars(const Nvfp4TensorScalars& grouped, const Nvfp4TensorScalars& alone) {
  using testing::describe;
  EXPECT_EQ(describe(grouped.amax_rowwise), describe(alone.amax_rowwise)) << "rowwise amax";
  EXPECT_EQ(describe(grouped.amax_columnwise), describe(alone.amax_columnwise))
      << "columnwise amax";
  EXPECT_EQ(describe(grouped.tensor_scale_rowwise), describe(alone.tensor_scale_rowwise))
      << "rowwise tensor scale";
  EXPECT_EQ(describe(grouped.tensor_scale_columnwise), describe(alone.tensor_scale_columnwise))
      << "columnwise tensor scale";
}

void expect_nvfp4_groups_match_tensors(const std::vector<int64_t>& group_rows, int64_t cols,
                                       OperandCopies copies, const Nvfp4Options& options,
                                       const std::string& what) {
  SCOPED_TRACE("NVFP4 " + what + " groups " + rows_name(group_rows) + " x " + std::to_string(cols) +
               " " + copies_name(copies));
  const DeviceBuffer<__nv_bfloat16> input =
      testing::upload(fresh_input(total_rows(group_rows), cols));
  const Nvfp4GroupedLayout layout = nvfp4_grouped_layout(group_rows, cols, copies, options);
  std::vector<Nvfp4TensorScalars> alone_scalars(group_rows.size());
  const PoisonedBuffer<Nvfp4TensorScalars> grouped_scalars(group_rows.size());
  expect_groups_match_tensors(
      layout,
      [&](int64_t g, const Nvfp4OperandLayout& tensor, const TensorBuffers& alone,
          cudaStream_t stream) {
        const PoisonedBuffer<Nvfp4TensorScalars> scalars(1);
        quantize_nvfp4(input.get() + layout.placement(g).first_row * cols, tensor.rows, cols,
                       copies, options, {alone.row_data.get(), alone.row_scale.get()},
                       {alone.col_data.get(), alone.col_scale.get()}, scalars.get(), stream);
        alone_scalars[static_cast<size_t>(g)] = scalars.contents()[0];
      },
      [&](const GroupedBuffers& grouped) {
        return Nvfp4GroupedQuantize(
            input.get(), layout, options, {grouped.row_data.get(), grouped.row_scale.get()},
            {grouped.col_data.get(), grouped.col_scale.get()}, grouped_scalars.get());
      },
      3,
      [&](uint8_t poison) {
        CUDA_CHECK(cudaMemset(grouped_scalars.get(), poison,
                              group_rows.size() * sizeof(Nvfp4TensorScalars)));
      },
      [&] {
        const std::vector<Nvfp4TensorScalars> scalars = grouped_scalars.contents();
        for (size_t g = 0; g < group_rows.size(); ++g) {
          SCOPED_TRACE("scalars of group " + std::to_string(g));
          // A group without rows keeps the zeros of the amax's memset.
          expect_same_scalars(scalars[g],
                              group_rows[g] > 0 ? alone_scalars[g] : Nvfp4TensorScalars{});
        }
        EXPECT_TRUE(grouped_scalars.guard_intact()) << "a write past the last group's scalars";
      });
}

using Nvfp4Case = std::tuple<std::vector<int64_t>, int64_t, OperandCopies, int>;
class Nvfp4GroupedQuantizeGpu : public ::testing::TestWithParam<Nvfp4Case> {};

TEST_P(Nvfp4GroupedQuantizeGpu, EveryGroupIsItsTensorQuantizedAlone) {
  GEMMSCOPE_REQUIRE_GPU();
  const auto& [group_rows, cols, copies, role] = GetParam();
  expect_nvfp4_groups_match_tensors(group_rows, cols, copies, options_of(role), role_name(role));
}

// Rows in 128s (the recipe's padding) with empty groups, every role and copy; cols 80 gives
// partial tiles and padded scale columns in every group.
INSTANTIATE_TEST_SUITE_P(
    RaggedGroupsAndRoles, Nvfp4GroupedQuantizeGpu,
    ::testing::Combine(::testing::Values(std::vector<int64_t>{0, 128, 384, 0, 256},
                                         std::vector<int64_t>{128},
                                         std::vector<int64_t>{0, 0, 128}),
                       ::testing::Values(int64_t{80}, int64_t{256}, int64_t{2048}),
                       ::testing::Values(OperandCopies::kRowwise, OperandCopies::kColumnwise,
                                         OperandCopies::kBoth),
                       ::testing::Values(-1, static_cast<int>(Nvfp4Role::kActivation),
                                         static_cast<int>(Nvfp4Role::kWeight),
                                         static_cast<int>(Nvfp4Role::kGradient))));

// Groups of 16-row multiples (what the format allows with the Hadamard transform), and, rowwise,
// of any rows.
TEST(Nvfp4GroupedQuantizeGpu, GroupsOfOddRows) {
  GEMMSCOPE_REQUIRE_GPU();
  for (const int role :
       {-1, static_cast<int>(Nvfp4Role::kActivation), static_cast<int>(Nvfp4Role::kWeight),
        static_cast<int>(Nvfp4Role::kGradient)}) {
    expect_nvfp4_groups_match_tensors({0, 48, 16, 0, 272}, 160, OperandCopies::kBoth,
                                      options_of(role), role_name(role));
    expect_nvfp4_groups_match_tensors({33, 0, 1, 257}, 96, OperandCopies::kRowwise,
                                      options_of(role), role_name(role));
  }
}

// More tiles and amax stripes than the GPU holds CTAs at once: each CTA walks tiles of several
// groups, switching its scaling from group to group, and the amax kernel's CTAs fold maxima
// into several groups.
TEST(Nvfp4GroupedQuantizeGpu, CtasWalkAcrossGroups) {
  GEMMSCOPE_REQUIRE_GPU();
  std::vector<int64_t> group_rows;
  for (int g = 0; g < 48; ++g)
    group_rows.push_back(g % 7 == 3 ? 0 : 128 * (1 + g % 3));
  for (const int role :
       {static_cast<int>(Nvfp4Role::kActivation), static_cast<int>(Nvfp4Role::kWeight),
        static_cast<int>(Nvfp4Role::kGradient)}) {
    expect_nvfp4_groups_match_tensors(group_rows, 2048, OperandCopies::kBoth, options_of(role),
                                      role_name(role));
  }
}

// Stochastic rounding with a seed of its own: each group draws the random bits its tensor would.
TEST(Nvfp4GroupedQuantizeGpu, StochasticRoundingWithAnotherSeed) {
  GEMMSCOPE_REQUIRE_GPU();
  Nvfp4Options options = nvfp4_options_for(Nvfp4Role::kGradient);
  options.rounding_seed = 31337;
  expect_nvfp4_groups_match_tensors({256, 0, 128, 384}, 512, OperandCopies::kBoth, options,
                                    "gradient, seed 31337");
}

// ---- launches and argument checks (host only) -----------------------------------------------

auto* const kInput = reinterpret_cast<const __nv_bfloat16*>(0x100000);
auto* const kBuffer = reinterpret_cast<uint8_t*>(0x200000);
auto* const kScalars = reinterpret_cast<Nvfp4TensorScalars*>(0x300000);

TEST(MxGroupedQuantize, LaunchesDoNotGrowWithTheGroups) {
  for (const int64_t groups : {1, 6, 64, 256}) {
    SCOPED_TRACE(std::to_string(groups) + " groups");
    std::vector<int64_t> group_rows(static_cast<size_t>(groups), 128);
    group_rows[0] = 0;
    group_rows.push_back(256);
    const Mxfp8GroupedQuantize mxfp8(kInput,
                                     mxfp8_grouped_layout(group_rows, 256, OperandCopies::kBoth),
                                     {kBuffer, kBuffer}, {kBuffer, kBuffer});
    EXPECT_EQ(mxfp8.launches(), 1u);
    for (const Nvfp4Role role :
         {Nvfp4Role::kActivation, Nvfp4Role::kWeight, Nvfp4Role::kGradient}) {
      const Nvfp4Options options = nvfp4_options_for(role);
      const Nvfp4GroupedQuantize nvfp4(
          kInput, nvfp4_grouped_layout(group_rows, 256, OperandCopies::kBoth, options), options,
          {kBuffer, kBuffer}, {kBuffer, kBuffer}, kScalars);
      EXPECT_EQ(nvfp4.launches(), 3u);
    }
  }
  // No group with rows: nothing to launch.
  const Mxfp8GroupedQuantize none(kInput, mxfp8_grouped_layout({0, 0}, 64, OperandCopies::kBoth),
                                  {kBuffer, kBuffer}, {kBuffer, kBuffer});
  EXPECT_EQ(none.launches(), 0u);
}

TEST(MxGroupedQuantize, ChecksItsArgumentsOnTheHost) {
  const Mxfp8GroupedLayout layout = mxfp8_grouped_layout({0, 64, 32}, 64, OperandCopies::kBoth);
  std::string message = thrown_message<std::invalid_argument>([&] {
    Mxfp8GroupedQuantize(kInput, layout, {kBuffer, kBuffer}, {});
  });
  EXPECT_TRUE(contains(message, "columnwise data") && contains(message, "null")) << message;
  message = thrown_message<std::invalid_argument>([&] {
    Mxfp8GroupedQuantize(kInput + 1, layout, {kBuffer, kBuffer}, {kBuffer, kBuffer});
  });
  EXPECT_TRUE(contains(message, "input") && contains(message, "aligned")) << message;
  message = thrown_message<std::logic_error>([&] {
    const Mxfp8GroupedQuantize quantize(kInput, layout, {kBuffer, kBuffer}, {kBuffer, kBuffer});
    quantize.quantize(nullptr);
  });
  EXPECT_TRUE(contains(message, "uploaded")) << message;

  const Nvfp4Options options = nvfp4_options_for(Nvfp4Role::kGradient);
  const Nvfp4GroupedLayout nvfp4 =
      nvfp4_grouped_layout({128, 0}, 64, OperandCopies::kRowwise, options);
  message = thrown_message<std::invalid_argument>([&] {
    Nvfp4GroupedQuantize(kInput, nvfp4, options, {kBuffer, kBuffer}, {}, nullptr);
  });
  EXPECT_TRUE(contains(message, "scalars") && contains(message, "null")) << message;
  message = thrown_message<std::logic_error>([&] {
    const Nvfp4GroupedQuantize quantize(kInput, nvfp4, options, {kBuffer, kBuffer}, {}, kScalars);
    quantize.quantize(nullptr);
  });
  EXPECT_TRUE(contains(message, "uploaded")) << message;
}

}  // namespace
}  // namespace gemmscope
