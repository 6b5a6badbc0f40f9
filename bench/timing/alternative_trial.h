#pragma once
// Chooses between the alternatives of a group's members (timed_work.h: the implementations and
// configurations that --grouped=auto and --provider=auto leave to timing) by timing them where
// the choice matters: in the group, at the clock its mix of work holds. While the group settles
// (steady_state_run.h), each member's samples cycle through its alternatives; once settling
// ends and every alternative has at least kMinSamples, each member keeps the alternative with
// the lowest median over its last kRecentSamples samples (the ones taken closest to the steady
// state). A burst right after a pause runs up to 10% faster and can rank kernels differently
// from the power cap, so the choice is never made from samples taken before the group ran.

#include <cstddef>
#include <vector>

#include "bench/timing/timed_work.h"

namespace gemmscope {

class AlternativeTrial {
 public:
  static constexpr size_t kMinSamples = 5;
  static constexpr size_t kRecentSamples = 15;

  // One entry per member of the group: how many alternatives its work has (1: nothing to
  // choose).
  explicit AlternativeTrial(std::vector<size_t> alternatives);

  // Whether any member has something to choose.
  bool needed() const;
  // The alternative `member`'s next sample runs: each in turn.
  size_t next(size_t member);
  // A reading that is not a finite, positive time is not a sample.
  void record(size_t member, size_t alternative, double seconds);
  // Whether every alternative of every member has kMinSamples samples.
  bool complete() const;
  // Each alternative's median over its last kRecentSamples samples (0 for one never sampled).
  std::vector<double> typical_seconds(size_t member) const;
  // The alternative with the lowest typical time (the first on a tie).
  size_t fastest(size_t member) const;

 private:
  std::vector<size_t> alternatives_;
  std::vector<size_t> next_;
  // samples_[member][alternative]: seconds in the order taken.
  std::vector<std::vector<std::vector<double>>> samples_;
};

}  // namespace gemmscope
