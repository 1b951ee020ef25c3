#pragma once
// A list of words as one piece of text: console lines, report lines, record attributes.
#include <string>
#include <string_view>
#include <vector>

namespace npgpu {

// The words with `separator` between them: {"a", "b"} and ", " give "a, b"; none give "".
inline std::string joined(const std::vector<std::string>& words, std::string_view separator) {
  std::string text;
  for (const std::string& word : words) {
    if (!text.empty()) text += separator;
    text += word;
  }
  return text;
}

}  // namespace npgpu
