#include "tools/report/csv_format.h"

#include <gtest/gtest.h>

#include "report_fixtures.h"

namespace gemmscope::report {
namespace {

using testing::report_of;

TEST(CsvFormat, ShapesRunExactly) {
  EXPECT_EQ(format_csv(report_of({"shapes_gb18_ns.json"})),
            R"csv(mode,quantity,pass,op,M,K,N,precision,value,note,G,layers,implementation
autocast,gemm_ms,Fprop,gemm0,4096,4096,4096,BF16,0.25,,,,unknown
autocast,gemm_ms,Fprop,gemm0,4096,4096,4096,FP8Current,0.15625,,,,unknown
autocast,gemm_ms,Fprop,gemm0,4096,4096,4096,MXFP8,1,emulated,,,unknown
autocast,gemm_tflops,Fprop,gemm0,4096,4096,4096,BF16,549.755813888,,,,unknown
autocast,gemm_tflops,Fprop,gemm0,4096,4096,4096,FP8Current,879.6093022208,,,,unknown
autocast,gemm_tflops,Fprop,gemm0,4096,4096,4096,MXFP8,137.438953472,emulated,,,unknown
autocast,gemm_speedup_vs_bf16,Fprop,gemm0,4096,4096,4096,BF16,1,,,,unknown
autocast,gemm_speedup_vs_bf16,Fprop,gemm0,4096,4096,4096,FP8Current,1.6,,,,unknown
autocast,gemm_speedup_vs_bf16,Fprop,gemm0,4096,4096,4096,MXFP8,,"emulated GEMM, left out of speedups (--include-emulated compares it)",,,
autocast,gemm_ms,Fprop,gemm1,2048,8192,1024,BF16,0.0625,,,,unknown
autocast,gemm_ms,Fprop,gemm1,2048,8192,1024,FP8Current,0.0625,,,,unknown
autocast,gemm_ms,Fprop,gemm1,2048,8192,1024,MXFP8,0.5,emulated,,,unknown
autocast,gemm_tflops,Fprop,gemm1,2048,8192,1024,BF16,549.755813888,,,,unknown
autocast,gemm_tflops,Fprop,gemm1,2048,8192,1024,FP8Current,549.755813888,,,,unknown
autocast,gemm_tflops,Fprop,gemm1,2048,8192,1024,MXFP8,68.719476736,emulated,,,unknown
autocast,gemm_speedup_vs_bf16,Fprop,gemm1,2048,8192,1024,BF16,1,,,,unknown
autocast,gemm_speedup_vs_bf16,Fprop,gemm1,2048,8192,1024,FP8Current,1,,,,unknown
autocast,gemm_speedup_vs_bf16,Fprop,gemm1,2048,8192,1024,MXFP8,,"emulated GEMM, left out of speedups (--include-emulated compares it)",,,
prequant,gemm_ms,Fprop,gemm0,4096,4096,4096,BF16,0.25,,,,unknown
prequant,gemm_ms,Fprop,gemm0,4096,4096,4096,FP8Current,0.125,,,,unknown
prequant,gemm_tflops,Fprop,gemm0,4096,4096,4096,BF16,549.755813888,,,,unknown
prequant,gemm_tflops,Fprop,gemm0,4096,4096,4096,FP8Current,1099.511627776,,,,unknown
prequant,gemm_speedup_vs_bf16,Fprop,gemm0,4096,4096,4096,BF16,1,,,,unknown
prequant,gemm_speedup_vs_bf16,Fprop,gemm0,4096,4096,4096,FP8Current,2,,,,unknown
prequant,gemm_ms,Fprop,gemm1,2048,8192,1024,BF16,0.0625,,,,unknown
prequant,gemm_ms,Fprop,gemm1,2048,8192,1024,FP8Current,0.03125,,,,unknown
prequant,gemm_tflops,Fprop,gemm1,2048,8192,1024,BF16,549.755813888,,,,unknown
prequant,gemm_tflops,Fprop,gemm1,2048,8192,1024,FP8Current,1099.511627776,,,,unknown
prequant,gemm_speedup_vs_bf16,Fprop,gemm1,2048,8192,1024,BF16,1,,,,unknown
prequant,gemm_speedup_vs_bf16,Fprop,gemm1,2048,8192,1024,FP8Current,2,,,,unknown
)csv");
}

TEST(CsvFormat, ModelRunRowsForOpsTotalsAndNaReasons) {
  const std::string csv = format_csv(report_of({"model_gb18_ms_repetitions.json"}));
  for (const char* row : {
           "autocast,op_ms,Dgrad,mlp_up,2048,4096,1024,BF16,2.25,,,4,unknown\n",
           "autocast,op_ms,Dgrad,mlp_up,2048,4096,1024,FP8Block,,skipped: no cuBLASLt algorithm "
           "for this 1x128 layout,,4,\n",
           "autocast,op_ms,Fprop,qkv,2048,1024,3072,NVFP4,,failed: cuBLASLt: VEC16_UE4M3 scales "
           "need sm_100 or newer (CUBLAS_STATUS_NOT_SUPPORTED),,4,\n",
           "autocast,pass_ms,Fprop,,,,,FP8Block,4.5,,,,unknown\n",
           "autocast,pass_ms,Dgrad,,,,,FP8Block,,total left out: a case it adds up is n/a,,,\n",
           "autocast,pass_ms,Fprop + Dgrad,,,,,BF16,12.5,,,,unknown\n",
           "autocast,layer_ms,,,,,,BF16,19,,,,unknown\n",
           "autocast,model_ms,,,,,,BF16,76,,,,unknown\n",
           "autocast,speedup_vs_bf16,,,,,,BF16,1,,,,unknown\n",
           "autocast,model_pass_ms,Fprop,,,,,BF16,24,,,,unknown\n",
           "autocast,model_pass_ms,Fprop + Dgrad,,,,,BF16,50,,,,unknown\n",
           "prequant,op_ms,Wgrad,mlp_down,4096,2048,1024,FP8Block,,missing from the input,,4,\n",
           "prequant,pass_ms,Dgrad,,,,,FP8Block,3.25,,,,unknown\n",
       }) {
    EXPECT_NE(csv.find(row), std::string::npos) << row;
  }
  // Per mode and column: 12 op rows, 4 pass rows, layer, model, speedup, 4 model pass rows;
  // autocast has 3 columns, prequant 2; plus the header. No per-kind rows: one kind of layer.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 23 * 3 + 23 * 2);
  EXPECT_EQ(csv.find("_layer_ms,"), std::string::npos);
}

TEST(CsvFormat, MoeRunRowsCarryGroupsLayersAndTheKindTotals) {
  const std::string csv = format_csv(report_of({"moe_deepseek_like_ms.json"}));
  for (const char* row : {
           "autocast,op_ms,Wgrad,expert_up,1024,8192,512,FP8Block,1.5625,,32,58,unknown\n",
           "autocast,op_ms,Fprop,mlp_down,2048,2048,1024,BF16,0.5,,,3,unknown\n",
           "autocast,op_ms,Fprop,kv_a,2048,1024,160,BF16,0.125,,,61,unknown\n",
           "autocast,pass_ms,Fprop,,,,,BF16,,the model's layers differ in kind (dense and MoE): "
           "see the total of each kind,,,\n",
           "autocast,layer_ms,,,,,,BF16,,the model's layers differ in kind (dense and MoE): see "
           "the total of each kind,,,\n",
           "autocast,model_ms,,,,,,BF16,842.875,,,,unknown\n",
           "autocast,model_ms,,,,,,FP8Block,559.65625,,,,unknown\n",
           "autocast,model_pass_ms,Wgrad,,,,,BF16,319.625,,,,unknown\n",
           "autocast,dense_layer_ms,,,,,,BF16,7.875,,,3,unknown\n",
           "autocast,moe_layer_ms,,,,,,FP8Block,9.34375,,,58,unknown\n",
           "prequant,op_ms,Fprop,expert_up,8192,1024,512,FP8Block,,skipped: grouped loop: no "
           "cuBLASLt algorithm for this 1x128 layout,32,58,\n",
           "prequant,moe_layer_ms,,,,,,FP8Block,,total left out: a case it adds up is n/a,,58,\n",
       }) {
    EXPECT_NE(csv.find(row), std::string::npos) << row;
  }
  // Per mode and column: 33 op rows, 4 pass rows, layer, model, speedup, 4 model pass rows and
  // 2 kind rows; two columns in each of the two modes; plus the header.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 46 * 4);
}

TEST(CsvFormat, EachValueSaysWhichImplementationsRanIt) {
  const std::string csv = format_csv(report_of({"moe_mixed_implementations_ms.json"}));
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "mode,quantity,pass,op,M,K,N,precision,value,note,G,layers,implementation");
  for (const char* row : {
           "autocast,op_ms,Fprop,q_a,2048,1024,384,BF16,0.25,,,61,cublaslt\n",
           "autocast,op_ms,Fprop,q_a,2048,1024,384,FP8Block,0.1875,,,61,cutlass\n",
           "autocast,op_ms,Wgrad,q_a,1024,2048,384,FP8Block,0.1875,,,61,cublaslt\n",
           "autocast,op_ms,Fprop,expert_up,8192,1024,512,BF16,2,,32,58,cublas\n",
           "autocast,op_ms,Wgrad,expert_up,1024,8192,512,BF16,2.5,,32,58,loop\n",
           "autocast,op_ms,Wgrad,expert_up,1024,8192,512,FP8Block,1.5625,,32,58,cutlass\n",
           // Totals: every implementation they add up; n/a: none.
           "autocast,model_ms,,,,,,BF16,842.875,,,,cublaslt+loop+cublas\n",
           "autocast,dense_layer_ms,,,,,,BF16,7.875,,,3,cublaslt\n",
           "autocast,dense_layer_ms,,,,,,FP8Block,5.90625,,,3,cublaslt+cutlass\n",
           "autocast,speedup_vs_bf16,,,,,,FP8Block,1.5060584063878497,,,,cublaslt+cutlass\n",
           "prequant,op_ms,Fprop,expert_up,8192,1024,512,FP8Block,,skipped: grouped loop: no "
           "cuBLASLt algorithm for this 1x128 layout,32,58,\n",
           "prequant,model_ms,,,,,,FP8Block,,total left out: a case it adds up is n/a,,,\n",
       }) {
    EXPECT_NE(csv.find(row), std::string::npos) << row;
  }
}

}  // namespace
}  // namespace gemmscope::report
