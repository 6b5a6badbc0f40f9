#include "tools/report/case_tokens.h"

namespace gemmscope::report {

std::string_view precision_name(Precision precision) {
  switch (precision) {
    case Precision::kBF16:
      return "BF16";
    case Precision::kFP8Current:
      return "FP8Current";
    case Precision::kFP8Delayed:
      return "FP8Delayed";
    case Precision::kFP8Block:
      return "FP8Block";
    case Precision::kFP8Rowwise:
      return "FP8Rowwise";
    case Precision::kFP8RowwiseBF16Wgrad:
      return "FP8RowwiseBF16Wgrad";
    case Precision::kMXFP8:
      return "MXFP8";
    case Precision::kNVFP4:
      return "NVFP4";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view token) {
  for (Precision precision : kPrecisions) {
    if (precision_name(precision) == token)
      return precision;
  }
  return std::nullopt;
}

std::optional<Pass> parse_pass(std::string_view token) {
  for (Pass pass : kPasses) {
    if (pass_name(pass) == token)
      return pass;
  }
  return std::nullopt;
}

std::optional<Mode> parse_mode(std::string_view token) {
  for (Mode mode : {Mode::kNative, Mode::kStep, Mode::kAutocast, Mode::kPrequant}) {
    if (mode_name(mode) == token)
      return mode;
  }
  return std::nullopt;
}

}  // namespace gemmscope::report
