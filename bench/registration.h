#pragma once
// Registers the cases of a run, in this order, each named as the README's "Reading a case" fixes:
//   for each recipe: its GEMM cases, mode by mode, in the workload's GEMM order
//     ({Precision}/{Pass}/{op}/{mode}/M:/K:/N:, grouped ones with /G: before M:);
//   then for each recipe that quantizes: its quantization cases
//     ({Precision}/Quantize/{operand}/{layout}/R:/C:), the layouts it lists
//     (Recipe::lists_quantization).
// The GEMM cases come first and together so that the GPU stays at its power cap, and as warm
// as a training step keeps it, from the first GEMM group to the last (bench/timing/gpu_warmup.h):
// the quantization groups draw less power and let it cool. So --benchmark_filter=BF16/Wgrad selects
// exactly the BF16 Wgrad cases. Registration touches no GPU: listing works anywhere.

#include <memory>
#include <vector>

#include "bench/bench_session.h"
#include "bench/recipes/recipe.h"
#include "shapes/workload.h"

namespace gemmscope {

// Returns how many cases were registered: with shard_count > 1, only the cases of the groups
// (CaseDefinition::group) whose 0-based position among the groups, in that order, is
// shard_index modulo shard_count. `recipes` and `session` must
// outlive the run.
int register_cases(const Workload& workload, const std::vector<std::unique_ptr<Recipe>>& recipes,
                   BenchSession& session, int shard_index = 0, int shard_count = 1);

}  // namespace gemmscope
