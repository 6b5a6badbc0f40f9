"""The peers: gemm_bench's cases timed with other libraries under gemm_bench's timing rules,
written as Google Benchmark JSON with gemm_bench's case names, so that compare.py and
tools/run_diff.py put the two side by side (the command is tools/torch_peer.py); the same for
gemm_bench's FP8Block expert cases with DeepGEMM's m-grouped kernel (tools/deepgemm_peer.py); and
a real trainer's step beside gemm_bench's step sums (tools/trainer_peer.py).

- cases.py: gemm_bench's case names, the ones a peer takes (and those it leaves out, and why),
  the rows per expert of grouped cases, gemm_bench's groups
- timing.py: gemm_bench's timing rules (warm-up, settling, round-robin sampling, stopping, sample
  statistics), the one copy in Python; tests/tools/fixtures/timing_rules.json holds inputs on
  which they and bench/timing/ must agree
- nvml_monitor.py: the SM clock, power and clock-event readings the rules decide from
- benchmark_json.py: Google Benchmark's JSON entries and aggregates, and the printed table
- runner.py: a run on the GPU: warm-up, then each group prepared and timed, the JSON written;
  the library that makes each case's GEMM is a Peer (torch's by default)
- torch_gemm.py: the torch GEMM peer (torch.matmul, torch._scaled_mm, block-scaled scaled_mm,
  torch._grouped_mm, torch._scaled_grouped_mm): which cases, with which call, on which operands
- cli.py: the torch peer's command line, and the flags, their checks and the case list both
  peers' commands share
- trainer_step.py: a real trainer's step (torch's nn.Linear, torchao's Float8Linear compiled with
  its tensorwise, rowwise and rowwise_with_gw_hp recipes, and Float8BlockwiseLinear) on a
  gemm_bench run's ops, beside its step sums, and its command line
- deepgemm_grouped.py: the DeepGEMM peer (deep_gemm.m_grouped_gemm_fp8_fp8_bf16_nt_contiguous on
  FP8Block prequant expert Fprop and Dgrad cases, each expert padded to 128 rows): its cases,
  operands, launch, command line and --compare table

Nothing imports torch (or deep_gemm) before a run starts: --dry-run and the tests run without
it.
"""
