#include "tools/report/csv_format.h"

#include <gtest/gtest.h>

#include "report_fixtures.h"

namespace gemmscope::report {
namespace {

using testing::report_of;

TEST(CsvFormat, ShapesRunExactly) {
  EXPECT_EQ(format_csv(report_of({"shapes_gb18_ns.json"})),
            R"csv(mode,quantity,pass,op,M,K,N,precision,value,note
autocast,gemm_ms,Fprop,gemm0,4096,4096,4096,BF16,0.25,
autocast,gemm_ms,Fprop,gemm0,4096,4096,4096,FP8Current,0.15625,
autocast,gemm_ms,Fprop,gemm0,4096,4096,4096,MXFP8,1,emulated
autocast,gemm_tflops,Fprop,gemm0,4096,4096,4096,BF16,549.755813888,
autocast,gemm_tflops,Fprop,gemm0,4096,4096,4096,FP8Current,879.6093022208,
autocast,gemm_tflops,Fprop,gemm0,4096,4096,4096,MXFP8,137.438953472,emulated
autocast,gemm_speedup_vs_bf16,Fprop,gemm0,4096,4096,4096,BF16,1,
autocast,gemm_speedup_vs_bf16,Fprop,gemm0,4096,4096,4096,FP8Current,1.6,
autocast,gemm_speedup_vs_bf16,Fprop,gemm0,4096,4096,4096,MXFP8,,"emulated GEMM, left out of speedups (--include-emulated compares it)"
autocast,gemm_ms,Fprop,gemm1,2048,8192,1024,BF16,0.0625,
autocast,gemm_ms,Fprop,gemm1,2048,8192,1024,FP8Current,0.0625,
autocast,gemm_ms,Fprop,gemm1,2048,8192,1024,MXFP8,0.5,emulated
autocast,gemm_tflops,Fprop,gemm1,2048,8192,1024,BF16,549.755813888,
autocast,gemm_tflops,Fprop,gemm1,2048,8192,1024,FP8Current,549.755813888,
autocast,gemm_tflops,Fprop,gemm1,2048,8192,1024,MXFP8,68.719476736,emulated
autocast,gemm_speedup_vs_bf16,Fprop,gemm1,2048,8192,1024,BF16,1,
autocast,gemm_speedup_vs_bf16,Fprop,gemm1,2048,8192,1024,FP8Current,1,
autocast,gemm_speedup_vs_bf16,Fprop,gemm1,2048,8192,1024,MXFP8,,"emulated GEMM, left out of speedups (--include-emulated compares it)"
prequant,gemm_ms,Fprop,gemm0,4096,4096,4096,BF16,0.25,
prequant,gemm_ms,Fprop,gemm0,4096,4096,4096,FP8Current,0.125,
prequant,gemm_tflops,Fprop,gemm0,4096,4096,4096,BF16,549.755813888,
prequant,gemm_tflops,Fprop,gemm0,4096,4096,4096,FP8Current,1099.511627776,
prequant,gemm_speedup_vs_bf16,Fprop,gemm0,4096,4096,4096,BF16,1,
prequant,gemm_speedup_vs_bf16,Fprop,gemm0,4096,4096,4096,FP8Current,2,
prequant,gemm_ms,Fprop,gemm1,2048,8192,1024,BF16,0.0625,
prequant,gemm_ms,Fprop,gemm1,2048,8192,1024,FP8Current,0.03125,
prequant,gemm_tflops,Fprop,gemm1,2048,8192,1024,BF16,549.755813888,
prequant,gemm_tflops,Fprop,gemm1,2048,8192,1024,FP8Current,1099.511627776,
prequant,gemm_speedup_vs_bf16,Fprop,gemm1,2048,8192,1024,BF16,1,
prequant,gemm_speedup_vs_bf16,Fprop,gemm1,2048,8192,1024,FP8Current,2,
)csv");
}

TEST(CsvFormat, ModelRunRowsForOpsTotalsAndNaReasons) {
  const std::string csv = format_csv(report_of({"model_gb18_ms_repetitions.json"}));
  for (const char* row : {
           "autocast,op_ms,Dgrad,mlp_up,2048,4096,1024,BF16,2.25,\n",
           "autocast,op_ms,Dgrad,mlp_up,2048,4096,1024,FP8Block,,skipped: no cuBLASLt algorithm "
           "for this 1x128 layout\n",
           "autocast,op_ms,Fprop,qkv,2048,1024,3072,NVFP4,,failed: cuBLASLt: VEC16_UE4M3 scales "
           "need sm_100 or newer (CUBLAS_STATUS_NOT_SUPPORTED)\n",
           "autocast,pass_ms,Fprop,,,,,FP8Block,4.5,\n",
           "autocast,pass_ms,Dgrad,,,,,FP8Block,,total left out: a case it adds up is n/a\n",
           "autocast,pass_ms,Fprop + Dgrad,,,,,BF16,12.5,\n",
           "autocast,layer_ms,,,,,,BF16,19,\n",
           "autocast,model_ms,,,,,,BF16,76,\n",
           "autocast,speedup_vs_bf16,,,,,,BF16,1,\n",
           "prequant,op_ms,Wgrad,mlp_down,4096,2048,1024,FP8Block,,missing from the input\n",
           "prequant,pass_ms,Dgrad,,,,,FP8Block,3.25,\n",
       }) {
    EXPECT_NE(csv.find(row), std::string::npos) << row;
  }
  // Per mode and column: 12 op rows, 4 pass rows, layer, model, speedup; autocast has 3
  // columns, prequant 2; plus the header.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 19 * 3 + 19 * 2);
}

}  // namespace
}  // namespace gemmscope::report
