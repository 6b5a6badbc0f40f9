#!/usr/bin/env bash
# Runs gemm_bench on every visible GPU of one host at once: one process per GPU
# (CUDA_VISIBLE_DEVICES=<id>), shard i of N taking the groups of cases (the cases gemm_bench
# times together) whose registration index is i mod N (gemm_bench --shard=i/N), each writing
# DIR/shard-i.json and its log DIR/shard-i.log; then one report over all shards (gemm_report
# merges several files).
#
# Usage: tools/run_shards.sh [--gpus=N] [--out=DIR] [--bench=PATH] [--report=PATH]
#                            [--report_args='ARGS'] [--dry-run] [GEMM_BENCH_ARGS...]
#   --gpus=N          shards (default: one per GPU: the ids in CUDA_VISIBLE_DEVICES if set,
#                     else every GPU `nvidia-smi -L` lists); with CUDA_VISIBLE_DEVICES set, its
#                     first N ids
#   --out=DIR         where shard JSON and logs go (default shards)
#   --bench=PATH      gemm_bench (default build/bench/gemm_bench)
#   --report=PATH     gemm_report (default build/tools/gemm_report)
#   --report_args=    extra gemm_report arguments, split at spaces, e.g.
#                     --report_args='--format=markdown --svg=shards/model.svg'
#   --dry-run         print the commands instead of running them
# Every other argument goes to each gemm_bench, e.g. --model=llama3-8b --benchmark_repetitions=5.
# Exit status: 0 all shards and the report ran; 1 a shard or the report failed (the shard's log
# is named); 2 bad command line.
set -euo pipefail

# The machine policy keeps NVLink SHARP (multicast) off for NCCL; harmless for gemm_bench.
export NCCL_NVLS_ENABLE=0

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

die() {  # die STATUS MESSAGE
  echo "run_shards: $2" >&2
  exit "$1"
}

gpus=""
out=shards
bench=build/bench/gemm_bench
report=build/tools/gemm_report
report_args=()
dry_run=false
bench_args=()
for arg in "$@"; do
  case $arg in
    --gpus=*) gpus=${arg#*=} ;;
    --out=*) out=${arg#*=} ;;
    --bench=*) bench=${arg#*=} ;;
    --report=*) report=${arg#*=} ;;
    --report_args=*) read -r -a report_args <<<"${arg#*=}" ;;
    --dry-run) dry_run=true ;;
    -h | --help)
      usage
      exit 0
      ;;
    # Each shard's output file and shard are this script's to set.
    --shard=* | --benchmark_out=* | --benchmark_out_format=*)
      die 2 "$arg is set per shard by run_shards; leave it out"
      ;;
    *) bench_args+=("$arg") ;;
  esac
done

[[ -z $gpus || $gpus =~ ^[1-9][0-9]*$ ]] || die 2 "--gpus=$gpus: not a positive integer"

# The device ids to run on: CUDA_VISIBLE_DEVICES's own ids (numbers or UUIDs) when it is set,
# so that the script stays inside what it was given; else every GPU on the host.
if [[ -n ${CUDA_VISIBLE_DEVICES+set} ]]; then
  IFS=, read -r -a devices <<<"$CUDA_VISIBLE_DEVICES"
elif [[ -n $gpus ]]; then
  mapfile -t devices < <(seq 0 $((gpus - 1)))
else
  command -v nvidia-smi >/dev/null || die 2 "no nvidia-smi to count GPUs; give --gpus=N"
  mapfile -t devices < <(nvidia-smi -L | awk '/^GPU [0-9]+:/ {sub(":", "", $2); print $2}')
fi
if [[ -n $gpus ]]; then
  ((gpus <= ${#devices[@]})) ||
    die 2 "--gpus=$gpus: only ${#devices[@]} GPU(s) visible (${devices[*]})"
  devices=("${devices[@]:0:gpus}")
fi
shards=${#devices[@]}
((shards > 0)) || die 2 "no GPU visible (CUDA_VISIBLE_DEVICES='${CUDA_VISIBLE_DEVICES-}')"

show() {  # the command line as a shell would read it back
  printf '%q ' "$@" | sed 's/ $//'
  echo
}

if $dry_run; then
  echo "mkdir -p $(printf '%q' "$out")"
fi
$dry_run || mkdir -p "$out"

pids=()
outputs=()
# Stop the shards started here (by their process ids) when the script is interrupted.
trap 'kill "${pids[@]}" 2>/dev/null; exit 130' INT TERM
for ((i = 0; i < shards; i++)); do
  command=(env CUDA_VISIBLE_DEVICES="${devices[i]}" "$bench" --shard="$i/$shards"
    --benchmark_out="$out/shard-$i.json" --benchmark_out_format=json "${bench_args[@]}")
  outputs+=("$out/shard-$i.json")
  if $dry_run; then
    echo "$(show "${command[@]}") >$(printf '%q' "$out/shard-$i.log") 2>&1 &"
    continue
  fi
  # A stale file from an earlier run must not pass for this run's result.
  rm -f "$out/shard-$i.json"
  "${command[@]}" >"$out/shard-$i.log" 2>&1 &
  pids+=($!)
  echo "run_shards: shard $i/$shards on GPU ${devices[i]} (pid $!), log $out/shard-$i.log"
done

report_command=("$report" "${report_args[@]}" "${outputs[@]}")
if $dry_run; then
  echo wait
  show "${report_command[@]}"
  exit 0
fi

failed=0
for ((i = 0; i < shards; i++)); do
  if wait "${pids[i]}"; then
    echo "run_shards: shard $i done"
  else
    status=$?
    failed=1
    echo "run_shards: shard $i (GPU ${devices[i]}) failed with exit status $status;" \
      "see $out/shard-$i.log, which ends:" >&2
    tail -n 5 "$out/shard-$i.log" | sed 's/^/    /' >&2
  fi
done
trap - INT TERM
((failed == 0)) || die 1 "not reporting: a shard failed"

# Only this run's shard files, not whatever else matches shard-*.json in DIR.
"${report_command[@]}"
