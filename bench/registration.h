#pragma once
// Registers one Google Benchmark per (recipe, mode, GEMM of the workload), named by
// case_name(), in that order — so --benchmark_filter=BF16/Wgrad selects exactly the BF16
// Wgrad cases. Registration touches no GPU: listing works anywhere.

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
