"""A peer on the same data: times gemm_bench's BF16 `native` and FP8Current, FP8Block, FP8Rowwise
and FP8RowwiseBF16Wgrad `prequant` GEMM cases, dense and (BF16 and FP8Rowwise's) grouped, with
PyTorch under gemm_bench's timing rules, and writes Google Benchmark JSON with gemm_bench's case
names, so that Google Benchmark's compare.py and tools/run_diff.py put the two side by side:

    tools/torch_peer.py --out=torch.json -- --model=llama3-8b
    compare.py benchmarks torch.json gemmscope.json

    # Expert (grouped) cases need the routed rows per expert of a gemm_bench run of the same flags:
    gemm_bench --model=deepseek-v3 --benchmark_filter='^BF16/.*/expert_' \\
        --benchmark_out=gemmscope.json --benchmark_out_format=json
    tools/torch_peer.py --context_from=gemmscope.json --filter='^BF16/.*/expert_' \\
        --out=torch.json -- --model=deepseek-v3

The command is tools/torch_peer.py; its docstring has the usage. This module reads the flags and
the case names, then runs the peer on the GPU or, with --dry-run, says what it would run. The
flags, their checks and the case list it shares with the DeepGEMM peer (deepgemm_grouped.py)
are here too: split_bench_flags, peer_parser, check_peer_args, list_case_lines.
"""

import argparse
import re
import subprocess
import sys

from .cases import (PEER_MODES, attach_group_rows, expert_rows_from_context,
                    left_out_grouped_fp8, parse_expert_rows, select_cases)
from .runner import run
from .timing import add_timing_arguments, check_timing_arguments
from .torch_gemm import dry_run, with_expert_padding

PROG = "torch_peer"


def list_case_lines(args, bench_flags, prog):
    """The case names, one a line: --cases's file, or gemm_bench --benchmark_list_tests with
    `bench_flags`; SystemExit (after "`prog`: ") where gemm_bench cannot list them."""
    if args.cases:
        with open(args.cases) as f:
            return f.read().splitlines()
    command = [args.gemm_bench, "--benchmark_list_tests", *bench_flags]
    try:
        listed = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        sys.exit(f"{prog}: cannot run {args.gemm_bench} ({error}); build it or pass --cases")
    if listed.returncode != 0:
        sys.exit(f"{prog}: {' '.join(command)} exited {listed.returncode}:\n"
                 f"{listed.stderr.strip()}")
    return listed.stdout.splitlines()


def split_bench_flags(argv):
    """(the peer's flags, the flags after "--"): those go to gemm_bench --benchmark_list_tests
    (model flags)."""
    if "--" in argv:
        split = argv.index("--")
        return argv[:split], argv[split + 1:]
    return argv, []


def peer_parser(prog, description, out_default, dry_run_help, rows_help_prefix="",
                add_peer_arguments=None):
    """The flags a peer's command shares: the cases (--gemm_bench, --cases, --filter), the rows
    per expert (--context_from | --expert_rows, their help after `rows_help_prefix`), --out
    (default `out_default`), --repetitions, the timing rules' flags, --batch, the peer's own
    flags (add_peer_arguments(parser), where given), --list_kernels and --dry-run."""
    parser = argparse.ArgumentParser(
        prog=prog, description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gemm_bench", default="build/bench/gemm_bench",
                        help="gemm_bench whose --benchmark_list_tests names the cases "
                             "(default %(default)s)")
    parser.add_argument("--cases", help="read case names from this file instead, one a line")
    parser.add_argument("--filter", help="keep only cases whose name matches this regex")
    rows = parser.add_mutually_exclusive_group()
    rows.add_argument("--context_from", metavar="FILE",
                      help=rows_help_prefix + "take the rows per expert from this gemm_bench "
                           "JSON's context (expert_rows), a run of the same model flags")
    rows.add_argument("--expert_rows", metavar="LIST",
                      help=rows_help_prefix + "the rows per expert of the rank timed, "
                           "comma-separated (gemm_bench's context expert_rows)")
    parser.add_argument("--out", default=out_default,
                        help="Google Benchmark JSON to write (default %(default)s)")
    parser.add_argument("--repetitions", type=int, default=1,
                        help="runs of each group (settling and sampling); 2 or more adds "
                             "median/mean/stddev/cv aggregates")
    add_timing_arguments(parser)
    parser.add_argument("--batch", type=int, default=8,
                        help="samples enqueued before each synchronization, rounded up to "
                             "whole rounds of the group (default 8)")
    if add_peer_arguments is not None:
        add_peer_arguments(parser)
    parser.add_argument("--list_kernels", action="store_true",
                        help="print the kernels of each case (name, median duration) to stderr, "
                             "as gemm_bench --list_kernels does")
    parser.add_argument("--dry-run", action="store_true", help=dry_run_help)
    return parser


def check_peer_args(parser, args, bench_flags, prog):
    """peer_parser's flags checked (parser.error where they are wrong) and the rows per expert
    read: args.expert_rows a tuple or None, args.expert_rows_from where they came from."""
    if args.cases and bench_flags:
        parser.error("flags after -- go to gemm_bench, which --cases does not run")
    if args.repetitions < 1 or args.batch < 1:
        parser.error("--repetitions and --batch must be at least 1")
    check_timing_arguments(parser, args)
    if args.filter:
        try:
            re.compile(args.filter)
        except re.error as error:
            parser.error(f"--filter: {error}")
    if args.expert_rows is not None:
        try:
            args.expert_rows = parse_expert_rows(args.expert_rows)
        except ValueError as error:
            parser.error(f"--expert_rows: {error}")
        args.expert_rows_from = "--expert_rows"
    elif args.context_from:
        args.expert_rows = expert_rows_from_context(args.context_from, bench_flags, prog)
        args.expert_rows_from = args.context_from
    else:
        args.expert_rows_from = None


def parse_args(argv):
    argv, bench_flags = split_bench_flags(argv)
    parser = peer_parser("torch_peer.py", __doc__.split("\n\n")[0], "torch.json",
                         "print the groups and each case's operands and call; torch is not "
                         "imported", rows_help_prefix="grouped cases: ")
    args = parser.parse_args(argv)
    check_peer_args(parser, args, bench_flags, PROG)
    return args, bench_flags


def main(argv):
    args, bench_flags = parse_args(argv)
    lines = list_case_lines(args, bench_flags, PROG)
    left_out = left_out_grouped_fp8(lines, args.filter)
    if left_out:
        print(f"torch_peer: {left_out} grouped FP8 case(s) left out: torch._scaled_grouped_mm "
              "has neither tensorwise nor 1x128/128x128 scaling (the script's docstring says "
              "more)", file=sys.stderr)
    cases = select_cases(lines, args.filter)
    grouped = sum(1 for case in cases if case.grouped)
    if grouped and args.expert_rows is None:
        print(f"torch_peer: {grouped} grouped case(s) left out: they need gemm_bench's rows per "
              "expert, which --benchmark_list_tests does not print; pass --context_from=FILE (a "
              "gemm_bench JSON of the same model flags) or --expert_rows=LIST", file=sys.stderr)
        cases = [case for case in cases if not case.grouped]
    try:
        cases = attach_group_rows(cases, args.expert_rows)
    except ValueError as error:
        sys.exit(f"torch_peer: {error}")
    if not cases:
        taken = [f"{precision} {mode}" for precision, mode in PEER_MODES.items()]
        sys.exit(f"torch_peer: no {', '.join(taken[:-1])} or {taken[-1]} GEMM case matched")
    cases = [with_expert_padding(case) for case in cases]
    if args.dry_run:
        dry_run(cases, args)
    else:
        run(cases, args)
