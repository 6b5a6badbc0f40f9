#include "tools/report/report_document.h"

#include <gtest/gtest.h>

#include "report_fixtures.h"

namespace gemmscope::report {
namespace {

using testing::report_of;

std::string text_of(const std::vector<std::string>& files, bool include_emulated = false) {
  return render_text(build_document(report_of(files, include_emulated)));
}

// The block of `text` from the line that starts with `first_line` to the next empty line.
std::string block_starting(const std::string& text, const std::string& first_line) {
  const size_t start = text.find(first_line + "\n");
  if (start == std::string::npos)
    return "(no block starts with '" + first_line + "')";
  const size_t end = text.find("\n\n", start);
  return text.substr(start, end == std::string::npos ? std::string::npos : end + 1 - start);
}

TEST(TextReport, OlderFileWithoutBaselineOrLayerCountReadsExactly) {
  EXPECT_EQ(text_of({"model_no_baseline_us.json"}),
            R"(GEMM report: unknown · test-tiny · 2048 tokens
==============================================

Device:   unknown
Software: driver unknown, CUDA runtime unknown, cuBLASLt unknown
Model:    test-tiny
Layers:   unknown (num_hidden_layers is not in the JSON context)
Tokens:   2048 per step
Timing:   L2 flush unknown, autotune unknown
Input:    model_no_baseline_us.json: 12 GEMM cases

autocast · unknown · test-tiny · 2048 tokens
--------------------------------------------

autocast: quantizing each GEMM's inputs is inside the timed region; BF16 (native) is the baseline.

Fprop (ms)
op        MxKxN           FP8Current
--------  --------------  ----------
qkv       2048x1024x3072       0.938
attn_out  2048x1024x1024       0.312
mlp_up    2048x1024x4096       1.250
mlp_down  2048x4096x1024       1.250
sum                            3.750

Dgrad (ms)
op        MxKxN           FP8Current
--------  --------------  ----------
qkv       2048x3072x1024       0.938
attn_out  2048x1024x1024       0.312
mlp_up    2048x4096x1024       1.406
mlp_down  2048x1024x4096       1.406
sum                            4.062

Wgrad (ms)
op        MxKxN           FP8Current
--------  --------------  ----------
qkv       1024x2048x3072       1.094
attn_out  1024x2048x1024       0.312
mlp_up    1024x2048x4096       1.250
mlp_down  4096x2048x1024       1.406
sum                            4.062

Per layer and model (ms), speedup over BF16 on the per-layer total
                 FP8Current
---------------  ----------
Fprop                 3.750
Dgrad                 4.062
Fprop + Dgrad         7.812
Wgrad                 4.062
Per layer            11.875
Model                n/a[1]
Speedup vs BF16      n/a[2]

Notes
-----

[1] n/a: num_hidden_layers is not in the JSON context
[2] n/a: no BF16 baseline in the input
)");
}

TEST(TextReport, CompleteRunPerLayerTablesAndEmulatedMarks) {
  const std::string text = text_of({"model_gb17_ns.json"});
  EXPECT_NE(text.find("Device:   NVIDIA H200 (compute capability 9.0, 132 SMs, SM clock 1980 MHz, "
                      "memory clock 3201 MHz)\n"
                      "Software: driver 13.0, CUDA runtime 13.0, cuBLASLt 13.1.0\n"),
            std::string::npos);
  EXPECT_NE(text.find("Input:    model_gb17_ns.json: 72 GEMM cases; 2 quantization cases ignored "
                      "(the report covers GEMMs)\n"),
            std::string::npos);
  EXPECT_NE(text.find("autocast · NVIDIA H200 · test-tiny · 2048 tokens\n"), std::string::npos);
  const std::string per_layer =
      "Per layer and model (ms), speedup over BF16 on the per-layer total";
  EXPECT_EQ(block_starting(text, per_layer), per_layer + R"(
                    BF16  FP8Current  FP8Delayed    MXFP8
----------------  ------  ----------  ----------  -------
Fprop              6.000       3.750       4.500   7.500*
Dgrad              6.500       4.062       4.875   8.125*
Fprop + Dgrad     12.500       7.812       9.375  15.625*
Wgrad              6.500       4.062       4.875   8.125*
Per layer         19.000      11.875      14.250  23.750*
Model (4 layers)  76.000      47.500      57.000  95.000*
Speedup vs BF16    1.00x       1.60x       1.33x   n/a[1]
)");
  const std::string prequant = text.substr(text.find("prequant · NVIDIA H200"));
  EXPECT_EQ(block_starting(prequant, "Wgrad (ms)"), R"(Wgrad (ms)
op        MxKxN            BF16  FP8Current   MXFP8
--------  --------------  -----  ----------  ------
qkv       1024x2048x3072  1.750       0.875  1.750*
attn_out  1024x2048x1024  0.500       0.250  0.500*
mlp_up    1024x2048x4096  2.000       1.000  2.000*
mlp_down  4096x2048x1024  2.250       1.125  2.250*
sum                       6.500       3.250  6.500*
)");
  EXPECT_EQ(text.substr(text.find("Notes\n")), R"(Notes
-----

*   includes an emulated GEMM (MXFP8/NVFP4 on a GPU without their tensor cores): not the hardware's speed; left out of speedups
[1] n/a: emulated GEMM, left out of speedups (--include-emulated compares it)
)");
}

TEST(TextReport, IncludeEmulatedShowsMarkedSpeedups) {
  const std::string text = text_of({"model_gb17_ns.json"}, /*include_emulated=*/true);
  EXPECT_NE(text.find("Speedup vs BF16    1.00x       1.60x       1.33x   0.80x*\n"),
            std::string::npos);
  EXPECT_NE(text.find("counted in speedups (--include-emulated)"), std::string::npos);
}

TEST(TextReport, SkippedFailedAndMissingCasesShowNaWithEachReasonOnce) {
  const std::string text = text_of({"model_gb18_ms_repetitions.json"});
  EXPECT_NE(text.find("Software: driver 13.0, CUDA runtime 13.0, cuBLASLt unknown\n"),
            std::string::npos);
  EXPECT_EQ(block_starting(text, "Dgrad (ms)"), R"(Dgrad (ms)
op        MxKxN            BF16  FP8Block   NVFP4
--------  --------------  -----  --------  ------
qkv       2048x3072x1024  1.500     1.125  n/a[1]
attn_out  2048x1024x1024  0.500     0.375  n/a[1]
mlp_up    2048x4096x1024  2.250    n/a[3]  n/a[1]
mlp_down  2048x1024x4096  2.250     1.688  n/a[1]
sum                       6.500    n/a[2]  n/a[2]
)");
  const std::string prequant = text.substr(text.find("prequant · NVIDIA H200"));
  EXPECT_EQ(block_starting(prequant,
                           "Per layer and model (ms), speedup over BF16 on the per-layer total"),
            R"(Per layer and model (ms), speedup over BF16 on the per-layer total
                    BF16  FP8Block
----------------  ------  --------
Fprop              6.000     3.000
Dgrad              6.500     3.250
Fprop + Dgrad     12.500     6.250
Wgrad              6.500    n/a[2]
Per layer         19.000    n/a[2]
Model (4 layers)  76.000    n/a[2]
Speedup vs BF16    1.00x    n/a[2]
)");
  EXPECT_EQ(text.substr(text.find("Notes\n")), R"(Notes
-----

[1] n/a: failed: cuBLASLt: VEC16_UE4M3 scales need sm_100 or newer (CUBLAS_STATUS_NOT_SUPPORTED)
[2] n/a: total left out: a case it adds up is n/a
[3] n/a: skipped: no cuBLASLt algorithm for this 1x128 layout
[4] n/a: missing from the input
)");
}

TEST(TextReport, ShapesRunHasOneRowPerGemm) {
  const std::string text = text_of({"shapes_gb18_ns.json"});
  EXPECT_EQ(text.find("Model:"), std::string::npos) << "a --shapes run has no model";
  EXPECT_NE(text.find("Shapes:   4096x4096x4096,2048x8192x1024\n"), std::string::npos);
  const std::string prequant = text.substr(text.find("prequant · --shapes GEMMs · NVIDIA H200"));
  EXPECT_EQ(block_starting(prequant, "Per GEMM"), R"(Per GEMM
GEMM   pass   MxKxN           BF16 ms  BF16 TFLOP/s  FP8Current ms  FP8Current TFLOP/s  FP8Current speedup
-----  -----  --------------  -------  ------------  -------------  ------------------  ------------------
gemm0  Fprop  4096x4096x4096    0.250         549.8          0.125              1099.5               2.00x
gemm1  Fprop  2048x8192x1024    0.062         549.8          0.031              1099.5               2.00x
)");
}

TEST(MarkdownReport, TablesAreGithubTablesWithMarksEscaped) {
  const std::string markdown = render_markdown(build_document(report_of({"model_gb17_ns.json"})));
  EXPECT_EQ(
      markdown.rfind("## GEMM report: NVIDIA H200 · test-tiny · 2048 tokens\n\n- Device: ", 0), 0u);
  EXPECT_NE(markdown.find(R"(**Per layer and model (ms), speedup over BF16 on the per-layer total**

|  | BF16 | FP8Current | FP8Delayed | MXFP8 |
| --- | ---: | ---: | ---: | ---: |
| Fprop | 6.000 | 3.750 | 4.500 | 7.500\* |
| Dgrad | 6.500 | 4.062 | 4.875 | 8.125\* |
| Fprop + Dgrad | 12.500 | 7.812 | 9.375 | 15.625\* |
| Wgrad | 6.500 | 4.062 | 4.875 | 8.125\* |
| Per layer | 19.000 | 11.875 | 14.250 | 23.750\* |
| Model (4 layers) | 76.000 | 47.500 | 57.000 | 95.000\* |
| Speedup vs BF16 | 1.00x | 1.60x | 1.33x | n/a[1] |
)"),
            std::string::npos);
  EXPECT_NE(markdown.find("### Notes\n\n- \\* includes an emulated GEMM"), std::string::npos);
}

}  // namespace
}  // namespace gemmscope::report
