#pragma once
// A grouped GEMM: the G products of one mixture-of-experts linear layer on one rank, one per
// expert. The groups share formats, layouts and the contraction or output widths, and differ
// in how many routed rows each expert got:
//
//   for each group g:  output_g[P_g, Q_g] = alpha_g · left_g[P_g, K_g] · right_g[K_g, Q_g]
//
// each group a GemmProblem (kernels/cublaslt/gemm_plan.h) with its own operands, scales and output.
// Fprop and Dgrad vary P_g (the expert's rows); Wgrad varies K_g (each expert's dW sums over
// its own rows: a K-grouped GEMM). Groups with no rows are left out by the caller.
//
// Several implementations run the same groups, so that their times can be compared on one
// case name (--grouped): a loop of cuBLASLt GEMMs, what a framework without a grouped kernel
// launches; cuBLAS's grouped batched GEMM (BF16); CUTLASS's Hopper grouped GEMM (BF16, FP8).

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cublaslt/context.h"
#include "kernels/cublaslt/gemm_plan.h"

namespace gemmscope {

class GroupedGemm {
 public:
  virtual ~GroupedGemm() = default;
  // Enqueues every group's product; no host synchronisation.
  virtual void run(cudaStream_t stream) const = 0;
  // What ran, for the case's label: "loop of 32 cuBLASLt GEMMs (algo ...)", ...
  virtual std::string algorithm() const = 0;
  // Whether the products are emulated (kernels/cublaslt/emulated_gemm.h) rather than run natively.
  virtual bool emulated() const { return false; }
  // About how many kernels run() launches, rounded up (a benchmark queues them behind a held
  // stream, which takes only so many).
  virtual size_t launches() const = 0;
};

enum class GroupedImplementation {
  kLoop,     // one cuBLASLt GEMM (or emulated GEMM) per group, in order, on one stream
  kCublas,   // cublasGemmGroupedBatchedEx: BF16 only
  kCutlass,  // CUTLASS's sm90 pointer-array grouped GEMM: BF16, FP8 tensorwise and 1x128/128x128
};

// "loop", "cublas", "cutlass": the --grouped tokens.
const char* grouped_implementation_name(GroupedImplementation implementation);
std::optional<GroupedImplementation> parse_grouped_implementation(std::string_view token);

// Every implementation, in the order --grouped=auto tries them.
inline constexpr GroupedImplementation kGroupedImplementations[] = {
    GroupedImplementation::kLoop, GroupedImplementation::kCublas, GroupedImplementation::kCutlass};

// Each factory plans outside any timed region and throws Unsupported (quant/base/unsupported.h)
// with the reason when the implementation cannot run these groups on this GPU or in this
// build; std::invalid_argument for groups that are not one grouped layer
// (check_grouped_problems, kernels/grouped_problems.h).

// `emulate`: run each group through EmulatedGemm (MXFP8/NVFP4 on GPUs without their tensor
// cores) instead of a native GemmPlan. `context` must outlive the returned object.
std::unique_ptr<GroupedGemm> make_loop_grouped_gemm(const CublasLtContext& context,
                                                    const std::vector<GemmProblem>& groups,
                                                    AlgorithmChoice choice, bool emulate,
                                                    cudaStream_t stream);
std::unique_ptr<GroupedGemm> make_cublas_grouped_gemm(const std::vector<GemmProblem>& groups,
                                                      cudaStream_t stream);
// CUTLASS's grouped GEMM comes in several configurations (tile, cluster, schedule): one
// GroupedGemm for each configuration built for these groups' kind that can run them, best
// first by the rule kernels/cutlass/grouped_gemm.cu documents; a caller that can time them
// (--grouped=auto, bench/timing/steady_state_run.h) keeps the fastest. Throws Unsupported,
// naming every configuration's reason, when none can.
std::vector<std::unique_ptr<GroupedGemm>> make_cutlass_grouped_gemms(
    const std::vector<GemmProblem>& groups, cudaStream_t stream);

}  // namespace gemmscope
