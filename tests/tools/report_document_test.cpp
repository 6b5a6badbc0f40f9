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

autocast: TransformerEngine's benchmark rule, each GEMM quantizing both of its inputs inside the timed region, weights every call; BF16 (native) is the baseline.

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

TEST(TextReport, MoeRunShowsLayersPerOpGroupsAndATotalPerLayerKind) {
  const std::string text = text_of({"moe_deepseek_like_ms.json"});
  EXPECT_NE(
      text.find("Layers:   61 (3 dense, 58 MoE)\n"
                "Tokens:   2048 per step\n"
                "MoE:      routing skewed:1, expert_parallel 2, expert_rank 1, expert_rows 32 "
                "experts (min 192, mean 256.0, max 320 rows)\n"
                "GEMMs:    grouped loop\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("G: the groups of a grouped GEMM, the experts of the timed rank that got "
                      "rows; its M (Fprop, Dgrad) or K (Wgrad) is all the rows routed to them. "
                      "layers: how many of the model's layers hold the op; sum × layers: the "
                      "pass over the whole model.\n"),
            std::string::npos);
  EXPECT_EQ(block_starting(text, "Wgrad (ms)"), R"(Wgrad (ms)
op            MxKxN               layers     BF16  FP8Block
------------  ------------------  ------  -------  --------
q_a           1024x2048x384           61    0.250     0.188
q_b           384x2048x768            61    0.250     0.188
kv_a          1024x2048x160           61    0.125     0.094
kv_b          128x2048x1024           61    0.250     0.188
attn_out      512x2048x1024           61    0.250     0.188
mlp_up        1024x2048x4096           3    1.000     0.750
mlp_down      2048x2048x1024           3    0.500     0.375
shared_up     1024x2048x512           58    0.125     0.094
shared_down   256x2048x1024           58    0.125     0.094
expert_up     G:32 1024x8192x512      58    2.500     1.562
expert_down   G:32 256x8192x1024      58    1.500     0.938
sum × layers                              319.625   210.719
)");
  const std::string kinds = "Per layer kind and model (ms), speedup over BF16 on the model total";
  EXPECT_EQ(block_starting(text, kinds), kinds + R"(
                                    BF16  FP8Block
-------------------------------  -------  --------
Dense layer (attention + MLP)      7.875     5.906
MoE layer (attention + experts)   14.125     9.344
Model Fprop                      261.625   174.469
Model Dgrad                      261.625   174.469
Model Fprop + Dgrad              523.250   348.938
Model Wgrad                      319.625   210.719
Model (3 dense, 58 MoE layers)   842.875   559.656
Speedup vs BF16                    1.00x     1.51x
)");
  const std::string prequant = text.substr(text.find("prequant · NVIDIA H200"));
  EXPECT_EQ(block_starting(prequant, kinds), kinds + R"(
                                    BF16  FP8Block
-------------------------------  -------  --------
Dense layer (attention + MLP)      7.875     3.938
MoE layer (attention + experts)   14.125    n/a[2]
Model Fprop                      261.625    n/a[2]
Model Dgrad                      261.625   130.812
Model Fprop + Dgrad              523.250    n/a[2]
Model Wgrad                      319.625   159.812
Model (3 dense, 58 MoE layers)   842.875    n/a[2]
Speedup vs BF16                    1.00x    n/a[2]
)");
  EXPECT_EQ(text.substr(text.find("Notes\n")), R"(Notes
-----

[1] n/a: skipped: grouped loop: no cuBLASLt algorithm for this 1x128 layout
[2] n/a: total left out: a case it adds up is n/a
)");
}

TEST(TextReport, ImplementationsOtherThanCublasLtAreSaidUnderEachModesTables) {
  const std::string text = text_of({"moe_mixed_implementations_ms.json"});
  EXPECT_NE(
      text.find("MoE:      routing skewed:1, expert_parallel 2, expert_rank 1, expert_rows 32 "
                "experts (min 192, mean 256.0, max 320 rows)\n"
                "GEMMs:    provider auto, grouped auto, CUTLASS 4.2.1\n"
                "Timing:   "),
      std::string::npos)
      << text;
  // Right after each mode's last table, before the next mode.
  EXPECT_NE(text.find("Speedup vs BF16                    1.00x     1.51x\n\nImplementations "
                      "(cuBLASLt unless listed): BF16 grouped: cublas 4 of 6 cases (Fprop, Dgrad), "
                      "loop 2 (Wgrad); FP8Block dense: cutlass 19 of 27 cases, cublaslt 8 (Wgrad); "
                      "FP8Block grouped: cutlass 6 cases.\n\nprequant · "),
            std::string::npos);
  EXPECT_NE(text.find("Speedup vs BF16                    1.00x    n/a[2]\n\nImplementations "
                      "(cuBLASLt unless listed): BF16 grouped: cublas 4 of 6 cases (Fprop, Dgrad), "
                      "loop 2 (Wgrad); FP8Block grouped: loop 5 cases.\n\nNotes\n"),
            std::string::npos);
  const std::string markdown =
      render_markdown(build_document(report_of({"moe_mixed_implementations_ms.json"})));
  EXPECT_NE(markdown.find("- GEMMs: provider auto, grouped auto, CUTLASS 4.2.1\n"),
            std::string::npos);
  EXPECT_NE(markdown.find("\n\nImplementations (cuBLASLt unless listed): BF16 grouped: cublas 4 "
                          "of 6 cases (Fprop, Dgrad), loop 2 (Wgrad); FP8Block dense: "),
            std::string::npos)
      << markdown;
}

// Where a step table has torchao's rowwise recipes, the report says their step is autocast's
// casts; a step without them says nothing more.
TEST(TextReport, AStepWithTorchaosRowwiseRecipesSaysWhereTheyCast) {
  const std::string note =
      "FP8Rowwise is torchao's rowwise recipe, whose Float8Linear saves no FP8 copy: each GEMM "
      "casts its operands from BF16, every microbatch, as in autocast.";
  const std::string text = text_of({"h200_te_tutorial_rowwise_step.json"});
  EXPECT_NE(text.find("baseline.\n\n" + note + "\n"), std::string::npos) << text;
  EXPECT_EQ(text_of({"h200_te_tutorial_step_sweep.json"}).find("torchao"), std::string::npos);
}

TEST(TextReport, OlderRunsSayNothingAboutImplementations) {
  // No labels, labels from before the choice of provider ("algo ..."), emulated labels.
  for (const char* file :
       {"model_gb17_ns.json", "model_gb18_ms_repetitions.json", "model_no_baseline_us.json",
        "shapes_gb18_ns.json", "h200_te_tutorial_sweep.json"}) {
    const std::string text = text_of({file});
    EXPECT_EQ(text.find("Implementations"), std::string::npos) << file;
    EXPECT_EQ(text.find("GEMMs:"), std::string::npos) << file;
  }
}

TEST(TextReport, AMoeModelWhoseOpsShareOneCountReadsLikeADenseOne) {
  std::string entries;
  for (const char* op : {"qkv", "attn_out", "expert_up/native/G:8", "expert_down/native/G:8"}) {
    const std::string token = op;
    entries += std::string(entries.empty() ? "" : ",") + R"({"name": "BF16/Fprop/)" + token +
               (token.find('/') == std::string::npos ? "/native" : "") +
               R"(/M:64/K:32/N:16", "real_time": 0.5, "time_unit": "ms"})";
  }
  const BenchmarkFile file = parse_benchmark_json(
      R"({"context": {"num_hidden_layers": "32", "expert_rows": "8,0,x",
          "op_layers": "qkv=32 attn_out=32 expert_up=32 expert_down=32"}, "benchmarks": [)" +
          entries + "]}",
      "mixtral.json");
  const std::string text = render_text(build_document(build_report(merge_files({file}), {})));
  EXPECT_NE(text.find("Layers:   32\n"), std::string::npos);
  EXPECT_NE(text.find("MoE:      expert_rows unreadable (not a comma-separated list of row "
                      "counts)\n"),
            std::string::npos);
  EXPECT_EQ(block_starting(text, "Fprop (ms)"), R"(Fprop (ms)
op           MxKxN          BF16
-----------  ------------  -----
qkv          64x32x16      0.500
attn_out     64x32x16      0.500
expert_up    G:8 64x32x16  0.500
expert_down  G:8 64x32x16  0.500
sum                        2.000
)");
  EXPECT_NE(text.find("Per layer and model (ms), speedup over BF16 on the per-layer total\n"),
            std::string::npos);
  EXPECT_NE(text.find("Model (32 layers)"), std::string::npos);
}

TEST(TextReport, MalformedOpLayersIsNamedWhereTheModelTotalWouldBe) {
  BenchmarkFile file = load_benchmark_file(testing::fixture_path("model_gb17_ns.json"));
  file.path = "model_gb17_ns.json";
  file.context["op_layers"] = "qkv=4 attn_out=4 mlp_up=4 mlp_down=4 mlp_down=4";
  const std::string text = render_text(build_document(build_report(merge_files({file}), {})));
  EXPECT_NE(text.find("Layers:   4; layers per op unknown (op_layers 'qkv=4 attn_out=4 mlp_up=4 "
                      "mlp_down=4 mlp_down=4' is malformed: op mlp_down is listed twice)\n"),
            std::string::npos);
  EXPECT_NE(text.find("Per layer        19.000      11.875      14.250  23.750*\n"
                      "Model            n/a[1]      n/a[1]      n/a[1]   n/a[1]\n"
                      "Speedup vs BF16   1.00x       1.60x       1.33x   n/a[2]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[1] n/a: op_layers 'qkv=4 attn_out=4 mlp_up=4 mlp_down=4 mlp_down=4' is "
                      "malformed: op mlp_down is listed twice\n"),
            std::string::npos);
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
