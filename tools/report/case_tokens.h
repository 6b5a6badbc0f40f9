#pragma once

// The vocabulary of gemmscope case names ({Precision}/{Pass}/{op}/{mode}/...), each list in
// its display order. Everything in the report that iterates precisions, passes, ops or modes
// takes the order from here.

#include <array>
#include <optional>
#include <string_view>

#include "shapes/case_mode.h"
#include "shapes/gemm_shape.h"
#include "shapes/layer_gemms.h"

namespace gemmscope::report {

// kFP8RowwiseBF16Wgrad is torchao's rowwise_with_gw_hp: FP8Rowwise with a BF16 Wgrad. Tokens are
// matched whole (parse_precision), so neither name is read as the other.
enum class Precision {
  kBF16,
  kFP8Current,
  kFP8Delayed,
  kFP8Block,
  kFP8Rowwise,
  kFP8RowwiseBF16Wgrad,
  kMXFP8,
  kNVFP4
};
inline constexpr std::array<Precision, 8> kPrecisions = {
    Precision::kBF16,     Precision::kFP8Current, Precision::kFP8Delayed,
    Precision::kFP8Block, Precision::kFP8Rowwise, Precision::kFP8RowwiseBF16Wgrad,
    Precision::kMXFP8,    Precision::kNVFP4};

// Pass and pass_name() are shapes/'s (gemm_shape.h), the same tokens gemm_bench writes.
inline constexpr std::array<Pass, 3> kPasses = {Pass::kFprop, Pass::kDgrad, Pass::kWgrad};

// Mode and mode_name() are shapes/'s too (case_mode.h). kNative is BF16's only mode; it is the
// baseline of every quantized mode. step, what a training step pays, is the headline: first.
inline constexpr std::array<Mode, 3> kQuantizedModes = {Mode::kStep, Mode::kAutocast,
                                                        Mode::kPrequant};

// The ops of a model run are shapes/'s kLayerOps (layer_gemms.h), in report order, and
// is_grouped_op() says which of them carry G:{groups}: gemm_bench registers what shapes/ derives,
// so the report reads the same vocabulary. --shapes runs name their GEMMs gemm0, gemm1...

std::string_view precision_name(Precision precision);

std::optional<Precision> parse_precision(std::string_view token);
std::optional<Pass> parse_pass(std::string_view token);
std::optional<Mode> parse_mode(std::string_view token);

}  // namespace gemmscope::report
