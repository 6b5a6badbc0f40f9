#pragma once

// Parsing of gemmscope benchmark names as Google Benchmark writes them:
//   {Precision}/{Pass}/{op}/{mode}/M:{m}/K:{k}/N:{n}[/manual_time ...]   (a GEMM case)
//   {Precision}/Quantize/{operand}/{layout}/R:{r}/C:{c}[/manual_time ...] (a quantization case)

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
  GemmShape shape;

  // "{Precision}/{Pass}/{op}/{mode}": what identifies a table cell (the shape does not).
  std::string key() const;
};

// True for the ops of a model run (qkv, attn_out, mlp_up, mlp_down).
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
