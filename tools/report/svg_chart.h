#pragma once

// The model run as a chart, after TransformerEngine's model-config plot: one stacked bar per
// precision and mode (per-layer ms; for each op a Fprop + Dgrad segment and a Wgrad segment),
// each bar labelled with its speedup over BF16; the top of each step and autocast bar hatched for
// what quantizing costs (the bar less the same GEMMs prequant). A model whose layers differ in
// kind (dense and MoE) has no one layer: its bars are the whole model (each segment an op's time
// x its layers), labelled also with one layer of each kind. Hand-written SVG, valid XML.

#include <string>

#include "tools/report/report.h"

namespace gemmscope::report {

// Throws std::invalid_argument when the report has no model-run cases to draw.
std::string render_svg_chart(const Report& report);

}  // namespace gemmscope::report
