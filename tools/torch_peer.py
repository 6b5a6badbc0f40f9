#!/usr/bin/env python3
"""The PyTorch peer: times gemm_bench's cases with PyTorch under gemm_bench's timing rules and
writes Google Benchmark JSON with gemm_bench's case names (`tools/torch_peer.py --help`). The
work is done by the package tools/peers/ beside this script; its __init__.py says which module
holds what.

Usage: torch_peer.py [--gemm_bench=PATH | --cases=FILE] [--filter=REGEX] [--out=FILE]
                     [--expert_rows=LIST | --context_from=FILE]
                     [--repetitions=R] [--gpu_warmup=S] [--max_warmup=S] [timing options]
                     [--list_kernels] [--dry-run] [-- GEMM_BENCH_FLAGS...]

Cases come from `gemm_bench --benchmark_list_tests GEMM_BENCH_FLAGS...` (or one name a line in
FILE); the peer keeps those peers/torch_gemm.py's docstring lists (with the call each is timed
with, and the cases it leaves out, FP8Current's and FP8Block's grouped ones among them, and why)
and leaves every other out.
--dry-run prints the groups, each case's operands (and a grouped case's rows per expert) and its
call, without importing torch. How cases are timed: peers/timing.py's docstring.
"""
import os
import sys

# The package sits beside this script: on the path when Python runs the script, not when it is
# loaded by path (runpy.run_path, importlib).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers.cli import main  # noqa: E402

if __name__ == "__main__":
    main(sys.argv[1:])
