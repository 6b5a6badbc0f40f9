// The grouped GEMMs (kernels/grouped_gemm.h) against the reference GEMM, group by group: odd
// expert row counts, every pass's operand layout, fresh random data and outputs poisoned with
// NaN, so a group computed with the wrong transpose, leading dimension or pointer, or not
// written at all, fails. The token, validation and refusal tests at the end need no GPU.

#include "kernels/gemm_provider.h"

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cublas/grouped_gemm.h"
#include "kernels/cublaslt/loop_grouped_gemm.h"
#include "kernels/deepgemm/grouped_gemm.h"
#include "kernels/device_buffer.h"
#include "kernels/grouped_problems.h"
#include "kernels/random_fill.h"
#include "kernels/reference/error.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"
#include "quant/fp8/operand.h"
#include "quant/fp8/tensorwise.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

// The output is BF16 (8 significant bits); the reference multiplies the operands the GEMM read.
constexpr double kTolerance = 4e-3;

// How a pass stores its operands, and which size the experts' rows are.
struct PassLayout {
  const char* name;
  bool left_k_major;
  bool right_k_major;
  bool rows_contract;  // Wgrad: each expert's rows are K; otherwise they are P
};

constexpr PassLayout kFprop{"Fprop", true, true, false};
constexpr PassLayout kDgrad{"Dgrad", true, false, false};
constexpr PassLayout kWgrad{"Wgrad", false, false, true};
// Hopper's FP8 GEMMs are TN only: Dgrad and Wgrad read transposed copies, so FP8 groups are
// K-major either way, with the rows as P (Fprop, Dgrad) or as K (Wgrad).
constexpr PassLayout kTnRows{"TN, rows as P", true, true, false};
constexpr PassLayout kTnContraction{"TN, rows as K", true, true, true};

// Sizes every group shares: the contraction (or P when the rows contract) and the output width.
constexpr int64_t kShared = 160;  // not a multiple of 128: partial K tiles
constexpr int64_t kWidth = 80;

const std::vector<int64_t> kOddRows = {1, 17, 130, 257};
// FP8 experts' rows are padded to 16 (the contraction of Wgrad must be a multiple of 16,
// quant/fp8/operand.h), as TransformerEngine and Megatron-Core pad them.
const std::vector<int64_t> kPaddedRows = {16, 48, 144, 272};

struct Stream {
  Stream() { CUDA_CHECK(cudaStreamCreate(&stream)); }
  ~Stream() { cudaStreamDestroy(stream); }
  cudaStream_t stream = nullptr;
};

// One operand as stored ([rows, cols], row-major), in BF16 or quantized to FP8 E4M3 with a
// tensorwise current scale.
class StoredOperand {
 public:
  StoredOperand(int64_t rows, int64_t cols, bool k_major, ElementFormat format, uint64_t seed,
                cudaStream_t stream)
      : bf16_(static_cast<size_t>(rows * cols)) {
    fill_normal(bf16_.get(), bf16_.size(), seed, 0.0f, 1.0f, stream);
    operand_.k_major = k_major;
    if (format == ElementFormat::kBF16) {
      operand_.tensor.data = bf16_.get();
      operand_.tensor.rows = rows;
      operand_.tensor.cols = cols;
      return;
    }
    const Fp8OperandLayout layout(rows, cols, format, ScaleLayout::kTensor);
    fp8_ = DeviceBuffer<uint8_t>(static_cast<size_t>(layout.data_bytes()));
    scaling_ = DeviceBuffer<float>(Fp8CurrentScalingState::kBufferFloats);
    const auto state = Fp8CurrentScalingState::in_buffer(scaling_.get());
    quantize_fp8_current(bf16_.get(), rows, cols, format, state, {fp8_.get(), nullptr}, stream);
    operand_.tensor = layout.rowwise(fp8_.get(), state.scale_inv);
  }

  const GemmOperand& operand() const { return operand_; }

 private:
  DeviceBuffer<__nv_bfloat16> bf16_;
  DeviceBuffer<uint8_t> fp8_;
  DeviceBuffer<float> scaling_;
  GemmOperand operand_;
};

// One expert's GEMM: output[P, Q] = left[P, K] · right[K, Q], stored as `layout` says.
class Group {
 public:
  Group(const PassLayout& layout, int64_t rows, ElementFormat format, uint64_t seed,
        cudaStream_t stream)
      : p_(layout.rows_contract ? kShared : rows),
        k_(layout.rows_contract ? rows : kShared),
        left_(layout.left_k_major ? p_ : k_, layout.left_k_major ? k_ : p_, layout.left_k_major,
              format, seed, stream),
        right_(layout.right_k_major ? kWidth : k_, layout.right_k_major ? k_ : kWidth,
               layout.right_k_major, format, seed + 1, stream),
        output_(static_cast<size_t>(p_ * kWidth)) {}

  GemmProblem problem() const { return {left_.operand(), right_.operand(), output_.get(), false}; }

  void poison_output(cudaStream_t stream) const {
    CUDA_CHECK(cudaMemsetAsync(output_.get(), 0xFF, output_.bytes(), stream));  // NaN in BF16
  }

  double error_against_reference(cudaStream_t stream) const {
    return gemmscope::error_against_reference(problem(), output_.get(), stream);
  }

  std::string dims() const {
    return std::to_string(p_) + "x" + std::to_string(k_) + "x" + std::to_string(kWidth);
  }

 private:
  int64_t p_;
  int64_t k_;
  StoredOperand left_;
  StoredOperand right_;
  DeviceBuffer<__nv_bfloat16> output_;
};

using Factory =
    std::function<std::unique_ptr<GroupedGemm>(const std::vector<GemmProblem>&, cudaStream_t)>;

// Builds the groups, plans them, poisons the outputs, runs once and checks every group.
// Returns the implementation's algorithm() for further checks.
std::string expect_groups_match_reference(const Factory& make, const PassLayout& layout,
                                          ElementFormat format, const std::vector<int64_t>& rows) {
  SCOPED_TRACE(layout.name);
  const Stream stream;
  std::vector<std::unique_ptr<Group>> groups;
  std::vector<GemmProblem> problems;
  uint64_t seed = 1000;
  for (int64_t r : rows) {
    groups.push_back(std::make_unique<Group>(layout, r, format, seed, stream.stream));
    problems.push_back(groups.back()->problem());
    seed += 2;
  }
  const std::unique_ptr<GroupedGemm> gemm = make(problems, stream.stream);
  EXPECT_FALSE(gemm->emulated());
  // Poisoned after planning: an autotuning plan may already have written the outputs.
  for (const auto& group : groups)
    group->poison_output(stream.stream);
  gemm->run(stream.stream);
  for (size_t g = 0; g < groups.size(); ++g) {
    EXPECT_LE(groups[g]->error_against_reference(stream.stream), kTolerance)
        << "group " << g << " (" << groups[g]->dims() << ") of " << gemm->algorithm();
  }
  CUDA_CHECK(cudaStreamSynchronize(stream.stream));
  return gemm->algorithm();
}

bool has_fp8_tensor_cores() {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor >= 89;
}

Factory loop_factory(const CublasLtContext& context) {
  return [&context](const std::vector<GemmProblem>& groups, cudaStream_t stream) {
    return make_loop_grouped_gemm(context, groups, AlgorithmChoice::kHeuristic,
                                  /*emulate=*/false, stream);
  };
}

std::unique_ptr<GroupedGemm> make_cublas(const std::vector<GemmProblem>& groups,
                                         cudaStream_t stream) {
  return make_cublas_grouped_gemm(groups, stream);
}

TEST(LoopGroupedGemm, Bf16MatchesReferenceInEveryPassLayout) {
  GEMMSCOPE_REQUIRE_GPU();
  const CublasLtContext context;
  for (const PassLayout& layout : {kFprop, kDgrad, kWgrad})
    expect_groups_match_reference(loop_factory(context), layout, ElementFormat::kBF16, kOddRows);
}

TEST(LoopGroupedGemm, Fp8TensorwiseMatchesReference) {
  GEMMSCOPE_REQUIRE_GPU();
  if (!has_fp8_tensor_cores())
    GTEST_SKIP() << "FP8 GEMMs need compute capability 8.9 or newer";
  const CublasLtContext context;
  expect_groups_match_reference(loop_factory(context), kTnRows, ElementFormat::kE4M3, kPaddedRows);
  expect_groups_match_reference(loop_factory(context), kTnContraction, ElementFormat::kE4M3,
                                kPaddedRows);
}

// The label names each distinct algorithm once with how many groups use it, and the counts add
// up to the groups.
TEST(LoopGroupedGemm, AlgorithmCountsEveryGroupOnce) {
  GEMMSCOPE_REQUIRE_GPU();
  const CublasLtContext context;
  const std::string label =
      expect_groups_match_reference(loop_factory(context), kFprop, ElementFormat::kBF16, kOddRows);
  EXPECT_EQ(label.rfind("loop of 4 cuBLASLt GEMMs (algo ", 0), 0u) << label;
  const std::regex count(" for ([0-9]+)[,)]");
  int total = 0;
  for (auto it = std::sregex_iterator(label.begin(), label.end(), count);
       it != std::sregex_iterator(); ++it) {
    total += std::stoi((*it)[1].str());
  }
  EXPECT_EQ(total, 4) << label;
}

TEST(LoopGroupedGemm, RefusesGroupsOfDifferentLayouts) {
  GEMMSCOPE_REQUIRE_GPU();
  const CublasLtContext context;
  const Stream stream;
  const Group fprop(kFprop, 17, ElementFormat::kBF16, 1, stream.stream);
  const Group dgrad(kDgrad, 17, ElementFormat::kBF16, 3, stream.stream);
  EXPECT_THROW(make_loop_grouped_gemm(context, {fprop.problem(), dgrad.problem()},
                                      AlgorithmChoice::kHeuristic, false, stream.stream),
               std::invalid_argument);
  EXPECT_THROW(
      make_loop_grouped_gemm(context, {}, AlgorithmChoice::kHeuristic, false, stream.stream),
      std::invalid_argument);
}

// A group cuBLASLt cannot run is reported as Unsupported naming the group: FP8 operands that
// are not K-major (Hopper's FP8 GEMMs are TN only; on GPUs that take them, this runs).
TEST(LoopGroupedGemm, UnsupportedNamesTheGroup) {
  GEMMSCOPE_REQUIRE_GPU();
  const CublasLtContext context;
  const Stream stream;
  const Group group(kDgrad, 17, ElementFormat::kE4M3, 1, stream.stream);
  try {
    make_loop_grouped_gemm(context, {group.problem()}, AlgorithmChoice::kHeuristic, false,
                           stream.stream);
    GTEST_SKIP() << "this GPU runs FP8 GEMMs with a non-K-major operand";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("group 0 of 1 (17x160x80)"), std::string::npos)
        << e.what();
  }
}

TEST(CublasGroupedGemm, Bf16MatchesReferenceInEveryPassLayout) {
  GEMMSCOPE_REQUIRE_GPU();
  if (CUBLAS_VERSION < 120500)
    GTEST_SKIP() << "cublasGemmGroupedBatchedEx needs cuBLAS 12.5; this build has "
                 << CUBLAS_VERSION;
  for (const PassLayout& layout : {kFprop, kDgrad, kWgrad})
    expect_groups_match_reference(make_cublas, layout, ElementFormat::kBF16, kOddRows);
}

// Host tests from here on: nothing below touches a GPU.

TEST(GemmProvider, CandidateListsInTheOrderAutoTriesThem) {
  std::vector<std::string> grouped;
  for (const GemmProvider& provider : grouped_providers())
    grouped.push_back(provider.name);
  EXPECT_EQ(grouped, (std::vector<std::string>{"loop", "cublas", "cutlass", "deepgemm"}));
  for (const GemmProvider& provider : grouped_providers()) {
    EXPECT_EQ(provider.group_row_alignment,
              provider.name == std::string("deepgemm") ? kDeepGemmGroupRowAlignment : 1)
        << provider.name;
  }
  std::vector<std::string> dense;
  for (const GemmProvider& provider : dense_providers())
    dense.push_back(provider.name);
  EXPECT_EQ(dense, (std::vector<std::string>{"cublaslt", "cutlass", "deepgemm"}));
  // Only cuBLASLt's path runs the emulated MXFP8/NVFP4 GEMM.
  for (const auto* list : {&grouped_providers(), &dense_providers()}) {
    for (const GemmProvider& provider : *list)
      EXPECT_EQ(provider.emulates,
                provider.name == std::string("loop") || provider.name == std::string("cublaslt"))
          << provider.name;
  }
}

TEST(GemmProvider, FoundByExactNameOnly) {
  for (const GemmProvider& provider : grouped_providers())
    EXPECT_EQ(find_provider(grouped_providers(), provider.name), &provider);
  for (const char* token : {"", "Loop", "cuBLAS", "cutlass ", "loop,cublas", "cublaslt"})
    EXPECT_EQ(find_provider(grouped_providers(), token), nullptr) << "'" << token << "'";
  EXPECT_EQ(find_provider(dense_providers(), "loop"), nullptr);
}

// Problems whose pointers are never dereferenced: the checks run before anything touches them.
const void* fake_data() {
  return reinterpret_cast<const void*>(uintptr_t{0x1000});
}
__nv_bfloat16* fake_output() {
  return reinterpret_cast<__nv_bfloat16*>(uintptr_t{0x2000});
}

GemmProblem fake_problem(const PassLayout& layout, int64_t rows,
                         ElementFormat format = ElementFormat::kBF16) {
  const int64_t p = layout.rows_contract ? kShared : rows;
  const int64_t k = layout.rows_contract ? rows : kShared;
  auto operand = [&](int64_t outer, bool k_major) {
    GemmOperand operand;
    operand.k_major = k_major;
    operand.tensor.data = fake_data();
    operand.tensor.format = format;
    operand.tensor.rows = k_major ? outer : k;
    operand.tensor.cols = k_major ? k : outer;
    if (format != ElementFormat::kBF16) {
      operand.tensor.scale = fake_data();
      operand.tensor.scale_layout = ScaleLayout::kTensor;
    }
    return operand;
  };
  return {operand(p, layout.left_k_major), operand(kWidth, layout.right_k_major), fake_output(),
          false};
}

std::vector<GemmProblem> fake_groups(const PassLayout& layout,
                                     ElementFormat format = ElementFormat::kBF16) {
  std::vector<GemmProblem> groups;
  for (int64_t rows : kOddRows)
    groups.push_back(fake_problem(layout, rows, format));
  return groups;
}

template <typename Exception>
std::string thrown_message(const std::function<void()>& call) {
  try {
    call();
  } catch (const Exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

std::string check_message(const std::vector<GemmProblem>& groups) {
  return thrown_message<std::invalid_argument>([&] { check_grouped_problems(groups, "test"); });
}

TEST(CheckGroupedProblems, AcceptsOneGroupedLayerOfEveryPass) {
  for (const PassLayout& layout : {kFprop, kDgrad, kWgrad, kTnContraction}) {
    EXPECT_NO_THROW(check_grouped_problems(fake_groups(layout), "test")) << layout.name;
    EXPECT_NO_THROW(check_grouped_problems(fake_groups(layout, ElementFormat::kE4M3), "test"))
        << layout.name;
  }
}

TEST(CheckGroupedProblems, RefusesNoGroups) {
  EXPECT_NE(check_message({}).find("test: a grouped GEMM needs at least one group"),
            std::string::npos);
}

TEST(CheckGroupedProblems, RefusesGroupsThatDifferFromGroupZero) {
  const std::vector<GemmProblem> fprop = fake_groups(kFprop);
  auto with_group_2 = [&](const std::function<void(GemmProblem&)>& change) {
    std::vector<GemmProblem> groups = fprop;
    change(groups[2]);
    return check_message(groups);
  };
  const std::vector<std::string> messages = {
      with_group_2([](GemmProblem& g) { g = fake_problem(kFprop, 130, ElementFormat::kE4M3); }),
      with_group_2([](GemmProblem& g) { g.right.tensor.scale_layout = ScaleLayout::kVec128; }),
      with_group_2([](GemmProblem& g) { g = fake_problem(kDgrad, 130); }),
      with_group_2([](GemmProblem& g) { g.fast_accumulation = true; }),
      with_group_2([](GemmProblem& g) { g.right.tensor.rows = kWidth + 16; }),  // another Q
      with_group_2([](GemmProblem& g) { g.output = nullptr; }),
      with_group_2([](GemmProblem& g) { g.left.tensor.data = nullptr; }),
      with_group_2([](GemmProblem& g) { g.left.tensor.cols = kShared + 16; }),  // K != right's
  };
  for (const std::string& message : messages)
    EXPECT_NE(message.find("test: group 2 of 4: "), std::string::npos) << message;
}

TEST(CheckGroupedProblems, RefusesGroupsThatVaryInBothRowsAndContraction) {
  std::vector<GemmProblem> groups = fake_groups(kFprop);
  groups.push_back(fake_problem(kTnContraction, 48));  // P = kShared, K = 48: neither of group 0's
  EXPECT_NE(check_message(groups).find("vary in both rows and contraction"), std::string::npos);
}

TEST(CublasGroupedGemm, RefusesQuantizedOperandsBeforeTouchingTheGpu) {
  const std::string message = thrown_message<Unsupported>(
      [] { make_cublas_grouped_gemm(fake_groups(kFprop, ElementFormat::kE4M3), nullptr); });
  EXPECT_EQ(message.rfind("cuBLAS's grouped batched GEMM takes BF16/FP16/FP32 only; ", 0), 0u)
      << message;
}

TEST(CublasGroupedGemm, RefusesMismatchedGroupsBeforeTouchingTheGpu) {
  std::vector<GemmProblem> groups = fake_groups(kFprop);
  groups.push_back(fake_problem(kDgrad, 17));
  EXPECT_THROW(make_cublas_grouped_gemm(groups, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace gemmscope
