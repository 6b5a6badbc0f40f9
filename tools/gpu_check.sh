#!/usr/bin/env bash
# Builds, tests and times gemmscope on a GPU machine in one go, keeping every log under
# $OUT (default ./gpu-check). Stages run in the order given (default: build test verify emulated
# sweep spread ncu probe sanitize quantncu):
#   build    configure and build (Release; CUDA arch from $CUDA_ARCH, default 90; CUTLASS from
#            $CUTLASS_DIR, default .carry/cutlass; DeepGEMM from $DEEPGEMM_DIR, default
#            .carry/deepgemm; more configure flags in $CMAKE_FLAGS; only the targets
#            $BUILD_TARGETS, space-separated, when set)
#   test     ctest: host tests and the GPU tests (those matching the regex $CTEST_FILTER, if set)
#   verify   every case of the default config once, with --verify (rel_err, recipe_err)
#   emulated MXFP8 and NVFP4 cases with --verify --emulate (exact emulation on pre-Blackwell GPUs)
#   sweep    the default sweep and its report (sweep.json), from the build of stage build
#   readme   the README's main job as written, in a build of its own (build-readme): its build
#            and its sweep and report timed apart
#   readmebuild the README's build alone (with $README_CMAKE_FLAGS, if any, e.g. CUTLASS's dir)
#   spread   BF16 cases with --benchmark_repetitions=5 (cv = spread between repetitions)
#   ncu      Nsight Compute on one case's NVTX range: which kernels the range holds
#   quant    every quantization case alone (GB/s, share of copy bandwidth)
#   faults   a case too big for GPU memory and one FP8 cannot take are skipped, the rest run
#   probe    BF16 Fprop qkv with and without --autotune and the L2 flush
#   sanitize compute-sanitizer (memcheck) over the GPU tests of quant/ and bench/
#   sanitize4 compute-sanitizer's four tools (memcheck with leak check, racecheck, initcheck,
#            synccheck), each over the GPU tests and over gemm_bench on a small model: one case
#            of every precision, pass and mode, every quantization kernel, --emulate --verify
#   cutlass68 CUTLASS's own blockwise grouped GEMM example under racecheck (needs its source tree)
#   quantncu Nsight Compute's speed-of-light view of the slowest quantization kernels
#   gemmncu  the same for the GEMM cases $GEMM_CASES of the workload $GEMM_FLAGS
#   quantab  the quantization cases of the source tree at $BASELINE against this build's
#   repro    two whole default sweeps back to back, then a --verify sweep: per-case differences
#            (GEMM and quantization cases apart) and the per-layer speedups side by side
#   budget   the GEMM cases with a short and with a long sampling budget, compared
#   gpcclock the GPC clock sampler (--gpc_clock): its GPU test, then BF16 and FP8Current GEMM
#            groups with it on and off, alternately, three times each: what it costs
#   peer     tools/torch_peer.py and gemm_bench on the same cases, in the order torch, gemm_bench,
#            gemm_bench, torch: each pair compared (compare.py input), so what the run order
#            does shows apart from what the two sides do
#   peer_moe the BF16 expert (grouped) cases of three MoE workloads through torch._grouped_mm
#            (tools/torch_peer.py) and through gemm_bench, per workload in the order gemm_bench,
#            torch, torch, gemm_bench; each pair compared
#   moe      expert (grouped) GEMMs: the grouped GPU tests; every expert case of two MoE presets
#            with --verify --emulate, balanced and skewed routing, through the loop and through
#            the grouped kernels; DeepSeek-V3's other GEMM cases verified once
#   moeverify every expert case (or those of $VERIFY_FILTER) of each $MOE_MODELS workload with
#            --verify --emulate and the default --grouped, balanced and skewed routing
#   deepverify the same for the FP8Block expert Fprop and Dgrad cases (every mode), with
#            --grouped=auto and --grouped=deepgemm
#   moetime  the expert cases through the loop and through the grouped kernels, alternately,
#            twice each: per-run reports, run-to-run spreads and the differences
#   grouped  the GPU tests of grouped quantization, the CUTLASS GEMMs and the grouped passes
#   moequant the quantization cases of expert operands (every expert of a rank in one case) of
#            each $MOE_MODELS workload: GB/s, share of copy bandwidth, kernels a quantization
#   peer_deepgemm DeepGEMM's own m-grouped FP8 kernel (its JIT release, carried) and gemm_bench on
#            the FP8Block prequant expert Fprop and Dgrad cases of $MOE_MODELS, each pair compared
#            (tools/gpu_check_deepgemm_peer.sh says what it needs)
#   moeauto  the expert GEMM cases (or those of $MOEAUTO_FILTER) of each $MOE_MODELS workload with
#            gemm_bench's defaults (--grouped=auto), the kernels of each case listed, and the
#            report
#   holdcheck each grouped implementation alone on one expert case of each grouped precision of
#            $MOE_MODELS' first workload, briefly: which ones run behind a held stream
#   moemain  gemm_bench --model=M with its defaults, every case, as the README's MoE command runs
#            it, for each M of $MOE_MAIN (';'-separated presets and flags, default
#            qwen3-30b-a3b): its wall time and its report
#   blockverify the FP8Block cases of the default model and of odd shapes with --verify
#   blockdense the dense FP8Block and FP8Current prequant cases of each $DENSE_MODELS workload
#            (default: the default model) with each of $DENSE_PROVIDERS (default: auto cublaslt)
#   stepverify the step cases (every recipe, pass and candidate) of the default model, of odd
#            shapes and of $MOE_MODELS' first workload with --verify --emulate, at
#            --microbatches=$MICROBATCHES (default 8)
#   moestep  the BF16 and FP8 step GEMM cases (or those of $MOESTEP_FILTER) of each $MOE_MODELS
#            workload (default: the README's MoE table's four), at --microbatches=1 and
#            $MICROBATCHES, each run with its BF16 baseline: the per-model speedups (moestep.txt)
#   rowwise  FP8Rowwise's quantizers' GPU tests, --verify over its and FP8RowwiseBF16Wgrad's
#            cases (default model, odd shapes, each $ROWWISE_DENSE workload, the experts of each
#            $ROWWISE_MOE_MODELS workload), every FP8Current and FP8Rowwise quantization case
#            timed (rowwise_quant.txt)
#   rowwisemoe FP8Rowwise's expert prequant cases beside FP8Current's and torch's
#            _scaled_grouped_mm (rowwise_moe.txt)
#   rowwiseverdict the BF16, FP8Current and both rowwise precisions' cases of te-tutorial and
#            Qwen3-30B-A3B in every mode, and their reports (rowwise_verdict_*.txt)
#   rowwisedense FP8Rowwise's dense prequant cases of Llama 3 70B at TP 8 through gemm_bench and
#            torch._scaled_mm, once each (rowwise_dense.txt)
#   trainer  a real trainer's step beside gemm_bench's (tools/trainer_peer.py: BF16 nn.Linear,
#            torchao's Float8Linear compiled (tensorwise, rowwise, rowwise_with_gw_hp) and
#            Float8BlockwiseLinear, from the wheel in .whl when carried): the default sweep (or its
#            cases matching $TRAINER_FILTER), the peer (its $TRAINER_RECIPES), the sweep again
#            (trainer.txt)
#   alone    the cases of each $ALONE_RUNS entry ("FLAGS|FILTER", ';'-separated) timed as the
#            public block-scaled figures were: each case alone in a process of its own after a
#            2 s warm-up; first all of an entry's cases together, as a sweep times them
#            (alone.txt: TFLOP/s of both side by side)
# Usage: tools/gpu_check.sh [stage...]
# GPU_CHECK_BUDGET=S skips the stages that would start after S seconds; GPU_CHECK_TAR=FILE packs
# the logs into FILE after every command and stage; STEP_TIMEOUT=S kills any one command but the
# build's after S seconds (BUILD_TIMEOUT=S bounds the configure and the build).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-gpu-check}
mkdir -p "$out"
# The GPU machine keeps cmake and ninja in its Python environment.
[ -d /opt/torch/.venv/bin ] && export PATH=$PATH:/opt/torch/.venv/bin
bench=build/bench/gemm_bench
# The MoE workloads the MoE stages take by default (';'-separated gemm_bench flags).
default_moe_models="qwen3-30b-a3b;qwen3-30b-a3b --expert_parallel=8;deepseek-v3"
report=build/tools/gemm_report
status=0

# GPU_CHECK_TAR: $out packed after every command and stage, so that a call cut off by its time
# limit in the middle of a long stage still brings back the logs of the commands it finished.
pack() {
  [ -z "${GPU_CHECK_TAR:-}" ] || tar czf "$GPU_CHECK_TAR" -C "$(dirname "$out")" "$(basename "$out")"
}

run() {  # run NAME COMMAND...: log to $out/NAME.log, remember failures, keep going
  local name=$1
  shift
  echo "=== $name: $*"
  local start=$SECONDS
  # STEP_TIMEOUT=S: a command that hangs (a new kernel's deadlock) is killed after S seconds
  ${STEP_TIMEOUT:+timeout "$STEP_TIMEOUT"} "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "=== $name: exit $rc after $((SECONDS - start)) s"
  [ $rc -eq 0 ] || status=1
  pack
  return $rc
}

stage_build() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv | tee "$out/gpu.txt"
  # CUTLASS headers, when carried along (.carry/cutlass/include), build the grouped FP8 kernel.
  local cutlass=${CUTLASS_DIR:-.carry/cutlass} cutlass_flag=()
  [ -d "$cutlass/include/cutlass" ] && cutlass_flag=("-DGEMMSCOPE_CUTLASS_DIR=$(realpath "$cutlass")")
  # DeepGEMM's headers, when carried along (a clone, or its deep_gemm/include, in .carry/deepgemm).
  local deepgemm=${DEEPGEMM_DIR:-.carry/deepgemm} deepgemm_flag=()
  [ -d "$deepgemm" ] && deepgemm_flag=("-DGEMMSCOPE_DEEPGEMM_DIR=$(realpath "$deepgemm")")
  # shellcheck disable=SC2086 # CMAKE_FLAGS: more configure flags, split on spaces
  # The build is bounded by BUILD_TIMEOUT (none by default), not STEP_TIMEOUT: a fresh build takes
  # 110-150 s on the GPU machine, longer than a step limit meant for one hung case.
  STEP_TIMEOUT=${BUILD_TIMEOUT:-} run configure cmake -S . -B build -G Ninja \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" "${cutlass_flag[@]}" "${deepgemm_flag[@]}" \
    ${CMAKE_FLAGS:-} &&
    STEP_TIMEOUT=${BUILD_TIMEOUT:-} run build cmake --build build \
      ${BUILD_TARGETS:+--target $BUILD_TARGETS} -- -k 0
  tail -5 "$out/build.log"
}

stage_test() {
  # With CTEST_PARALLEL_LEVEL, the GPU tests that need the GPU alone (the device-memory leak
  # check, the clock sampler's) can fail beside the others: what failed runs again, alone.
  run ctest ctest --test-dir build --output-on-failure ${CTEST_FILTER:+-R "$CTEST_FILTER"} ||
    { [ -n "${CTEST_PARALLEL_LEVEL:-}" ] &&
      run ctest_rerun env CTEST_PARALLEL_LEVEL=1 ctest --test-dir build --rerun-failed \
        --output-on-failure; }
  grep -E "tests passed|tests failed|Skipped|Failed|FAILED" "$out"/ctest*.log | head -40
}

stage_verify() {
  run verify "$bench" --verify --gpu_warmup=1 --benchmark_min_time=0.05s \
    --benchmark_out="$out/verify.json" --benchmark_out_format=json --benchmark_counters_tabular=true
  cat "$out/verify.log"
}

stage_emulated() {
  run emulated "$bench" --verify --emulate --gpu_warmup=1 --benchmark_min_time=0.05s \
    --benchmark_filter='^(MXFP8|NVFP4)/' --benchmark_out="$out/emulated.json" \
    --benchmark_out_format=json --benchmark_counters_tabular=true
  cat "$out/emulated.log"
}

stage_sweep() {
  run sweep "$bench" --benchmark_out="$out/sweep.json" --benchmark_out_format=json &&
    run report "$report" --svg="$out/sweep.svg" "$out/sweep.json"
  "$report" --format=markdown "$out/sweep.json" >"$out/report.md"
  cat "$out/sweep.log" "$out/report.log"
}

# The README's build as written (its configure picks the architecture), in its own build dir,
# timed; $README_CMAKE_FLAGS go to its configure (e.g. -DGEMMSCOPE_CUTLASS_DIR=DIR: the build
# with CUTLASS).
stage_readmebuild() {
  rm -rf build-readme
  local start=$SECONDS
  # shellcheck disable=SC2016 # $(nproc) is the README's, expanded by the inner shell
  run readme_build bash -c 'cmake -S . -B build-readme '"${README_CMAKE_FLAGS:-}"' &&
    cmake --build build-readme -j $(nproc) --target programs'
  echo "readme build: $((SECONDS - start)) s" | tee "$out/readme.txt"
  grep -E "gemmscope:" "$out/readme_build.log" | tee -a "$out/readme.txt"
}

# The README's main job as written: its build, then its sweep and report, timed apart.
stage_readme() {
  stage_readmebuild
  local start=$SECONDS
  run readme build-readme/bench/gemm_bench --benchmark_out="$out/readme.json" \
    --benchmark_out_format=json &&
    build-readme/tools/gemm_report --svg="$out/readme.svg" "$out/readme.json" >"$out/readme_report.txt"
  echo "readme sweep and report: $((SECONDS - start)) s" | tee -a "$out/readme.txt"
  grep -E "Speedup" "$out/readme_report.txt"
}

stage_faults() {
  run faults "$bench" --shapes=300000x300000x300000,1000x1000x1000,512x512x512 \
    --benchmark_filter='^(BF16|FP8Current)/Fprop/.*/(native|prequant)/' --gpu_warmup=0 \
    --benchmark_min_time=0.05s
  cat "$out/faults.log"
}

stage_spread() {
  run spread "$bench" --benchmark_filter='^BF16/' --benchmark_repetitions=5 \
    --benchmark_report_aggregates_only=true --benchmark_out="$out/spread.json" \
    --benchmark_out_format=json
  grep -E "_(median|cv) " "$out/spread.log"
}

ncu_path() {
  command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1
}

# One case's range, in autocast mode so that it holds quantization kernels and the GEMM.
stage_ncu() {
  local name="FP8Current/Wgrad/attn_out/autocast/M:4096/K:15872/N:4096"
  run ncu "$(ncu_path)" --nvtx --nvtx-include "$name/" --metrics gpu__time_duration.sum \
    "$bench" --profile --gpu_warmup=0 --warmup_runs=1 --benchmark_filter="^$name" \
    --benchmark_min_time=2x
  grep -E "^  [A-Za-z_].*\(|==PROF==|==WARNING==|==ERROR==|gpu__time" "$out/ncu.log" | head -40
}

stage_quant() {
  run quant "$bench" --gpu_warmup=1 --benchmark_filter=/Quantize/ \
    --benchmark_out="$out/quant.json" --benchmark_out_format=json
  grep -E "Quantize" "$out/quant.log" | awk '{print $1, $(NF)}'
}

# A change's effect on the quantization cases: the tree at $BASELINE (say, `git archive` of the
# commit before) is built into build-<its folder name>, and both builds time the cases matching
# $QUANT_FILTER (default every one), alternately, $AB_ROUNDS times (default 2).
stage_quantab() {
  local baseline=${BASELINE:?quantab: set BASELINE to the source tree to compare against}
  local filter=${QUANT_FILTER:-/Quantize/}
  local build_dir
  build_dir="build-$(basename "$baseline")"
  run baseline_configure cmake -S "$baseline" -B "$build_dir" -G Ninja \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" &&
    run baseline_build cmake --build "$build_dir" --target gemm_bench || return
  local round side exe
  for round in $(seq "${AB_ROUNDS:-2}"); do
    for side in baseline this; do
      exe=$bench
      [ "$side" = baseline ] && exe=$build_dir/bench/gemm_bench
      run "quantab_${side}_$round" "$exe" --gpu_warmup=1 --benchmark_filter="$filter" \
        --benchmark_min_time=0.2s --benchmark_out="$out/quantab_${side}_$round.json" \
        --benchmark_out_format=json
    done
  done
  python3 tools/quant_ab.py "$out/quantab_baseline_" "$out/quantab_this_" | tee "$out/quantab.txt"
}

# How reproducible a whole sweep is: the README's main command twice, back to back, then once
# with --verify; tools/run_diff.py compares them case by case and speedup by speedup.
# REPRO_FLAGS: more gemm_bench flags for all three (say, another sampling scheme).
stage_repro() {
  local name
  for name in repro_a repro_b repro_verify; do
    # The timelines (NVML readings and samples) say why, if two runs disagree.
    # shellcheck disable=SC2206 # REPRO_FLAGS is a list of flags
    local flags=(--timeline="$out/$name.csv" ${REPRO_FLAGS:-})
    [ "$name" = repro_verify ] && flags+=(--verify)
    local start=$SECONDS
    run "$name" "$bench" "${flags[@]}" --benchmark_out="$out/$name.json" --benchmark_out_format=json
    echo "$name: $((SECONDS - start)) s" | tee -a "$out/repro.txt"
  done
  {
    echo "--- two plain sweeps"
    python3 tools/run_diff.py "$out/repro_a.json" "$out/repro_b.json" --speedups --report="$report"
    echo "--- plain and --verify"
    python3 tools/run_diff.py "$out/repro_a.json" "$out/repro_verify.json" --speedups \
      --report="$report"
  } | tee -a "$out/repro.txt"
}

# The sampling budget must not change the answer: the GEMM cases sampled briefly and at length.
stage_budget() {
  run budget_short "$bench" --benchmark_filter=-/Quantize/ --max_noise=1 --min_time=0.5 \
    --min_time_capped=2 --benchmark_out="$out/budget_short.json" --benchmark_out_format=json
  run budget_long "$bench" --benchmark_filter=-/Quantize/ --max_noise=0.25 \
    --min_time_capped=8 --max_time=16 --benchmark_out="$out/budget_long.json" \
    --benchmark_out_format=json
  python3 tools/run_diff.py "$out/budget_short.json" "$out/budget_long.json" --speedups \
    --report="$report" | tee "$out/budget.txt"
}

# What --gpc_clock (CUPTI PM sampling) reads and what it costs: its GPU test against the SMs'
# clock64(), then the BF16 and FP8Current GEMM groups with it on and off, three times each,
# alternately; each neighbouring pair compared (on H200 #3 every "off" run was 0.4-1.5% faster).
stage_gpcclock() {
  run gpc_test build/tests/bench/test_bench --gtest_filter='GpcClockSampler.*:SummarizeGpcSamples.*'
  local name previous=""
  : >"$out/gpcclock.txt"
  for name in gpc_on_1 gpc_off_1 gpc_on_2 gpc_off_2 gpc_on_3 gpc_off_3; do
    local flag=--gpc_clock=on
    [[ $name == gpc_off_* ]] && flag=--gpc_clock=off
    run "$name" "$bench" "$flag" '--benchmark_filter=^(BF16|FP8Current)/(Fprop|Dgrad|Wgrad)/' \
      --benchmark_out="$out/$name.json" --benchmark_out_format=json
    if [ -n "$previous" ]; then
      echo "--- $previous against $name" >>"$out/gpcclock.txt"
      python3 tools/run_diff.py "$out/$previous.json" "$out/$name.json" 2>&1 |
        grep -A3 "by group" >>"$out/gpcclock.txt"
    fi
    previous=$name
  done
  cat "$out/gpcclock.txt"
}

# The PyTorch peer beside gemm_bench on the same cases (those of $PEER_FILTER, default the BF16
# native, FP8Current and FP8Block prequant ones) of each $PEER_MODELS workload (';'-separated
# gemm_bench flags, default the default model), in separate processes: torch, gemm_bench,
# gemm_bench, torch. The GPU's state drifts between processes (it warms up; times at the cap move
# by up to about 1% from run to run), so each pair is compared, one with torch first and one with
# gemm_bench first: a difference between the two sides has the same sign in both, one of the
# order has opposite signs.
stage_peer() {
  local python=python3
  [ -x /opt/torch/.venv/bin/python ] && python=/opt/torch/.venv/bin/python
  local filter=${PEER_FILTER:-'^(BF16/.*/native|FP8(Current|Block)/.*/prequant)/'}
  local models model name
  mapfile -t models < <(workloads "${PEER_MODELS:- }")
  : >"$out/peer.txt"
  for model in "${models[@]}"; do
    # The default model's runs keep their old names (peer_torch_1.json, ...).
    local prefix="$out/peer_" flags=() label="the default model"
    if [ -n "${model// /}" ]; then
      prefix="$out/peer_$(moe_tag "$model")_"
      # shellcheck disable=SC2206 # $model is a preset and its flags
      flags=(--model=$model)
      label=$model
    fi
    for name in torch_1 gemmscope_1 gemmscope_2 torch_2; do
      name="$(basename "$prefix")$name"
      if [[ $name == *torch_* ]]; then
        run "$name" "$python" tools/torch_peer.py --gemm_bench="$bench" --list_kernels \
          --filter="$filter" --out="$out/$name.json" -- "${flags[@]}"
      else
        run "$name" "$bench" "${flags[@]}" --benchmark_filter="$filter" --list_kernels \
          --benchmark_out="$out/$name.json" --benchmark_out_format=json
      fi
    done
    {
      echo "=== $label: torch first, then gemm_bench (time: gemm_bench against torch)"
      python3 tools/run_diff.py "${prefix}torch_1.json" "${prefix}gemmscope_1.json"
      echo "=== $label: gemm_bench first, then torch (time: gemm_bench against torch)"
      python3 tools/run_diff.py "${prefix}torch_2.json" "${prefix}gemmscope_2.json"
    } | tee -a "$out/peer.txt"
  done
}

# stage_peer_deepgemm: DeepGEMM's own m-grouped kernel on the FP8Block expert cases, in a file of
# its own (it says what it needs carried).
# shellcheck source=tools/gpu_check_deepgemm_peer.sh
source tools/gpu_check_deepgemm_peer.sh

# The peer on the BF16 expert cases: torch._grouped_mm (one CUTLASS kernel for all of a rank's
# experts) beside gemm_bench's --grouped=$PEER_MOE_GROUPED (default auto, gemm_bench's own
# default) on the same names, for each workload of
# $PEER_MOE_MODELS (';'-separated gemm_bench flags). Per workload: gemm_bench, torch, torch,
# gemm_bench; the first gemm_bench JSON gives the peer gemm_bench's rows per expert
# (--context_from), and each pair is compared, one with gemm_bench first and one with torch first.
# About 30 s a process, so 6 minutes for the three default workloads.
stage_peer_moe() {
  local python=python3
  [ -x /opt/torch/.venv/bin/python ] && python=/opt/torch/.venv/bin/python
  local filter='^BF16/(Fprop|Dgrad|Wgrad)/expert_[a-z]+/native/G:'
  local models model tag name rows
  mapfile -t models < <(workloads \
    "${PEER_MOE_MODELS:-$default_moe_models}")
  : >"$out/peer_moe.txt"
  for model in "${models[@]}"; do
    tag=$(moe_tag "$model")
    rows="$out/peer_moe_${tag}_gemmscope_1.json"
    # PEER_MOE_RUNS: fewer processes (say "gemmscope_1 torch_1") where time is short.
    for name in ${PEER_MOE_RUNS:-gemmscope_1 torch_1 torch_2 gemmscope_2}; do
      name="peer_moe_${tag}_$name"
      # shellcheck disable=SC2086 # $model is a preset and its flags
      if [[ $name == *_torch_* ]]; then
        run "$name" "$python" tools/torch_peer.py --gemm_bench="$bench" --context_from="$rows" \
          --filter="$filter" --list_kernels --out="$out/$name.json" -- --model=$model
      else
        run "$name" "$bench" --model=$model --grouped="${PEER_MOE_GROUPED:-auto}" \
          --benchmark_filter="$filter" --list_kernels --benchmark_out="$out/$name.json" \
          --benchmark_out_format=json
      fi
    done
    {
      echo "=== $model: gemm_bench first, then torch (time: gemm_bench against torch)"
      python3 tools/run_diff.py "$out/peer_moe_${tag}_torch_1.json" "$rows"
      if [ -f "$out/peer_moe_${tag}_gemmscope_2.json" ]; then
        echo "=== $model: torch first, then gemm_bench (time: gemm_bench against torch)"
        python3 tools/run_diff.py "$out/peer_moe_${tag}_torch_2.json" \
          "$out/peer_moe_${tag}_gemmscope_2.json"
      fi
      grep -hE "expert_.*(error|refused)" "$out/peer_moe_${tag}_torch_1.log" | head -6
    } 2>&1 | tee -a "$out/peer_moe.txt"
  done
}

stage_probe() {
  local filter='--benchmark_filter=^BF16/Fprop/qkv/'
  nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
    --format=csv -lms 500 >"$out/probe_smi.csv" 2>&1 &
  local smi=$!
  for flags in "" "--autotune" "--l2_flush=false" "--autotune --l2_flush=false"; do
    echo "--- flags: ${flags:-(defaults)}"
    # shellcheck disable=SC2086
    "$bench" $filter $flags --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
      2>&1 | grep -E "_median"
  done | tee "$out/probe.log"
  kill "$smi"
  sort "$out/probe_smi.csv" | uniq -c | sort -rn | head -8
}

stage_sanitize() {
  run sanitize_quant compute-sanitizer --tool memcheck --error-exitcode 1 \
    build/tests/quant/test_quant --gtest_filter='*Gpu*'
  run sanitize_bench compute-sanitizer --tool memcheck --error-exitcode 1 \
    build/tests/bench/test_bench --gtest_filter='*Pass*:*Timer*'
  tail -n 3 "$out/sanitize_quant.log" "$out/sanitize_bench.log"
}

# A small model, so that a case runs in seconds under the sanitizers; still every precision,
# pass and mode (the qkv GEMMs) and every quantization kernel and copy layout (one tensor of
# each role), with --emulate --verify; the kernel timer is off (compute-sanitizer is a CUPTI
# client itself) and sampling minimal.
SANITIZE_BENCH_ARGS=(--hidden_size=256 --intermediate_size=512 --num_attention_heads=2
  --num_key_value_heads=2 --micro_batch_size=1 --sequence_length=256 --emulate --verify
  --kernel_timer=off --steady_state=off --gpu_warmup=0 --max_warmup=0 --warmup_runs=1
  --min_samples=2 --min_time=0 --min_time_capped=0 --max_time=0.001
  "--benchmark_filter=/qkv/|/Quantize/(x|dy)/[a-z]+/R:256/C:256/|/Quantize/w/[a-z]+/R:768/")

stage_sanitize4() {
  local tool extra target
  # racecheck last, and the bench/ tests last of each tool's targets: they are the slowest, so a
  # time limit cuts them first. SANITIZE_TOOLS picks some of the tools, SANITIZE_TARGETS some
  # of the targets (quant kernels gemm_bench bench_tests), in the order given.
  for tool in ${SANITIZE_TOOLS:-memcheck initcheck synccheck racecheck}; do
    extra=(--error-exitcode 1)
    [ "$tool" = memcheck ] && extra+=(--leak-check full)
    # cuBLASLt's Hopper GEMMs (nvjet_*) hand shared memory between the TMA engine and warpgroups
    # through mbarriers, which racecheck does not model: on an H200 it reported 512-hazard pairs
    # inside them. Leaving them out (--kernel-name-exclude kns=nvjet) made racecheck fail on a
    # hardware exception at the first cuBLASLt call (H100). So racecheck checks every kernel,
    # its exit status is not the verdict, and racecheck_hazard_sites counts what is.
    [ "$tool" = racecheck ] && extra=()
    for target in ${SANITIZE_TARGETS:-quant kernels gemm_bench bench_tests}; do
      case $target in
        quant) run "san_${tool}_quant" compute-sanitizer --tool "$tool" "${extra[@]}" \
          build/tests/quant/test_quant --gtest_filter='*Gpu*' ;;
        kernels) run "san_${tool}_kernels" compute-sanitizer --tool "$tool" "${extra[@]}" \
          build/tests/kernels/test_kernels ;;
        gemm_bench) run "san_${tool}_gemm_bench" compute-sanitizer --tool "$tool" "${extra[@]}" \
          "$bench" "${SANITIZE_BENCH_ARGS[@]}" ;;
        bench_tests) sanitize_bench_tests "$tool" "${extra[@]}" ;;
        *) echo "sanitize4: unknown target $target" && status=1 ;;
      esac
    done
  done
  # Each log ends with compute-sanitizer's summary ("ERROR SUMMARY: 0 errors", or racecheck's
  # hazard counts); the gemm_bench ones also list the cases that ran.
  grep -H -E "ERROR SUMMARY|RACECHECK SUMMARY|tests passed|PASSED|FAILED" "$out"/san_*.log
  grep -c "manual_time " "$out"/san_*_gemm_bench.log 2>/dev/null
  local log
  for log in "$out"/san_racecheck_*.log; do
    [ -f "$log" ] && racecheck_hazard_sites "$log"
  done
}

# The bench/ tests under compute-sanitizer's TOOL (then its flags): the three suites that run
# every pass (racecheck takes minutes over each) side by side, one process each; then the rest
# alone, since they time the GPU or read its free memory, which the others would move.
sanitize_bench_tests() {
  local tool=$1 suite pid pids=() suites=()
  shift
  for suite in Bf16Pass QuantizedPass GroupedPass; do
    run "san_${tool}_bench_${suite}" compute-sanitizer --tool "$tool" "$@" \
      build/tests/bench/test_bench --gtest_filter="*/${suite}.*" &
    pids+=($!)
    suites+=("*/${suite}.*")
  done
  for pid in "${pids[@]}"; do
    wait "$pid" || status=1
  done
  # The leak test reads cudaMemGetInfo, which initcheck's own per-allocation tracking moves (on
  # an H100 it kept 32 MiB-3.3 GiB after each case); memcheck --leak-check is the leak tool.
  local rest='*Pass*:*Timer*'
  [ "$tool" = memcheck ] && rest+=':*DeviceMemoryLeak*'
  rest+=-$(IFS=:; echo "${suites[*]}")
  run "san_${tool}_bench_rest" compute-sanitizer --tool "$tool" "$@" \
    build/tests/bench/test_bench --gtest_filter="$rest"
}

# Racecheck's hazard accesses ("Race reported between Write access at KERNEL+0x.. and Read
# access at KERNEL+0x..") by whose kernel they are in: cuBLASLt's (nvjet_*); CUTLASS's blockwise
# grouped GEMM (its mainloop's block scales, see docs/hardening.md and stage
# cutlass68); anywhere else, which is gemmscope's own kernels and must be 0.
racecheck_hazard_sites() {
  local accesses cublas cutlass
  accesses=$(grep -E "(Read|Write) access at" "$1")
  cublas=$(grep -c "access at nvjet_" <<<"$accesses")
  cutlass=$(grep -c "MainloopSm90ArrayTmaGmmaWarpSpecializedBlockwise" <<<"$accesses")
  echo "$1: racecheck hazard accesses: $(($(grep -c . <<<"$accesses") - cublas - cutlass))" \
    "elsewhere, $cublas in cuBLASLt's kernels, $cutlass in CUTLASS's blockwise grouped GEMM"
}

# CUTLASS's own example of its blockwise-scaled FP8 grouped GEMM (example 68: the kernel that
# --grouped=cutlass runs for FP8Block, same tile, cluster and 1x128 by 128x128 scales) under
# racecheck: hazards it reports there belong to CUTLASS's kernel, not to how gemmscope calls it.
# Needs a CUTLASS source tree (a clone, or pip's nvidia-cutlass source folder: examples/ and
# tools/util/include beside include/) in $CUTLASS_DIR (default .carry/cutlass).
stage_cutlass68() {
  local cutlass=${CUTLASS_DIR:-.carry/cutlass}
  local name=68_hopper_fp8_warp_specialized_grouped_gemm_with_blockwise_scaling
  local example=$cutlass/examples/$name exe=build/cutlass_example_68
  if [ ! -f "$example/$name.cu" ]; then
    echo "cutlass68: no $example/$name.cu (CUTLASS's examples are needed)"
    status=1
    return
  fi
  mkdir -p build
  local nvcc
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  [ -x "$exe" ] || run cutlass68_build "$nvcc" -std=c++17 -O3 -arch=sm_90a \
    --expt-relaxed-constexpr -I"$cutlass/include" -I"$cutlass/tools/util/include" \
    -I"$cutlass/examples/common" -I"$example" -o "$exe" "$example/$name.cu" || return
  # One of CUTLASS's own test commands for it, with the example's reference check
  # ("Disposition") and no timing iterations. K=960 is 8 scale blocks deep, past the kernel's 6
  # pipeline stages: racecheck reports the hazards only where a stage is filled again (H100: 10
  # reports, all in the mainloop; with K=320 the kernel shows none in the bench/ tests).
  run cutlass68_racecheck compute-sanitizer --tool racecheck "$exe" --m=256 --n=512 --k=960 \
    --groups=10 --iterations=0
  grep -E "Disposition|RACECHECK SUMMARY" "$out/cutlass68_racecheck.log"
  racecheck_hazard_sites "$out/cutlass68_racecheck.log"
}

stage_moe() {
  run moe_tests ctest --test-dir build --output-on-failure -R "Grouped|Cutlass|Routing|Moe|Leak"
  grep -E "tests passed|tests failed|not run|rel_err|Failed" "$out/moe_tests.log" | head -80
  verify_experts "loop cublas,cutlass,loop" \
    < <(workloads "qwen3-30b-a3b --expert_parallel=8;deepseek-v3")
  # The MLA projections, the shared experts and the dense layers' MLP of DeepSeek-V3, once.
  run moe_verify_deepseek_dense "$bench" --model=deepseek-v3 --verify --emulate --gpu_warmup=0 \
    --steady_state=off --benchmark_min_time=0.05s --benchmark_filter='-/Quantize/|/expert_' \
    --benchmark_out="$out/moe_verify_deepseek_dense.json" --benchmark_out_format=json
  grep -hE "ERROR|error|refused|skipped" "$out"/moe_verify_deepseek_dense.log | sort | uniq -c |
    head -20
}

# --verify --emulate over the expert cases (those of $VERIFY_FILTER, if set) of each workload
# read from stdin, one a line, balanced and skewed, once for each --grouped value of $1
# (space-separated; auto verifies every implementation and configuration that can run a case).
verify_experts() {
  local models model routing grouped name
  mapfile -t models
  for model in "${models[@]}"; do
    for routing in balanced skewed; do
      for grouped in $1; do
        name="moeverify_$(moe_tag "$model")_${routing}_${grouped%%,*}"
        # shellcheck disable=SC2086 # $model is a preset and its flags
        run "$name" "$bench" --model=$model --routing=$routing --grouped="$grouped" --verify \
          --emulate --gpu_warmup=0 --steady_state=off --benchmark_min_time=0.05s \
          --benchmark_filter="${VERIFY_FILTER:-/expert_}" --benchmark_out="$out/$name.json" \
          --benchmark_out_format=json
        grep -cE "rel_err" "$out/$name.log"
      done
    done
  done
  grep -hE "ERROR|error|refused|skipped" "$out"/moeverify_*.log | sed -E 's/[0-9.]+ (ms|us)//g' |
    sort | uniq -c | head -40
}

# Every expert case of each $MOE_MODELS workload under gemm_bench's default --grouped.
stage_moeverify() {
  verify_experts auto < <(moe_models)
}

# The FP8Block expert Fprop and Dgrad cases (every mode) of each $MOE_MODELS workload with --verify
# under --grouped=auto (DeepGEMM among the candidates where the experts' rows are whole 128-row
# tiles) and --grouped=deepgemm (which pads them so), balanced and skewed routing.
stage_deepverify() {
  VERIFY_FILTER=${VERIFY_FILTER:-^FP8Block/(Fprop|Dgrad)/expert_} \
    verify_experts "auto deepgemm" < <(moe_models)
}

# Expert GEMMs timed through the loop and through the grouped kernels, alternately, twice each:
# the run-to-run spread of each, the difference between them, and each run's report.
stage_moetime() {
  local round grouped model name
  for round in 1 2; do
    for grouped in loop cublas,cutlass,loop; do
      for model in "qwen3-30b-a3b --expert_parallel=8" deepseek-v3; do
        name="moe_time_${model%% *}_${grouped%%,*}_$round"
        # shellcheck disable=SC2086 # $model is a preset and its flags
        run "$name" "$bench" --model=$model --grouped=$grouped --benchmark_filter=/expert_ \
          --benchmark_out="$out/$name.json" --benchmark_out_format=json
        "$report" "$out/$name.json" >"$out/${name/time/report}.txt" 2>&1
      done
    done
  done
  for model in qwen3-30b-a3b deepseek-v3; do
    echo "== $model: loop, run 1 vs run 2"
    python3 tools/run_diff.py "$out/moe_time_${model}_loop_1.json" "$out/moe_time_${model}_loop_2.json"
    echo "== $model: grouped kernels, run 1 vs run 2"
    python3 tools/run_diff.py "$out/moe_time_${model}_cublas_1.json" \
      "$out/moe_time_${model}_cublas_2.json"
    echo "== $model: loop vs grouped kernels (run 1)"
    python3 tools/run_diff.py "$out/moe_time_${model}_loop_1.json" \
      "$out/moe_time_${model}_cublas_1.json"
  done 2>&1 | tee "$out/moe_diff.txt"
}

# The GPU tests of the grouped quantizers, the CUTLASS GEMMs (grouped and dense), the grouped
# and dense passes of every recipe, with the reference.
stage_grouped() {
  run grouped_tests ctest --test-dir build --output-on-failure \
    -R "Grouped|GraphReplay|Cutlass|Fp8|Mx|Nvfp4|QuantizedPass|Bf16Pass|Leak"
  grep -E "tests passed|tests failed|Failed|FAILED|Skipped" "$out/grouped_tests.log" | head -60
}

# One workload (gemm_bench's flags) per line, from a ';'-separated list.
workloads() {
  local list
  IFS=';' read -r -a list <<<"$1"
  printf '%s\n' "${list[@]}"
}

moe_models() {
  workloads "${MOE_MODELS:-$default_moe_models}"
}

moe_tag() {
  sed -e 's/ --expert_parallel=/_ep/' -e 's/[^A-Za-z0-9_.-]/_/g' <<<"$1"
}

stage_moequant() {
  local model name
  while read -r model; do
    name="moequant_$(moe_tag "$model")"
    # shellcheck disable=SC2086 # $model is a preset and its flags
    run "$name" "$bench" --model=$model --benchmark_filter='/Quantize/.*/G:' --gpu_warmup=2 \
      --benchmark_out="$out/$name.json" --benchmark_out_format=json
    grep -E "Quantize" "$out/$name.log" | awk '{print $1, $4, $5, $6, $7, $8, $9, $10, $11}'
  done < <(moe_models)
}

stage_moeauto() {
  local model name start
  while read -r model; do
    name="moeauto_$(moe_tag "$model")"
    start=$SECONDS
    # shellcheck disable=SC2086 # $model is a preset and its flags
    run "$name" "$bench" --model=$model --benchmark_filter="${MOEAUTO_FILTER:-/expert_}" \
      --list_kernels --benchmark_out="$out/$name.json" --benchmark_out_format=json
    echo "$name: $((SECONDS - start)) s"
    "$report" "$out/$name.json" >"$out/${name}_report.txt" 2>&1
    grep -E "Speedup|Implementations" "$out/${name}_report.txt"
  done < <(moe_models)
}

stage_holdcheck() {
  local model precision grouped name
  model=$(moe_models | head -1)
  for precision in BF16/Fprop/expert_up/native FP8Block/Fprop/expert_up/prequant \
    FP8Block/Fprop/expert_down/prequant FP8Current/Fprop/expert_up/prequant; do
    for grouped in loop cublas cutlass; do
      name="holdcheck_${precision%%/*}_$(cut -d/ -f3 <<<"$precision")_$grouped"
      # shellcheck disable=SC2086 # $model is a preset and its flags
      run "$name" timeout 60 "$bench" --model=$model --grouped=$grouped --gpu_warmup=0 \
        --max_settle=1 --min_time_capped=1 --max_time=2 --benchmark_filter="^$precision/"
      echo "$name: $(grep -E "manual_time" "$out/$name.log" | cut -c1-220)"
    done
  done
}

stage_moemain() {
  local models model name start
  mapfile -t models < <(workloads "${MOE_MAIN:-qwen3-30b-a3b}")
  for model in "${models[@]}"; do
    name="moemain_$(moe_tag "$model")"
    start=$SECONDS
    # shellcheck disable=SC2086 # $model is a preset and its flags
    run "$name" "$bench" --model=$model --benchmark_out="$out/$name.json" \
      --benchmark_out_format=json
    echo "$name: $((SECONDS - start)) s" | tee "$out/$name.txt"
    "$report" --svg="$out/$name.svg" "$out/$name.json" >"$out/${name}_report.txt" 2>&1
    grep -E "Speedup|Implementations|layer|Model" "$out/${name}_report.txt" | tee -a "$out/$name.txt"
  done
}

# The FP8Block cases with --verify under the default --provider (auto: every provider and
# configuration that can run a case is verified), on the default model and on odd-but-legal
# shapes: fresh random data, poisoned outputs.
stage_blockverify() {
  local name workload
  for workload in "--model=te-tutorial" "--shapes=4096x4096x4096,1000x2048x3000,128x7168x2048"; do
    name="blockverify_${workload%%=*}"
    name=${name//-/}
    run "$name" "$bench" "$workload" --verify --gpu_warmup=0 --steady_state=off \
      --benchmark_min_time=0.05s '--benchmark_filter=^FP8Block/' \
      --benchmark_out="$out/$name.json" --benchmark_out_format=json
    grep -cE "rel_err" "$out/$name.log"
  done
  grep -hE "ERROR|error" "$out"/blockverify_*.log | head -20
}

stage_blockdense() {
  local models model name provider
  mapfile -t models < <(workloads "${DENSE_MODELS:-te-tutorial}")
  for model in "${models[@]}"; do
    for provider in ${DENSE_PROVIDERS:-auto cublaslt}; do
      name="blockdense_$(moe_tag "$model")_$provider"
      # shellcheck disable=SC2086 # $model is a preset and its flags
      run "$name" "$bench" --model=$model --provider=$provider \
        '--benchmark_filter=^FP8(Block|Current)/.*/prequant/' --benchmark_out="$out/$name.json" \
        --benchmark_out_format=json
      grep -E "prequant" "$out/$name.log" | awk '{print $1, $2, $4}' | head -40
    done
  done
}

# Step cases verified: every recipe (MXFP8 and NVFP4 emulated on Hopper), pass and candidate
# GEMM, on the default model, odd shapes, and an MoE workload's experts with skewed routing (odd
# rows per expert), with W cast every $MICROBATCHES (default 8) calls.
stage_stepverify() {
  local model
  mapfile -t model < <(workloads "${MOE_MODELS:-$default_moe_models}")
  local common=(--verify --emulate --microbatches="${MICROBATCHES:-8}" --steady_state=off
    --gpu_warmup=0 --benchmark_filter=/step/ --benchmark_min_time=0.05s
    --benchmark_counters_tabular=true)
  run stepverify_default "$bench" "${common[@]}"
  run stepverify_shapes "$bench" "${common[@]}" --shapes=4096x4096x4096,1000x2048x3072,4000x1024x512
  # shellcheck disable=SC2086 # a preset and its flags
  run stepverify_moe "$bench" "${common[@]}" --model=${model[0]} --routing=skewed
  local log
  for log in "$out"/stepverify_*.log; do
    echo "$(basename "$log"): $(grep -c '/step/' "$log") step cases," \
      "$(grep -c 'ERROR OCCURRED' "$log") failed or skipped"
  done
}

# FP8Rowwise's correctness: its quantizers' GPU tests (dense and grouped), --verify over every
# FP8Rowwise and FP8RowwiseBF16Wgrad case of the default model, of odd shapes, of the GEMM cases of
# $ROWWISE_DENSE (default Llama 3 70B at TP 8) and of the expert cases of $ROWWISE_MOE_MODELS
# (';'-separated, default Qwen3-30B-A3B at EP 8), then every quantization case of FP8Current and
# FP8Rowwise timed (rowwise_quant.txt: GB/s, share of the copy bandwidth and of a same-bytes copy).
stage_rowwise() {
  run rowwise_test build/tests/quant/test_quant --gtest_filter='Fp8Rowwise*:Fp8Grouped*:Fp8Tensorwise*'
  grep -E "PASSED|FAILED|SKIPPED" "$out/rowwise_test.log" | head
  local common=(--verify --steady_state=off --gpu_warmup=0 --benchmark_min_time=0.05s
    --benchmark_counters_tabular=true)
  local filter='^FP8Rowwise(BF16Wgrad)?/'
  run rowwise_verify "$bench" "${common[@]}" --benchmark_filter="$filter"
  run rowwise_shapes "$bench" "${common[@]}" --benchmark_filter="$filter" \
    --shapes=1000x2048x3000,128x7168x2048
  local models model
  mapfile -t models < <(workloads "${ROWWISE_DENSE:-llama3-70b --tensor_parallel=8}")
  for model in "${models[@]}"; do
    # shellcheck disable=SC2086 # $model is a preset and its flags
    run "rowwise_verify_$(moe_tag "$model")" "$bench" --model=$model "${common[@]}" \
      --benchmark_filter="$filter(Fprop|Dgrad|Wgrad)/"
  done
  VERIFY_FILTER="$filter(Fprop|Dgrad|Wgrad)/expert_" verify_experts auto \
    < <(workloads "${ROWWISE_MOE_MODELS:-qwen3-30b-a3b --expert_parallel=8}")
  grep -hcE "rel_err" "$out"/rowwise_*.log
  grep -hE "ERROR|error" "$out"/rowwise_*.log | head -20
  run rowwise_quant "$bench" '--benchmark_filter=^FP8(Current|Rowwise|RowwiseBF16Wgrad)/Quantize/' \
    --benchmark_out="$out/rowwise_quant.json" --benchmark_out_format=json
  python3 - "$out/rowwise_quant.json" <<'PY' | tee "$out/rowwise_quant.txt"
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if "GBps" in b:
        print(f"{b['name'].removesuffix('/manual_time'):55s} {b['real_time']:9.1f} us "
              f"{b['GBps']:7.0f} GB/s {b['pct_of_copy_bw']:5.1f}% of copy "
              + (f"{b['pct_of_same_bytes_copy']:5.1f}% of same-bytes copy"
                 if "pct_of_same_bytes_copy" in b else "  n/a of same-bytes copy"))
PY
}

# FP8Rowwise's expert GEMMs: the FP8Current and FP8Rowwise expert prequant cases of each
# $ROWWISE_MOE_TIME workload (default the MoE stages' three) side by side in one run, then the
# torch peer (torch._scaled_grouped_mm) on FP8Rowwise's, joined per case (rowwise_moe.txt).
stage_rowwisemoe() {
  local python=python3
  [ -x /opt/torch/.venv/bin/python ] && python=/opt/torch/.venv/bin/python
  local models model name
  mapfile -t models < <(workloads "${ROWWISE_MOE_TIME:-$default_moe_models}")
  for model in "${models[@]}"; do
    name="rowwise_moe_$(moe_tag "$model")"
    # shellcheck disable=SC2086 # $model is a preset and its flags
    run "$name" "$bench" --model=$model \
      '--benchmark_filter=^FP8(Current|Rowwise)/(Fprop|Dgrad|Wgrad)/expert_[a-z]+/prequant/' \
      --list_kernels --benchmark_out="$out/$name.json" --benchmark_out_format=json
    # shellcheck disable=SC2086 # $model is a preset and its flags
    run "${name}_torch" "$python" tools/torch_peer.py --gemm_bench="$bench" \
      --context_from="$out/$name.json" --filter='^FP8Rowwise/.*/expert_' --list_kernels \
      --out="$out/${name}_torch.json" -- --model=$model
    {
      echo "=== $model: FP8Rowwise against FP8Current, same shapes, same run"
      python3 - "$out/$name.json" <<'PY'
import json, re, sys
times = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("run_type") == "aggregate" or b.get("error_occurred"):
        continue
    m = re.match(r"(FP8Current|FP8Rowwise)/(.*)/manual_time", b["name"])
    if m:
        times.setdefault(m.group(2), {})[m.group(1)] = b["real_time"]
for case, t in times.items():
    if len(t) == 2:
        print(f"{case:70s} {t['FP8Current']:9.1f} {t['FP8Rowwise']:9.1f} us  "
              f"{t['FP8Rowwise'] / t['FP8Current']:.3f}x")
PY
      echo "=== $model: gemm_bench against torch._scaled_grouped_mm (time: gemm_bench against torch)"
      python3 tools/run_diff.py "$out/${name}_torch.json" "$out/$name.json"
    } 2>&1 | tee -a "$out/rowwise_moe.txt"
  done
}

# FP8Rowwise's verdicts: each $ROWWISE_VERDICTS workload's BF16, FP8Current, FP8Rowwise and
# FP8RowwiseBF16Wgrad GEMM cases in every mode, in one run, and its report
# (rowwise_verdict_*.txt).
stage_rowwiseverdict() {
  local models model name
  mapfile -t models < <(workloads "${ROWWISE_VERDICTS:-te-tutorial;qwen3-30b-a3b}")
  for model in "${models[@]}"; do
    name="rowwise_verdict_$(moe_tag "$model")"
    # shellcheck disable=SC2086 # $model is a preset and its flags
    run "$name" "$bench" --model=$model \
      '--benchmark_filter=^(BF16/.*/native|FP8(Current|Rowwise|RowwiseBF16Wgrad)/(Fprop|Dgrad|Wgrad))/' \
      --benchmark_out="$out/$name.json" --benchmark_out_format=json
    "$report" "$out/$name.json" >"$out/$name.txt" 2>&1
    grep -E "^(Speedup|Model|[a-z]+ ·)" "$out/$name.txt"
  done
}

# FP8Rowwise's dense prequant cases of each $ROWWISE_DENSE workload (default Llama 3 70B at TP 8)
# through gemm_bench, then torch._scaled_mm (the torch peer), once each, joined per case: the
# short form of stage peer where device time is short.
stage_rowwisedense() {
  local python=python3
  [ -x /opt/torch/.venv/bin/python ] && python=/opt/torch/.venv/bin/python
  local models model name filter='^FP8(Current|Rowwise)/.*/prequant/'
  mapfile -t models < <(workloads "${ROWWISE_DENSE:-llama3-70b --tensor_parallel=8}")
  for model in "${models[@]}"; do
    name="rowwise_dense_$(moe_tag "$model")"
    # shellcheck disable=SC2086 # $model is a preset and its flags
    run "$name" "$bench" --model=$model --benchmark_filter="$filter" --list_kernels \
      --benchmark_out="$out/$name.json" --benchmark_out_format=json
    # shellcheck disable=SC2086 # $model is a preset and its flags
    run "${name}_torch" "$python" tools/torch_peer.py --gemm_bench="$bench" --filter="$filter" \
      --list_kernels --out="$out/${name}_torch.json" -- --model=$model
    echo "=== $model: gemm_bench, then torch (time: gemm_bench against torch)" |
      tee -a "$out/rowwise_dense.txt"
    python3 tools/run_diff.py "$out/${name}_torch.json" "$out/$name.json" |
      tee -a "$out/rowwise_dense.txt"
  done
}

# A real trainer's step (tools/trainer_peer.py) between two default sweeps, each compared with it:
# what the run order does shows apart from what the two sides do.
stage_trainer() {
  local python=python3
  [ -x /opt/torch/.venv/bin/python ] && python=/opt/torch/.venv/bin/python
  if compgen -G ".whl/torchao-*.whl" >/dev/null; then
    "$python" -m pip install -q --no-index --no-deps --no-compile --target /tmp/site \
      .whl/torchao-*.whl && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
  fi
  # TRAINER_FILTER: the gemm_bench cases of both sweeps (default all); TRAINER_RECIPES: the
  # peer's recipes (default all). The filter must keep BF16's native cases and the recipes' steps.
  local filter=(${TRAINER_FILTER:+"--benchmark_filter=$TRAINER_FILTER"})
  run trainer_ours_1 "$bench" "${filter[@]}" --list_kernels \
    --benchmark_out="$out/trainer_ours_1.json" --benchmark_out_format=json
  run trainer_peer env PYTHONUNBUFFERED=1 "$python" tools/trainer_peer.py --list_kernels \
    ${TRAINER_RECIPES:+"--recipes=$TRAINER_RECIPES"} --steps_from="$out/trainer_ours_1.json" \
    --out="$out/trainer_peer.json"
  run trainer_ours_2 "$bench" "${filter[@]}" --benchmark_out="$out/trainer_ours_2.json" \
    --benchmark_out_format=json
  {
    echo "--- gemm_bench, then the peer"
    cat "$out/trainer_peer.log"
    echo "--- the peer, then gemm_bench"
    python3 tools/trainer_peer.py --steps_from="$out/trainer_ours_2.json" \
      --peer_from="$out/trainer_peer.json"
  } 2>&1 | grep -v "^kernels of" | tee "$out/trainer.txt"
}

# Step speedups of MoE workloads at one microbatch and at $MICROBATCHES: the BF16 native and FP8
# step GEMM cases, each run with its own BF16 baseline, and the report of each.
stage_moestep() {
  local models model tag n name
  mapfile -t models < <(workloads "${MOE_MODELS:-qwen3-30b-a3b;qwen3-30b-a3b --expert_parallel=8;deepseek-v3;gpt-oss-120b}")
  : >"$out/moestep.txt"
  for model in "${models[@]}"; do
    tag=$(moe_tag "$model")
    # shellcheck disable=SC2086 # MOESTEP_MICROBATCHES: a space-separated list
    for n in ${MOESTEP_MICROBATCHES:-1 ${MICROBATCHES:-8}}; do
      name="moestep_${tag}_mb$n"
      local start=$SECONDS
      # shellcheck disable=SC2086 # a preset and its flags
      run "$name" "$bench" --model=$model --microbatches="$n" \
        "--benchmark_filter=${MOESTEP_FILTER:-^(BF16/.*/native|FP8[A-Za-z]*/(Fprop|Dgrad|Wgrad)/.*/step)/}" \
        --benchmark_out="$out/$name.json" --benchmark_out_format=json
      "$report" "$out/$name.json" >"$out/$name.txt" 2>&1
      echo "=== $model --microbatches=$n ($((SECONDS - start)) s)" | tee -a "$out/moestep.txt"
      grep -E "^(Speedup|Model)" "$out/$name.txt" | tee -a "$out/moestep.txt"
    done
  done
}

# Each case of an entry alone (its own process, a 2 s warm-up, a group of one), after the entry's
# cases together in one group; tools/alone_summary.py pairs the two.
stage_alone() {
  local entries entry flags filter tag name case i=0
  mapfile -t entries < <(workloads "${ALONE_RUNS:?alone: set ALONE_RUNS}")
  mkdir -p "$out/alone"
  for entry in "${entries[@]}"; do
    flags=${entry%%|*}
    filter=${entry#*|}
    tag=$i
    i=$((i + 1))
    # shellcheck disable=SC2086 # $flags: gemm_bench flags, split on spaces
    run "alone_group_$tag" "$bench" $flags --benchmark_filter="$filter" --gpu_warmup=2 \
      --max_warmup=0 --benchmark_out="$out/alone/group_$tag.json" --benchmark_out_format=json
    # shellcheck disable=SC2086
    while read -r case; do
      name="alone_${tag}_$(sed 's/[^A-Za-z0-9_.-]/_/g' <<<"$case")"
      # shellcheck disable=SC2086
      run "$name" "$bench" $flags --benchmark_filter="^$case\$" --gpu_warmup=2 --max_warmup=0 \
        --benchmark_out="$out/alone/$name.json" --benchmark_out_format=json </dev/null
    done < <("$bench" $flags --benchmark_list_tests --benchmark_filter="$filter")
  done
  python3 tools/alone_summary.py "$out/alone" | tee "$out/alone.txt"
}

# Nsight Compute's speed-of-light, occupancy, launch and warp-state sections over the NVTX ranges
# of cases given by name (without /manual_time), into $out/LOG, of the workload FLAGS describes.
ncu_sections() {  # ncu_sections LOG "FLAGS" CASE...
  local log=$1 flags=$2 case
  shift 2
  # shellcheck disable=SC2086 # $flags: gemm_bench flags, split on spaces
  for case in "$@"; do
    "$(ncu_path)" --nvtx --nvtx-include "$case/" --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats \
      --section ComputeWorkloadAnalysis "$bench" --profile --gpu_warmup=0 --warmup_runs=0 \
      --benchmark_filter="^$case" --benchmark_min_time=1x $flags
  done >"$out/$log" 2>&1
  grep -E "^  [A-Za-z_].*\(|Throughput|Duration|Achieved Occupancy|Registers|Block Size|Grid Size|Waves|Cluster Size|Spilling|Issue Slots Busy|Executed Ipc" \
    "$out/$log" | head -160
}

stage_quantncu() {
  # QUANT_CASES: space-separated quantization case names (default: two FP8 ones) of the
  # workload gemm_bench's flags $QUANT_FLAGS describe (default: the default model).
  # shellcheck disable=SC2086 # the case names, split on spaces
  ncu_sections quantncu.log "${QUANT_FLAGS:-}" \
    ${QUANT_CASES:-FP8Block/Quantize/x/both/R:15872/C:4096 FP8Delayed/Quantize/w/rowwise/R:12288/C:4096}
}

# The same for GEMM cases: $GEMM_CASES (names without /manual_time) of the workload $GEMM_FLAGS
# describes, each with the implementation its flags choose, into gemmncu$GEMM_TAG.log.
stage_gemmncu() {
  # shellcheck disable=SC2086 # the case names, split on spaces
  ncu_sections "gemmncu${GEMM_TAG:-}.log" "${GEMM_FLAGS:-}" ${GEMM_CASES:?gemmncu: set GEMM_CASES}
}

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build test verify emulated sweep spread ncu probe sanitize quantncu)
for s in "${stages[@]}"; do
  # GPU_CHECK_BUDGET (seconds): a stage that would start later than this is skipped, so that a
  # device call ends inside its time limit with every finished stage's logs.
  if [ -n "${GPU_CHECK_BUDGET:-}" ] && [ "$SECONDS" -ge "$GPU_CHECK_BUDGET" ]; then
    echo "=== $s: skipped, $SECONDS s spent of GPU_CHECK_BUDGET=$GPU_CHECK_BUDGET"
    continue
  fi
  "stage_$s"
  pack
done
exit $status
