#!/usr/bin/env python3
"""The DeepGEMM peer: times gemm_bench's FP8Block prequant expert Fprop and Dgrad cases with
DeepGEMM's own m-grouped contiguous FP8 kernel (deep_gemm.m_grouped_gemm_fp8_fp8_bf16_nt_contiguous,
the pure-Python JIT release 03d0be3) under gemm_bench's timing rules, and writes Google Benchmark
JSON with gemm_bench's case names (`tools/deepgemm_peer.py --help`). The work is done by the
package tools/peers/ beside this script: peers/deepgemm_grouped.py (its docstring has the
operands, the padding of each expert's rows to 128 and what is refused), with the torch peer's
runner, timing rules and JSON writer.

Usage: deepgemm_peer.py [--gemm_bench=PATH | --cases=FILE] [--filter=REGEX] [--out=FILE]
                        (--context_from=FILE | --expert_rows=LIST)
                        [--repetitions=R] [--launch=auto|direct|graph] [timing options]
                        [--list_kernels] [--dry-run] [-- GEMM_BENCH_FLAGS...]
       deepgemm_peer.py --compare DEEPGEMM_JSON GEMM_BENCH_JSON   (the per-case table)

--dry-run prints the groups, each case's rows per expert, padding, operands and call, without
importing torch or deep_gemm. tools/gpu_check_deepgemm_peer.sh (stage_peer_deepgemm) runs it
beside gemm_bench on three MoE workloads.
"""
import os
import sys

# The package sits beside this script: on the path when Python runs the script, not when it is
# loaded by path (runpy.run_path, importlib).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers.deepgemm_grouped import main  # noqa: E402

if __name__ == "__main__":
    main(sys.argv[1:])
