#!/usr/bin/env python3
"""A real trainer's step beside gemm_bench's: tools/peers/trainer_step.py.

    build/bench/gemm_bench --benchmark_out=gemmscope.json --benchmark_out_format=json
    tools/trainer_peer.py --steps_from=gemmscope.json --out=trainer.json
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peers.trainer_step import main  # noqa: E402

if __name__ == "__main__":
    main(sys.argv[1:])
