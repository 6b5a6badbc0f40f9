#include "bench/registration.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "bench/gemm_choice.h"
#include "bench/quantize_case.h"

namespace gemmscope {
namespace {

// Registers the case with Google Benchmark unless --shard leaves it to another process.
// Shards take whole groups (the cases timed together, bench/timing/steady_state_run.h), every N-th
// group in registration order: a case is then timed in the same mix of work as in an unsharded
// run, and the partition is the same on every run with the same flags.
class Registrar {
 public:
  Registrar(BenchSession& session, int shard_index, int shard_count)
      : session_(session), shard_index_(shard_index), shard_count_(shard_count) {}

  void add(CaseDefinition definition) {
    const auto group = group_positions_.emplace(definition.group, group_positions_.size()).first;
    if (static_cast<int>(group->second % shard_count_) != shard_index_)
      return;
    const std::string name = definition.name;
    const size_t index = session_.add_case(std::move(definition));
    benchmark::RegisterBenchmark(
        name.c_str(),
        [session = &session_, index](benchmark::State& state) { session->run_case(state, index); })
        ->UseManualTime()
        // Microseconds keep three or four significant digits for 30 us to 3 ms cases in the
        // console and in compare.py's columns.
        ->Unit(benchmark::kMicrosecond);
    ++registered_;
  }
  int registered() const { return registered_; }

 private:
  BenchSession& session_;
  int shard_index_;
  int shard_count_;
  std::map<std::string, size_t> group_positions_;  // in order of first appearance
  int registered_ = 0;
};

}  // namespace

int register_cases(const Workload& workload, const std::vector<std::unique_ptr<Recipe>>& recipes,
                   BenchSession& session, int shard_index, int shard_count) {
  Registrar registrar(session, shard_index, shard_count);
  for (const std::unique_ptr<Recipe>& owned : recipes) {
    const Recipe* recipe = owned.get();
    for (const Mode mode : recipe->modes()) {
      for (const LayerGemm& gemm : workload.gemms) {
        const CaseSpec spec{gemm, mode};
        // A precision's expert GEMMs are a group of their own: their weights are many and
        // large, and the dense cases keep the group they had.
        const std::string group = recipe->name() + (gemm.grouped() ? "/Experts" : "");
        registrar.add({case_name(recipe->name(), spec), group,
                       [recipe](const DeviceInfo& d) { return recipe->unsupported_reason(d); },
                       [recipe, spec](const RecipeContext& context) -> std::unique_ptr<TimedWork> {
                         return recipe->prepare(spec, context);
                       }});
      }
    }
  }
  for (const std::unique_ptr<Recipe>& owned : recipes) {
    const Recipe* recipe = owned.get();
    if (!recipe->quantizes())
      continue;
    // Padded as the recipe's GEMM cases pad the same tensors (QuantizedGemmCase).
    const int64_t alignment =
        std::max(recipe->group_row_alignment(), session.options().grouped.group_row_alignment());
    for (const QuantizeSpec& spec : quantize_specs(workload, alignment)) {
      if (!recipe->lists_quantization(spec.role, spec.copies))
        continue;
      // Quantization runs on any GPU: these cases are never skipped for the GEMM's reasons. A
      // grouped operand's cases are a group of their own, as its GEMM cases are.
      const std::string group =
          recipe->name() + "/Quantize" + (spec.group_rows.empty() ? "" : "/Experts");
      registrar.add({quantize_case_name(recipe->name(), spec), group,
                     [](const DeviceInfo&) { return std::string(); },
                     [recipe, spec](const RecipeContext& context) {
                       return prepare_quantize_case(
                           *recipe, spec,
                           !spec.group_rows.empty() &&
                               stacked_row_scales_wanted(context.grouped, spec.group_rows),
                           context.stream);
                     }});
    }
  }
  return registrar.registered();
}

}  // namespace gemmscope
