#include "bench/registration.h"

#include <benchmark/benchmark.h>

#include "bench/quantize_case.h"

namespace gemmscope {
namespace {

void register_case(CaseDefinition definition, BenchSession& session) {
  const std::string name = definition.name;
  benchmark::RegisterBenchmark(
      name.c_str(), [&session, definition = std::move(definition)](
                        benchmark::State& state) { session.run_case(state, definition); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int register_cases(const Workload& workload, const std::vector<std::unique_ptr<Recipe>>& recipes,
                   BenchSession& session) {
  int registered = 0;
  for (const std::unique_ptr<Recipe>& owned : recipes) {
    const Recipe* recipe = owned.get();
    for (const Mode mode : recipe->modes()) {
      for (const LayerGemm& gemm : workload.gemms) {
        const CaseSpec spec{gemm, mode};
        register_case({case_name(recipe->name(), spec),
                       [recipe](const DeviceInfo& d) { return recipe->unsupported_reason(d); },
                       [recipe, spec](const RecipeContext& context) -> std::unique_ptr<TimedWork> {
                         return recipe->prepare(spec, context);
                       }},
                      session);
        ++registered;
      }
    }
    if (!recipe->quantizes())
      continue;
    for (const QuantizeSpec& spec : quantize_specs(workload)) {
      // Quantization runs on any GPU: these cases are never skipped for the GEMM's reasons.
      register_case({quantize_case_name(recipe->name(), spec),
                     [](const DeviceInfo&) { return std::string(); },
                     [recipe, spec](const RecipeContext& context) {
                       return prepare_quantize_case(*recipe, spec, context.stream);
                     }},
                    session);
      ++registered;
    }
  }
  return registered;
}

}  // namespace gemmscope
