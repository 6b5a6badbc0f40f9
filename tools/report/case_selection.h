#pragma once

// Which cases, modes and precision columns a report section shows.

#include <string>
#include <vector>

#include "tools/report/case_results.h"
#include "tools/report/report_value.h"

namespace gemmscope::report {

// Model runs name their GEMMs by op (kLayerOps: qkv, attn_out, ...); --shapes runs gemm0, gemm1...
enum class Workload { kModel, kShapes };

std::vector<const CaseResult*> select_workload(const std::vector<CaseResult>& cases,
                                               Workload workload);

// The quantized modes that have cases; {kNative} when only BF16 was run.
std::vector<Mode> report_modes(const std::vector<const CaseResult*>& cases);

// The columns of one mode, in display order: BF16 (native) when present, then every
// precision with at least one case in `mode`. FP8Delayed has no prequant cases by design, so
// it simply has no prequant column.
std::vector<Precision> mode_columns(const std::vector<const CaseResult*>& cases, Mode mode);

// The case for one cell (BF16 is looked up in native mode), or nullptr.
const CaseResult* find_case(const std::vector<const CaseResult*>& cases, Precision precision,
                            Pass pass, const std::string& op, Mode mode);

// A cell's value from its case (nullptr: missing): its time with the emulated mark and the
// implementation that ran it, or n/a with the reason.
ReportValue cell_value(const CaseResult* result);

}  // namespace gemmscope::report
