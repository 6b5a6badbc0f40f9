#pragma once
// Refusal tests check what the user reads: the message of the std::invalid_argument thrown.

#include <gtest/gtest.h>

#include <exception>
#include <stdexcept>
#include <string>

namespace gemmscope::testing {

// The message of the std::invalid_argument `callable` throws; records a test failure (and
// returns "") when it throws nothing or something else.
template <typename Callable>
std::string invalid_argument_message(Callable&& callable) {
  try {
    callable();
  } catch (const std::invalid_argument& error) {
    return error.what();
  } catch (const std::exception& error) {
    ADD_FAILURE() << "expected std::invalid_argument, got another exception: " << error.what();
    return "";
  }
  ADD_FAILURE() << "expected std::invalid_argument, nothing was thrown";
  return "";
}

}  // namespace gemmscope::testing
