#pragma once

// How the report writes numbers: fixed decimals for people, shortest round-trip for CSV.

#include <string>

namespace gemmscope::report {

std::string format_ms(double ms);            // "1.071"
std::string format_speedup(double speedup);  // "1.39x"
std::string format_tflops(double tflops);    // "777.3"
std::string format_mean(double mean);        // "255.9": a mean of whole counts
std::string format_exact(double value);      // the shortest text that reads back as value

}  // namespace gemmscope::report
