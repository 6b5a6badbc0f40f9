// CUTLASS's grouped GEMMs (kernels/cutlass/grouped_gemm.cu) against the reference GEMM of each
// group's (dequantized) operands, group by group, in every configuration of every kind: BF16 in
// the three layouts the passes launch (rows per group that no tile divides, a K-grouped Wgrad
// whose K differs per group), FP8 operands from the project's own quantizers (tensorwise current
// scaling, 1x128, 128x128), K and Q with partial tiles, every group with scales of its own
// magnitude, outputs poisoned with NaN and guarded at the end; 128x128 weight scales that the
// kernel needs repacked, with new scales between runs. The refusal tests need a build with
// CUTLASS but no GPU: the factory checks the groups before it touches one.

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cutlass/grouped_gemm.h"
#include "kernels/device_buffer.h"
#include "kernels/reference/error.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"
#include "quant/fp8/block.h"
#include "quant/fp8/operand.h"
#include "quant/fp8/tensorwise.h"
#include "tests/kernels/cutlass_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;

// As bench/recipes: BF16 output rounding, and Hopper's reduced-precision accumulation where
// fast accumulation is on.
constexpr double kTolerance = 4e-3;
constexpr double kFastAccumulationTolerance = 1e-2;

// How many configurations each kind lists (kernels/cutlass/detail/grouped_gemm_kernel.cuh): a
// configuration that goes missing fails here. BF16 two, FP8 three; the E5M2 x E4M3 split kind
// (Dgrad and Wgrad) and 1x128 x 128x128 blocks (Fprop and Dgrad) one more, their wide
// configuration with 128x64 epilogue subtiles; the kinds with tile runs (BF16 NT, E5M2 x E4M3,
// both block kinds) each wide configuration once more.
constexpr size_t kBf16Configurations = 2;
constexpr size_t kBf16WgradConfigurations = 3;
constexpr size_t kFp8FpropConfigurations = 3;        // E4M3 x E4M3, fast accumulation
constexpr size_t kFp8WgradBlockConfigurations = 4;   // 1x128 x 1x128
constexpr size_t kFp8TwoEpilogueConfigurations = 6;  // E5M2 x E4M3, 1x128 x 128x128

// How an operand is stored: BF16, tensorwise current scaling in `format`, or a block layout
// (E4M3).
struct Quantization {
  ElementFormat format;
  ScaleLayout layout;
};

constexpr Quantization kBf16{ElementFormat::kBF16, ScaleLayout::kNone};
constexpr Quantization kE4m3Tensorwise{ElementFormat::kE4M3, ScaleLayout::kTensor};
constexpr Quantization kE5m2Tensorwise{ElementFormat::kE5M2, ScaleLayout::kTensor};
constexpr Quantization k1x128{ElementFormat::kE4M3, ScaleLayout::kVec128};
constexpr Quantization k128x128{ElementFormat::kE4M3, ScaleLayout::kBlock128x128};

// One GEMM operand [outer, K] as the GEMM reads it, stored K-major ([outer, K]) or not
// ([K, outer]); FP8 ones (K-major only) quantized from BF16 by the recipes' quantizers.
class Operand {
 public:
  Operand(int64_t outer, int64_t k, bool k_major, Quantization quantization)
      : k_major_(k_major),
        rows_(k_major ? outer : k),
        cols_(k_major ? k : outer),
        quantization_(quantization),
        input_(static_cast<size_t>(rows_ * cols_)) {
    if (quantization.format == ElementFormat::kBF16)
      return;
    layout_ =
        std::make_unique<Fp8OperandLayout>(rows_, cols_, quantization.format, quantization.layout);
    data_ = DeviceBuffer<uint8_t>(static_cast<size_t>(layout_->data_bytes()));
    scales_ = DeviceBuffer<float>(quantization.layout == ScaleLayout::kTensor
                                      ? Fp8CurrentScalingState::kBufferFloats
                                      : layout_->rowwise_scale_count());
  }

  // New values: random_bf16(seed) times `magnitude`, so that every operand (and group) gets
  // scales of its own; then quantized on `stream`.
  void fill(uint32_t seed, float magnitude, cudaStream_t stream) {
    std::vector<__nv_bfloat16> values = testing::random_bf16(rows_, cols_, seed);
    for (__nv_bfloat16& v : values)
      v = __float2bfloat16(__bfloat162float(v) * magnitude);
    CUDA_CHECK(cudaMemcpyAsync(input_.get(), values.data(), input_.bytes(), cudaMemcpyHostToDevice,
                               stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));  // `values` ends here
    switch (quantization_.layout) {
      case ScaleLayout::kNone:
        break;
      case ScaleLayout::kTensor:
        quantize_fp8_current(input_.get(), rows_, cols_, quantization_.format, state(),
                             {data_.get(), nullptr}, stream);
        break;
      case ScaleLayout::kVec128:
        quantize_fp8_1x128(input_.get(), rows_, cols_,
                           {data_.get(), scales_.get(), nullptr, nullptr}, stream);
        break;
      default:
        quantize_fp8_128x128(input_.get(), rows_, cols_,
                             {data_.get(), scales_.get(), nullptr, nullptr}, stream);
        break;
    }
  }

  GemmOperand operand() const {
    if (!layout_) {
      QuantizedTensor tensor;
      tensor.data = input_.get();
      tensor.rows = rows_;
      tensor.cols = cols_;
      return {tensor, k_major_};
    }
    const float* scale =
        quantization_.layout == ScaleLayout::kTensor ? state().scale_inv : scales_.get();
    return {layout_->rowwise(data_.get(), scale), k_major_};
  }

 private:
  Fp8CurrentScalingState state() const { return Fp8CurrentScalingState::in_buffer(scales_.get()); }

  bool k_major_;
  int64_t rows_, cols_;  // as stored
  Quantization quantization_;
  DeviceBuffer<__nv_bfloat16> input_;  // BF16: the operand itself
  std::unique_ptr<Fp8OperandLayout> layout_;
  DeviceBuffer<uint8_t> data_;
  DeviceBuffer<float> scales_;  // tensorwise: the scaling state; blocks: the scale tensor
};

struct Shape {
  int64_t p, k, q;
};

// Which operands are stored K-major: the passes' layouts (bench/pass_tensors.h).
struct Storage {
  bool left_k_major;
  bool right_k_major;
};

constexpr Storage kTn{true, true};    // Fprop, and every FP8 pass
constexpr Storage kNn{true, false};   // BF16 Dgrad: W stored [K, Q]
constexpr Storage kNt{false, false};  // BF16 Wgrad: dY stored [K, P], X stored [K, Q]

// One expert's GEMM: output[P, Q] = left[P, K] · right[K, Q].
class Group {
 public:
  Group(const Shape& s, Storage storage, Quantization left, Quantization right)
      : shape_(s),
        left_(s.p, s.k, storage.left_k_major, left),
        right_(s.q, s.k, storage.right_k_major, right),
        output_(static_cast<size_t>(s.p * s.q)) {}

  void fill(uint32_t seed, float left_magnitude, float right_magnitude, cudaStream_t stream) {
    left_.fill(seed, left_magnitude, stream);
    right_.fill(seed + 1, right_magnitude, stream);
  }

  GemmProblem problem(bool fast_accumulation) const {
    return {left_.operand(), right_.operand(), output_.get(), fast_accumulation};
  }

  void poison_output(cudaStream_t stream) const {
    CUDA_CHECK(cudaMemsetAsync(output_.get(), 0xFF, output_.size() * sizeof(__nv_bfloat16),
                               stream));  // NaN in BF16
  }

  double error_against_reference(cudaStream_t stream) const {
    return gemmscope::error_against_reference(problem(false), output_.get(), stream);
  }

  bool output_guard_intact() const { return output_.guard_intact(); }

  std::string dims() const {
    return std::to_string(shape_.p) + "x" + std::to_string(shape_.k) + "x" +
           std::to_string(shape_.q);
  }

 private:
  Shape shape_;
  Operand left_;
  Operand right_;
  testing::PoisonedBuffer<__nv_bfloat16> output_;
};

struct Case {
  const char* name;
  Storage storage;
  Quantization left;
  Quantization right;
  bool fast_accumulation;
  std::vector<Shape> groups;
};

// BF16 experts' rows are not padded: any count, here some that no tile (64, 128) divides. K and
// Q multiples of 8 (16-byte rows) but not of the tiles; Q = 328 leaves a 2x1 or 1x2 cluster
// with a CTA without a tile. The K-grouped Wgrad varies K from 1 row up.
const std::vector<Shape> kBf16RowsVary = {
    {1, 200, 328}, {255, 200, 328}, {17, 200, 328}, {130, 200, 328}, {64, 200, 328}};
const std::vector<Shape> kBf16ContractionVaries = {
    {136, 1, 200}, {136, 255, 200}, {136, 7, 200}, {136, 130, 200}, {136, 64, 200}};
// FP8: Fprop and Dgrad vary the rows P (odd counts for tensorwise; multiples of 4 for 1x128
// scales, whose layout pads the rows to 4); Wgrad varies K (the experts' padded rows, to 16).
const std::vector<Shape> kRowsVary = {
    {17, 272, 328}, {130, 272, 328}, {257, 272, 328}, {64, 272, 328}};
const std::vector<Shape> kContractionVaries = {
    {136, 16, 200}, {136, 48, 200}, {136, 144, 200}, {136, 272, 200}};
// 1x128 x 128x128 with ceil(K/128) = 8, a multiple of 4: the weight scales need no repack.
const std::vector<Shape> kBlockRowsVary = {
    {20, 960, 328}, {132, 960, 328}, {260, 960, 328}, {128, 960, 328}};
const std::vector<Shape> kBlockContractionVaries = {
    {136, 128, 200}, {136, 272, 200}, {136, 384, 200}, {136, 16, 200}};

class Groups {
 public:
  Groups(const Case& c, cudaStream_t stream) : fast_accumulation_(c.fast_accumulation) {
    for (const Shape& s : c.groups)
      groups_.push_back(std::make_unique<Group>(s, c.storage, c.left, c.right));
    fill(1, stream);
  }

  // Group g's left operand scaled by `step` times 8^e, its right by `step` times 4^-e, where
  // e = g mod 10, and both by 1 + (g div 10) / 8: each group's scales differ from every other
  // group's (a kernel reading another group's scale, or one array's scale for every group,
  // fails), both operands' change with `step`, and forty groups stay within what the reference's
  // FP32 sums of squares hold (8^39 did not).
  void fill(float step, cudaStream_t stream) {
    for (size_t g = 0; g < groups_.size(); ++g) {
      const int e = static_cast<int>(g % 10);
      const float tens = 1.0f + static_cast<float>(g / 10) / 8.0f;
      groups_[g]->fill(static_cast<uint32_t>(100 + 2 * g), step * tens * std::ldexp(1.0f, 3 * e),
                       step * tens * std::ldexp(1.0f, -2 * e), stream);
    }
  }

  std::vector<GemmProblem> problems() const {
    std::vector<GemmProblem> problems;
    for (const auto& group : groups_)
      problems.push_back(group->problem(fast_accumulation_));
    return problems;
  }

  // Poisons the outputs, runs `gemm` once and checks every group and its output guard.
  void expect_match(const GroupedGemm& gemm, cudaStream_t stream) const {
    for (const auto& group : groups_)
      group->poison_output(stream);
    gemm.run(stream);
    const double tolerance = fast_accumulation_ ? kFastAccumulationTolerance : kTolerance;
    for (size_t g = 0; g < groups_.size(); ++g) {
      EXPECT_LE(groups_[g]->error_against_reference(stream), tolerance)
          << "group " << g << " (" << groups_[g]->dims() << ") of " << gemm.algorithm();
      EXPECT_TRUE(groups_[g]->output_guard_intact())
          << "group " << g << " (" << groups_[g]->dims() << ") of " << gemm.algorithm()
          << " wrote past its output";
    }
  }

 private:
  bool fast_accumulation_;
  std::vector<std::unique_ptr<Group>> groups_;
};

// Every configuration planned for the case must match, each labelled "<prefix>..., <kind>)" with
// a configuration of its own; their count must be `count`.
void expect_case_matches_reference(const Case& c, size_t count, const std::string& prefix,
                                   const std::string& kind) {
  SCOPED_TRACE(c.name);
  const testing::TestStream stream;
  const Groups groups(c, stream.stream);
  std::vector<std::string> algorithms;
  for (const std::unique_ptr<GroupedGemm>& gemm :
       make_cutlass_grouped_gemms(groups.problems(), stream.stream)) {
    SCOPED_TRACE(gemm->algorithm());
    EXPECT_FALSE(gemm->emulated());
    EXPECT_EQ(gemm->launches(), 1u);
    groups.expect_match(*gemm, stream.stream);
    algorithms.push_back(gemm->algorithm());
    EXPECT_EQ(gemm->algorithm().rfind(prefix, 0), 0u) << "expected it to begin with " << prefix;
    EXPECT_TRUE(contains(gemm->algorithm(), ", " + kind + ")")) << "expected the kind " << kind;
  }
  EXPECT_EQ(algorithms.size(), count) << "configurations planned for " << c.name;
  EXPECT_EQ(std::set<std::string>(algorithms.begin(), algorithms.end()).size(), algorithms.size())
      << "two configurations with one label";
}

// A case, the kind its algorithm labels name and how many configurations it has.
struct KindCase {
  Case c;
  const char* kind;
  size_t configurations;
};

void expect_cases_match_reference(const std::vector<KindCase>& cases,
                                  const std::string& precision) {
  for (const auto& [c, kind, configurations] : cases) {
    expect_case_matches_reference(c, configurations,
                                  "CUTLASS sm90 grouped " + precision + " (ptr-array, ", kind);
  }
}

TEST(CutlassGroupedGemm, Bf16MatchesReferenceInEveryLayoutAndConfiguration) {
  GEMMSCOPE_REQUIRE_CUTLASS_ON_SM90();
  expect_cases_match_reference(
      {
          {{"Fprop TN", kTn, kBf16, kBf16, false, kBf16RowsVary}, "TN", kBf16Configurations},
          {{"Dgrad NN", kNn, kBf16, kBf16, false, kBf16RowsVary}, "NN", kBf16Configurations},
          {{"Wgrad NT (K-grouped)", kNt, kBf16, kBf16, false, kBf16ContractionVaries},
           "NT",
           kBf16WgradConfigurations},
      },
      "BF16");
}

TEST(CutlassGroupedGemm, Fp8MatchesReferenceInEveryKindAndConfiguration) {
  GEMMSCOPE_REQUIRE_CUTLASS_ON_SM90();
  expect_cases_match_reference(
      {
          {{"Dgrad E5M2 x E4M3, split", kTn, kE5m2Tensorwise, kE4m3Tensorwise, false, kRowsVary},
           "tensorwise E5M2 x E4M3, split accum",
           kFp8TwoEpilogueConfigurations},
          {{"Wgrad E5M2 x E4M3, split", kTn, kE5m2Tensorwise, kE4m3Tensorwise, false,
            kContractionVaries},
           "tensorwise E5M2 x E4M3, split accum",
           kFp8TwoEpilogueConfigurations},
          {{"Fprop/Dgrad 1x128 x 128x128", kTn, k1x128, k128x128, false, kBlockRowsVary},
           "1x128 x 128x128 block scales",
           kFp8TwoEpilogueConfigurations},
          {{"Fprop E4M3 x E4M3, fast", kTn, kE4m3Tensorwise, kE4m3Tensorwise, true, kRowsVary},
           "tensorwise E4M3 x E4M3, fast accum",
           kFp8FpropConfigurations},
          {{"Wgrad 1x128 x 1x128", kTn, k1x128, k1x128, false, kBlockContractionVaries},
           "1x128 x 1x128 block scales",
           kFp8WgradBlockConfigurations},
      },
      "FP8");
}

// The groups above have fewer tiles than one round of tile runs (runs of 4 on every SM), so the
// runs' configurations take CUTLASS's order there. These have more: forty groups of the same K
// (or rows) by 1000 columns, the K-grouped ones 392 rows (four 128-row tiles, the last partial),
// 640 to 1280 tiles in all, so that each cluster runs through whole runs and then the tail in
// CUTLASS's order, across groups of their own K or rows.
std::vector<Shape> forty_groups(const std::vector<Shape>& pattern, int64_t rows = 0) {
  std::vector<Shape> groups;
  for (size_t g = 0; g < 40; ++g) {
    const Shape& s = pattern[g % pattern.size()];
    groups.push_back({rows > 0 ? rows : s.p, s.k, 1000});
  }
  return groups;
}

TEST(CutlassGroupedGemm, TileRunsMatchReferenceOverMoreTilesThanARound) {
  GEMMSCOPE_REQUIRE_CUTLASS_ON_SM90();
  expect_cases_match_reference({{{"Wgrad NT (K-grouped)", kNt, kBf16, kBf16, false,
                                  forty_groups(kBf16ContractionVaries, 392)},
                                 "NT",
                                 kBf16WgradConfigurations}},
                               "BF16");
  expect_cases_match_reference(
      {
          {{"Wgrad E5M2 x E4M3, split", kTn, kE5m2Tensorwise, kE4m3Tensorwise, false,
            forty_groups(kContractionVaries, 392)},
           "tensorwise E5M2 x E4M3, split accum",
           kFp8TwoEpilogueConfigurations},
          {{"Fprop/Dgrad 1x128 x 128x128", kTn, k1x128, k128x128, false,
            forty_groups(kBlockRowsVary)},
           "1x128 x 128x128 block scales",
           kFp8TwoEpilogueConfigurations},
          {{"Wgrad 1x128 x 1x128", kTn, k1x128, k1x128, false,
            forty_groups(kBlockContractionVaries, 392)},
           "1x128 x 1x128 block scales",
           kFp8WgradBlockConfigurations},
      },
      "FP8");
}

// Tile runs lose where the groups' contraction averages 2048 or more (kernels/cutlass/
// grouped_gemm.cu): there the wide configuration's runs are not planned; just below, they are.
TEST(CutlassGroupedGemm, TileRunsArePlannedOnlyWhereTheContractionIsShort) {
  GEMMSCOPE_REQUIRE_CUTLASS_ON_SM90();
  const std::vector<Shape> long_contraction = {
      {136, 2048, 200}, {136, 1024, 200}, {136, 3072, 200}};
  const std::vector<Shape> short_contraction = {
      {136, 2048, 200}, {136, 1024, 200}, {136, 3048, 200}};
  expect_cases_match_reference(
      {
          {{"Wgrad NT, K averaging 2048", kNt, kBf16, kBf16, false, long_contraction},
           "NT",
           kBf16WgradConfigurations - 1},
          {{"Wgrad NT, K averaging 2040", kNt, kBf16, kBf16, false, short_contraction},
           "NT",
           kBf16WgradConfigurations},
      },
      "BF16");
}

// Autocast quantizes again before every GEMM, with new scales (here both operands' 1024 times
// larger): the kernel must read them when it runs, not when it was planned.
void expect_new_scales_read(const Case& c) {
  SCOPED_TRACE(c.name);
  const testing::TestStream stream;
  Groups groups(c, stream.stream);
  const std::vector<std::unique_ptr<GroupedGemm>> gemms =
      make_cutlass_grouped_gemms(groups.problems(), stream.stream);
  for (const std::unique_ptr<GroupedGemm>& gemm : gemms)
    groups.expect_match(*gemm, stream.stream);
  groups.fill(1024.0f, stream.stream);
  for (const std::unique_ptr<GroupedGemm>& gemm : gemms)
    groups.expect_match(*gemm, stream.stream);
}

TEST(CutlassGroupedGemm, TensorwiseReadsTheScalesWhenItRuns) {
  GEMMSCOPE_REQUIRE_CUTLASS_ON_SM90();
  expect_new_scales_read({"requantized", kTn, kE5m2Tensorwise, kE4m3Tensorwise, false, kRowsVary});
}

// Where ceil(K/128) is not a multiple of 4 (K = 768: Qwen3-30B-A3B's expert_down) and the
// weights have more than one 128-row block, our 128x128 scales are padded where CUTLASS's are
// not: run() repacks them first (two launches), every run, so new scales are read too.
TEST(CutlassGroupedGemm, BlockwiseRepacksWeightScalesEveryRun) {
  GEMMSCOPE_REQUIRE_CUTLASS_ON_SM90();
  for (const int64_t k : {768, 144}) {
    const std::vector<Shape> shapes = {{20, k, 328}, {132, k, 328}, {260, k, 328}, {128, k, 328}};
    const Case c{"repacked", kTn, k1x128, k128x128, false, shapes};
    SCOPED_TRACE("K = " + std::to_string(k));
    const testing::TestStream stream;
    const Groups groups(c, stream.stream);
    const std::vector<std::unique_ptr<GroupedGemm>> gemms =
        make_cutlass_grouped_gemms(groups.problems(), stream.stream);
    EXPECT_EQ(gemms.size(), kFp8TwoEpilogueConfigurations);
    for (const std::unique_ptr<GroupedGemm>& gemm : gemms) {
      EXPECT_TRUE(contains(gemm->algorithm(),
                           "1x128 x 128x128 block scales, 128x128 scales "
                           "repacked)"))
          << gemm->algorithm();
      EXPECT_EQ(gemm->launches(), 2u) << gemm->algorithm();
    }
    expect_new_scales_read(c);
  }
}

// The first configuration is the one meant for the groups' average rows
// (kernels/cutlass/grouped_gemm.cu): ping-pong for small experts, the wide tile for large ones
// and for K-grouped Wgrad (P is a layer's width), the 128-row cooperative tile between.
TEST(CutlassGroupedGemm, TheFirstConfigurationSuitsTheGroups) {
  GEMMSCOPE_REQUIRE_CUTLASS_ON_SM90();
  const struct {
    Case c;
    const char* first;
  } cases[] = {
      {{"BF16, 96 rows", kTn, kBf16, kBf16, false, {{96, 64, 256}, {96, 64, 256}}},
       "ping-pong 64x128x128, cluster 2x1"},
      {{"BF16, 200 rows", kTn, kBf16, kBf16, false, {{200, 64, 256}, {200, 64, 256}}},
       "cooperative 128x256x64, cluster 2x1"},
      {{"BF16 Wgrad", kNt, kBf16, kBf16, false, {{256, 16, 256}, {256, 8, 256}}},
       "cooperative 128x256x64, cluster 2x1"},
      {{"FP8, 64 rows", kTn, kE4m3Tensorwise, kE4m3Tensorwise, true, {{64, 64, 256}}},
       "ping-pong 64x128x128, cluster 1x2"},
      {{"FP8, 512 rows", kTn, kE4m3Tensorwise, kE4m3Tensorwise, true, {{512, 64, 256}}},
       "cooperative 128x128x128, cluster 1x2"},
      {{"FP8, 1024 rows", kTn, kE4m3Tensorwise, kE4m3Tensorwise, true, {{1024, 64, 256}}},
       "cooperative 128x256x128, cluster 2x1"},
      {{"FP8 split, 1024 rows", kTn, kE5m2Tensorwise, kE4m3Tensorwise, false, {{1024, 64, 256}}},
       "cooperative 128x192x128, cluster 2x1"},
      {{"FP8 blocks, 1024 rows", kTn, k1x128, k128x128, false, {{1024, 128, 256}}},
       "cooperative 128x128x128, cluster 2x1"},
  };
  for (const auto& [c, first] : cases) {
    const testing::TestStream stream;
    const Groups groups(c, stream.stream);
    const std::string algorithm =
        make_cutlass_grouped_gemms(groups.problems(), stream.stream).front()->algorithm();
    EXPECT_TRUE(contains(algorithm, std::string("(ptr-array, ") + first + ", "))
        << c.name << ": expected " << first << " first, got " << algorithm;
  }
}

// ---- Refusals: need CUTLASS, not a GPU ------------------------------------------------------

// Pointers that are never dereferenced (16-byte aligned, as TMA wants): the checks come first.
const void* fake_data() {
  return reinterpret_cast<const void*>(uintptr_t{0x1000});
}

GemmOperand fake_operand(int64_t outer, int64_t k, bool k_major, Quantization quantization) {
  GemmOperand operand;
  operand.k_major = k_major;
  operand.tensor.data = fake_data();
  operand.tensor.format = quantization.format;
  operand.tensor.rows = k_major ? outer : k;
  operand.tensor.cols = k_major ? k : outer;
  if (quantization.format != ElementFormat::kBF16)
    operand.tensor.scale = fake_data();
  operand.tensor.scale_layout = quantization.layout;
  return operand;
}

std::vector<GemmProblem> fake_groups(const std::vector<Shape>& shapes, Quantization left,
                                     Quantization right, Storage storage = kTn) {
  std::vector<GemmProblem> groups;
  for (const Shape& s : shapes) {
    groups.push_back({fake_operand(s.p, s.k, storage.left_k_major, left),
                      fake_operand(s.q, s.k, storage.right_k_major, right),
                      reinterpret_cast<__nv_bfloat16*>(uintptr_t{0x2000}), false});
  }
  return groups;
}

template <typename Exception>
std::string refusal(const std::vector<GemmProblem>& groups) {
  return testing::thrown_message<Exception>([&] { make_cutlass_grouped_gemms(groups, nullptr); });
}

// What a plan that passes every check meets next: the GPU (sm_90 here, to be planned) or the
// lack of one. Empty when it was planned.
std::string past_the_checks(const std::vector<GemmProblem>& groups) {
  try {
    make_cutlass_grouped_gemms(groups, nullptr);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(CutlassGroupedGemm, RefusesWhatItDoesNotInstantiate) {
  GEMMSCOPE_REQUIRE_CUTLASS_BUILD();
  const Quantization e2m1{ElementFormat::kE2M1, ScaleLayout::kVec16Ue4m3};
  const std::string fp4 = refusal<Unsupported>(fake_groups(kRowsVary, e2m1, e2m1));
  EXPECT_TRUE(contains(fp4, "runs BF16 x BF16 or FP8 (E4M3, E5M2) x FP8 operands only")) << fp4;
  const std::string mixed = refusal<Unsupported>(fake_groups(kRowsVary, kBf16, kE4m3Tensorwise));
  EXPECT_TRUE(contains(mixed, "these are BF16 x E4M3")) << mixed;

  // BF16 left stored [K, P] with right [Q, K]: no pass launches it.
  const Storage tt{false, true};
  const std::string bf16_tt = refusal<Unsupported>(fake_groups(kBf16RowsVary, kBf16, kBf16, tt));
  EXPECT_TRUE(contains(bf16_tt, "these groups are TT")) << bf16_tt;

  const std::string not_tn =
      refusal<Unsupported>(fake_groups(kRowsVary, kE4m3Tensorwise, kE4m3Tensorwise, kNn));
  EXPECT_TRUE(contains(not_tn, "the right operand is not")) << "NN: " << not_tn;

  const std::string e4m3_by_e5m2 =
      refusal<Unsupported>(fake_groups(kRowsVary, kE4m3Tensorwise, kE5m2Tensorwise));
  EXPECT_TRUE(contains(e4m3_by_e5m2, "these are E4M3 x E5M2")) << e4m3_by_e5m2;

  // The tensorwise recipes launch E4M3 x E4M3 with fast accumulation and E5M2 x E4M3 with split
  // accumulation; the other two combinations are not instantiated (compile time).
  std::vector<GemmProblem> fast_gradient = fake_groups(kRowsVary, kE5m2Tensorwise, kE4m3Tensorwise);
  for (GemmProblem& g : fast_gradient)
    g.fast_accumulation = true;
  const std::string e5m2_fast = refusal<Unsupported>(fast_gradient);
  EXPECT_TRUE(contains(e5m2_fast, "instantiated for the tensorwise recipes' GEMMs")) << e5m2_fast;
  EXPECT_TRUE(contains(e5m2_fast, "these are E5M2 x E4M3 with fast accumulation")) << e5m2_fast;
  const std::string e4m3_split =
      refusal<Unsupported>(fake_groups(kRowsVary, kE4m3Tensorwise, kE4m3Tensorwise));
  EXPECT_TRUE(contains(e4m3_split, "these are E4M3 x E4M3 with split accumulation")) << e4m3_split;

  const std::string mixed_scales =
      refusal<Unsupported>(fake_groups(kBlockRowsVary, k128x128, k1x128));
  EXPECT_TRUE(contains(mixed_scales, "takes tensorwise scales on both operands")) << mixed_scales;

  std::vector<GemmProblem> fast_blocks = fake_groups(kBlockRowsVary, k1x128, k128x128);
  for (GemmProblem& g : fast_blocks)
    g.fast_accumulation = true;
  EXPECT_TRUE(contains(refusal<Unsupported>(fast_blocks), "fast accumulation"));
}

TEST(CutlassGroupedGemm, RefusesShapesTmaCannotTake) {
  GEMMSCOPE_REQUIRE_CUTLASS_BUILD();
  const std::string bad_k = refusal<Unsupported>(
      fake_groups({{136, 16, 200}, {136, 40, 200}}, kE5m2Tensorwise, kE4m3Tensorwise));
  EXPECT_TRUE(contains(bad_k, "group 1 (136x40x200): K must be a multiple of 16")) << bad_k;
  const std::string bad_q = refusal<Unsupported>(
      fake_groups({{17, 272, 204}, {33, 272, 204}}, kE5m2Tensorwise, kE4m3Tensorwise));
  EXPECT_TRUE(contains(bad_q, "group 0 (17x272x204): Q must be a multiple of 8")) << bad_q;

  // BF16: 8 elements to 16 bytes; the length of each operand's stored rows.
  const std::string bf16_k =
      refusal<Unsupported>(fake_groups({{5, 100, 328}, {9, 100, 328}}, kBf16, kBf16));
  EXPECT_TRUE(contains(bf16_k, "group 0 (5x100x328): K must be a multiple of 8 (16-byte rows"))
      << bf16_k;
  const std::string bf16_q = refusal<Unsupported>(fake_groups({{17, 200, 324}}, kBf16, kBf16, kNn));
  EXPECT_TRUE(contains(bf16_q, "group 0 (17x200x324): Q must be a multiple of 8 (16-byte rows"))
      << bf16_q;
  const std::string bf16_p =
      refusal<Unsupported>(fake_groups({{130, 255, 200}, {130, 1, 200}}, kBf16, kBf16, kNt));
  EXPECT_TRUE(contains(bf16_p, "group 0 (130x255x200): P must be a multiple of 8 (16-byte rows"))
      << bf16_p;
  // Odd K in Wgrad and odd rows in Fprop are fine: neither is a stride.
  for (const auto& [shapes, storage] :
       {std::pair{kBf16ContractionVaries, kNt}, std::pair{kBf16RowsVary, kTn}}) {
    const std::string message = past_the_checks(fake_groups(shapes, kBf16, kBf16, storage));
    EXPECT_FALSE(contains(message, "must be a multiple of")) << message;
  }

  std::vector<GemmProblem> misaligned = fake_groups(kBf16RowsVary, kBf16, kBf16);
  misaligned[3].left.tensor.data = reinterpret_cast<const void*>(uintptr_t{0x1008});
  const std::string address = refusal<Unsupported>(misaligned);
  EXPECT_TRUE(contains(address, "group 3 (130x200x328): TMA needs 16-byte aligned")) << address;

  const std::string huge =
      refusal<Unsupported>(fake_groups({{int64_t{1} << 31, 64, 128}}, kBf16, kBf16));
  EXPECT_TRUE(contains(huge, "CUTLASS's problem shapes are 32-bit")) << huge;
}

// Where our (cuBLASLt's) 1x128 scale layouts differ from those CUTLASS derives, the group is
// refused with the reason; where our 128x128 weight scales do, they are repacked instead.
TEST(CutlassGroupedGemm, BlockScaleLayoutsThatDifferAreRefusedOrRepacked) {
  GEMMSCOPE_REQUIRE_CUTLASS_BUILD();
  const std::string rows =
      refusal<Unsupported>(fake_groups({{128, 512, 256}, {130, 512, 256}}, k1x128, k128x128));
  EXPECT_TRUE(contains(rows,
                       "group 1 (130x512x256): the left operand's 1x128 scales step "
                       "roundup(P, 4) = 132"))
      << rows;
  const std::string wgrad =
      refusal<Unsupported>(fake_groups({{130, 256, 200}, {130, 384, 200}}, k1x128, k1x128));
  EXPECT_TRUE(contains(wgrad, "group 0 (130x256x200): the left operand's 1x128 scales")) << wgrad;

  // Repacked (6 and 1 K blocks, padded to 8 and 4), or already alike (one 128-row block of
  // weights; a single K block of the left operand): all pass the layout checks.
  for (const Shape& fits :
       {Shape{128, 768, 256}, Shape{128, 128, 256}, Shape{128, 768, 128}, Shape{130, 128, 128}}) {
    const std::string message = past_the_checks(fake_groups({fits, fits}, k1x128, k128x128));
    EXPECT_FALSE(contains(message, " operand's ")) << message;
  }
  // One repack serves every group: groups that would each need their own are refused.
  const std::string varying_k =
      refusal<Unsupported>(fake_groups({{128, 768, 256}, {128, 1024, 256}}, k1x128, k128x128));
  EXPECT_TRUE(contains(varying_k,
                       "group 1 (128x1024x256): K differs from group 0's, and the groups' "
                       "128x128 right scales need a repack"))
      << varying_k;
}

TEST(CutlassGroupedGemm, RefusesGroupsThatAreNotOneLayer) {
  GEMMSCOPE_REQUIRE_CUTLASS_BUILD();
  std::vector<GemmProblem> groups = fake_groups(kRowsVary, kE4m3Tensorwise, kE4m3Tensorwise);
  groups[2].left.tensor.format = ElementFormat::kE5M2;
  EXPECT_TRUE(contains(refusal<std::invalid_argument>(groups), "CUTLASS grouped GEMM: group 2"));
  EXPECT_TRUE(contains(refusal<std::invalid_argument>({}), "at least one group"));
}

// Its sm_90a kernels run on compute capability 9.0 only; elsewhere it refuses, naming the GPU.
TEST(CutlassGroupedGemm, RefusesGpusOtherThanSm90) {
  GEMMSCOPE_REQUIRE_CUTLASS_BUILD();
  GEMMSCOPE_REQUIRE_GPU();
  if (testing::cutlass_unavailable_reason().empty())
    GTEST_SKIP() << "this GPU is compute capability 9.0, where the kernels run";
  const std::string message = refusal<Unsupported>(fake_groups(kBf16RowsVary, kBf16, kBf16));
  EXPECT_TRUE(contains(message, "runs on compute capability 9.0 only; this GPU is ")) << message;
}

TEST(CutlassGroupedGemm, WithoutCutlassSaysHowToGetIt) {
  if (GEMMSCOPE_WITH_CUTLASS)
    GTEST_SKIP() << "this build has CUTLASS";
  const std::string message = refusal<Unsupported>(fake_groups(kBf16RowsVary, kBf16, kBf16));
  EXPECT_TRUE(contains(message, "built without CUTLASS")) << message;
  EXPECT_TRUE(contains(message, "pip install nvidia-cutlass")) << message;
  EXPECT_TRUE(contains(message, "-DGEMMSCOPE_CUTLASS_DIR=")) << message;
}

}  // namespace
}  // namespace gemmscope
