#pragma once
// Registers the cases of a run, in this order, each named as DESIGN.md fixes:
//   for each recipe: its GEMM cases, mode by mode, in the workload's GEMM order
//     ({Precision}/{Pass}/{op}/{mode}/M:/K:/N:), then, if it quantizes, its quantization
//     cases ({Precision}/Quantize/{operand}/{layout}/R:/C:).
// So --benchmark_filter=BF16/Wgrad selects exactly the BF16 Wgrad cases. Registration touches
// no GPU: listing works anywhere.

#include <memory>
#include <vector>

#include "bench/bench_session.h"
#include "bench/recipe.h"
#include "shapes/workload.h"

namespace gemmscope {

// Returns how many cases were registered. `recipes` and `session` must outlive the run.
int register_cases(const Workload& workload, const std::vector<std::unique_ptr<Recipe>>& recipes,
                   BenchSession& session);

}  // namespace gemmscope
