#pragma once

// Parsing of gemmscope benchmark names as Google Benchmark writes them:
//   {Precision}/{Pass}/{op}/{mode}/M:{m}/K:{k}/N:{n}[/manual_time ...]   (a GEMM case)
//   {Precision}/{Pass}/{op}/{mode}/G:{g}/M:{m}/K:{k}/N:{n}[/...]        (a grouped GEMM case)
//   {Precision}/Quantize/{operand}/{layout}/R:{r}/C:{c}[/manual_time ...] (a quantization case)
// G (the groups: experts of the timed rank with rows) is required on the grouped ops
// (is_grouped_op: expert_up, expert_down) and refused on every other op.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tools/report/case_tokens.h"

namespace gemmscope::report {

struct GemmCase {
  Precision precision = Precision::kBF16;
  Pass pass = Pass::kFprop;
  std::string op;
  Mode mode = Mode::kNative;
  std::optional<int64_t> groups;  // G:{groups}, set exactly when is_grouped_op(op)
  GemmShape shape;

  // "{Precision}/{Pass}/{op}/{mode}": what identifies a table cell (the shape does not).
  std::string key() const;
  // The name gemm_bench registers, without Google Benchmark's suffixes; it parses back to this
  // case.
  std::string name() const;
};

// "MxKxN", or "G:{g} MxKxN" for a grouped GEMM: a case's size as the report prints it.
std::string size_text(const GemmShape& shape, std::optional<int64_t> groups);

// True for the ops of a model run (kLayerOps: qkv, q_a, ..., expert_down).
bool is_model_op(std::string_view op);
// The position i of a --shapes run's "gemm{i}", or nullopt for any other op.
std::optional<int64_t> shapes_gemm_index(std::string_view op);

struct ParsedName {
  enum class Kind { kGemm, kQuantize, kUnparseable };
  Kind kind = Kind::kUnparseable;
  GemmCase gemm;        // set when kind == kGemm
  std::string problem;  // set when kind == kUnparseable: what is wrong with the name
};

ParsedName parse_case_name(std::string_view name);

}  // namespace gemmscope::report
