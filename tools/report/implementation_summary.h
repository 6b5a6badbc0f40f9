#pragma once

// The line under a mode's tables that says which implementations ran its GEMMs, for the
// precisions where cuBLASLt did not run all of them:
//   Implementations (cuBLASLt unless listed): FP8Block: cutlass 9 of 12 cases (Fprop, Dgrad),
//   cublaslt 3 (Wgrad); ...
// Counted over each precision column's timed cases (an n/a cell has no time to attribute). In a
// run with grouped (expert) GEMMs those are counted apart from the dense ones, as gemm_bench
// chooses their implementation apart (--grouped; --provider for dense GEMMs). Passes are named
// where an implementation ran in some of the column's passes only.

#include <optional>
#include <string>

#include "tools/report/model_report.h"
#include "tools/report/shapes_report.h"

namespace gemmscope::report {

// nullopt when no case of the mode ran on the loop, cuBLAS or CUTLASS: every run from before the
// choice of implementation, and every run that kept cuBLASLt throughout, reads as it did.
std::optional<std::string> implementation_summary(const ModelModeReport& mode,
                                                  const OpLayers& layers);
std::optional<std::string> implementation_summary(const ShapesModeReport& mode);

}  // namespace gemmscope::report
