#pragma once
// A case's timing mode and its token in case names ({precision}/{Pass}/{op}/{mode}/...). Here,
// beside Pass, because gemm_bench writes these tokens and gemm_report (plain C++) reads them:
// one vocabulary for both.

namespace gemmscope {

enum class Mode {
  kNative,    // BF16: nothing to quantize; the baseline of both other modes
  kAutocast,  // the quantization of the GEMM's inputs is inside the timed region
  kPrequant,  // inputs quantized once, outside timing: the GEMM alone
};

// "native", "autocast", "prequant": the token used in case names.
const char* mode_name(Mode mode);

}  // namespace gemmscope
