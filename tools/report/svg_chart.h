#pragma once

// The model run as a chart, after TransformerEngine's model-config plot: one stacked bar per
// precision and mode (per-layer ms; for each op a Fprop + Dgrad segment and a Wgrad segment),
// each bar labelled with its speedup over BF16. Hand-written SVG, valid XML.

#include <string>

#include "tools/report/report.h"

namespace gemmscope::report {

// Throws std::invalid_argument when the report has no model-run cases to draw.
std::string render_svg_chart(const Report& report);

}  // namespace gemmscope::report
