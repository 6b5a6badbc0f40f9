#include "tools/report/case_implementation.h"

#include <gtest/gtest.h>

#include "report_fixtures.h"
#include "tools/report/case_results.h"

namespace gemmscope::report {
namespace {

struct LabelCase {
  const char* what;
  const char* label;
  Implementation implementation;
};

TEST(CaseImplementation, EachLabelFormNamesItsImplementation) {
  const LabelCase cases[] = {
      {"a dense cuBLASLt GEMM", "cuBLASLt algo 66 tile 209 stages 35 splitK 1 (heuristic)",
       Implementation::kCublasLt},
      {"a dense cuBLASLt GEMM from before providers",
       "algo 66 tile 20 stages 36 splitK 1 (heuristic)", Implementation::kCublasLt},
      {"the per-expert loop",
       "loop of 32 cuBLASLt GEMMs (algo 66 tile 209 stages 35 splitK 1 (heuristic) for 30, algo 71 "
       "tile 20 stages 36 splitK 1 (heuristic) for 2)",
       Implementation::kLoop},
      {"cuBLAS's grouped GEMM",
       "cuBLAS grouped batched GEMM (cublasGemmGroupedBatchedEx, 32 groups)",
       Implementation::kCublas},
      {"a CUTLASS grouped GEMM",
       "CUTLASS sm90 grouped FP8 (ptr-array, cooperative 128x128x128, cluster 1x2, 1x128 x 128x128 "
       "block scales)",
       Implementation::kCutlass},
      {"a CUTLASS dense GEMM",
       "CUTLASS sm90 FP8 1D2D block scales (cooperative 128x128x128, cluster 1x2, swizzle 1)",
       Implementation::kCutlass},
      {"a DeepGEMM dense GEMM",
       "DeepGEMM sm90 FP8 1x128 x 128x128 block scales (256x128x128, A shared by 2 CTAs, 3 "
       "stages) [kept at 1257.8 us of 10 timed; next: CUTLASS sm90 FP8 1x128 x 128x128 block "
       "scales (cooperative 128x128x128, cluster 1x2, persistent, swizzle 4) 1300.0 us, +3.4%]",
       Implementation::kDeepGemm},
      {"an emulated GEMM: the BF16 GEMM it runs",
       "emulated (dequantize to BF16, then algo 66 tile 209 stages 35 splitK 1 (heuristic))",
       Implementation::kCublasLt},
      {"a loop of emulated GEMMs",
       "loop of 32 cuBLASLt GEMMs (emulated (dequantize to BF16, then algo 66 tile 209 stages 35 "
       "splitK 1 (heuristic)) for 32)",
       Implementation::kLoop},
      // The notes may name other implementations (the runner-up, the refused): the label's start
      // is what ran.
      {"notes naming CUTLASS and cuBLAS",
       "cuBLASLt algo 66 tile 209 stages 35 splitK 1 (heuristic) [kept at 200.0 us of 3 timed; "
       "next: CUTLASS sm90 FP8 1D2D block scales (cooperative 128x128x128, cluster 1x2, swizzle 1) "
       "210.0 us, +5.0%] [refused: cublas: FP8 needs sm_100]",
       Implementation::kCublasLt},
      {"notes naming cuBLASLt",
       "CUTLASS sm90 grouped FP8 (ptr-array, cooperative 128x128x128, cluster 1x2, 1x128 x 1x128 "
       "block scales) [kept at 1250.0 us of 2 timed; next: loop of 32 cuBLASLt GEMMs (algo 66 for "
       "32) 1500.0 us, +20.0%] [clocks: SM 1755 MHz]",
       Implementation::kCutlass},
      {"no label", "", Implementation::kUnknown},
      {"an emulation that does not say its GEMM",
       "emulated block-scaled GEMM (no MXFP8 tensor cores on sm_90)", Implementation::kUnknown},
      {"notes only", "[clocks: SM 1755 MHz] [not settled after 5.0 s]", Implementation::kUnknown},
      {"another tool's words", "cublasLt matmul", Implementation::kUnknown},
      {"a prefix without its word boundary", "algorithm 66", Implementation::kUnknown},
  };
  for (const LabelCase& c : cases)
    EXPECT_EQ(case_implementation(c.label), c.implementation) << c.what << ": " << c.label;
}

TEST(CaseImplementation, NamesAreGemmBenchsFlagValues) {
  EXPECT_EQ(implementation_name(Implementation::kCublasLt), "cublaslt");
  EXPECT_EQ(implementation_name(Implementation::kLoop), "loop");
  EXPECT_EQ(implementation_name(Implementation::kCublas), "cublas");
  EXPECT_EQ(implementation_name(Implementation::kCutlass), "cutlass");
  EXPECT_EQ(implementation_name(Implementation::kDeepGemm), "deepgemm");
  EXPECT_EQ(implementation_name(Implementation::kUnknown), "unknown");
  EXPECT_EQ(implementations_text({}), "");
  EXPECT_EQ(implementations_text(
                {Implementation::kCutlass, Implementation::kCublasLt, Implementation::kLoop}),
            "cublaslt+loop+cutlass");
}

TEST(CaseImplementation, ReadFromEachCasesLabel) {
  const FileCases cases =
      reduce_file(load_benchmark_file(testing::fixture_path("moe_mixed_implementations_ms.json")));
  auto implementation_of = [&](std::string_view key) {
    for (const CaseResult& result : cases.cases) {
      if (result.gemm.key() == key)
        return result.implementation;
    }
    throw std::runtime_error("no case " + std::string(key));
  };
  EXPECT_EQ(implementation_of("BF16/Fprop/q_a/native"), Implementation::kCublasLt);
  EXPECT_EQ(implementation_of("BF16/Fprop/expert_up/native"), Implementation::kCublas);
  EXPECT_EQ(implementation_of("BF16/Wgrad/expert_up/native"), Implementation::kLoop);
  EXPECT_EQ(implementation_of("FP8Block/Dgrad/mlp_up/autocast"), Implementation::kCutlass);
  EXPECT_EQ(implementation_of("FP8Block/Wgrad/q_a/autocast"), Implementation::kCublasLt);
  EXPECT_EQ(implementation_of("FP8Block/Wgrad/expert_down/autocast"), Implementation::kCutlass);
  // Skipped before it was labelled.
  EXPECT_EQ(implementation_of("FP8Block/Fprop/expert_up/prequant"), Implementation::kUnknown);
  // An older file without labels.
  for (const CaseResult& result :
       reduce_file(load_benchmark_file(testing::fixture_path("model_gb18_ms_repetitions.json")))
           .cases) {
    EXPECT_EQ(result.implementation, Implementation::kUnknown) << result.gemm.key();
  }
}

}  // namespace
}  // namespace gemmscope::report
