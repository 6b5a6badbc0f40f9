#include "tools/report/case_name.h"

#include <algorithm>
#include <array>
#include <vector>

#include "tools/report/integer_text.h"

namespace gemmscope::report {
namespace {

std::vector<std::string_view> split_path(std::string_view name) {
  std::vector<std::string_view> tokens;
  size_t start = 0;
  while (true) {
    const size_t slash = name.find('/', start);
    tokens.push_back(name.substr(start, slash - start));
    if (slash == std::string_view::npos)
      return tokens;
    start = slash + 1;
  }
}

// "M:4096" with prefix "M:" -> 4096; nullopt unless a positive integer follows the prefix.
std::optional<int64_t> parse_dimension(std::string_view token, std::string_view prefix) {
  if (token.substr(0, prefix.size()) != prefix)
    return std::nullopt;
  const std::optional<int64_t> value = parse_non_negative(token.substr(prefix.size()));
  if (!value || *value == 0)
    return std::nullopt;
  return value;
}

// What Google Benchmark itself appends to a registered name (time mode, repetitions, ...).
bool is_benchmark_suffix(std::string_view token) {
  static constexpr std::array<std::string_view, 3> kFlags = {"manual_time", "real_time",
                                                             "process_time"};
  static constexpr std::array<std::string_view, 5> kPrefixes = {
      "repeats:", "iterations:", "min_time:", "min_warmup_time:", "threads:"};
  if (std::find(kFlags.begin(), kFlags.end(), token) != kFlags.end())
    return true;
  return std::any_of(kPrefixes.begin(), kPrefixes.end(), [token](std::string_view prefix) {
    return token.size() > prefix.size() && token.substr(0, prefix.size()) == prefix;
  });
}

ParsedName unparseable(std::string problem) {
  ParsedName parsed;
  parsed.problem = std::move(problem);
  return parsed;
}

std::string quoted(std::string_view token) {
  return "'" + std::string(token) + "'";
}

// Checks the tokens after the last field of a case are Google Benchmark's own suffixes.
std::optional<std::string> trailing_problem(const std::vector<std::string_view>& tokens,
                                            size_t first_suffix) {
  for (size_t i = first_suffix; i < tokens.size(); ++i) {
    if (!is_benchmark_suffix(tokens[i]))
      return "unexpected field " + quoted(tokens[i]);
  }
  return std::nullopt;
}

ParsedName parse_quantize_case(const std::vector<std::string_view>& tokens) {
  // {Precision}/Quantize/{operand}/{layout}[/G:{g}]/R:{r}/C:{c}
  const size_t rows = tokens.size() > 4 && tokens[4].substr(0, 2) == "G:" ? 5 : 4;
  if (rows == 5 && !parse_dimension(tokens[4], "G:"))
    return unparseable("expected G:{groups} with a positive integer, got " + quoted(tokens[4]));
  if (tokens.size() < rows + 2 || !parse_dimension(tokens[rows], "R:") ||
      !parse_dimension(tokens[rows + 1], "C:")) {
    return unparseable("quantization case without R:{rows}/C:{cols}");
  }
  if (auto problem = trailing_problem(tokens, rows + 2))
    return unparseable(*problem);
  ParsedName parsed;
  parsed.kind = ParsedName::Kind::kQuantize;
  return parsed;
}

}  // namespace

std::string GemmCase::key() const {
  std::string key(precision_name(precision));
  key += "/";
  key += pass_name(pass);
  key += "/" + op + "/";
  key += mode_name(mode);
  return key;
}

std::string GemmCase::name() const {
  const std::string group_field = groups ? "/G:" + std::to_string(*groups) : "";
  return key() + group_field + "/M:" + std::to_string(shape.m) + "/K:" + std::to_string(shape.k) +
         "/N:" + std::to_string(shape.n);
}

std::string size_text(const GemmShape& shape, std::optional<int64_t> groups) {
  return (groups ? "G:" + std::to_string(*groups) + " " : "") + to_string(shape);
}

bool is_model_op(std::string_view op) {
  return std::find(kLayerOps.begin(), kLayerOps.end(), op) != kLayerOps.end();
}

std::optional<int64_t> shapes_gemm_index(std::string_view op) {
  constexpr std::string_view kPrefix = "gemm";
  if (op.substr(0, kPrefix.size()) != kPrefix)
    return std::nullopt;
  const std::string_view digits = op.substr(kPrefix.size());
  if (digits.size() > 1 && digits[0] == '0')
    return std::nullopt;  // "gemm01" is not a name gemm_bench writes
  return parse_non_negative(digits);
}

ParsedName parse_case_name(std::string_view name) {
  const std::vector<std::string_view> tokens = split_path(name);
  const std::optional<Precision> precision = parse_precision(tokens[0]);
  if (!precision)
    return unparseable("unknown precision " + quoted(tokens[0]));
  if (tokens.size() >= 2 && tokens[1] == "Quantize")
    return parse_quantize_case(tokens);
  if (tokens.size() < 7)
    return unparseable("fewer fields than {Precision}/{Pass}/{op}/{mode}/M/K/N");

  GemmCase gemm;
  gemm.precision = *precision;
  const std::optional<Pass> pass = parse_pass(tokens[1]);
  if (!pass)
    return unparseable("unknown pass " + quoted(tokens[1]));
  gemm.pass = *pass;
  gemm.op = std::string(tokens[2]);
  if (!is_model_op(gemm.op) && !shapes_gemm_index(gemm.op)) {
    return unparseable("unknown op " + quoted(tokens[2]));
  }
  const std::optional<Mode> mode = parse_mode(tokens[3]);
  if (!mode)
    return unparseable("unknown mode " + quoted(tokens[3]));
  gemm.mode = *mode;
  if ((gemm.precision == Precision::kBF16) != (gemm.mode == Mode::kNative)) {
    return unparseable("mode 'native' is BF16's only mode, got " + quoted(tokens[0]) + " with " +
                       quoted(tokens[3]));
  }
  // A grouped GEMM's group count comes before its sizes; every other op has none, so that a
  // name can never be read as the wrong kind of GEMM.
  size_t sizes = 4;
  const bool has_groups = tokens[4].substr(0, 2) == "G:";
  if (is_grouped_op(gemm.op)) {
    if (!has_groups) {
      return unparseable("grouped op " + quoted(tokens[2]) + " needs G:{groups} before M:{m}");
    }
    gemm.groups = parse_dimension(tokens[4], "G:");
    if (!gemm.groups) {
      return unparseable("expected G:{groups} with a positive integer, got " + quoted(tokens[4]));
    }
    sizes = 5;
    if (tokens.size() < sizes + 3)
      return unparseable("fewer fields than {Precision}/{Pass}/{op}/{mode}/G/M/K/N");
  } else if (has_groups) {
    return unparseable(quoted(tokens[4]) + " on op " + quoted(tokens[2]) +
                       ": only grouped ops (expert_up, expert_down) have G:{groups}");
  }
  const std::optional<int64_t> m = parse_dimension(tokens[sizes], "M:");
  const std::optional<int64_t> k = parse_dimension(tokens[sizes + 1], "K:");
  const std::optional<int64_t> n = parse_dimension(tokens[sizes + 2], "N:");
  if (!m || !k || !n)
    return unparseable("expected M:{m}/K:{k}/N:{n} with positive integers");
  gemm.shape = GemmShape{*m, *k, *n};
  if (auto problem = trailing_problem(tokens, sizes + 3))
    return unparseable(*problem);

  ParsedName parsed;
  parsed.kind = ParsedName::Kind::kGemm;
  parsed.gemm = std::move(gemm);
  return parsed;
}

}  // namespace gemmscope::report
