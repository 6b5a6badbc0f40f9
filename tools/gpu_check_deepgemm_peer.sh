# shellcheck shell=bash
# shellcheck disable=SC2154,SC2034 # $out, $bench, $default_moe_models and $status: gpu_check.sh's
# tools/gpu_check.sh's stage peer_deepgemm, in a file of its own: sourced by tools/gpu_check.sh,
# whose run, workloads and moe_tag, $out, $bench, $status and $default_moe_models it uses.
#
#   peer_deepgemm the FP8Block prequant expert Fprop and Dgrad cases of three MoE workloads
#            through DeepGEMM's own m-grouped contiguous FP8 kernel (tools/deepgemm_peer.py,
#            DeepGEMM's pure-Python JIT release 03d0be3 from .carry/deepgemm-jit) and through
#            gemm_bench, per workload in the order gemm_bench, DeepGEMM, DeepGEMM, gemm_bench;
#            each pair compared, and the cases side by side (peer_deepgemm.txt)
#
# Needs, carried along: DeepGEMM's release (`git archive 03d0be3 deep_gemm LICENSE` of
# deepseek-ai/DeepGEMM, with its full commit id in a file COMMIT beside deep_gemm/) in
# $DEEPGEMM_JIT_DIR (default .carry/deepgemm-jit), CUTLASS's headers in $CUTLASS_DIR/include
# (default .carry/cutlass, as stage build), and the Python with torch and cuda-python
# (/opt/torch/.venv/bin/python where it is). DeepGEMM's JIT compiles with its deep_gemm/include
# alone on the include path, so the stage copies the release to $DEEPGEMM_JIT_COPY (default
# /tmp/deepgemm-jit) with CUTLASS's cute/ and cutlass/ beside deep_gemm/ there; kernels are
# cached in $DG_JIT_CACHE_DIR (default /tmp/dg-cache), so the second DeepGEMM process of a
# workload compiles nothing.
#
# $MOE_MODELS: the workloads (';'-separated gemm_bench flags, default the three of
# $default_moe_models); $PEER_DEEPGEMM_RUNS: fewer processes (say "gemmscope_1 deepgemm_1") where
# time is short; $PEER_DEEPGEMM_GROUPED: gemm_bench's --grouped (default auto, its default);
# $PEER_DEEPGEMM_FLAGS: more flags for the peer (say --launch=direct). A workload's first
# DeepGEMM process compiles its four kernels with nvcc before its warm-up (tens of seconds each);
# then each process takes about as long as the torch peer's.
stage_peer_deepgemm() {
  local python=python3
  [ -x /opt/torch/.venv/bin/python ] && python=/opt/torch/.venv/bin/python
  local filter='^FP8Block/(Fprop|Dgrad)/expert_[a-z]+/prequant/G:'
  local release=${DEEPGEMM_JIT_DIR:-.carry/deepgemm-jit} cutlass=${CUTLASS_DIR:-.carry/cutlass}
  local copy=${DEEPGEMM_JIT_COPY:-/tmp/deepgemm-jit} cache=${DG_JIT_CACHE_DIR:-/tmp/dg-cache}
  : >"$out/peer_deepgemm.txt"
  if [ ! -f "$release/deep_gemm/__init__.py" ] || [ ! -d "$cutlass/include/cute" ] ||
    [ ! -d "$cutlass/include/cutlass" ]; then
    echo "=== peer_deepgemm: needs DeepGEMM's JIT release in $release and CUTLASS's headers in" \
      "$cutlass/include" | tee -a "$out/peer_deepgemm.txt"
    status=1
    return 1
  fi
  if ! { rm -rf "$copy" && mkdir -p "$copy" "$cache" && cp -r "$release/." "$copy/" &&
    cp -r "$cutlass/include/cute" "$cutlass/include/cutlass" "$copy/deep_gemm/include/"; }; then
    echo "=== peer_deepgemm: cannot make $copy" | tee -a "$out/peer_deepgemm.txt"
    status=1
    return 1
  fi
  # DeepGEMM looks for nvcc under torch's CUDA_HOME; the nvcc on PATH, where there is one.
  local nvcc
  nvcc=$(command -v nvcc || true)
  local models model tag run_name name rows
  mapfile -t models < <(workloads "${MOE_MODELS:-$default_moe_models}")
  for model in "${models[@]}"; do
    tag=$(moe_tag "$model")
    rows="$out/peer_deepgemm_${tag}_gemmscope_1.json"
    for run_name in ${PEER_DEEPGEMM_RUNS:-gemmscope_1 deepgemm_1 deepgemm_2 gemmscope_2}; do
      name="peer_deepgemm_${tag}_$run_name"
      # shellcheck disable=SC2086 # $model is a preset and its flags; $PEER_DEEPGEMM_FLAGS flags
      if [[ $run_name == deepgemm_* ]]; then
        run "$name" env PYTHONPATH="$copy${PYTHONPATH:+:$PYTHONPATH}" DG_JIT_CACHE_DIR="$cache" \
          ${nvcc:+DG_JIT_NVCC_COMPILER="$nvcc"} "$python" tools/deepgemm_peer.py \
          --gemm_bench="$bench" --context_from="$rows" --filter="$filter" --list_kernels \
          ${PEER_DEEPGEMM_FLAGS:-} --out="$out/$name.json" -- --model=$model
      else
        run "$name" "$bench" --model=$model --grouped="${PEER_DEEPGEMM_GROUPED:-auto}" \
          --benchmark_filter="$filter" --list_kernels --benchmark_out="$out/$name.json" \
          --benchmark_out_format=json
      fi
    done
    local first="$out/peer_deepgemm_${tag}" pair
    {
      for pair in 1 2; do
        if [ ! -f "${first}_deepgemm_$pair.json" ] || [ ! -f "${first}_gemmscope_$pair.json" ]; then
          continue
        fi
        if [ "$pair" = 1 ]; then
          echo "=== $model: gemm_bench first, then DeepGEMM (time: gemm_bench against DeepGEMM)"
        else
          echo "=== $model: DeepGEMM first, then gemm_bench (time: gemm_bench against DeepGEMM)"
        fi
        python3 tools/run_diff.py "${first}_deepgemm_$pair.json" "${first}_gemmscope_$pair.json"
        python3 tools/deepgemm_peer.py --compare "${first}_deepgemm_$pair.json" \
          "${first}_gemmscope_$pair.json"
      done
      grep -hE "expert_.*error|left out|compiled|cannot|refused" \
        "${first}_deepgemm_1.log" 2>/dev/null | head -8
    } 2>&1 | tee -a "$out/peer_deepgemm.txt"
  done
}
