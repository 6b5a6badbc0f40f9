#include "bench/registration.h"

#include <benchmark/benchmark.h>

namespace gemmscope {

int register_cases(const Workload& workload, const std::vector<std::unique_ptr<Recipe>>& recipes,
                   BenchSession& session) {
  int registered = 0;
  for (const std::unique_ptr<Recipe>& recipe : recipes) {
    for (const Mode mode : recipe->modes()) {
      for (const LayerGemm& gemm : workload.gemms) {
        const CaseSpec spec{gemm, mode};
        const std::string name = case_name(recipe->name(), spec);
        const Recipe* r = recipe.get();
        benchmark::RegisterBenchmark(name.c_str(),
                                     [&session, r, spec, name](benchmark::State& state) {
                                       session.run_case(state, *r, spec, name);
                                     })
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
        ++registered;
      }
    }
  }
  return registered;
}

}  // namespace gemmscope
