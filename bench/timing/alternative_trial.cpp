#include "bench/timing/alternative_trial.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gemmscope {
namespace {

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle),
                   values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1)
    return upper;
  return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle)) +
          upper) /
         2;
}

// A time a sample can have: finite and positive.
bool is_time(double seconds) {
  return std::isfinite(seconds) && seconds > 0;
}

}  // namespace

AlternativeTrial::AlternativeTrial(std::vector<size_t> alternatives)
    : alternatives_(std::move(alternatives)), next_(alternatives_.size(), 0) {
  for (const size_t count : alternatives_) {
    if (count == 0)
      throw std::invalid_argument("AlternativeTrial: a member has no alternative to run");
    samples_.emplace_back(count);
  }
}

bool AlternativeTrial::needed() const {
  return std::any_of(alternatives_.begin(), alternatives_.end(),
                     [](size_t count) { return count > 1; });
}

size_t AlternativeTrial::next(size_t member) {
  const size_t alternative = next_.at(member);
  next_[member] = (alternative + 1) % alternatives_[member];
  return alternative;
}

void AlternativeTrial::record(size_t member, size_t alternative, double seconds) {
  std::vector<double>& samples = samples_.at(member).at(alternative);
  // A reading that is no time (a failed timer's NaN, zero) would order nothing in a median.
  if (is_time(seconds))
    samples.push_back(seconds);
}

bool AlternativeTrial::complete() const {
  for (size_t member = 0; member < samples_.size(); ++member) {
    if (alternatives_[member] == 1)
      continue;
    for (const std::vector<double>& samples : samples_[member]) {
      if (samples.size() < kMinSamples)
        return false;
    }
  }
  return true;
}

std::vector<double> AlternativeTrial::typical_seconds(size_t member) const {
  std::vector<double> typical;
  for (const std::vector<double>& samples : samples_.at(member)) {
    const size_t recent = std::min(samples.size(), kRecentSamples);
    typical.push_back(median(
        std::vector<double>(samples.end() - static_cast<std::ptrdiff_t>(recent), samples.end())));
  }
  return typical;
}

size_t AlternativeTrial::fastest(size_t member) const {
  const std::vector<double> typical = typical_seconds(member);
  size_t best = 0;
  for (size_t a = 1; a < typical.size(); ++a) {
    if (is_time(typical[a]) && (!is_time(typical[best]) || typical[a] < typical[best]))
      best = a;
  }
  return best;
}

}  // namespace gemmscope
