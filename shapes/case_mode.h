#pragma once
// A case's timing mode and its token in case names ({precision}/{Pass}/{op}/{mode}/...). Here,
// beside Pass, because gemm_bench writes these tokens and gemm_report (plain C++) reads them:
// one vocabulary for both.

namespace gemmscope {

enum class Mode {
  kNative,    // BF16: nothing to quantize; the baseline of every other mode
  kStep,      // what a training step pays: each tensor quantized once a step, where first read
  kAutocast,  // TransformerEngine's benchmark rule: each GEMM quantizes both of its inputs
  kPrequant,  // inputs quantized once, outside timing: the GEMM alone
};

// "native", "step", "autocast", "prequant": the token used in case names.
const char* mode_name(Mode mode);

}  // namespace gemmscope
