"""gemm_bench's case names as a peer reads them: one regex for every GEMM name, which cases the
torch peer takes (the modes it can reproduce), the selection both peers make (a filter, each case
once, what is left out and why), the rows per expert a grouped case needs (given, or from a
gemm_bench JSON's context) and the groups gemm_bench times the cases in."""

import dataclasses
import json
import re
import sys
from dataclasses import dataclass

# Any gemm_bench GEMM name, grouped (G:) or dense, of any precision: which ones a peer takes is
# its own choice (parse_case for the torch peer, deepgemm_grouped.py's classify).
GEMM_RE = re.compile(
    r"^(?P<precision>[^/]+)/(?P<pass_>Fprop|Dgrad|Wgrad)/(?P<op>[^/]+)/(?P<mode>[^/]+)"
    r"(?:/G:(?P<groups>\d+))?/M:(?P<m>\d+)/K:(?P<k>\d+)/N:(?P<n>\d+)(?:/manual_time)?$")
# BF16 is registered once as `native`; the FP8 recipes' `prequant` mode times the GEMM alone,
# which is what a peer can reproduce (their `autocast` quantization kernels are gemmscope's own).
PEER_MODES = {"BF16": "native", "FP8Current": "prequant", "FP8Block": "prequant",
              "FP8Rowwise": "prequant", "FP8RowwiseBF16Wgrad": "prequant"}
# Grouped cases torch has a matching kernel for (torch_gemm.py's docstring says why).
GROUPED_PRECISIONS = {"BF16", "FP8Rowwise", "FP8RowwiseBF16Wgrad"}


@dataclass(frozen=True)
class Case:
    name: str  # as gemm_bench reports it, ending in /manual_time
    precision: str
    gemm_pass: str
    m: int
    k: int
    n: int
    groups: int = 0  # G of a grouped (expert) case; 0 for a dense case
    group_rows: tuple = ()  # a grouped case's rows per expert (attach_group_rows)
    # Rows a peer adds to the routed rows to pad each expert as its kernel needs (timed, not
    # counted in TFLOPS; counter padded_rows): 0 for torch, each expert to 128 for DeepGEMM.
    padded_rows: int = 0

    @property
    def grouped(self):
        return self.groups > 0

    @property
    def group_key(self):
        """The group gemm_bench times the case with (bench/bench_session.h)."""
        return self.precision + ("/Experts" if self.grouped else "")

    @property
    def flops(self):
        return 2 * self.m * self.k * self.n

    def role_shape(self, role):
        """The row-major shape a training framework stores a tensor in, from the case's M, K, N
        (TransformerEngine's conventions: Fprop M=tokens K=in N=out; Dgrad M=tokens K=out N=in;
        Wgrad M=in K=tokens N=out). In a grouped case tokens are the routed rows of all experts,
        sorted by expert, and the weight is one [out, in] per expert: [G, out, in]."""
        tokens, in_features, out_features = {
            "Fprop": (self.m, self.k, self.n),
            "Dgrad": (self.m, self.n, self.k),
            "Wgrad": (self.k, self.m, self.n),
        }[self.gemm_pass]
        if role == "w":
            return ((self.groups,) if self.grouped else ()) + (out_features, in_features)
        return {"x": (tokens, in_features), "dy": (tokens, out_features)}[role]

    @property
    def routed_rows(self):
        """A grouped case's R, the rows of all experts: M, or K in Wgrad."""
        return self.k if self.gemm_pass == "Wgrad" else self.m


def reported_name(line):
    """A GEMM case's name as gemm_bench reports it, ending in /manual_time."""
    name = line.strip()
    return name if name.endswith("/manual_time") else name + "/manual_time"


def parse_case(line):
    """A Case for a gemm_bench name the torch peer can time, else None."""
    match = GEMM_RE.match(line.strip())
    if match is None or PEER_MODES.get(match["precision"]) != match["mode"]:
        return None
    groups = int(match["groups"]) if match["groups"] else 0
    if groups and match["precision"] not in GROUPED_PRECISIONS:
        return None
    return Case(reported_name(line), match["precision"], match["pass_"], int(match["m"]),
                int(match["k"]), int(match["n"]), groups)


def left_out_grouped_fp8(lines, filter_regex=None):
    """How many of `lines` are grouped FP8 `prequant` cases matching `filter_regex`, which torch
    cannot time with their recipe (torch_gemm.py's docstring says why)."""
    pattern = re.compile(filter_regex) if filter_regex else None
    return sum(1 for line in lines
               if (match := GEMM_RE.match(line.strip())) and match["groups"]
               and match["precision"] in PEER_MODES
               and match["precision"] not in GROUPED_PRECISIONS
               and PEER_MODES[match["precision"]] == match["mode"]
               and not (pattern and not pattern.search(match[0])))


def select_classified(lines, classify, filter_regex=None):
    """A peer's cases among `lines`, in order, once each, matching `filter_regex` (searched in
    the reported name, as --benchmark_filter does); and how many matching names it leaves out,
    by reason (in the order first met). classify(name) -> (Case, None) for a name the peer
    times, (None, reason) for one it leaves out and says why, (None, None) for the others."""
    pattern = re.compile(filter_regex) if filter_regex else None
    cases, seen, left_out = [], set(), {}
    for line in lines:
        name = line.strip()
        if GEMM_RE.match(name):
            name = reported_name(name)
        if pattern and not pattern.search(name):
            continue
        case, reason = classify(name)
        if reason:
            left_out[reason] = left_out.get(reason, 0) + 1
        if case is None or case.name in seen:
            continue
        seen.add(case.name)
        cases.append(case)
    return cases, left_out


def select_cases(lines, filter_regex=None):
    """The torch peer's cases among `lines` (select_classified with parse_case)."""
    return select_classified(lines, lambda name: (parse_case(name), None), filter_regex)[0]


def parse_expert_rows(text):
    """Rows per expert from "2048,2048,..." (gemm_bench's context `expert_rows`); ValueError
    unless they are non-negative integers, at least one positive."""
    try:
        rows = tuple(int(item) for item in text.split(","))
    except ValueError:
        raise ValueError(f"expected comma-separated rows per expert, got {text!r}") from None
    if min(rows) < 0 or max(rows) <= 0:
        raise ValueError(f"rows per expert must be non-negative, some positive: {text!r}")
    return rows


def routing_key(text):
    """gemm_bench's --routing value, comparable: "skewed" is "skewed:1", and "skewed:1.50" is
    "skewed:1.5", as gemm_bench's to_string writes them."""
    kind, _, alpha = text.partition(":")
    if kind != "skewed":
        return text
    try:
        return ("skewed", float(alpha) if alpha else 1.0)
    except ValueError:
        return text


def context_mismatches(context, bench_flags):
    """Where the workload flags after "--" disagree with a gemm_bench JSON's context (model,
    expert parallelism, routing): the rows per expert would then not be this workload's. No
    flags (cases from --cases): nothing to compare."""
    if not bench_flags:
        return []
    given = {}
    for flag in bench_flags:
        name, equals, value = flag.partition("=")
        if equals and name in ("--model", "--expert_parallel", "--routing"):
            given[name[2:]] = value
    given.setdefault("routing", "balanced (the default)")
    mismatches = []
    for key, value in given.items():
        recorded = context.get(key)
        same = (routing_key(value.split(" ")[0]) == routing_key(recorded)
                if key == "routing" and recorded else value == recorded)
        if recorded is not None and not same:
            mismatches.append(f"--{key}={value} but the run had {key} {recorded}")
    return mismatches


def expert_rows_from_context(path, bench_flags, prog="torch_peer"):
    """The rows per expert a gemm_bench JSON records in its context; SystemExit with the reason
    (after "`prog`: ") where it records none or was run with other workload flags than
    `bench_flags`."""
    try:
        with open(path) as f:
            context = json.load(f).get("context", {})
    except (OSError, ValueError) as error:
        sys.exit(f"{prog}: --context_from={path}: {error}")
    if not context.get("expert_rows"):
        sys.exit(f"{prog}: --context_from={path}: its context has no expert_rows "
                 "(a gemm_bench JSON of a mixture-of-experts model is needed)")
    mismatches = context_mismatches(context, bench_flags)
    if mismatches:
        sys.exit(f"{prog}: --context_from={path} is another workload: "
                 + "; ".join(mismatches))
    try:
        return parse_expert_rows(context["expert_rows"])
    except ValueError as error:
        sys.exit(f"{prog}: --context_from={path}: {error}")


def attach_group_rows(cases, expert_rows):
    """`cases` with each grouped case's rows per expert: the experts of `expert_rows` that got
    rows, in expert order (gemm_bench leaves the others out). ValueError naming every grouped
    case whose G or routed rows the rows do not give, or when there are grouped cases and no
    rows."""
    grouped = [case for case in cases if case.grouped]
    if not grouped:
        return cases
    if expert_rows is None:
        raise ValueError(
            f"{len(grouped)} grouped case(s) need gemm_bench's rows per expert, which "
            "--benchmark_list_tests does not print: pass --context_from=FILE (a gemm_bench JSON "
            "of the same model flags; its context's expert_rows) or --expert_rows=LIST, or "
            "leave them out")
    rows = tuple(r for r in expert_rows if r > 0)
    wrong = [f"{case.name} (G={case.groups}, {case.routed_rows} rows)" for case in grouped
             if case.groups != len(rows) or case.routed_rows != sum(rows)]
    if wrong:
        raise ValueError(f"the rows per expert given ({len(rows)} experts with rows, "
                         f"{sum(rows)} rows) are not those of " + ", ".join(wrong))
    return [dataclasses.replace(case, group_rows=rows) if case.grouped else case
            for case in cases]


def rows_text(rows):
    """Rows per expert, runs of equal counts folded: "2049 x3, 2048 x13"."""
    runs = []
    for r in rows:
        if runs and runs[-1][0] == r:
            runs[-1][1] += 1
        else:
            runs.append([r, 1])
    return ", ".join(f"{r} x{count}" if count > 1 else str(r) for r, count in runs)


def group_cases(cases):
    """gemm_bench's groups among the peer's cases: all dense cases of one precision, and apart
    from them all its grouped (expert) cases, in the order of their first case; each member with
    its family index (its place among all cases)."""
    groups = {}
    for family_index, case in enumerate(cases):
        groups.setdefault(case.group_key, []).append((family_index, case))
    return list(groups.values())


def group_heading(number, members):
    """--dry-run's line for group `number` (1 up) of group_cases."""
    return (f"group {number}: {members[0][1].group_key}, {len(members)} case(s), prepared "
            "together and timed round-robin (split if they do not fit in GPU memory)")
