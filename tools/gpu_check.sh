#!/usr/bin/env bash
# Builds, tests and times gemmscope on a GPU machine in one go, keeping every log under
# $OUT (default ./gpu-check). Stages run in the order given (default: all of them):
#   build    configure and build (Release; CUDA arch from $CUDA_ARCH, default 90)
#   test     ctest: host tests and the GPU tests
#   verify   every case of the default config once, with --verify (rel_err, recipe_err)
#   sweep    the README's main job: the default sweep and its report (sweep.json)
#   spread   BF16 cases with --benchmark_repetitions=5 (cv = spread between repetitions)
#   ncu      Nsight Compute on one case's NVTX range: which kernels the range holds
# Usage: tools/gpu_check.sh [stage...]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-check}
mkdir -p "$out"
# The GPU machine keeps cmake and ninja in its Python environment.
[ -d /opt/torch/.venv/bin ] && export PATH=$PATH:/opt/torch/.venv/bin
bench=build/bench/gemm_bench
report=build/tools/gemm_report
status=0

run() {  # run NAME COMMAND...: log to $out/NAME.log, remember failures, keep going
  local name=$1
  shift
  echo "=== $name: $*"
  local start=$SECONDS
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "=== $name: exit $rc after $((SECONDS - start)) s"
  [ $rc -eq 0 ] || status=1
  return $rc
}

stage_build() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv | tee "$out/gpu.txt"
  run configure cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" &&
    run build cmake --build build -- -k 0
  tail -5 "$out/build.log"
}

stage_test() {
  run ctest ctest --test-dir build --output-on-failure
  grep -E "tests passed|tests failed|Skipped|Failed|FAILED" "$out/ctest.log" | head -40
}

stage_verify() {
  run verify "$bench" --verify --gpu_warmup=1 --benchmark_min_time=0.05s \
    --benchmark_out="$out/verify.json" --benchmark_out_format=json --benchmark_counters_tabular=true
  cat "$out/verify.log"
}

stage_sweep() {
  run sweep "$bench" --benchmark_out="$out/sweep.json" --benchmark_out_format=json &&
    run report "$report" "$out/sweep.json"
  cat "$out/sweep.log" "$out/report.log"
}

stage_spread() {
  run spread "$bench" --benchmark_filter='^BF16/' --benchmark_repetitions=5 \
    --benchmark_report_aggregates_only=true --benchmark_out="$out/spread.json" \
    --benchmark_out_format=json
  grep -E "_(median|cv) " "$out/spread.log"
}

stage_ncu() {
  local ncu=ncu
  command -v ncu >/dev/null || ncu=$(ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  local name="BF16/Fprop/attn_out/native/M:15872/K:4096/N:4096"
  run ncu "$ncu" --nvtx --nvtx-include "$name/" --metrics gpu__time_duration.sum \
    "$bench" --profile --gpu_warmup=0 --warmup_runs=1 --benchmark_filter="^$name" \
    --benchmark_min_time=3x
  grep -E "^  [A-Za-z_].*\(|==PROF==|==WARNING==|==ERROR==|gpu__time" "$out/ncu.log" | head -40
}

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build test verify sweep spread ncu)
for s in "${stages[@]}"; do
  "stage_$s"
done
exit $status
