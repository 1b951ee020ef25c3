#pragma once
// The one-line message a refused call gives, for unit tests of the checks that refuse bad input.
#include <gtest/gtest.h>

#include <string>

#include "npgpu/errors.hpp"

namespace npgpu::test {

template <typename Call>
std::string refusal(Call call) {
  try {
    call();
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    return message;
  }
  ADD_FAILURE() << "accepted";
  return {};
}

}  // namespace npgpu::test
