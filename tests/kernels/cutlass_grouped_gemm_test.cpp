// CUTLASS's grouped FP8 GEMM (kernels/cutlass_grouped_gemm.cu) against the reference GEMM of each
// group's dequantized operands, group by group: FP8 operands from the project's own quantizers
// (tensorwise current scaling, 1x128, 128x128), expert row counts that are odd or merely
// aligned, K and Q with partial tiles, every group with scales of its own magnitude, outputs
// poisoned with NaN and guarded at the end. Every kernel instantiated is run. The refusal tests
// need a build with CUTLASS but no GPU: the factory checks the groups before it touches one.

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/device_buffer.h"
#include "kernels/grouped_gemm.h"
#include "kernels/reference_error.h"
#include "quant/cuda_check.h"
#include "quant/fp8_block.h"
#include "quant/fp8_operand.h"
#include "quant/fp8_tensorwise.h"
#include "quant/unsupported.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/fp8_test_support.h"

#ifndef GEMMSCOPE_WITH_CUTLASS
#error "tests/kernels/CMakeLists.txt defines GEMMSCOPE_WITH_CUTLASS (0 or 1)"
#endif

namespace gemmscope {
namespace {

using testing::contains;

// As bench/recipes/fp8_recipe.h: BF16 output rounding, and Hopper's reduced-precision
// accumulation where fast accumulation is on.
constexpr double kTolerance = 4e-3;
constexpr double kFastAccumulationTolerance = 1e-2;

constexpr const char* kBuiltWithoutCutlass = "built without CUTLASS (cmake/cutlass.cmake)";

// Why the CUTLASS kernels cannot run here, or "" when they can.
std::string cutlass_unavailable_reason() {
  if (!GEMMSCOPE_WITH_CUTLASS)
    return kBuiltWithoutCutlass;
  const std::string no_gpu = testing::gpu_unavailable_reason();
  if (!no_gpu.empty())
    return no_gpu;
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major != 9 || minor != 0) {
    return "the kernels are sm_90a; this GPU is compute capability " + std::to_string(major) + "." +
           std::to_string(minor);
  }
  return "";
}

#define REQUIRE_CUTLASS_ON_SM90()                             \
  do {                                                        \
    const std::string reason_ = cutlass_unavailable_reason(); \
    if (!reason_.empty())                                     \
      GTEST_SKIP() << reason_;                                \
  } while (0)

struct Stream {
  Stream() { CUDA_CHECK(cudaStreamCreate(&stream)); }
  ~Stream() { cudaStreamDestroy(stream); }
  cudaStream_t stream = nullptr;
};

// How an operand is quantized: tensorwise current scaling in `format`, or a block layout (E4M3).
struct Quantization {
  ElementFormat format;
  ScaleLayout layout;
};

constexpr Quantization kE4m3Tensorwise{ElementFormat::kE4M3, ScaleLayout::kTensor};
constexpr Quantization kE5m2Tensorwise{ElementFormat::kE5M2, ScaleLayout::kTensor};
constexpr Quantization k1x128{ElementFormat::kE4M3, ScaleLayout::kVec128};
constexpr Quantization k128x128{ElementFormat::kE4M3, ScaleLayout::kBlock128x128};

// One K-major FP8 operand [rows, K], quantized from BF16 values by the recipes' quantizers.
class Fp8Operand {
 public:
  Fp8Operand(int64_t rows, int64_t cols, Quantization quantization)
      : layout_(rows, cols, quantization.format, quantization.layout),
        input_(static_cast<size_t>(rows * cols)),
        data_(static_cast<size_t>(layout_.data_bytes())),
        scales_(quantization.layout == ScaleLayout::kTensor ? Fp8CurrentScalingState::kBufferFloats
                                                            : layout_.rowwise_scale_count()) {}

  // New values: random_bf16(seed) times `magnitude`, so that every operand (and group) gets
  // scales of its own; then quantized on `stream`.
  void quantize(uint32_t seed, float magnitude, cudaStream_t stream) {
    std::vector<__nv_bfloat16> values = testing::random_bf16(layout_.rows, layout_.cols, seed);
    for (__nv_bfloat16& v : values)
      v = __float2bfloat16(__bfloat162float(v) * magnitude);
    CUDA_CHECK(cudaMemcpyAsync(input_.get(), values.data(), input_.bytes(), cudaMemcpyHostToDevice,
                               stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));  // `values` ends here
    switch (layout_.scale_layout) {
      case ScaleLayout::kTensor:
        quantize_fp8_current(input_.get(), layout_.rows, layout_.cols, layout_.format, state(),
                             {data_.get(), nullptr}, stream);
        break;
      case ScaleLayout::kVec128:
        quantize_fp8_1x128(input_.get(), layout_.rows, layout_.cols,
                           {data_.get(), scales_.get(), nullptr, nullptr}, stream);
        break;
      default:
        quantize_fp8_128x128(input_.get(), layout_.rows, layout_.cols,
                             {data_.get(), scales_.get(), nullptr, nullptr}, stream);
        break;
    }
  }

  QuantizedTensor tensor() const {
    const float* scale =
        layout_.scale_layout == ScaleLayout::kTensor ? state().scale_inv : scales_.get();
    return layout_.rowwise(data_.get(), scale);
  }

 private:
  Fp8CurrentScalingState state() const { return Fp8CurrentScalingState::in_buffer(scales_.get()); }

  Fp8OperandLayout layout_;
  DeviceBuffer<__nv_bfloat16> input_;
  DeviceBuffer<uint8_t> data_;
  DeviceBuffer<float> scales_;  // tensorwise: the scaling state; blocks: the scale tensor
};

// One expert's GEMM: output[P, Q] = left[P, K] · right[Q, K]ᵀ, both operands K-major (TN).
class Group {
 public:
  Group(int64_t p, int64_t k, int64_t q, Quantization left, Quantization right)
      : p_(p), k_(k), q_(q), left_(p, k, left), right_(q, k, right), output_(p * q) {}

  void quantize(uint32_t seed, float left_magnitude, float right_magnitude, cudaStream_t stream) {
    left_.quantize(seed, left_magnitude, stream);
    right_.quantize(seed + 1, right_magnitude, stream);
  }

  GemmProblem problem(bool fast_accumulation) const {
    return {{left_.tensor(), true}, {right_.tensor(), true}, output_.get(), fast_accumulation};
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
    return std::to_string(p_) + "x" + std::to_string(k_) + "x" + std::to_string(q_);
  }

 private:
  int64_t p_, k_, q_;
  Fp8Operand left_;
  Fp8Operand right_;
  testing::PoisonedBuffer<__nv_bfloat16> output_;
};

struct Shape {
  int64_t p, k, q;
};

struct Case {
  const char* name;
  Quantization left;
  Quantization right;
  bool fast_accumulation;
  std::vector<Shape> groups;
};

// Fprop and Dgrad vary the rows P (odd counts for tensorwise; multiples of 4 for 1x128 scales,
// whose layout pads the rows to 4); Wgrad varies K (the experts' padded rows, to 16 or 128). K
// and Q not multiples of 128 leave partial tiles; Q = 328 is 3 tiles, so a cluster (1x2 along Q)
// has a CTA without a tile.
const std::vector<Shape> kRowsVary = {
    {17, 272, 328}, {130, 272, 328}, {257, 272, 328}, {64, 272, 328}};
const std::vector<Shape> kContractionVaries = {
    {136, 16, 200}, {136, 48, 200}, {136, 144, 200}, {136, 272, 200}};
const std::vector<Shape> kBlockRowsVary = {
    {20, 960, 328}, {132, 960, 328}, {260, 960, 328}, {128, 960, 328}};
const std::vector<Shape> kBlockContractionVaries = {
    {136, 128, 200}, {136, 272, 200}, {136, 384, 200}, {136, 16, 200}};

class Groups {
 public:
  Groups(const Case& c, cudaStream_t stream) : fast_accumulation_(c.fast_accumulation) {
    for (const Shape& s : c.groups)
      groups_.push_back(std::make_unique<Group>(s.p, s.k, s.q, c.left, c.right));
    quantize(1, stream);
  }

  // Group g's left operand scaled by `left_step` times 8^g, its right by 4^-g: each group's
  // product of tensorwise scales differs from every other group's (a kernel reading another
  // group's scale, or one array's scale for every group, fails), and changes with `left_step`.
  void quantize(float left_step, cudaStream_t stream) {
    for (size_t g = 0; g < groups_.size(); ++g) {
      const int e = static_cast<int>(g);
      groups_[g]->quantize(static_cast<uint32_t>(100 + 2 * g), left_step * std::ldexp(1.0f, 3 * e),
                           std::ldexp(1.0f, -2 * e), stream);
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
      EXPECT_TRUE(groups_[g]->output_guard_intact()) << "group " << g << " wrote past its end";
    }
  }

 private:
  bool fast_accumulation_;
  std::vector<std::unique_ptr<Group>> groups_;
};

// Every configuration built for the case's kind must match; returns their algorithms, "; "
// between them.
std::string expect_case_matches_reference(const Case& c) {
  SCOPED_TRACE(c.name);
  const Stream stream;
  const Groups groups(c, stream.stream);
  std::string algorithms;
  for (const std::unique_ptr<GroupedGemm>& gemm :
       make_cutlass_grouped_gemms(groups.problems(), stream.stream)) {
    SCOPED_TRACE(gemm->algorithm());
    EXPECT_FALSE(gemm->emulated());
    groups.expect_match(*gemm, stream.stream);
    algorithms += (algorithms.empty() ? "" : "; ") + gemm->algorithm();
  }
  return algorithms;
}

TEST(CutlassGroupedGemm, TensorwiseMatchesReferenceInEveryInstantiation) {
  REQUIRE_CUTLASS_ON_SM90();
  const struct {
    Case c;
    const char* label;
  } cases[] = {
      {{"Fprop E4M3 x E4M3, fast", kE4m3Tensorwise, kE4m3Tensorwise, true, kRowsVary},
       "tensorwise E4M3 x E4M3, fast accum"},
      {{"E4M3 x E4M3, split", kE4m3Tensorwise, kE4m3Tensorwise, false, kRowsVary},
       "tensorwise E4M3 x E4M3, split accum"},
      {{"Dgrad E5M2 x E4M3, split", kE5m2Tensorwise, kE4m3Tensorwise, false, kRowsVary},
       "tensorwise E5M2 x E4M3, split accum"},
      {{"E5M2 x E4M3, fast", kE5m2Tensorwise, kE4m3Tensorwise, true, kRowsVary},
       "tensorwise E5M2 x E4M3, fast accum"},
      {{"Wgrad E5M2 x E4M3, split", kE5m2Tensorwise, kE4m3Tensorwise, false, kContractionVaries},
       "tensorwise E5M2 x E4M3, split accum"},
  };
  for (const auto& [c, label] : cases) {
    const std::string algorithm = expect_case_matches_reference(c);
    EXPECT_TRUE(contains(algorithm, label)) << algorithm;
    EXPECT_EQ(algorithm.rfind("CUTLASS sm90 grouped FP8 (ptr-array, ", 0), 0u) << algorithm;
  }
}

TEST(CutlassGroupedGemm, BlockwiseMatchesReference) {
  REQUIRE_CUTLASS_ON_SM90();
  const Case fprop{"Fprop/Dgrad 1x128 x 128x128", k1x128, k128x128, false, kBlockRowsVary};
  EXPECT_TRUE(contains(expect_case_matches_reference(fprop), "1x128 x 128x128 block scales"));
  const Case wgrad{"Wgrad 1x128 x 1x128", k1x128, k1x128, false, kBlockContractionVaries};
  EXPECT_TRUE(contains(expect_case_matches_reference(wgrad), "1x128 x 1x128 block scales"));
}

// Autocast quantizes again before every GEMM, with new tensorwise scales (here the left ones
// 1024 times larger): the kernel must read them when it runs, not when it was planned.
TEST(CutlassGroupedGemm, TensorwiseReadsTheScalesWhenItRuns) {
  REQUIRE_CUTLASS_ON_SM90();
  const Case c{"requantized", kE5m2Tensorwise, kE4m3Tensorwise, false, kRowsVary};
  const Stream stream;
  Groups groups(c, stream.stream);
  const std::vector<std::unique_ptr<GroupedGemm>> gemms =
      make_cutlass_grouped_gemms(groups.problems(), stream.stream);
  for (const std::unique_ptr<GroupedGemm>& gemm : gemms)
    groups.expect_match(*gemm, stream.stream);
  groups.quantize(1024.0f, stream.stream);
  for (const std::unique_ptr<GroupedGemm>& gemm : gemms)
    groups.expect_match(*gemm, stream.stream);
}

// ---- Refusals: need CUTLASS, not a GPU ------------------------------------------------------

// Pointers that are never dereferenced (16-byte aligned, as TMA wants): the checks come first.
const void* fake_data() {
  return reinterpret_cast<const void*>(uintptr_t{0x1000});
}

GemmOperand fake_operand(int64_t rows, int64_t k, Quantization quantization) {
  GemmOperand operand;
  operand.tensor.data = fake_data();
  operand.tensor.format = quantization.format;
  operand.tensor.rows = rows;
  operand.tensor.cols = k;
  operand.tensor.scale = fake_data();
  operand.tensor.scale_layout = quantization.layout;
  return operand;
}

GemmProblem fake_problem(const Shape& s, Quantization left, Quantization right) {
  return {fake_operand(s.p, s.k, left), fake_operand(s.q, s.k, right),
          reinterpret_cast<__nv_bfloat16*>(uintptr_t{0x2000}), false};
}

std::vector<GemmProblem> fake_groups(const std::vector<Shape>& shapes, Quantization left,
                                     Quantization right) {
  std::vector<GemmProblem> groups;
  for (const Shape& s : shapes)
    groups.push_back(fake_problem(s, left, right));
  return groups;
}

template <typename Exception>
std::string refusal(const std::vector<GemmProblem>& groups) {
  return testing::thrown_message<Exception>([&] { make_cutlass_grouped_gemms(groups, nullptr); });
}

#define REQUIRE_CUTLASS_BUILD()             \
  do {                                      \
    if (!GEMMSCOPE_WITH_CUTLASS)            \
      GTEST_SKIP() << kBuiltWithoutCutlass; \
  } while (0)

TEST(CutlassGroupedGemm, RefusesWhatItDoesNotInstantiate) {
  REQUIRE_CUTLASS_BUILD();
  const Quantization bf16{ElementFormat::kBF16, ScaleLayout::kNone};
  std::vector<GemmProblem> not_fp8 = fake_groups(kRowsVary, bf16, bf16);
  for (GemmProblem& g : not_fp8)
    g.left.tensor.scale = g.right.tensor.scale = nullptr;
  EXPECT_TRUE(contains(refusal<Unsupported>(not_fp8), "runs FP8 (E4M3, E5M2) operands only"));

  std::vector<GemmProblem> not_tn = fake_groups(kRowsVary, kE4m3Tensorwise, kE4m3Tensorwise);
  for (GemmProblem& g : not_tn) {
    g.right.k_major = false;
    std::swap(g.right.tensor.rows, g.right.tensor.cols);
  }
  EXPECT_TRUE(contains(refusal<Unsupported>(not_tn), "the right operand is not")) << "NN";

  const std::string e4m3_by_e5m2 =
      refusal<Unsupported>(fake_groups(kRowsVary, kE4m3Tensorwise, kE5m2Tensorwise));
  EXPECT_TRUE(contains(e4m3_by_e5m2, "these are E4M3 x E5M2")) << e4m3_by_e5m2;

  const std::string mixed_scales =
      refusal<Unsupported>(fake_groups(kBlockRowsVary, k128x128, k1x128));
  EXPECT_TRUE(contains(mixed_scales, "takes tensorwise scales on both operands")) << mixed_scales;

  std::vector<GemmProblem> fast_blocks = fake_groups(kBlockRowsVary, k1x128, k128x128);
  for (GemmProblem& g : fast_blocks)
    g.fast_accumulation = true;
  EXPECT_TRUE(contains(refusal<Unsupported>(fast_blocks), "fast accumulation"));
}

TEST(CutlassGroupedGemm, RefusesShapesTmaCannotTake) {
  REQUIRE_CUTLASS_BUILD();
  const std::string bad_k = refusal<Unsupported>(
      fake_groups({{136, 16, 200}, {136, 40, 200}}, kE5m2Tensorwise, kE4m3Tensorwise));
  EXPECT_TRUE(contains(bad_k, "group 1 (136x40x200): K must be a multiple of 16")) << bad_k;
  const std::string bad_q = refusal<Unsupported>(
      fake_groups({{17, 272, 204}, {33, 272, 204}}, kE4m3Tensorwise, kE4m3Tensorwise));
  EXPECT_TRUE(contains(bad_q, "group 0 (17x272x204): Q must be a multiple of 8")) << bad_q;
}

// Where our (cuBLASLt's) block-scale layouts differ from those CUTLASS derives, the group is
// refused with the reason, never relaid out.
TEST(CutlassGroupedGemm, RefusesBlockScaleLayoutsThatDiffer) {
  REQUIRE_CUTLASS_BUILD();
  const std::string rows =
      refusal<Unsupported>(fake_groups({{128, 512, 256}, {130, 512, 256}}, k1x128, k128x128));
  EXPECT_TRUE(contains(rows,
                       "group 1 (130x512x256): the left operand's 1x128 scales step "
                       "roundup(P, 4) = 132"))
      << rows;
  const std::string weights =
      refusal<Unsupported>(fake_groups({{128, 768, 256}}, k1x128, k128x128));
  EXPECT_TRUE(contains(weights,
                       "group 0 (128x768x256): the right operand's 128x128 scales pad "
                       "each row of 6 K blocks to 8"))
      << weights;
  // A single K block still leaves the weights' padding between 128-row blocks.
  const std::string one_k_block =
      refusal<Unsupported>(fake_groups({{128, 128, 256}}, k1x128, k128x128));
  EXPECT_TRUE(contains(one_k_block, "pad each row of 1 K blocks to 4")) << one_k_block;
  // One 128-row block of weights (no step over their padded K blocks); a single K block of the
  // left operand (no step over its padded rows). These pass the layout checks and go on to the
  // GPU (or fail for the lack of one).
  for (const Shape& fits : {Shape{128, 768, 128}, Shape{130, 128, 128}}) {
    std::string message;
    try {
      make_cutlass_grouped_gemms(fake_groups({fits}, k1x128, k128x128), nullptr);
    } catch (const std::exception& e) {
      message = e.what();
    }
    EXPECT_FALSE(contains(message, " operand's ")) << message;
  }
  const std::string wgrad =
      refusal<Unsupported>(fake_groups({{130, 256, 200}, {130, 384, 200}}, k1x128, k1x128));
  EXPECT_TRUE(contains(wgrad, "group 0 (130x256x200): the left operand's 1x128 scales")) << wgrad;
}

TEST(CutlassGroupedGemm, RefusesGroupsThatAreNotOneLayer) {
  REQUIRE_CUTLASS_BUILD();
  std::vector<GemmProblem> groups = fake_groups(kRowsVary, kE4m3Tensorwise, kE4m3Tensorwise);
  groups[2].left.tensor.format = ElementFormat::kE5M2;
  EXPECT_TRUE(contains(refusal<std::invalid_argument>(groups), "CUTLASS grouped GEMM: group 2"));
  EXPECT_TRUE(contains(refusal<std::invalid_argument>({}), "at least one group"));
}

// Its sm_90a kernels run on compute capability 9.0 only; elsewhere it refuses, naming the GPU.
TEST(CutlassGroupedGemm, RefusesGpusOtherThanSm90) {
  REQUIRE_CUTLASS_BUILD();
  GEMMSCOPE_REQUIRE_GPU();
  if (cutlass_unavailable_reason().empty())
    GTEST_SKIP() << "this GPU is compute capability 9.0, where the kernels run";
  const std::string message =
      refusal<Unsupported>(fake_groups(kRowsVary, kE4m3Tensorwise, kE4m3Tensorwise));
  EXPECT_TRUE(contains(message, "runs on compute capability 9.0 only; this GPU is ")) << message;
}

TEST(CutlassGroupedGemm, WithoutCutlassSaysHowToGetIt) {
  if (GEMMSCOPE_WITH_CUTLASS)
    GTEST_SKIP() << "this build has CUTLASS";
  const std::string message =
      refusal<Unsupported>(fake_groups(kRowsVary, kE4m3Tensorwise, kE4m3Tensorwise));
  EXPECT_TRUE(contains(message, "built without CUTLASS")) << message;
  EXPECT_TRUE(contains(message, "pip install nvidia-cutlass")) << message;
  EXPECT_TRUE(contains(message, "-DGEMMSCOPE_CUTLASS_DIR=")) << message;
}

}  // namespace
}  // namespace gemmscope
